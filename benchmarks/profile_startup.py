"""Per-stage timer of three commands as a user runs them, each in a fresh process.

    python benchmarks/profile_startup.py [--data DIR] [--index DIR] [--repeat N]

* ``tiebreak eval QRELS RUN`` on one 30,000-line TREC-COVID round-1 run (gzipped);
* ``tiebreak trec_eval -q -m all_trec QRELS RUN`` on the same run, decompressed;
* ``tiebreak search INDEX --topics T`` of one query (``--index``: an index directory; without
  it the search is skipped; ``benchmarks/bench_cli.py`` builds a 300k-document one).

Each child process runs the command's own steps (the calls its click command makes) with a
``time.perf_counter()`` between steps and prints the stages; the median of ``--repeat`` fresh
processes is shown per stage, next to the process's wall time, its CPU time and the machine's
load average. ``python -X importtime`` gives the import tree of each stage; numba's share of a
stage is shown by the stages ``numba import`` and ``first kernel`` (registries and cached
kernel loading).
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
T = [("start", time.perf_counter())]
def mark(n): T.append((n, time.perf_counter()))
import numpy; mark("import numpy")
import click; from tiebreak import cli; mark("import click + tiebreak.cli")
from tiebreak.evaluate import Evaluator
from tiebreak.output import format_warnings, legend, write_table; mark("import evaluate, output")
ev = Evaluator(sys.argv[1]); mark("read qrels, measures")
from tiebreak.io import read_run
run = read_run(sys.argv[2]); mark("read run")
res = ev.evaluate([run], jobs=1); mark("evaluate")
out = io.StringIO(); write_table(res, out, False); legend(res); format_warnings(res)
mark("write table")
print(json.dumps({"stages": [(T[i][0], T[i][1] - T[i - 1][1]) for i in range(1, len(T))],
                  "numba": "numba" in sys.modules}))
"""

TREC_EVAL = r"""
import io, json, sys, time
T = [("start", time.perf_counter())]
def mark(n): T.append((n, time.perf_counter()))
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
print(json.dumps({"stages": [(T[i][0], T[i][1] - T[i - 1][1]) for i in range(1, len(T))],
                  "numba": "numba" in sys.modules, "click": "click" in sys.modules}))
"""

SEARCH = r"""
import io, json, sys, time
T = [("start", time.perf_counter())]
def mark(n): T.append((n, time.perf_counter()))
import numpy; mark("import numpy")
import click; from tiebreak import cli; mark("import click + tiebreak.cli")
from tiebreak.retrieval import cli as rcli
from tiebreak.index.readers import read_topics
from tiebreak.index.shards import open_searchable; mark("import retrieval cli, index")
import numba; mark("numba import")
from tiebreak.retrieval.search import check_params, search, write_run
check_params("bm25", {}); mark("import search, models")
idx = open_searchable(sys.argv[1]); tops = read_topics(sys.argv[2]); mark("open index, topics")
len(idx.post_docid); mark("first kernel + decode postings")
res = search(idx, tops, "bm25", 1000); mark("search (impacts, query)")
out = io.StringIO(); write_run(out, idx, res, "bm25"); mark("write run")
print(json.dumps({"stages": [(T[i][0], T[i][1] - T[i - 1][1]) for i in range(1, len(T))],
                  "numba": "numba" in sys.modules}))
"""


def child(code: str, args: list[str]) -> tuple[dict, float, float]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    t = time.perf_counter()
    p = subprocess.Popen([sys.executable, "-c", code, *args], env=env, stdout=subprocess.PIPE)
    out = p.stdout.read()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    if os.waitstatus_to_exitcode(status):
        raise SystemExit("child failed")
    return json.loads(out), wall, ru.ru_utime + ru.ru_stime


def profile(name: str, code: str, args: list[str], repeat: int) -> None:
    child(code, args)  # warm-up: bytecode, numba's cache, page cache
    rows, walls, cpus = [], [], []
    for _ in range(repeat):
        r, w, c = child(code, args)
        rows.append(r["stages"])
        walls.append(w)
        cpus.append(c)
    print(f"\n{name}  (numba loaded: {r['numba']}; click loaded: {r.get('click', True)}; "
          f"load average "
          f"{os.getloadavg()[0]:.2f}; median of {repeat} processes)")
    for i, (stage, _) in enumerate(rows[0]):
        print(f"  {stage:36s} {statistics.median(x[i][1] for x in rows) * 1000:7.1f} ms")
    inner = sum(statistics.median(x[i][1] for x in rows) for i in range(len(rows[0])))
    print(f"  {'(interpreter start, site, exit)':36s} "
          f"{(statistics.median(walls) - inner) * 1000:7.1f} ms")
    print(f"  {'process wall / cpu':36s} {statistics.median(walls) * 1000:7.1f} ms / "
          f"{statistics.median(cpus) * 1000:.1f} ms")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--index", type=Path, default=None)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--search-only", action="store_true")
    a = ap.parse_args()
    r1 = a.data / "trec_covid" / "round1"
    qrels = str(r1 / "qrels-rnd1.txt")
    run_gz = r1 / "runs" / "ERST_PROSE.gz"
    with tempfile.TemporaryDirectory() as t:
        plain = Path(t) / "ERST_PROSE"
        plain.write_bytes(gzip.decompress(run_gz.read_bytes()))
        if not a.search_only:
            profile("tiebreak eval QRELS RUN (30,000 lines, gzip)", EVAL, [qrels, str(run_gz)],
                    a.repeat)
            profile("tiebreak trec_eval -q -m all_trec QRELS RUN (30,000 lines)", TREC_EVAL,
                    [qrels, str(plain)], a.repeat)
        if a.index:
            topics = Path(t) / "q.tsv"
            topics.write_text("1\tt100 t2000 t31\n")
            profile(f"tiebreak search {a.index.name} (one query, k = 1000)", SEARCH,
                    [str(a.index), str(topics)], a.repeat)


if __name__ == "__main__":
    main()
