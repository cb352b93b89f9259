"""The documentation cannot drift: every console block of README.md and docs/*.md is run and its
output compared (tests/docs_blocks.py, parsed by Sybil), and every Python example runs as
pasted. Blocks flagged ``slow`` run in benchmarks/check_docs.py instead."""

from __future__ import annotations

import doctest
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import docs_blocks  # noqa: E402
from docs_blocks import DOCS, ROOT  # noqa: E402

QUICK = docs_blocks.console_examples(slow=False)


PAGES = sorted({docs_blocks.page_of(e) for e in QUICK}, key=DOCS.index)


@pytest.mark.parametrize("page", PAGES)
def test_console_blocks(page):
    """The quick blocks of a page, run in order in one temporary directory of the page's own
    (a block may read what an earlier one wrote), print exactly the documented outputs."""
    failures = docs_blocks.run_page([e for e in QUICK if docs_blocks.page_of(e) == page])
    assert not failures, "\n\n".join(failures)


def _python_docs():
    from sybil.parsers.markdown import PythonCodeBlockParser

    found = []
    for name in DOCS:
        text = (ROOT / name).read_text(encoding="utf-8")
        if "```python" in text:
            found.append(name)
    del PythonCodeBlockParser
    return found


@pytest.mark.parametrize("name", _python_docs())
def test_python_examples(name, monkeypatch, request):
    """The Python examples of a page run in order, as pasted, in a temporary directory beside
    ``../shared`` (as from the project root); their doctest outputs must match."""
    from sybil import Sybil
    from sybil.parsers.markdown import PythonCodeBlockParser, SkipParser

    text = (ROOT / name).read_text(encoding="utf-8")
    if "../shared/data" in text and not (docs_blocks.SHARED / "data").is_dir():
        pytest.skip("needs ../shared/data")
    box = docs_blocks.Sandbox()
    request.addfinalizer(box.close)
    monkeypatch.chdir(box.work)  # as from the project root: ../shared resolves
    sy = Sybil(parsers=[PythonCodeBlockParser(doctest_optionflags=doctest.NORMALIZE_WHITESPACE),
                        SkipParser()], path=str(ROOT))
    document = sy.parse(ROOT / name)
    n = 0
    for example in document:
        example.evaluate()
        n += 1
    assert n > 0


def test_every_transcript_is_tested():
    """A fence whose lines start with ``$ tiebreak`` must be a console block, so no documented
    output escapes the comparison."""
    fence = re.compile(r"^```([^\n]*)\n(.*?)^```", re.M | re.S)
    escaped = []
    for name in DOCS:
        for m in fence.finditer((ROOT / name).read_text(encoding="utf-8")):
            info, body = m.group(1).split(), m.group(2)
            if re.search(r"^\$ tiebreak", body, re.M) and (not info or info[0] != "console"):
                escaped.append(f"{name}: {body.splitlines()[0]}")
    assert not escaped


def test_a_changed_output_fails():
    """Change one documented number of a real block: the comparison must report it."""
    example = next(e for e in QUICK if e.parsed.steps[0][0].startswith(
        "tiebreak eval $(tiebreak example) -m AP -m P@5 -m RR --regime all"))
    t = example.parsed
    cmd, out = t.steps[0]
    assert any("0.5363" in line for line in out)
    changed = docs_blocks.Transcript([(cmd, [ln.replace("0.5363", "0.5364") for ln in out])],
                                     t.flags)
    failures = docs_blocks.run_transcript(changed)
    assert len(failures) == 1
    assert "-ymt-fig1  AP       1       0.5260    0.5364" in failures[0]
    assert "+ymt-fig1  AP       1       0.5260    0.5363" in failures[0]
    # and a dropped line fails too
    dropped = docs_blocks.Transcript([(cmd, out[:3] + out[4:])], t.flags)
    assert docs_blocks.run_transcript(dropped)


def checkout_state(root: Path) -> list[str] | None:
    """``git status --porcelain`` of a checkout, every untracked file listed (what .gitignore
    does not cover: build, venv and cache folders only), or None when ``root`` is not in a git
    checkout."""
    if shutil.which("git") is None:
        return None
    proc = subprocess.run(["git", "-C", str(root), "status", "--porcelain",
                           "--untracked-files=all"], capture_output=True, text=True)
    return sorted(proc.stdout.splitlines()) if proc.returncode == 0 else None


def test_checkout_state_sees_a_new_file(tmp_path):
    """The comparison below can fail: a file written into a checkout is seen."""
    if shutil.which("git") is None:
        pytest.skip("needs git")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    before = checkout_state(tmp_path)
    (tmp_path / "qrels.d10").write_text("1 0 a 1\n")
    assert before == [] and checkout_state(tmp_path) == ["?? qrels.d10"]
    assert checkout_state(tmp_path.parent / "no-such-dir") is None


def test_a_page_leaves_the_checkout_untouched():
    """The quick blocks of docs/reproducibility.md copy the shipped example, write
    expected.yaml and edit the copied run with sed: all of it lands in the page's temporary
    directory, and the checkout has no new or changed file afterwards."""
    before = checkout_state(ROOT)
    if before is None:
        pytest.skip("not in a git checkout")
    page = [e for e in QUICK if docs_blocks.page_of(e) == "docs/reproducibility.md"]
    assert page
    with docs_blocks.Sandbox() as box:
        for e in page:
            assert not docs_blocks.run_transcript(e.parsed, box)
        written = {p.name for p in box.work.iterdir()}
    assert {"ymt2016.qrels", "ymt2016.run", "expected.yaml"} <= written
    assert [x for x in checkout_state(ROOT) if x not in before] == []


def test_blocks_of_a_page_share_a_directory():
    """A later block of a page reads what an earlier one wrote; another page does not see it;
    ``../shared`` resolves from the directory as from the project root."""
    t = docs_blocks.Transcript
    with docs_blocks.Sandbox() as box, docs_blocks.Sandbox() as other:
        assert not docs_blocks.run_transcript(t([("echo 7 > n.txt", [])], frozenset()), box)
        read = t([("cat n.txt", ["7"])], frozenset())
        assert not docs_blocks.run_transcript(read, box)
        assert docs_blocks.run_transcript(read, other)
        if docs_blocks.SHARED.is_dir():
            assert (box.work / ".." / "shared").resolve() == docs_blocks.SHARED
    assert not Path(box.tmp).exists()


def test_matching_rules():
    m = docs_blocks.matches
    assert m(["a", "...", "d"], ["a", "b", "c", "d"])
    assert m(["a", "...", "d"], ["a", "d"])
    assert not m(["a", "...", "d"], ["a", "b", "c"])
    assert not m(["a", "b"], ["a", "b", "c"])
    assert not m(["0.5363"], ["0.5364"])
    norm = docs_blocks.normalise
    assert norm("indexed in 0.7 s -> x\n") == norm("indexed in 12.25 s -> x")
    assert norm("covidex.r5.2s.lr 0.5") != norm("covidex.r5.3s.lr 0.5")
    assert norm("p 0.0500 ") == ["p 0.0500"]
    assert norm(f"{ROOT}/src/x") == ["<root>/src/x"]


def test_transcript_parsing():
    t = docs_blocks.parse_transcript("$ cd a\n$ tiebreak x \\\n    --y\nout 1\n\nout 2\n$ z\n",
                                     "slow")
    assert t.slow
    assert t.steps == [("cd a", []), ("tiebreak x \\\n    --y", ["out 1", "", "out 2"]),
                       ("z", [])]
    with pytest.raises(ValueError):
        docs_blocks.parse_transcript("output first\n$ tiebreak x\n")


def test_unknown_measure_hint_names_a_command():
    """The unknown-measure error points to a command that exists and lists the measures."""
    env = docs_blocks.command_env()
    proc = subprocess.run([sys.executable, "-m", "tiebreak", "eval", "/dev/null", "/dev/null",
                           "-m", "NoSuchMeasure"], capture_output=True, text=True, env=env)
    assert proc.returncode == 2
    hint = re.search(r"`tiebreak ([a-z_]+)` lists every name", proc.stderr)
    assert hint, proc.stderr
    listed = subprocess.run([sys.executable, "-m", "tiebreak", hint.group(1)],
                            capture_output=True, text=True, env=env)
    assert listed.returncode == 0 and "nDCG" in listed.stdout
