"""One name per concept across the commands (issue 36): ``-m/--measure``, ``-k/--depth`` =
documents per topic, ``--seed`` a random seed, ``--rrf-k``, ``--paper``; one list syntax
(repeatable and comma-separated); ``-j 0`` = all cores; old spellings still work for one
release with a note on stderr."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner
from test_cli_conventions import _leaf_commands as leaf_commands

from tiebreak.cli import main
from tiebreak.cli.common import split_list

NOTE = "is deprecated (kept for one release)"


def _leaf_commands():
    """(name, command) of every leaf command: the walk of test_cli_conventions."""
    return [(name, cmd) for name, cmd, _ in leaf_commands()]


def _visible(cmd):
    return [p for p in cmd.params if isinstance(p, click.Option) and not p.hidden]


def test_one_name_per_concept_in_every_command():
    """No visible ``--metric``; ``-k`` is always ``--depth``; ``-m`` always ``--measure``;
    ``--seed`` always a whole number (a random seed); every ``-j`` refuses negatives."""
    seen = set()
    for name, cmd in _leaf_commands():
        for p in _visible(cmd):
            opts = set(p.opts + p.secondary_opts)
            assert "--metric" not in opts, name
            if "-k" in opts:
                assert "--depth" in opts, (name, p.opts)
                seen.add(name)
            if "-m" in opts:
                assert "--measure" in opts, (name, p.opts)
            if "--seed" in opts:
                assert isinstance(p.type, click.types.IntParamType), name
            if "--jobs" in opts:
                assert isinstance(p.type, click.IntRange) and p.type.min == 0, name
    assert {"search", "run", "study precision", "study proximity"} <= seen


def test_split_list():
    assert split_list(("AP", "P@10,RR", " nDCG@10 , ")) == ["AP", "P@10", "RR", "nDCG@10"]
    assert split_list("RBP(p=0.8,d=10),AP") == ["RBP(p=0.8,d=10)", "AP"]
    assert split_list(None) == [] and split_list(()) == []


def _invoke(args):
    r = CliRunner().invoke(main, args)
    return r.exit_code, r.stdout, r.stderr


def test_bounds_lists_and_the_old_metric_spelling():
    base = ["bounds", "--depth", "100", "--format", "tsv"]
    code, comma, err = _invoke(base + ["--rho", "1.1,1.2", "-m", "RR,RBP(p=0.5)"])
    assert code == 0 and err == ""
    assert comma.splitlines()[0].split("\t") == ["rho", "RR", "RBP(p=0.5)"]
    assert comma.splitlines()[1].startswith("1.1\t") and comma.splitlines()[2].startswith("1.2\t")
    code, repeated, err = _invoke(base + ["--rho", "1.1", "--rho", "1.2", "--measure", "RR",
                                          "--metric", "RBP(p=0.5)"])
    assert code == 0 and repeated == comma
    assert err == f"tiebreak: note: --metric {NOTE}: use -m/--measure\n"


def _runs(tmp_path):
    a, b = tmp_path / "a.run", tmp_path / "b.run"
    a.write_text("1 Q0 d1 1 3 a\n1 Q0 d2 2 2 a\n1 Q0 d3 3 1 a\n2 Q0 d1 1 2 a\n2 Q0 d4 2 1 a\n")
    b.write_text("1 Q0 d3 1 3 b\n1 Q0 d2 2 3 b\n1 Q0 d1 3 1 b\n2 Q0 d4 1 2 b\n2 Q0 d1 2 2 b\n")
    return str(a), str(b)


def test_fuse_rrf_k_and_the_old_k(tmp_path):
    a, b = _runs(tmp_path)
    code, new, err = _invoke(["fuse", a, b, "--rrf-k", "30", "--quiet"])
    assert code == 0 and err == ""
    code, old, err = _invoke(["fuse", a, b, "-k", "30", "--quiet"])
    assert code == 0 and old == new and err == f"tiebreak: note: -k {NOTE}: use --rrf-k\n"
    code, default, _ = _invoke(["fuse", a, b, "--quiet"])
    assert default != new   # k = 60 scores differently
    code, _, err = _invoke(["fuse", a, b, "-k", "30", "--rrf-k", "30"])
    assert code == 2 and "give --rrf-k or its old spelling -k, not both" in err


def test_run_depth_and_the_old_top(tmp_path):
    a, _ = _runs(tmp_path)
    code, k, err = _invoke(["run", a, "-k", "1"])
    assert code == 0 and "3 of 5 lines dropped" in err and len(k.splitlines()) == 2
    assert _invoke(["run", a, "--depth", "1"])[1] == k
    code, top, err2 = _invoke(["run", a, "--top", "1"])
    assert top == k and err2 == f"tiebreak: note: --top {NOTE}: use -k/--depth\n" + err


def test_reproduce_paper_and_the_old_seed():
    code, new, err = _invoke(["reproduce", "--list", "--paper", "ymt2016,cabanac2010"])
    assert code == 0 and err == ""
    papers = {line.split(":")[0] for line in new.splitlines()}
    assert papers == {"ymt2016", "cabanac2010"}
    code, old, err = _invoke(["reproduce", "--list", "--seed", "ymt2016", "--paper",
                              "cabanac2010"])
    assert old == new and err == f"tiebreak: note: --seed {NOTE}: use --paper\n"


def test_compare_takes_a_list_of_regimes(tmp_path):
    a, b = _runs(tmp_path)
    q = tmp_path / "q"
    q.write_text("1 0 d1 1\n1 0 d3 1\n2 0 d4 1\n")
    base = ["compare", str(q), a, b, "-m", "AP", "-m", "RR", "--format", "tsv", "-j", "1"]
    one = {r: _invoke(base + ["--regime", r])[1] for r in ("trec_eval", "optimistic")}
    code, both, err = _invoke(base + ["--regime", "trec_eval,optimistic"])
    assert code == 0
    head, *rows = one["trec_eval"].splitlines()
    assert both.splitlines() == [head, *rows, *one["optimistic"].splitlines()[1:]]
    assert _invoke(base + ["--regime", "trec_eval", "--regime", "optimistic"])[1] == both
    assert _invoke(base)[1] == one["trec_eval"]
    code, _, err = _invoke(base + ["--regime", "best"])
    assert code == 2 and "--regime best: not one of" in err


def test_trec_eval_jobs_0_is_all_cores(tmp_path):
    a, b = _runs(tmp_path)
    q = tmp_path / "q"
    q.write_text("1 0 d1 1\n2 0 d4 1\n")
    outs = []
    for j in ("0", "1"):
        r = CliRunner().invoke(main, ["trec_eval", "--jobs", j, "-m", "map", str(q), a, b])
        assert r.exit_code == 0, r.stderr
        outs.append(r.stdout)
    assert outs[0] == outs[1] and "map" in outs[0]


@pytest.mark.parametrize("args", [["eval"], ["compare"], ["study", "bands"], ["study", "ties"],
                                  ["ties"], ["reproduce"], ["search"], ["index"]])
def test_every_command_with_a_progress_bar_has_quiet(args):
    cmd = main
    for a in args:
        cmd = cmd.get_command(click.Context(cmd), a)
    assert any("--quiet" in p.opts for p in cmd.params), args
