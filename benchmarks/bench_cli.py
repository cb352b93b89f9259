"""Benchmark: the commands as a user runs them, as processes, on one core.

Every tool runs as a fresh process on the same files (TREC-COVID round 1: 143 gzipped runs,
qrels-rnd1.txt), pinned to one CPU (``sched_setaffinity``; numba-based peers get
``NUMBA_NUM_THREADS=1``), stdout discarded. Commands are run in interleaved rounds (every
command once per round, after one untimed warm-up round) and the median wall time of the rounds
is reported with the median CPU time (user + system, from the child's rusage) and the 1-minute
load average of the machine, because this machine is shared: only ratios measured in one run
mean anything.

* ``tiebreak eval -j 1 -m AP -m nDCG@10 -m P@10 -m RR -m R@1000 -m bpref QRELS RUN...`` on the
  143 gzipped runs (the default tie regimes), against one process of pytrec-eval-terrier
  (``parse_qrel``/``parse_run`` on the decompressed text, one ``RelevanceEvaluator`` on map,
  ndcg_cut_10, P_10, recip_rank, recall_1000, bpref), of ir_measures
  (``iter_calc`` per run) and of ranx (``Qrels.from_file``, ``Run.from_file``, ``evaluate``),
  and against the floor of reading the files: ``zcat`` of all runs. Targets: <= 0.35x pytrec_eval,
  <= 1.5x zcat.
* ``tiebreak trec_eval -q -m all_trec QRELS RUN...`` on the 143 decompressed runs in one process,
  against the trec_eval 10.0 binary (built from ../shared/tools/trec_eval-10.0 in a temporary
  directory) run once per file. Target <= 0.35x.
* One 30,000-line run: ``tiebreak trec_eval -q -m all_trec`` (target <= 0.15 s) next to the
  binary, and ``tiebreak eval`` (target <= 0.15 s); with ``python -c pass`` and
  ``python -c 'import numpy'`` as the interpreter's own floor.
* ``tiebreak search`` of one query on a 300,000-document index (Zipf-distributed synthetic
  collection, built once in the temporary directory, about 20 s; ``--no-search`` skips it).
  Target <= 0.3 s.

The tiebreak commands run through a ``tiebreak`` console script written the way pip writes it
from the entry point in the checkout's ``pyproject.toml`` (so a changed entry point is measured
before the package is reinstalled); ``--before SRC`` uses the entry point of the
``pyproject.toml`` beside SRC for the "(before)" commands. ``--one-run`` keeps only the one-run
commands and the interpreter's floor.

Usage::

    python benchmarks/bench_cli.py [--data DIR] [--rounds N] [--no-search] [--no-peers]
                                   [--only search] [--index DIR] [--before SRC] [--one-run]
"""

from __future__ import annotations

import argparse
import gzip
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data"
TB_MEASURES = ["AP", "nDCG@10", "P@10", "RR", "R@1000", "bpref"]
PT_MEASURES = ["map", "ndcg_cut_10", "P_10", "recip_rank", "recall_1000", "bpref"]
TARGETS = {"eval143/pytrec": 0.35, "eval143/zcat": 1.5, "te143/binary": 0.35,
           "te1": 0.15, "eval1": 0.15, "search1": 0.3}

PYTREC = """
import gzip, sys, pytrec_eval
with open(sys.argv[1]) as f:
    ev = pytrec_eval.RelevanceEvaluator(pytrec_eval.parse_qrel(f), set(sys.argv[2].split(',')))
for p in sys.argv[3:]:
    with gzip.open(p, 'rt') as f:
        ev.evaluate(pytrec_eval.parse_run(f))
"""

IR_MEASURES = """
import sys, ir_measures
from ir_measures import AP, nDCG, P, RR, R, Bpref
ms = [AP, nDCG@10, P@10, RR, R@1000, Bpref]
qrels = list(ir_measures.read_trec_qrels(sys.argv[1]))
ev = ir_measures.evaluator(ms, qrels)
for p in sys.argv[2:]:
    ev.calc_aggregate(ir_measures.read_trec_run(p))
"""

RANX = """
import sys
from ranx import Qrels, Run, evaluate
q = Qrels.from_file(sys.argv[1], kind='trec')
for p in sys.argv[2:]:
    evaluate(q, Run.from_file(p, kind='trec'),
             ['map', 'ndcg@10', 'precision@10', 'mrr', 'recall@1000', 'bpref'])
"""

ZIPF_INDEX = """
import sys
from pathlib import Path
import numpy as np
from tiebreak.index import Analyzer
from tiebreak.index.build import build_index_from_tokens
n_docs, avg_len, vocab = int(sys.argv[2]), 40, 200_000
rng = np.random.default_rng(0)
p = 1.0 / np.arange(1, vocab + 1) ** 1.07
p /= p.sum()
lens = rng.poisson(avg_len, n_docs).astype(np.int64)
flat = rng.choice(vocab, size=int(lens.sum()), p=p).astype(np.int32)
ptr = np.concatenate([[0], np.cumsum(lens)])
build_index_from_tokens(Path(sys.argv[1]), [f"D{i}" for i in range(n_docs)], flat, ptr,
                        [f"t{i}" for i in range(vocab)], Analyzer("none", "none"))
"""


def _pin():
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})


def _env():
    env = dict(os.environ, NUMBA_NUM_THREADS="1", OMP_NUM_THREADS="1")
    # an installed package has its bytecode compiled; without this every module of an editable
    # install would be compiled again at each start
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def run_once(argv, env) -> tuple[float, float]:
    """Wall and CPU seconds (user + system) of one child process, stdout discarded."""
    t = time.perf_counter()
    p = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         preexec_fn=_pin)
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    if os.waitstatus_to_exitcode(status):
        raise SystemExit(f"{' '.join(map(str, argv[:4]))} ... failed:\n{err.decode()[-2000:]}")
    return wall, ru.ru_utime + ru.ru_stime


def measure(cmds: dict[str, list], rounds: int,
            envs: dict[str, dict] | None = None) -> dict[str, tuple[float, float]]:
    """name -> (median wall, median CPU) over interleaved rounds; a command is a list of argv
    lists run one after the other (the binary once per file); ``envs``: extra environment
    variables of some commands."""
    base = _env()
    envs = envs or {}
    walls = {n: [] for n in cmds}
    cpus = {n: [] for n in cmds}
    for r in range(rounds + 1):
        for n, argvs in cmds.items():
            env = dict(base, **envs[n]) if n in envs else base
            w = c = 0.0
            for argv in argvs:
                dw, dc = run_once(argv, env)
                w += dw
                c += dc
            if r:  # round 0 warms caches (page cache, numba's cache, bytecode)
                walls[n].append(w)
                cpus[n].append(c)
    return {n: (statistics.median(walls[n]), statistics.median(cpus[n])) for n in cmds}


def build_binary(data: Path, tmp: Path) -> Path | None:
    src = data.parent / "tools" / "trec_eval-10.0"
    if not src.is_dir() or shutil.which("make") is None:
        return None
    shutil.copytree(src, tmp / "te")
    r = subprocess.run(["make", "-s"], cwd=tmp / "te", capture_output=True)
    return tmp / "te" / "trec_eval" if r.returncode == 0 else None


def console_script(src: Path, tmp: Path, label: str) -> list[str]:
    """The ``tiebreak`` console script as pip writes it from the entry point in the
    ``pyproject.toml`` beside ``src`` (the checkout's own entry, even when the installed
    package's script was written from an older one), in a directory of ``tmp``; the installed
    script (or ``python -m tiebreak``) when there is no such file."""
    import tomllib

    pp = src.resolve().parent / "pyproject.toml"
    if not pp.exists():
        script = Path(sys.executable).parent / "tiebreak"
        return [str(script)] if script.exists() else [sys.executable, "-m", "tiebreak"]
    mod, func = tomllib.loads(pp.read_text())["project"]["scripts"]["tiebreak"].split(":")
    d = tmp / f"bin-{label}"
    d.mkdir()
    script = d / "tiebreak"
    script.write_text(f"#!{sys.executable}\n# -*- coding: utf-8 -*-\nimport re\nimport sys\n"
                      f"from {mod} import {func}\nif __name__ == '__main__':\n"
                      "    sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])\n"
                      f"    sys.exit({func}())\n")
    script.chmod(0o755)
    return [str(script)]


def have(module: str) -> bool:
    from importlib.util import find_spec

    return find_spec(module) is not None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--rounds", type=int, default=3, help="timed rounds (default 3)")
    ap.add_argument("--no-search", action="store_true", help="skip the search benchmark")
    ap.add_argument("--no-peers", action="store_true",
                    help="only pytrec_eval, zcat and the binary as references")
    ap.add_argument("--search-docs", type=int, default=300_000)
    ap.add_argument("--only", choices=["search"], default=None,
                    help="only this benchmark (with the interpreter floors: python -c pass, "
                         "python -c 'import numpy')")
    ap.add_argument("--index", type=Path, default=None, metavar="DIR",
                    help="search this index (built by this script's recipe) instead of building "
                         "one in the temporary directory")
    ap.add_argument("--before", type=Path, default=None, metavar="SRC",
                    help="also run every tiebreak command with PYTHONPATH=SRC (an older "
                         "checkout's src directory), labelled '(before)', in the same rounds")
    ap.add_argument("--one-run", action="store_true",
                    help="only the one-run commands and the interpreter's floor (quick)")
    a = ap.parse_args(argv)

    r1 = a.data / "trec_covid" / "round1"
    qrels = r1 / "qrels-rnd1.txt"
    runs = sorted((r1 / "runs").glob("*.gz"))
    if not qrels.exists() or not runs:
        print(f"no TREC-COVID round-1 data under {r1}", file=sys.stderr)
        return 2
    py = sys.executable
    ms = [x for m in TB_MEASURES for x in ("-m", m)]
    with tempfile.TemporaryDirectory(prefix="tb-cli-") as t:
        tmp = Path(t)
        tb = console_script(ROOT / "src", tmp, "this")
        plain = []
        for p in runs:
            out = tmp / p.name.removesuffix(".gz")
            out.write_bytes(gzip.decompress(p.read_bytes()))
            plain.append(out)
        one = next(p for p in plain if p.read_bytes().count(b"\n") == 30000)
        one_gz = r1 / "runs" / (one.name + ".gz")
        binary = build_binary(a.data, tmp) if a.only is None else None

        cmds: dict[str, list] = {
            "tiebreak eval, 143 runs": [tb + ["eval", "-j", "1", "--quiet", *ms, str(qrels),
                                              *map(str, runs)]],
            "pytrec_eval, 143 runs": [[py, "-c", PYTREC, str(qrels), ",".join(PT_MEASURES),
                                       *map(str, runs)]],
            "zcat of the 143 runs": [["zcat", *map(str, runs)]],
            "tiebreak trec_eval -q -m all_trec, 143 runs": [
                tb + ["trec_eval", "-q", "-m", "all_trec", "--jobs", "1", str(qrels),
                      *map(str, plain)]],
            "tiebreak trec_eval -q -m all_trec, 1 run": [
                tb + ["trec_eval", "-q", "-m", "all_trec", str(qrels), str(one)]],
            "tiebreak eval, 1 run": [tb + ["eval", "--quiet", str(qrels), str(one_gz)]],
            "python -c pass": [[py, "-c", "pass"]],
            "python -c 'import numpy'": [[py, "-c", "import numpy"]],
        }
        if binary is not None:
            cmds["trec_eval binary -q -m all_trec, once per run"] = [
                [str(binary), "-q", "-m", "all_trec", str(qrels), str(p)] for p in plain]
            cmds["trec_eval binary -q -m all_trec, 1 run"] = [
                [str(binary), "-q", "-m", "all_trec", str(qrels), str(one)]]
        if a.only == "search":
            cmds = {n: c for n, c in cmds.items() if n.startswith("python -c")}
        if not a.no_peers and a.only is None:
            if have("ir_measures"):
                cmds["ir_measures, 143 runs"] = [[py, "-c", IR_MEASURES, str(qrels),
                                                  *map(str, runs)]]
            if have("ranx"):
                cmds["ranx, 143 runs (plain files)"] = [[py, "-c", RANX, str(qrels),
                                                         *map(str, plain)]]
        if not a.no_search and not a.one_run:
            idx = a.index
            if idx is None:
                idx = tmp / "zipf-index"
                t0 = time.perf_counter()
                subprocess.run([py, "-c", ZIPF_INDEX, str(idx), str(a.search_docs)],
                               check=True, env=_env())
                print(f"(search index: {a.search_docs:,} documents built in "
                      f"{time.perf_counter() - t0:.0f} s)")
            topics = tmp / "one-query.tsv"
            topics.write_text("1\tt100 t2000 t31\n")
            cmds["tiebreak search, 1 query, 300k docs"] = [
                tb + ["search", str(idx), "--topics", str(topics), "-q"]]

        if a.one_run:
            cmds = {n: c for n, c in cmds.items() if "1 run" in n or n.startswith("python")}
        # this checkout's commands import this checkout's src (not an installed package)
        envs = {n: {"PYTHONPATH": str(ROOT / "src")} for n in cmds if n.startswith("tiebreak")}
        if a.before is not None:
            tb0 = console_script(a.before, tmp, "before")
            for n in [n for n in cmds if n.startswith("tiebreak")]:
                cmds[n + " (before)"] = [tb0 + argv[len(tb):] for argv in cmds[n]]
                envs[n + " (before)"] = {"PYTHONPATH": str(a.before)}
            cmds = dict(sorted(cmds.items(), key=lambda kv: kv[0].removesuffix(" (before)")))
        print(f"TREC-COVID round 1: {len(runs)} runs; one run = {one.name} (30,000 lines); "
              f"{os.cpu_count()} CPUs, each command pinned to one; median of {a.rounds} "
              f"interleaved rounds after a warm-up round")
        load0 = os.getloadavg()
        res = measure(cmds, a.rounds, envs)
        load1 = os.getloadavg()

    print(f"\n{'command':52s} {'wall s':>8s} {'cpu s':>8s}")
    for n, (w, c) in res.items():
        print(f"{n:52s} {w:8.3f} {c:8.3f}")
    print(f"load average (1, 5, 15 min) before: {load0[0]:.2f} {load0[1]:.2f} {load0[2]:.2f}, "
          f"after: {load1[0]:.2f} {load1[1]:.2f} {load1[2]:.2f}")

    def ratio(label, num, den, target=None):
        if num not in res or den not in res:
            return
        rw, rc = res[num][0] / res[den][0], res[num][1] / res[den][1]
        ok = "" if target is None else (
            f"  target <= {target}: {'met' if rw <= target else 'NOT met'}")
        print(f"  {label:44s} {rw:5.2f}x wall ({rc:5.2f}x cpu){ok}")

    def absolute(label, name, target):
        if name not in res:
            return
        w, c = res[name]
        ok = "met" if w <= target else "NOT met"
        print(f"  {label:44s} {w:5.3f} s wall ({c:5.3f} s cpu)  target <= {target} s: {ok}")

    for suffix in ([" (before)", ""] if a.before is not None else [""]):
        report(res, suffix, ratio, absolute)
    for peer in ("ir_measures, 143 runs", "ranx, 143 runs (plain files)"):
        ratio(f"tiebreak eval / {peer.split(',')[0]}", "tiebreak eval, 143 runs", peer)
    return 0


def report(res, suffix, ratio, absolute) -> None:
    """The issue's ratios for the tiebreak commands whose names end in ``suffix``."""
    print(f"\nratios{suffix or ' (this checkout)'} (same run of this script):")
    x = suffix
    ratio("tiebreak eval / pytrec_eval, 143 runs", "tiebreak eval, 143 runs" + x,
          "pytrec_eval, 143 runs", TARGETS["eval143/pytrec"])
    ratio("tiebreak eval / zcat floor, 143 runs", "tiebreak eval, 143 runs" + x,
          "zcat of the 143 runs", TARGETS["eval143/zcat"])
    ratio("tiebreak trec_eval / binary per file, 143", "tiebreak trec_eval -q -m all_trec, "
          "143 runs" + x, "trec_eval binary -q -m all_trec, once per run",
          TARGETS["te143/binary"])
    absolute("tiebreak trec_eval -q -m all_trec, 1 run", "tiebreak trec_eval -q -m all_trec, "
             "1 run" + x, TARGETS["te1"])
    absolute("tiebreak eval, 1 run", "tiebreak eval, 1 run" + x, TARGETS["eval1"])
    absolute("tiebreak search, 1 query, 300k docs", "tiebreak search, 1 query, 300k docs" + x,
             TARGETS["search1"])


if __name__ == "__main__":
    sys.exit(main())
