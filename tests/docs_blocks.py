"""The executable blocks of README.md and docs/*.md, parsed by Sybil.

A Markdown fence whose info string is ``console`` (optionally followed by flags, e.g.
```` ```console slow ````) is a transcript: lines starting with ``$ `` are commands (a line
ending in ``\\`` continues on the next), the lines after a command are its exact output,
standard output and standard error interleaved as a terminal shows them. ``$ cd DIR`` changes
the directory of the later commands of the block. A line ``...`` in an output stands for any
number of lines (a head or a tail of a long output).

The blocks of one page run in a temporary directory of the page's own (:class:`Sandbox`,
created for the page's first block and removed afterwards), never in the checkout: what a
command writes (``-o cacm.idx``, ``--out study_ties_r1``, ``> qrels.d10``) lands there, and a
later block of the same page can read it. Every block starts in that directory, beside a link
``../shared`` to the reference data, so the relative paths a reader types from the project
root (``../shared/data/...``, ``$(tiebreak example)``) work as written.

Before comparing, both sides are normalised the same way: trailing blanks dropped, the
project root, temporary directories and the installed package's data folder (shown as
``.../tiebreak/data/``) replaced, and durations (``12.3 s``, ``450 ms``)
replaced by ``<time>``; progress bars are dropped from what a command prints (the terminal's
view: a carriage return rewrites its line). Nothing else is loosened, so a changed number
fails.

Blocks flagged ``slow`` (over about 5 s) are left to ``benchmarks/check_docs.py``.
``python`` fences run in order, one namespace per document (Sybil's ``<!-- skip: next -->``
skips one).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from sybil import Document, Example, Sybil
from sybil.parsers.markdown import PythonCodeBlockParser, SkipParser
from sybil.parsers.markdown.lexers import RawFencedCodeBlockLexer

ROOT = Path(__file__).resolve().parent.parent
SHARED = (ROOT / ".." / "shared").resolve()
DOCS = ["README.md", *sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").glob("*.md"))]
TIMEOUT = 1800

_INFO = re.compile(r"(?P<language>console)(?:[ \t]+(?P<flags>[^\n]*))?$\n", re.MULTILINE)


@dataclass
class Transcript:
    """One console block: its commands with their expected outputs, and its flags."""

    steps: list[tuple[str, list[str]]]
    flags: frozenset[str]

    @property
    def slow(self) -> bool:
        return "slow" in self.flags


def parse_transcript(source: str, flags: str = "") -> Transcript:
    steps: list[tuple[str, list[str]]] = []
    lines = source.rstrip("\n").split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.startswith("$ "):
            raise ValueError(f"console block: output before any command: {line!r}")
        cmd = line[2:]
        while cmd.endswith("\\") and i + 1 < len(lines):
            i += 1
            cmd = cmd + "\n" + lines[i]
        out: list[str] = []
        i += 1
        while i < len(lines) and not lines[i].startswith("$ "):
            out.append(lines[i])
            i += 1
        steps.append((cmd, out))
    return Transcript(steps, frozenset((flags or "").split()))


class ConsoleParser:
    """Sybil parser for ```console fences (transcripts of ``$ command`` and output)."""

    def __init__(self) -> None:
        self.lexer = RawFencedCodeBlockLexer(info_pattern=_INFO)

    def __call__(self, document: Document):
        for region in self.lexer(document):
            region.parsed = parse_transcript(str(region.lexemes["source"]),
                                             region.lexemes.get("flags") or "")
            region.evaluator = evaluate_console
            yield region


#: the shipped example's folder, wherever tiebreak is installed (``tiebreak example`` prints it)
_PACKAGE_DATA = re.compile(r"(?:\S*/)?tiebreak/data/")
_DURATION = re.compile(r"(?<![\w.])\d+(?:\.\d+)?\s?(?:ms|s|sec|seconds|min)(?!\w|\.\w)")


#: a progress bar (tqdm's layout: ``desc: 42%|####  | 60/143 [00:13<00:07, 11.27it/s]``)
_PROGRESS = re.compile(r"^[^\n]*\d+%\|[^\n]*\|\s*\d+/\d+\s*\[[^\n]*\]\s*$")


_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def as_terminal(text: str) -> str:
    """What a terminal leaves of an output, less its progress bars: a carriage return rewrites
    its line, so only the text after a line's last ``\\r`` stays; cursor escapes are removed;
    a stretch of progress bars and blank lines (the timing of a run, not its result) is
    dropped, or kept as one blank line between two lines of output."""
    lines = [_ANSI.sub("", ln.rsplit("\r", 1)[-1]) for ln in text.split("\n")]
    out: list[str] = []
    i = 0
    while i < len(lines):
        j = i
        while j < len(lines) and (not lines[j].strip() or _PROGRESS.match(lines[j])):
            j += 1
        if j == i:
            out.append(lines[i])
            i += 1
            continue
        stretch = lines[i:j]
        if not any(_PROGRESS.match(ln) for ln in stretch):
            out.extend(stretch)
        elif out and j < len(lines) and any(not ln.strip() for ln in stretch):
            out.append("")
        i = j
    return "\n".join(out)


def normalise(text: str, tmp: str | None = None) -> list[str]:
    """The lines of an output as compared: paths and durations replaced, trailing blanks gone."""
    if tmp:
        text = text.replace(tmp + "/work", "<root>").replace(tmp + "/shared", "<shared>")
        text = text.replace(tmp, "<tmp>")
    text = text.replace(str(ROOT), "<root>").replace(str(SHARED), "<shared>")
    text = _PACKAGE_DATA.sub(".../tiebreak/data/", text)
    text = _DURATION.sub("<time>", text)
    lines = [ln.rstrip() for ln in text.split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def matches(expected: list[str], actual: list[str]) -> bool:
    """Whether ``actual`` equals ``expected``, a line ``...`` standing for any lines."""
    pattern = "".join("(?:[^\n]*\n)*?" if ln == "..." else re.escape(ln) + "\n" for ln in expected)
    return re.fullmatch(pattern, "".join(ln + "\n" for ln in actual)) is not None


def command_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT / "src"), *filter(None, [env.get("PYTHONPATH")])])
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env["PYTHONUNBUFFERED"] = "1"
    env["COLUMNS"] = "200"
    env.pop("FORCE_COLOR", None)
    env["NO_COLOR"] = "1"
    return env


def needs_shared(cmd: str) -> bool:
    return "../shared" in cmd or "shared/data" in cmd


class Sandbox:
    """One page's temporary working directory: ``TMP/work`` (where every block starts) and
    ``TMP/shared``, a link to the reference data beside the project, so that ``../shared``
    resolves from ``TMP/work`` as it does from the project root. :meth:`close` (or leaving a
    ``with`` block, or the end of the process) removes it."""

    def __init__(self) -> None:
        self._dir = tempfile.TemporaryDirectory(prefix="tiebreak-docs-")
        self.tmp = self._dir.name
        self.work = Path(self.tmp) / "work"
        self.work.mkdir()
        if SHARED.is_dir():
            (Path(self.tmp) / "shared").symlink_to(SHARED)

    def close(self) -> None:
        self._dir.cleanup()

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def page_sandbox(example: Example) -> Sandbox:
    """The sandbox of an example's page when Sybil evaluates the blocks itself: one per page,
    kept in the page's namespace, created at the first block."""
    ns = example.namespace
    if "__tiebreak_docs_sandbox__" not in ns:
        ns["__tiebreak_docs_sandbox__"] = Sandbox()
    return ns["__tiebreak_docs_sandbox__"]


def run_page(examples: list[Example]) -> list[str]:
    """Run the blocks of one page in order in one sandbox; one failure message per differing
    command, each naming its block (``docs/studies.md:85``). A block that cannot run here
    (no ../shared/data) is passed over; the page is skipped when no block could run."""
    import pytest

    failures: list[str] = []
    skipped: list[str] = []
    with Sandbox() as box:
        for ex in examples:
            try:
                failures += [f"{example_id(ex)}\n{f}" for f in run_transcript(ex.parsed, box)]
            except pytest.skip.Exception as e:
                skipped.append(f"{example_id(ex)}: {e}")
    if examples and len(skipped) == len(examples):
        pytest.skip("; ".join(skipped))
    return failures


def run_transcript(t: Transcript, box: Sandbox | None = None) -> list[str]:
    """Run every command of a transcript in ``box`` (a fresh sandbox, removed afterwards, when
    None); return one failure message per differing command."""
    import pytest

    if any(needs_shared(c) for c, _ in t.steps) and not (SHARED / "data").is_dir():
        pytest.skip("needs ../shared/data")
    if shutil.which("bash") is None:
        pytest.skip("needs bash")
    if box is None:
        with Sandbox() as fresh:
            return run_transcript(t, fresh)
    env = command_env()
    failures: list[str] = []
    tmp, cwd = box.tmp, box.work
    for cmd, out in t.steps:
        m = re.fullmatch(r"cd\s+(\S+)", cmd.strip())
        if m:
            cwd = (cwd / m.group(1)).resolve()
            continue
        proc = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], cwd=cwd, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              timeout=TIMEOUT)
        actual = normalise(as_terminal(proc.stdout.decode("utf-8", "replace")), tmp)
        expected = normalise("\n".join(out), tmp)
        if not matches(expected, actual):
            import difflib

            diff = "\n".join(difflib.unified_diff(expected, actual, "documented", "printed",
                                                  lineterm="", n=1))
            failures.append(f"$ {cmd}\n(exit status {proc.returncode})\n{diff}")
    return failures


def evaluate_console(example: Example) -> str | None:
    failures = run_transcript(example.parsed, page_sandbox(example))
    return "\n\n".join(failures) or None


def console_sybil() -> Sybil:
    return Sybil(parsers=[ConsoleParser()], path=str(ROOT))


def python_sybil() -> Sybil:
    return Sybil(parsers=[PythonCodeBlockParser(), SkipParser()], path=str(ROOT))


def console_examples(slow: bool | None = None) -> list[Example]:
    """Every console block of the docs (only the slow ones, or only the quick ones)."""
    sy = console_sybil()
    found = []
    for name in DOCS:
        for ex in sy.parse(ROOT / name):
            if slow is None or ex.parsed.slow == slow:
                found.append(ex)
    return found


def page_of(ex: Example) -> str:
    """The page of an example, relative to the project root (``docs/studies.md``)."""
    return Path(ex.path).relative_to(ROOT).as_posix()


def example_id(ex: Example) -> str:
    return f"{page_of(ex)}:{ex.line}"
