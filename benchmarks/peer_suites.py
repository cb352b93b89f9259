"""Run each peer's own test suite against tiebreak's drop-in module.

For each peer (ir_measures, pytrec_eval, ranx) the suite's files are taken from a git mirror
of the peer's repository at a pinned commit, written to a temporary directory with a
``conftest.py`` that puts the tiebreak module in ``sys.modules`` under the peer's name, and run
with pytest. Each test is counted as passed, failed, or not applicable (a test of the peer's
provider selection, of its own internals, a network download, or one that does not pass on
the installed peer itself, which is run first as the baseline).

    PYTHONPATH=src python benchmarks/peer_suites.py [--peer ir_measures] [-v]

The mirrors are ``git clone --mirror`` copies (``--mirrors DIR`` holds ``OWNER+NAME/repo``).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

MIRRORS = Path("/work/.mirror")

#: peer -> (mirror, pinned commit, files or folders to take, module aliased, tiebreak module)
PEERS = {
    "ir_measures": ("terrierteam+ir_measures", "dc04a88f49b181a4fc5e7a35e4410735ea4470bd",
                    ["tests"], "ir_measures", "tiebreak.compat.ir_measures"),
    "pytrec_eval": ("cvangysel+pytrec_eval", "0d8571efc2dea5a792358410d5affbe0ad383602",
                    ["tests/pytrec_eval_tests.py"], "pytrec_eval",
                    "tiebreak.compat.pytrec_eval"),
    "ranx": ("AmenRa+ranx", "2cae52f00c2c15136a07d573027744109792604d",
             ["tests/unit"], "ranx", "tiebreak.compat.ranx"),
}

#: Tests that do not apply to a drop-in, by peer: (regex over the test id, reason).
NOT_APPLICABLE = {
    "ir_measures": [
        (r"\btest_providers\b", "provider selection and each provider's own availability"),
        (r"\btest_(cwl_eval|gdeval|pyndeval|ranx)\b",
         "a named provider's own test (cwl_eval, gdeval, pyndeval, ranx): providers tiebreak "
         "does not name (one implementation per measure)"),
        (r"\btest_util\b.*.*(ir_datasets|irds|pandas_.*provider)", "ir_datasets download"),
    ],
    "pytrec_eval": [],
    "ranx": [
        (r"\bfusion\b.*::test_.*(optimize|train)", "fusion weight optimisation"),
        (r"\bnormalization\b", "ranx's score normalisations (a fusion internal)"),
        (r"statistical_tests", "ranx's statistical tests"),
    ],
}

CONFTEST = '''
import sys, importlib
sys.modules[{alias!r}] = importlib.import_module({module!r})
for sub in {subs!r}:  # the peer's submodules the tests import from: the same module
    sys.modules[{alias!r} + "." + sub] = sys.modules[{alias!r}]
for sub, attr in {attrs!r}.items():  # ... or an object of it
    sys.modules[{alias!r} + "." + sub] = getattr(sys.modules[{alias!r}], attr)
'''
#: submodules of each peer that its tests import names from
SUBMODULES = {"ir_measures": ["measures"], "pytrec_eval": [],
              "ranx": ["data_structures", "data_structures.qrels", "data_structures.run"]}
#: attributes of the tiebreak module that stand for a peer's submodule
SUBMODULE_ATTRS = {"ranx": {"fusion": "fusion"}}


def extract(peer: str, dest: Path, itself: bool) -> Path:
    mirror, commit, paths, alias, module = PEERS[peer]
    git = MIRRORS / mirror / "repo"
    root = dest / peer
    root.mkdir(parents=True)
    files = subprocess.run(["git", "-C", str(git), "ls-tree", "-r", "--name-only", commit,
                            *paths], check=True, capture_output=True, text=True).stdout.split()
    for f in files:
        out = root / f
        out.parent.mkdir(parents=True, exist_ok=True)
        blob = subprocess.run(["git", "-C", str(git), "show", f"{commit}:{f}"],
                              capture_output=True)
        if blob.returncode == 0:  # a snapshot may list a large file it does not hold
            out.write_bytes(blob.stdout)
    if not itself:
        (root / "conftest.py").write_text(CONFTEST.format(alias=alias, module=module,
                                                          subs=SUBMODULES[peer],
                                                          attrs=SUBMODULE_ATTRS.get(peer, {})))
    return root


def _pytest(peer: str, itself: bool) -> tuple[dict, str]:
    """``({test id: None | failure message}, pytest's output)`` of one run of a suite."""
    with tempfile.TemporaryDirectory() as tmp:
        root = extract(peer, Path(tmp), itself)
        xml = Path(tmp) / "out.xml"
        src = str(Path(__file__).resolve().parents[1] / "src")  # this tree's tiebreak
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", PYTHONPATH=os.pathsep.join(
            [src, *filter(None, [os.environ.get("PYTHONPATH")])]))
        tests = [str(root / p) for p in PEERS[peer][2] if p.startswith("tests")]
        cmd = [sys.executable, "-m", "pytest", *tests, "-q", "-p", "no:cacheprovider",
               "-o", "addopts=", "-n", "0", "--continue-on-collection-errors",
               f"--junitxml={xml}", "--rootdir", str(root),
               "-o", "python_files=*_test.py test_*.py *_tests.py"]
        proc = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True)
        if not xml.exists():
            raise RuntimeError(f"{peer}: pytest did not run:\n{proc.stdout}\n{proc.stderr}")
        res: dict = {}
        for case in ET.parse(xml).iter("testcase"):
            tid = f"{case.get('classname', '')}::{case.get('name')}"
            bad = next((e for e in (case.find("failure"), case.find("error"),
                                    case.find("skipped")) if e is not None), None)
            res[tid] = None if bad is None else \
                (bad.tag + ": " + (bad.get("message") or "").split("\n")[0])[:200]
        return res, proc.stdout


def run_suite(peer: str, verbose: bool = False, baseline: bool = True) -> dict:
    """Run the suite on the peer itself, then on tiebreak's module: ``{"passed": [ids],
    "failed": [(id, message)], "n/a": [(id, reason)]}`` over the tests the peer collects (a
    test the tiebreak run cannot collect fails with pytest's collection error). Without
    ``baseline`` the peer itself is not run: the tests are those of the tiebreak run (a module
    that cannot be collected counts once) and none is "not passing on the peer itself"."""
    mine, log = _pytest(peer, False)
    if baseline:
        base, _ = _pytest(peer, True)
    else:  # every test the tiebreak run collected, or could not collect (a module's error)
        base = {t: None for t in mine}
    out: dict = {"passed": [], "failed": [], "n/a": []}
    for tid, b in base.items():
        na = next((why for pat, why in NOT_APPLICABLE[peer] if re.search(pat, tid)), None)
        if na is None and b is not None:
            na = f"not passing on the peer itself ({b})"
        if na is not None:
            out["n/a"].append((tid, na))
        elif tid not in mine:
            err = [ln for ln in log.splitlines() if ln.startswith("ERROR")]
            out["failed"].append((tid, "not collected: " + "; ".join(err)[:200]))
        elif mine[tid] is not None:
            out["failed"].append((tid, mine[tid]))
        else:
            out["passed"].append(tid)
    if verbose:
        for tid, msg in out["failed"]:
            print(f"  FAIL {tid}: {msg}")
        for tid, msg in out["n/a"]:
            print(f"  n/a  {tid}: {msg}")
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--peer", action="append", choices=sorted(PEERS))
    ap.add_argument("--mirrors", type=Path, default=None)
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--baseline", choices=("auto", "yes", "no"), default="auto",
                    help="run each suite on the installed peer first (auto: not for ranx, "
                         "whose numba compilation takes over 25 minutes on a loaded machine)")
    a = ap.parse_args(argv)
    if a.mirrors is not None:
        globals()["MIRRORS"] = a.mirrors
    print(f"{'peer':<12} {'commit':<12} {'passed':>7} {'failed':>7} {'n/a':>5}  module")
    for peer in a.peer or list(PEERS):
        base = a.baseline == "yes" or (a.baseline == "auto" and peer != "ranx")
        res = run_suite(peer, a.verbose, baseline=base)
        mod = PEERS[peer][4]
        print(f"{peer:<12} {PEERS[peer][1][:10]:<12} {len(res['passed']):>7} "
              f"{len(res['failed']):>7} {len(res['n/a']):>5}  {mod}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
