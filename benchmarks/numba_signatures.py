"""Which numba kernels compile more than one signature: run tests in-process, then list them.

Each extra signature of a kernel is a second cold compilation (seconds for the retrieval
kernels) in every fresh process, and the test suite starts many (xdist workers, CLI
subprocesses). The retrieval and index modules bring their arguments to one dtype at the Python
boundary so that each kernel compiles once; this tool finds the kernels where that does not hold.

Usage (other arguments go to pytest; without a test path, the retrieval and index tests)::

    PYTHONPATH=src python benchmarks/numba_signatures.py [--all] [--json FILE] [PYTEST ARGS...]

It runs pytest in this process (``-n 0``, so that the kernels compiled are the ones it can
see), then walks every numba dispatcher defined in a ``tiebreak`` module and prints, for each
that compiled more than one signature (every one with ``--all``), the count and the signatures.
The last line is ``dispatchers: N compiled, M with more than one signature``. Exit status is
pytest's.
"""

from __future__ import annotations

import argparse
import json
import sys

DEFAULT_TESTS = [
    "tests/test_retrieval.py", "tests/test_retrieval_models.py", "tests/test_retrieval_configs.py",
    "tests/test_retrieval_collections.py", "tests/test_retrieval_he2011.py",
    "tests/test_retrieval_prf.py", "tests/test_retrieval_termpairs.py", "tests/test_index.py",
    "tests/test_index_integrity.py", "tests/test_integrity_index.py", "tests/test_shards.py",
    "tests/test_sharded.py", "tests/test_saat.py", "tests/test_pruning.py",
    "tests/test_onequery.py", "tests/test_proximity.py", "tests/test_proximity_pruning.py",
    "tests/test_proximity_rerank.py", "tests/test_intervals.py",
    "tests/test_intervals_multipass.py", "tests/test_dependency.py",
    "tests/test_dependency_exact.py", "tests/test_wsdm_learn.py", "tests/test_testcollections.py",
]


def dispatchers() -> list[tuple[str, object]]:
    """Every live numba dispatcher whose Python function is defined in a ``tiebreak`` module
    (module level, or built inside a function and kept in a dict or closure), as
    (``module.qualname``, dispatcher), sorted by name. A name listed twice is a kernel built
    anew by each call of its factory (each instance compiles, or loads from the cache, again)."""
    import gc

    from numba.core.dispatcher import Dispatcher

    found = []
    for obj in gc.get_objects():
        if isinstance(obj, Dispatcher):
            fn = obj.py_func
            mod = getattr(fn, "__module__", "") or ""
            if mod.startswith("tiebreak"):
                found.append((f"{mod}.{fn.__qualname__}", obj))
    return sorted(found, key=lambda t: t[0])


def report(show_all: bool = False) -> dict[str, list[str]]:
    """Print the compiled dispatchers (only those with more than one signature unless
    ``show_all``) and return {name: [signature, ...]} for every compiled one."""
    out: dict[str, list[str]] = {}
    for name, d in dispatchers():
        sigs = [", ".join(str(t) for t in s) for s in d.signatures]
        if sigs:
            if name in out:  # another instance of the same kernel
                sigs = out[name] + [s for s in sigs if s not in out[name]]
            out[name] = sigs
    multi = {k: v for k, v in out.items() if len(v) > 1}
    for name, sigs in out.items():
        if show_all or len(sigs) > 1:
            print(f"{len(sigs):3d}  {name}")
            for s in sigs:
                print(f"       ({s})")
    print(f"dispatchers: {len(out)} compiled, {len(multi)} with more than one signature")
    return out


class _Plugin:
    def __init__(self, show_all: bool) -> None:
        self.show_all = show_all
        self.result: dict[str, list[str]] = {}

    def pytest_sessionfinish(self, session, exitstatus):
        print()
        self.result = report(self.show_all)


def main(argv: list[str] | None = None) -> int:
    import pytest

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--all", action="store_true", help="list every compiled dispatcher")
    ap.add_argument("--json", help="write {dispatcher: [signatures]} to this file")
    args, rest = ap.parse_known_args(argv)
    plugin = _Plugin(args.all)
    files = [a for a in rest if not a.startswith("-")]   # pytest options alone: default tests
    code = pytest.main(["-q", "-n", "0", "-p", "no:cacheprovider", *rest,
                        *([] if files else DEFAULT_TESTS)], plugins=[plugin])
    if args.json:
        with open(args.json, "w") as f:
            json.dump(plugin.result, f, indent=1, sort_keys=True)
    return int(code)


if __name__ == "__main__":
    sys.exit(main())
