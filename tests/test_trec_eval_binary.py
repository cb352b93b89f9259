"""Differential test against the real trec_eval 10.0, built from ../shared/tools/trec_eval-10.0
(skipped where no C compiler or make exists): every output line of ``-q -m all_trec`` with and
without ``-c``, ``-l2``, ``-M 100`` and ``-J`` on a sample of real runs must be identical.
``benchmarks/trec_eval_diff.py`` runs every run of ../shared/data and prints the count."""

from __future__ import annotations

import fcntl
import gzip
import io
import os
import shutil
import subprocess

import pytest

from tiebreak.trec_eval import main

OPTIONS = [[], ["-c"], ["-l2"], ["-c", "-l2"], ["-M", "100"], ["-J"]]


@pytest.fixture(scope="session")
def trec_eval_bin(tmp_path_factory, shared_data):
    src = shared_data.parent / "tools" / "trec_eval-10.0"
    if not src.is_dir():
        pytest.skip(f"trec_eval source not found at {src}")
    if not (shutil.which("make") and (shutil.which("cc") or shutil.which("gcc"))):
        pytest.skip("no C compiler or make: cannot build trec_eval 10.0 for the differential test")
    # built once per test session: pytest-xdist's workers share the parent of their base
    # temporary directories, and the first to take the lock builds there
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent
    d = root / "trec_eval-10.0-build"
    with open(root / "trec_eval-10.0-build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (d / "trec_eval").exists():
            shutil.copytree(src, d, dirs_exist_ok=True)
            r = subprocess.run(["make", "-s"], cwd=d, capture_output=True, text=True)
            if r.returncode != 0 or not (d / "trec_eval").exists():
                pytest.skip(f"building trec_eval failed: {r.stderr[-500:]}")
    return d / "trec_eval"


def plain(path, tmp):
    """trec_eval reads plain text: gunzip into ``tmp``."""
    if str(path).endswith(".gz"):
        out = tmp / path.name[:-3]
        if not out.exists():
            out.write_bytes(gzip.decompress(path.read_bytes()))
        return out
    return path


def diff_lines(binary, args) -> tuple[int, list[str]]:
    """Lines of trec_eval's output and the lines where tiebreak's differs."""
    ref = subprocess.run([str(binary), *map(str, args)], capture_output=True, text=True)
    out, err = io.StringIO(), io.StringIO()
    # --strict: a qrels topic without results is an error, as in trec_eval 10.0 (tiebreak's
    # default skips it with a warning, trec_eval 9's behaviour)
    rc = main(["--strict", *map(str, args)], out, err)
    assert rc == ref.returncode, (args, rc, ref.returncode, err.getvalue(), ref.stderr)
    a, b = ref.stdout.splitlines(), out.getvalue().splitlines()
    bad = [f"{x!r} != {y!r}" for x, y in zip(a, b) if x != y]
    if len(a) != len(b):
        bad.append(f"{len(a)} lines from trec_eval, {len(b)} from tiebreak")
    return len(a), bad


CASES = [
    ("trec_dl2020_bitua/qrels.dl20-doc.txt", "trec_dl2020_bitua/runs", 3),
    ("trec_covid/round1/qrels-rnd1.txt", "trec_covid/round1/runs", 3),
    ("trec_covid/round5/qrels.covid-round5.txt", "trec_covid/round5/runs", 2),
    ("robust03_trectools/qrels/robust03_qrels.txt.gz", "robust03_trectools/runs", 2),
]


@pytest.mark.slow
@pytest.mark.parametrize("qrels,rdir,n", CASES, ids=[c[1].split("/")[0] + c[1][-7:]
                                                     for c in CASES])
def test_all_trec_identical_to_trec_eval_binary(trec_eval_bin, shared_data, tmp_path, qrels,
                                                rdir, n):
    runs = sorted(p for p in (shared_data / rdir).iterdir() if not p.name.startswith("."))[:n]
    q = plain(shared_data / qrels, tmp_path)
    total, bad = 0, []
    for r in runs:
        rp = plain(r, tmp_path)
        for opts in OPTIONS:
            lines, b = diff_lines(trec_eval_bin, ["-q", "-m", "all_trec", *opts, q, rp])
            total += lines
            bad += [f"{r.name} {' '.join(opts)}: {x}" for x in b]
    assert total > 1000
    assert not bad, f"{len(bad)} of {total} lines differ:\n" + "\n".join(bad[:20])


def test_empty_results_file_exits_like_trec_eval(trec_eval_bin, shared_data, tmp_path):
    q = shared_data / "trec_eval_test" / "qrels.test"
    empty = tmp_path / "empty"
    empty.write_text("")
    ref = subprocess.run([str(trec_eval_bin), str(q), str(empty)], capture_output=True,
                         text=True)
    out, err = io.StringIO(), io.StringIO()
    rc = main([str(q), str(empty)], out, err)
    assert rc == ref.returncode != 0
    assert out.getvalue() == ref.stdout
    assert "Cannot read results file" in err.getvalue()


# ---------------------------------------------------------------- malformed input (issue 24)
QRELS_OK = "1 0 a 1\n1 0 b 0\n2 0 c 1\n"
RUN_OK = "1 Q0 a 1 2.0 r\n"
MALFORMED = {  # name: (qrels text, results text); trec_eval's stdout, stderr, status must match
    "5 fields after 6": (QRELS_OK, "1 Q0 a 1 2.0 r\n1 Q0 b 2 1.0\n"),
    "5 fields first": (QRELS_OK, "1 Q0 a 1 2.0\n1 Q0 b 2 1.0 r\n"),
    "5 fields after 7": (QRELS_OK, "1 Q0 a 1 2.0 r x\n1 Q0 b 2 1.0\n"),
    "4 fields": (QRELS_OK, "1 Q0 a 1\n"),
    "4 fields after comment and blank": (QRELS_OK, "# c\n\n1 Q0 a 1 2.0 r\n1 Q0 b 2\n"),
    "empty results": (QRELS_OK, ""),
    "qrels 3 fields": ("1 0 a\n", RUN_OK),
    "qrels 5 fields": ("1 0 a 1 x\n", RUN_OK),
    "qrels blank line": ("1 0 a 1\n\n1 0 b 0\n", RUN_OK),
    "qrels comment then 3 fields": ("# x\n1 0 a 1\n1 0 b\n", RUN_OK),
    "empty qrels": ("", RUN_OK),
}


@pytest.mark.parametrize("case", list(MALFORMED))
def test_malformed_input_like_trec_eval(trec_eval_bin, tmp_path, case, monkeypatch):
    q, r = MALFORMED[case]
    (tmp_path / "q.txt").write_text(q)
    (tmp_path / "r.txt").write_text(r)
    monkeypatch.chdir(tmp_path)
    args = ["-m", "map", "q.txt", "r.txt"]
    ref = subprocess.run([str(trec_eval_bin), *args], capture_output=True, text=True)
    out, err = io.StringIO(), io.StringIO()
    rc = main(args, out, err)
    assert (rc, out.getvalue(), err.getvalue()) == (ref.returncode, ref.stdout, ref.stderr)
    assert rc == 2


def test_judged_only_nan_like_trec_eval(trec_eval_bin, tmp_path):
    """-J: topic 1 retrieved only unjudged documents; trec_eval prints -nan for the
    interpolated precision at the recall levels lround(x R) = 0 and for 11pt_avg, per topic and
    on the 'all' line."""
    (tmp_path / "q.txt").write_text("1 0 a 1\n1 0 b 0\n2 0 c 1\n2 0 d 0\n")
    (tmp_path / "r.txt").write_text("1 Q0 x 1 2.0 r\n2 Q0 c 1 1.0 r\n")
    for opts in (["-J"], ["-c", "-J"], ["-J", "-m", "iprec_at_recall..3,.6", "-m", "11pt_avg"]):
        args = ["-q", *(opts if "-m" in opts else [*opts, "-m", "all_trec"]),
                tmp_path / "q.txt", tmp_path / "r.txt"]
        lines, bad = diff_lines(trec_eval_bin, args)
        assert not bad, bad
    out = io.StringIO()
    main(["-J", "-q", "-m", "11pt_avg", str(tmp_path / "q.txt"), str(tmp_path / "r.txt")], out,
         io.StringIO())
    name = f"{'11pt_avg':<22}"
    assert out.getvalue() == f"{name}\t1\t  -nan\n{name}\t2\t1.0000\n{name}\tall\t  -nan\n"
