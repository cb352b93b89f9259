"""``tiebreak trec_eval`` started as a process goes straight to trec_eval's own parser, without
click (``tiebreak.__main__``, issue 29): the same stdout, stderr and exit status as the click
command run in-process, for output, errors, usage, help, ``--`` and a closed pipe."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from tiebreak.cli import main

DATA = Path(__file__).resolve().parents[1] / "src" / "tiebreak" / "data"
QRELS, RUN = str(DATA / "ymt2016.qrels"), str(DATA / "ymt2016.run")


def _process(args, **kw):
    env = dict(os.environ)
    env.pop("_TIEBREAK_COMPLETE", None)
    return subprocess.run([sys.executable, "-m", "tiebreak", "trec_eval", *args],
                          capture_output=True, env=env, **kw)


@pytest.mark.parametrize("args", [
    ["-q", "-m", "all_trec", QRELS, RUN],
    ["-m", "map", "-m", "P.5", QRELS, RUN],
    ["--", "-q", QRELS, RUN],                      # click drops the first '--'
    ["-q", QRELS, "--", RUN],
    [QRELS, RUN + ".missing"],                     # trec_eval's own error, status 2
    [QRELS],                                       # usage, status 1
    ["-m", "no_such_measure", QRELS, RUN],
    ["-h"],
    ["-v"],
    [],
])
def test_process_equals_the_click_command(args):
    p = _process(args)
    r = CliRunner().invoke(main, ["trec_eval", *args])
    assert r.exception is None or isinstance(r.exception, SystemExit)
    assert p.returncode == r.exit_code
    assert p.stdout.decode() == r.stdout
    assert p.stderr.decode() == r.stderr


def test_the_process_does_not_import_click():
    """The console script's entry (``tiebreak.__main__:main``) on a trec_eval command: output
    printed, and click never imported up to the process's early exit (``os._exit``)."""
    code = ("import os, sys\n_exit = os._exit\n"
            "def probe(c):\n"
            "    sys.stderr.write('click loaded' if 'click' in sys.modules else 'no click')\n"
            "    sys.stderr.flush()\n"
            "    _exit(c)\n"
            "os._exit = probe\n"
            f"sys.argv = ['tiebreak', 'trec_eval', '-m', 'map', {QRELS!r}, {RUN!r}]\n"
            "from tiebreak.__main__ import main\nmain()\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert p.stderr == "no click"
    assert p.stdout.startswith("map")


def test_a_closed_pipe_ends_quietly_with_status_1():
    r, w = os.pipe()
    os.close(r)
    with os.fdopen(w, "wb") as out:
        p = subprocess.run([sys.executable, "-m", "tiebreak", "trec_eval", "-q", "-m",
                            "all_trec", QRELS, RUN], stdout=out, stderr=subprocess.PIPE)
    assert p.returncode == 1
    assert p.stderr == b""
