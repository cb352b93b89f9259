"""``tiebreak eval`` started as a process parses its common form without click
(``tiebreak.__main__`` -> ``tiebreak.cli.eval_command``, issue 29): the same keyword arguments as
the click command, and the same stdout, stderr and exit status as the click command run
in-process, for output, errors, usage and help (which still go through click)."""

from __future__ import annotations

import inspect
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from process_runs import QRELS, RUN, click_probe, closed_pipe, run_entry

from tiebreak.cli import eval_command, main

eval_cmd = main.get_command(None, "eval")  # as the group gives it (-j refuses negatives)


def _process(args, entry="tiebreak.__main__", **kw):
    """``tiebreak eval ARGS`` as a process started by ``entry``'s ``main`` (the console
    script's entry, or the click group)."""
    return run_entry(entry, ["eval", *args], **kw)


def _click_params(args):
    """The keyword arguments click gives the command for ``args``; None when click refuses them
    (or prints help)."""
    try:
        with eval_cmd.make_context("eval", list(args)) as ctx:
            return dict(ctx.params)
    except (click.exceptions.ClickException, click.exceptions.Exit):
        return None


@pytest.mark.parametrize("args", [
    [QRELS, RUN],
    [QRELS, RUN, RUN],
    ["-m", "AP", "-m", "P@10", "--format", "tsv", "--header", QRELS, RUN],
    [QRELS, "-q", RUN, "--format=json", "--measure=RR", "-mAP"],
    ["--regime", "trec_eval,expected", "-j", "1", "--seed", "3", "--samples", "10", QRELS, RUN],
    ["--wide", "--sort", "AP", "--name-by", "file", QRELS, RUN, "--quiet", "--verbose"],
    ["--convention", "trec_eval", "-m", "map", "--score-precision", "float32", "--average",
     "run-topics", "--on-duplicate", "first", "--line-counts", QRELS, RUN],
    ["--convention", "ntcireval", "-g", "1:2:3", "-m", "nERR@10", QRELS, RUN],
    ["-m", "AP", "--", QRELS, RUN],
    ["-m", "--weird", QRELS, RUN],             # a value that looks like an option: a value
    ["-j", "+2", "--seed", " 7 ", QRELS, RUN],  # what int() reads, click reads
    ["-", RUN],
    [QRELS, RUN + ".missing"],
    # click answers these itself: the parser must decline them
    [QRELS], [], ["-h"], ["--help"], ["--format", "xml", QRELS, RUN], ["-j", "-1", QRELS, RUN],
    ["--samples", "0", QRELS, RUN], ["--seed", "x", QRELS, RUN], ["--quiet=1", QRELS, RUN],
    ["--no-such", QRELS, RUN], ["-m"], [QRELS, RUN, "-m"], ["--measur", "AP", QRELS, RUN],
])
def test_the_parser_gives_what_click_gives(args):
    got = eval_command.parse_args(args)
    want = _click_params(args)
    assert got is None if want is None else got is not None
    if got is not None:
        assert {**_defaults(), **got} == want


def test_the_parser_declines_clustered_short_options():
    """Clustered short options are left to click (which accepts them)."""
    args = ["-qmAP", QRELS, RUN]
    assert _click_params(args)["per_topic"] is True
    assert eval_command.parse_args(args) is None


def _defaults() -> dict:
    return {k: p.default for k, p in inspect.signature(eval_command.run).parameters.items()
            if p.default is not inspect.Parameter.empty}


def test_the_option_table_is_the_click_command():
    """Every option of the click command is in :data:`eval_command.OPTIONS` with the same
    spellings, kind, choices, bounds and default; nothing else is."""
    defaults = _defaults()
    seen = set()

    for p in eval_cmd.params:
        if not isinstance(p, click.Option) or p.name == "help":
            continue
        seen.add(p.name)
        opts, kind, detail = eval_command.OPTIONS[p.name]
        assert tuple(p.opts + p.secondary_opts) == opts
        want = "flag" if p.is_flag else "many" if p.multiple else \
            "choice" if isinstance(p.type, click.Choice) else \
            "int" if isinstance(p.type, click.types.IntParamType) else "str"
        assert kind == want, p.name
        if kind == "choice":
            assert tuple(p.type.choices) == detail
        if kind == "int":
            assert getattr(p.type, "min", None) == detail
    assert seen == set(eval_command.OPTIONS)
    given = _click_params([QRELS, RUN])
    assert given.pop("qrels") == QRELS and given.pop("runs") == (RUN,)
    assert given == defaults


@pytest.mark.parametrize("args", [
    [QRELS, RUN],
    ["-q", "-m", "AP", "-m", "RR", "--format", "tsv", QRELS, RUN],
    ["--format=json", "-mAP", QRELS, RUN],
    [QRELS, RUN + ".missing"],                       # the reader's error, status 2
    ["-m", "no_such_measure", QRELS, RUN],           # a measure error, status 2
    ["--sort", "AP", QRELS, RUN],                    # the body's own error
    ["--format", "xml", QRELS, RUN],                 # click's usage error
    [QRELS],
    ["-h"],
])
def test_process_equals_the_click_command(args):
    p = _process(args)
    c = _process(args, entry="tiebreak.cli")
    assert (p.returncode, p.stdout, p.stderr) == (c.returncode, c.stdout, c.stderr)


def test_a_bad_line_and_standard_input(tmp_path):
    bad = tmp_path / "bad.run"
    bad.write_text("1 Q0 d1 1 0.5 x\n1 Q0 d2 2 x0.4 x\n")
    for args, stdin in (([QRELS, str(bad)], None), ([QRELS, "-"], Path(RUN).read_bytes())):
        p = _process(args, input=stdin)
        r = CliRunner().invoke(main, ["eval", *args], input=stdin)
        assert p.returncode == r.exit_code
        assert p.stdout.decode() == r.stdout
        assert p.stderr.decode() == r.stderr
        assert (p.returncode == 2) == (stdin is None)
    assert p.stdout.startswith(b"run ")


def test_the_process_does_not_import_click():
    """The console script's entry (``tiebreak.__main__:main``) on the common form of ``tiebreak
    eval``: output printed, and click never imported up to the process's early exit."""
    p = click_probe(["eval", "--quiet", "-m", "AP", QRELS, RUN])
    assert p.returncode == 0, p.stderr
    assert p.stderr == "no click"
    assert p.stdout.startswith("run ")


def test_a_closed_pipe_ends_quietly_with_status_1():
    p = closed_pipe(["eval", "-q", "--quiet", QRELS, RUN])
    assert p.returncode == 1
    assert p.stderr == b""


def test_echo_err_writes_what_click_writes(capsys):
    from tiebreak._native.process import echo_err

    for msg in ("tiebreak: warning: x", "", "d\u00e9j\u00e0 \x1b[31mred\x1b[0m"):
        echo_err(msg)
        ours = capsys.readouterr().err
        click.echo(msg, err=True)
        assert ours == capsys.readouterr().err
