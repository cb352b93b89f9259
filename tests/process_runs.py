"""``tiebreak`` started as a process, for the tests that compare the click-free entry
(``tiebreak.__main__``, issue 29) with the click command: tests/test_eval_process.py and
tests/test_trec_eval_process.py."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "src" / "tiebreak" / "data"
QRELS, RUN = str(DATA / "ymt2016.qrels"), str(DATA / "ymt2016.run")


def run_python(argv, **kw) -> subprocess.CompletedProcess:
    """``python ARGV`` with stdout and stderr captured (bytes) unless ``kw`` redirects them, and
    shell completion (``_TIEBREAK_COMPLETE``) off whatever the caller's environment says."""
    env = dict(os.environ)
    env.pop("_TIEBREAK_COMPLETE", None)
    if "stdout" not in kw and "stderr" not in kw:
        kw["capture_output"] = True
    return subprocess.run([sys.executable, *argv], env=env, **kw)


def run_entry(entry: str, args, **kw) -> subprocess.CompletedProcess:
    """``tiebreak ARGS`` as a process started by ``entry``'s ``main`` (``tiebreak.__main__``,
    the console script's entry, or ``tiebreak.cli``, the click group)."""
    code = f"import sys; sys.argv[0] = 'tiebreak'; from {entry} import main; main()"
    return run_python(["-c", code, *args], **kw)


def click_probe(args) -> subprocess.CompletedProcess:
    """``tiebreak ARGS`` through the console script's entry with ``os._exit`` replaced by a
    probe that writes ``click loaded`` or ``no click`` to stderr before exiting: whether click
    was imported up to the process's early exit. Text mode."""
    code = ("import os, sys\n_exit = os._exit\n"
            "def probe(c):\n"
            "    sys.stderr.write('click loaded' if 'click' in sys.modules else 'no click')\n"
            "    sys.stderr.flush()\n"
            "    _exit(c)\n"
            "os._exit = probe\n"
            f"sys.argv = ['tiebreak', *{list(args)!r}]\n"
            "from tiebreak.__main__ import main\nmain()\n")
    return run_python(["-c", code], text=True)


def closed_pipe(args) -> subprocess.CompletedProcess:
    """``python -m tiebreak ARGS`` writing to a pipe whose read end is already closed; stderr
    captured (bytes)."""
    r, w = os.pipe()
    os.close(r)
    with os.fdopen(w, "wb") as out:
        return run_python(["-m", "tiebreak", *args], stdout=out, stderr=subprocess.PIPE)
