"""Commands that agree: help text without broken words or reST markup, ``tiebreak measures``
as a plain table, ``ties --name-by file``."""

from __future__ import annotations

import re

from click.testing import CliRunner

from tiebreak.cli import main


def test_help_text_clean():
    for cmd in (["eval"], ["ties"], ["compare"], ["fuse"], ["run"]):
        out = CliRunner().invoke(main, cmd + ["--help"], terminal_width=80).output
        # every occurrence of a word containing "trec_e" must be whole
        for w in re.findall(r"\S*trec_e\S*", out):
            assert "trec_eval" in w, (cmd, w)
        assert "``" not in out and ":func:" not in out and ":class:" not in out, cmd


def test_measures_plain_and_markdown():
    r = CliRunner().invoke(main, ["measures", "--format", "table"])
    lines = r.output.splitlines()
    assert lines[0].split() == ["measure", "also", "trec_eval", "kind", "expected"]
    assert set(lines[1]) <= {"-", " "} and "|" not in r.output
    assert any(ln.startswith("AP[@k]") and "map" in ln for ln in lines)
    md = CliRunner().invoke(main, ["measures", "--format", "md"]).output
    assert md.startswith("| measure | also |")
    # not a terminal (CliRunner): Markdown, as before
    assert CliRunner().invoke(main, ["measures"]).output == md


def test_ties_name_by_file(tmp_path):
    for n in ("a.run", "b.run"):
        (tmp_path / n).write_text("1 Q0 d1 1 2 same\n1 Q0 d2 2 2 same\n")
    args = ["ties", str(tmp_path / "a.run"), str(tmp_path / "b.run"), "--table", "per_run",
            "--format", "tsv"]
    r = CliRunner().invoke(main, args + ["--name-by", "file"])
    assert [ln.split("\t")[0] for ln in r.output.splitlines()] == ["run", "a.run", "b.run"]
    r = CliRunner().invoke(main, args)
    assert [ln.split("\t")[0] for ln in r.output.splitlines()] == ["run", "same", "same"]


def test_repeated_warnings_summarised(tmp_path):
    (tmp_path / "q").write_text("1 0 j 1\n")
    paths = []
    for i in range(5):
        p = tmp_path / f"r{i}"
        p.write_text(f"1 Q0 u{i} 1 2 r{i}\n1 Q0 v 2 2 r{i}\n1 Q0 j 3 1 r{i}\n")
        paths.append(str(p))
    args = ["eval", str(tmp_path / "q"), *paths, "-m", "P@1", "--regime", "trec_eval", "-j", "1"]
    r = CliRunner().invoke(main, args)
    warn = [ln for ln in r.stderr.splitlines() if "warning" in ln]
    assert warn == [
        "tiebreak: warning: unjudged documents in the top 10: 5 of 5 runs, 10 in all "
        "(e.g. r0: 2); --verbose lists every run",
        "tiebreak: warning: documents in tied groups: 5 of 5 runs, 10 in all (e.g. r0: 2); "
        "--verbose lists every run"]
    r = CliRunner().invoke(main, args + ["--verbose"])
    assert sum("warning: r" in ln for ln in r.stderr.splitlines()) == 5
    r = CliRunner().invoke(main, args + ["--quiet"])
    assert "warning" not in r.stderr


def _leaf_commands():
    import click

    ctx = click.Context(main)
    out = []

    def walk(group, prefix):
        for name in group.list_commands(ctx):
            cmd = group.get_command(ctx, name)
            if isinstance(cmd, click.Group):
                walk(cmd, prefix + [name])
            else:
                out.append((" ".join(prefix + [name]), cmd, ctx))
    walk(main, [])
    return out


def test_qrels_first_positional_everywhere():
    """Every command that needs qrels takes them as its first argument (``--qrels`` stays as a
    deprecated alias); ``ties`` (optional qrels), ``trec_eval`` (trec_eval's own syntax) and
    the retrieval studies (qrels of the index they search, no runs) aside."""
    checked = []
    for name, cmd, ctx in _leaf_commands():
        names = {p.name for p in cmd.params}
        if "qrels" not in names and "qrels_spec" not in names or name in (
                "ties", "trec_eval", "study precision", "study proximity"):
            continue
        usage = cmd.collect_usage_pieces(ctx)
        args = [u for u in usage if u != "[OPTIONS]"]
        assert args and args[0].startswith("QRELS"), (name, usage)
        opt = [p for p in cmd.params if p.name == "qrels" and isinstance(p, click_option())]
        assert all(not o.required and "Deprecated" in (o.help or "") for o in opt), name
        checked.append(name)
    assert {"eval", "compare", "report", "pool", "estimate", "study depth", "study estimate",
            "study ties", "study bands"} <= set(checked)


def click_option():
    import click

    return click.Option


def test_progress_plain_lines_off_a_terminal():
    import io

    from tiebreak.evaluation.output import Progress

    buf = io.StringIO()  # not a terminal: one line per stage, no escape codes
    with Progress(3, "estimate", "topics", stream=buf) as bar:
        for _ in range(3):
            bar.update(1)
    lines = buf.getvalue().splitlines()
    assert lines[0] == "[estimate] 3 topics" and re.fullmatch(r"\[estimate\] done in \d+\.\d s",
                                                               lines[1])
    assert "\x1b" not in buf.getvalue() and "\r" not in buf.getvalue()


def test_search_default_tag_names_non_default_parameters():
    pytest = __import__("pytest")
    pytest.importorskip("numba")
    from tiebreak.cli.search import default_tag

    assert default_tag("bm25", {}) == "bm25"
    assert default_tag("bm25", {"k1": 0.9, "b": 0.4}) == "bm25"  # the defaults
    assert default_tag("bm25", {"k1": 1.2, "b": 0.75}) == "bm25_k1=1.2_b=0.75"
    assert default_tag("ql", {"mu": 1000.0}) == "ql_mu=1000.0"
    assert default_tag("lkp", {"lam": 0.3}, "bm25-lkp") == "bm25-lkp_lam=0.3"


def test_run_directory_with_a_readme(tmp_path):
    (tmp_path / "q").write_text("1 0 a 1\n2 0 a 1\n")
    d = tmp_path / "runs"
    d.mkdir()
    (d / "r1").write_text("1 Q0 a 1 2 r1\n2 Q0 b 1 2 r1\n")
    (d / "r2").write_text("# a comment\n1 Q0 b 1 2 r2\n2 Q0 a 1 2 r2\n")
    (d / "README").write_text("These runs come from somewhere.\n")
    for cmd in (["eval", "-m", "P@1", "--regime", "trec_eval"], ["compare", "-m", "P@1"]):
        r = CliRunner().invoke(main, [cmd[0], str(tmp_path / "q"), str(d), *cmd[1:]])
        assert r.exit_code == 0, r.output
        assert f"tiebreak: note: skipped {d / 'README'}: not a run (line 1 is not a run line" \
            in r.stderr
        assert "r1" in r.stdout and "r2" in r.stdout
    # a file named explicitly is read, and its problem named
    r = CliRunner().invoke(main, ["eval", str(tmp_path / "q"), str(d / "README")])
    assert r.exit_code == 2 and "README:1" in r.stderr
