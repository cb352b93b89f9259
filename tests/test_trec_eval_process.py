"""``tiebreak trec_eval`` started as a process goes straight to trec_eval's own parser, without
click (``tiebreak.__main__``, issue 29): the same stdout, stderr and exit status as the click
command run in-process, for output, errors, usage, help, ``--`` and a closed pipe."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from process_runs import QRELS, RUN, click_probe, closed_pipe, run_python

from tiebreak.cli import main


def _process(args, **kw):
    return run_python(["-m", "tiebreak", "trec_eval", *args], **kw)


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
    p = click_probe(["trec_eval", "-m", "map", QRELS, RUN])
    assert p.returncode == 0, p.stderr
    assert p.stderr == "no click"
    assert p.stdout.startswith("map")


def test_a_closed_pipe_ends_quietly_with_status_1():
    p = closed_pipe(["trec_eval", "-q", "-m", "all_trec", QRELS, RUN])
    assert p.returncode == 1
    assert p.stderr == b""
