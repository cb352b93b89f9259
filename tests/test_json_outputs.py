"""Every subcommand with ``--format json`` writes JSON that ``json.loads`` parses (no bare
``NaN``): the commands are found by walking the CLI, so a new one must be added here."""

from __future__ import annotations

import json

import click
from click.testing import CliRunner

from tiebreak.cli import main

RUNS = ["BM25R2.gz", "BERT.gz", "BITEM_BL.gz"]


def _json_commands() -> list[str]:
    ctx = click.Context(main)
    found = []

    def walk(group, prefix):
        for name in group.list_commands(ctx):
            cmd = group.get_command(ctx, name)
            if isinstance(cmd, click.Group):
                walk(cmd, prefix + [name])
                continue
            for p in cmd.params:
                if "--format" in getattr(p, "opts", []) and \
                        "json" in getattr(p.type, "choices", ()):
                    found.append(" ".join(prefix + [name]))
    walk(main, [])
    return found


def _args(shared_data, tmp_path) -> dict[str, list[str]]:
    d = shared_data / "trec_covid/round1"
    q = str(d / "qrels-rnd1.txt")
    runs = [str(d / "runs" / r) for r in RUNS]
    # two eval results (for correlate) and a file of expected values (for verify)
    res = []
    for k, rs in enumerate((runs, runs[::-1])):   # the same runs, another order
        out = tmp_path / f"res{k}.tsv"
        r = CliRunner().invoke(main, ["eval", q, *rs, "-m", "AP", "--format", "tsv",
                                      "--regime", "trec_eval", "--quiet"])
        assert r.exit_code == 0, r.output
        out.write_text(r.stdout)
        res.append(str(out))
    expected = tmp_path / "expected.yaml"
    r = CliRunner().invoke(main, ["eval", q, runs[0], "-m", "AP", "--quiet",
                                  "--write-expected", str(expected)])
    assert r.exit_code == 0, r.output
    return {
        "eval": [q] + runs + ["-m", "AP", "-m", "bpref"],
        "compare": [q] + runs + ["-m", "AP"],
        "ties": runs,
        "estimate": ["--qrels", q] + runs,  # the old spelling still works
        "study depth": [q, "--reference-depth", "20", "--topics", "1-8"] + runs,
        "study estimate": [q, "--pool-depth", "5", "--reference-depth", "20",
                           "--models", "const", "--loss", "a", "--topics", "1-6"] + runs,
        "study predict": [q, "--predictors", "rank", "--pool-depth", "10", "--folds", "2",
                          "--topics", "1-6"] + runs,
        "study dropout": [q, "--share", "0.5", "--repeats", "2", "--pool-depth", "10",
                          "-m", "AP@10", "--topics", "1-6"] + runs,
        "fuse": runs[:2] + ["-o", str(tmp_path / "f.json")],
        "run": [runs[0], "--top", "5", "-o", str(tmp_path / "r.json")],
        "swaps": [q] + runs + ["-m", "AP"],
        "repro": [q, runs[0], "--reproduced", runs[1], "-m", "AP"],
        "qrels agree": [q, q],
        "qrels robustness": [q, q] + runs + ["-m", "AP"],
        "correlate": res,
        "verify": [str(expected), "--all"],
    }


def test_every_json_output_parses(shared_data, tmp_path):
    table = _args(shared_data, tmp_path)
    cmds = _json_commands()
    assert set(cmds) == set(table), f"add arguments for {set(cmds) ^ set(table)}"
    for cmd in cmds:
        r = CliRunner().invoke(main, cmd.split() + table[cmd] + ["--format", "json"])
        assert r.exit_code == 0, (cmd, r.output[-2000:])
        text = r.stdout
        if cmd in ("fuse", "run"):
            text = (tmp_path / ("f.json" if cmd == "fuse" else "r.json")).read_text()
        assert "NaN" not in text, cmd
        doc = json.loads(text)
        assert doc, cmd
