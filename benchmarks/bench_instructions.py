"""Instructions executed by the one-run commands: a measure of start-up that the machine's load
does not change.

On a shared machine wall and CPU times of a 0.15 s process vary by 2x with the other jobs; the
number of instructions a process executes does not (within about 0.1%, with a fixed
``PYTHONHASHSEED``). Each command of ``benchmarks/bench_cli.py --one-run`` runs once under
valgrind's callgrind (about 50x slower) and its instruction count is printed, with the
interpreter's floors (``python -c pass``, ``python -c 'import numpy'``) and, with ``--before
SRC``, every tiebreak command of an older checkout's src directory beside it. The tiebreak
commands run through the console script written from the checkout's entry point
(``bench_cli.console_script``). Instructions are not time (a cache miss costs more than an
addition), but a change that removes instructions from start-up removes time from it; the
ratios to ``import numpy`` carry over to a quiet machine roughly.

Usage::

    python benchmarks/bench_instructions.py [--data DIR] [--before SRC]
"""

from __future__ import annotations

import argparse
import gzip
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_cli import DEFAULT_DATA, ROOT, build_binary, console_script  # noqa: E402


def instructions(argv: list[str], env: dict) -> int:
    """Instructions (callgrind's ``Ir``) of one process running ``argv`` (a script's
    interpreter resolved, so that valgrind follows the Python process itself)."""
    with open(shutil.which(argv[0]) or argv[0], "rb") as f:
        head = f.readline()
    if head.startswith(b"#!"):  # a console script: run its interpreter on it (the path as
        argv = [head[2:].decode().strip(), *argv]  # written: a venv's python is a symlink)
    with tempfile.NamedTemporaryFile(suffix=".cg") as out:
        p = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out.name}",
                            *argv], env=env, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
    m = re.search(r"Collected : (\d+)", p.stderr)
    if m is None:
        raise SystemExit(f"valgrind failed on {' '.join(argv[:4])} ...:\n{p.stderr[-2000:]}")
    return int(m.group(1))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--before", type=Path, default=None, metavar="SRC",
                    help="also count every tiebreak command with PYTHONPATH=SRC (an older "
                         "checkout's src directory), labelled '(before)'")
    a = ap.parse_args(argv)
    if shutil.which("valgrind") is None:
        print("valgrind is not installed", file=sys.stderr)
        return 2
    r1 = a.data / "trec_covid" / "round1"
    qrels = r1 / "qrels-rnd1.txt"
    runs = sorted((r1 / "runs").glob("*.gz"))
    if not qrels.exists() or not runs:
        print(f"no TREC-COVID round-1 data under {r1}", file=sys.stderr)
        return 2
    # an installed package has its bytecode compiled; a fixed hash seed for repeatable counts
    env = dict(os.environ, PYTHONHASHSEED="0", NUMBA_NUM_THREADS="1", OMP_NUM_THREADS="1")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    py = sys.executable
    with tempfile.TemporaryDirectory(prefix="tb-instr-") as t:
        tmp = Path(t)
        tb = console_script(ROOT / "src", tmp, "this")
        one_gz = next(p for p in runs if gzip.decompress(p.read_bytes()).count(b"\n") == 30000)
        one = tmp / one_gz.name.removesuffix(".gz")
        one.write_bytes(gzip.decompress(one_gz.read_bytes()))
        cmds: dict[str, list[str]] = {
            "tiebreak trec_eval -q -m all_trec, 1 run": tb + ["trec_eval", "-q", "-m",
                                                              "all_trec", str(qrels), str(one)],
            "tiebreak eval, 1 run": tb + ["eval", "--quiet", str(qrels), str(one_gz)],
        }
        envs = {n: env for n in cmds}
        if a.before is not None:
            tb0 = console_script(a.before, tmp, "before")
            for n in list(cmds):
                cmds[n + " (before)"] = tb0 + cmds[n][len(tb):]
                envs[n + " (before)"] = dict(env, PYTHONPATH=str(a.before))
        cmds["python -c pass"] = [py, "-c", "pass"]
        cmds["python -c 'import numpy'"] = [py, "-c", "import numpy"]
        binary = build_binary(a.data, tmp)
        if binary is not None:
            cmds["trec_eval binary -q -m all_trec, 1 run"] = [
                str(binary), "-q", "-m", "all_trec", str(qrels), str(one)]
        for n, c in cmds.items():  # bytecode written, page cache warm
            subprocess.run(c, env=envs.get(n, env), stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
        got = {n: instructions(c, envs.get(n, env)) for n, c in cmds.items()}
    numpy = got["python -c 'import numpy'"]
    print(f"instructions of one process (callgrind Ir, PYTHONHASHSEED=0); load average "
          f"{os.getloadavg()[0]:.2f} (it does not change the counts)\n")
    print(f"{'command':52s} {'M instr':>9s} {'/ numpy':>8s}")
    for n, v in got.items():
        print(f"{n:52s} {v / 1e6:9.1f} {v / numpy:8.2f}")
    if a.before is not None:
        print()
        for n in [n for n in got if n.startswith("tiebreak") and not n.endswith("(before)")]:
            b = got[n + " (before)"]
            print(f"  {n:44s} {got[n] / b:5.3f}x the instructions before "
                  f"({(got[n] - b) / 1e6:+.1f} M)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
