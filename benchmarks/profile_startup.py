"""Per-stage timer of three commands as a user runs them, each in a fresh process.

    python benchmarks/profile_startup.py [--data DIR] [--index DIR] [--repeat N] [--before SRC]

* ``tiebreak eval QRELS RUN`` on one 30,000-line TREC-COVID round-1 run (gzipped);
* ``tiebreak trec_eval -q -m all_trec QRELS RUN`` on the same run, decompressed, along the
  console script's path (``tiebreak.__main__``: no click), stage by stage;
* ``tiebreak search INDEX --topics T`` of one query (``--index``: an index directory; without
  it the search is skipped; ``benchmarks/bench_cli.py`` builds a 300k-document one).

Each child process runs the command's own steps (the calls the console script makes) with
``time.process_time()`` and ``time.perf_counter()`` between steps and prints the stages; the
median of ``--repeat`` fresh processes is shown per stage as CPU ms (wall ms in parentheses:
on a shared machine only the CPU column is stable), with the CPU time spent before the first
line of the child (interpreter start and ``site``), the rest (exit), the process's own CPU and
wall time and the machine's load average (``--before SRC``: an older checkout's src directory
beside it, interleaved process by process). Every child is pinned to one core. ``python -X
importtime`` gives the import tree of each stage; numba's share of a stage is shown by the
stages ``numba import`` and ``first kernel`` (registries and cached kernel loading); the search
of a few topics (bm25, ql) loads no numba at all (``tiebreak.retrieval.onequery``), and the
child reports whether numba was loaded.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data"

EVAL = r"""
import io, json, sys, time
T = [("start", time.perf_counter(), time.process_time())]
def mark(n): T.append((n, time.perf_counter(), time.process_time()))
import numpy; mark("import numpy")
try:  # the console script's path (tiebreak.__main__): the common form parsed without click
    from tiebreak.cli import eval_command
    kw = eval_command.parse_args(sys.argv[1:3]); mark("parse arguments (no click)")
    eval_command.imports()
except ImportError:  # an older checkout: through click
    import click; from tiebreak import cli; mark("import click + tiebreak.cli")
from tiebreak.evaluation import Evaluator
from tiebreak.evaluation.output import format_warnings, legend, write_table
mark("import evaluate, output")
ev = Evaluator(sys.argv[1]); mark("read qrels, measures")
from tiebreak.io import read_run
run = read_run(sys.argv[2]); mark("read run")
res = ev.evaluate([run], jobs=1); mark("evaluate")
out = io.StringIO(); write_table(res, out, False); legend(res); format_warnings(res)
mark("write table")
print(json.dumps({"stages": [(T[i][0], T[i][1] - T[i - 1][1], T[i][2] - T[i - 1][2])
                             for i in range(1, len(T))], "cpu0": T[0][2],
                  "numba": "numba" in sys.modules, "click": "click" in sys.modules}))
"""

TREC_EVAL = r"""
import io, json, sys, time
T = [("start", time.perf_counter(), time.process_time())]
def mark(n): T.append((n, time.perf_counter(), time.process_time()))
import numpy; mark("import numpy")
# the console script's path (tiebreak.__main__): no click
from tiebreak.trec_eval import cli as tcli; mark("import tiebreak.trec_eval")
from tiebreak.trec_eval.evaluate import check_formats, requested, topic_values
from tiebreak.trec_eval.options import parse_args
from tiebreak.trec_eval.render import render
opts = parse_args(["-q", "-m", "all_trec", sys.argv[1], sys.argv[2]])
reqs = requested(opts); check_formats(opts, reqs); mark("options, measures")
qrels = tcli.read_like_trec_eval(sys.argv[1], "qrels"); mark("read qrels")
run = tcli.read_like_trec_eval(sys.argv[2], "results"); mark("read run")
tv = topic_values(sys.argv[1], run, opts, reqs, qrels, io.StringIO()); mark("evaluate")
text = render(reqs, tv, opts, run.tags[0], None, qrels); mark("render")
print(json.dumps({"stages": [(T[i][0], T[i][1] - T[i - 1][1], T[i][2] - T[i - 1][2])
                             for i in range(1, len(T))], "cpu0": T[0][2],
                  "numba": "numba" in sys.modules, "click": "click" in sys.modules}))
"""

SEARCH = r"""
import io, json, sys, time
T = [("start", time.perf_counter(), time.process_time())]
def mark(n): T.append((n, time.perf_counter(), time.process_time()))
import numpy; mark("import numpy")
import click; from tiebreak import cli; mark("import click + tiebreak.cli")
from tiebreak.cli import search as rcli
from tiebreak.index.readers import read_topics
from tiebreak.index.shards import open_searchable; mark("import retrieval cli, index")
from tiebreak.retrieval.search import check_params, search, write_run
check_params("bm25", {}); mark("import search, registry")
idx = open_searchable(sys.argv[1]); tops = read_topics(sys.argv[2]); mark("open index, topics")
res = search(idx, tops, "bm25", 1000); mark("search (decode terms, weights, top k)")
out = io.StringIO(); write_run(out, idx, res, rcli.default_tag("bm25", {})); mark("write run")
print(json.dumps({"stages": [(T[i][0], T[i][1] - T[i - 1][1], T[i][2] - T[i - 1][2])
                             for i in range(1, len(T))], "cpu0": T[0][2],
                  "numba": "numba" in sys.modules}))
"""


def _pin() -> None:
    """One core for the child (the one-core targets); the first one this process may use."""
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})


def child(code: str, args: list[str], pythonpath: str | None = None
          ) -> tuple[dict, float, float]:
    env = dict(os.environ)
    if pythonpath is not None:
        env["PYTHONPATH"] = pythonpath
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    t = time.perf_counter()
    p = subprocess.Popen([sys.executable, "-c", code, *args], env=env, stdout=subprocess.PIPE,
                         preexec_fn=_pin)
    out = p.stdout.read()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    if os.waitstatus_to_exitcode(status):
        raise SystemExit("child failed")
    return json.loads(out), wall, ru.ru_utime + ru.ru_stime


def profile(name: str, code: str, args: list[str], repeat: int,
            before: Path | None = None) -> None:
    """Median stages of ``repeat`` fresh processes; with ``before`` (an older checkout's src
    directory), also of that checkout, the two interleaved process by process."""
    sides = [("this", None)] + ([("before", str(before))] if before is not None else [])
    res = {k: ([], [], [], []) for k, _ in sides}
    for _k, pp in sides:
        child(code, args, pp)  # warm-up: bytecode, numba's cache, page cache
    for _ in range(repeat):
        for k, pp in sides:
            r, w, c = child(code, args, pp)
            res[k][0].append(r["stages"])
            res[k][1].append(w)
            res[k][2].append(c)
            res[k][3].append(r)
            if k == "this":
                flags = r
    print(f"\n{name}  (numba loaded: {flags['numba']}; click loaded: "
          f"{flags.get('click', True)}; load average {os.getloadavg()[0]:.2f}; median of "
          f"{repeat} processes{', interleaved with --before' if before else ''})")
    cols = [k for k, _ in sides]
    print(f"  {'stage: cpu ms (wall ms)':36s} " + " ".join(f"{k:>18s}" for k in cols))
    table: dict[str, dict[str, tuple[float, float]]] = {}
    for k in cols:
        rows, walls, cpus, _ = res[k]
        cpu0 = statistics.median(r["cpu0"] for r in res[k][3])
        table.setdefault("interpreter start, site", {})[k] = (cpu0 * 1000, float("nan"))
        for i, (stage, *_) in enumerate(rows[0]):
            table.setdefault(stage, {})[k] = (
                statistics.median(x[i][2] for x in rows) * 1000,
                statistics.median(x[i][1] for x in rows) * 1000)
        inner_w = sum(statistics.median(x[i][1] for x in rows) for i in range(len(rows[0])))
        inner_c = sum(statistics.median(x[i][2] for x in rows) for i in range(len(rows[0])))
        table.setdefault("(rest: start, site, exit)", {})[k] = (
            (statistics.median(cpus) - inner_c - cpu0) * 1000,
            (statistics.median(walls) - inner_w) * 1000)
        table.setdefault("process", {})[k] = (statistics.median(cpus) * 1000,
                                              statistics.median(walls) * 1000)
    for stage, v in table.items():
        print(f"  {stage:36s} " + " ".join(
            f"{v[k][0]:8.1f} ({v[k][1]:6.1f})" if k in v else f"{'-':>18s}" for k in cols))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--index", type=Path, default=None)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--search-only", action="store_true")
    ap.add_argument("--before", type=Path, default=None, metavar="SRC",
                    help="also profile an older checkout's src directory (PYTHONPATH=SRC), "
                         "interleaved process by process, in a second column")
    a = ap.parse_args()
    r1 = a.data / "trec_covid" / "round1"
    qrels = str(r1 / "qrels-rnd1.txt")
    run_gz = r1 / "runs" / "ERST_PROSE.gz"
    with tempfile.TemporaryDirectory() as t:
        plain = Path(t) / "ERST_PROSE"
        plain.write_bytes(gzip.decompress(run_gz.read_bytes()))
        if not a.search_only:
            profile("tiebreak eval QRELS RUN (30,000 lines, gzip)", EVAL, [qrels, str(run_gz)],
                    a.repeat, a.before)
            profile("tiebreak trec_eval -q -m all_trec QRELS RUN (30,000 lines)", TREC_EVAL,
                    [qrels, str(plain)], a.repeat, a.before)
        if a.index:
            topics = Path(t) / "q.tsv"
            topics.write_text("1\tt100 t2000 t31\n")
            profile(f"tiebreak search {a.index.name} (one query, k = 1000)", SEARCH,
                    [str(a.index), str(topics)], a.repeat, a.before)


if __name__ == "__main__":
    main()
