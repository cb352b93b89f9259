"""Run the console blocks of README.md and docs/*.md and compare their outputs.

The test suite (tests/test_docs.py) runs every quick block; the blocks flagged ``slow``
(```` ```console slow ````, over about 5 s each) are run here. Prints one line per block
(status, wall-clock and CPU seconds, place) and how many matched; the exit status is 1 when
any block differs. The blocks of a page run, in order, in a temporary directory of the page's
own beside a link to ../shared (tests/docs_blocks.py), so nothing is written into the checkout;
a slow block cannot count on a quick block of its page having run unless ``--all`` is given.

    python benchmarks/check_docs.py            # the slow blocks
    python benchmarks/check_docs.py --all      # every block
    python benchmarks/check_docs.py --all docs/studies.md   # the blocks of some files
"""

from __future__ import annotations

import argparse
import itertools
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import docs_blocks  # noqa: E402


def _reproduction_page() -> bool:
    """Regenerate docs/reproduction.md (every item, figures to a scratch folder) and compare it
    with the page, leaving out the figure links."""
    import subprocess
    import tempfile

    root = Path(__file__).resolve().parent.parent
    page = root / "docs" / "reproduction.md"
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "tiebreak", "reproduce", "--all", "--format", "md",
                        "-o", f"{tmp}/r.md", "--figures", f"{tmp}/img"], cwd=root, check=True)
        dt = time.perf_counter() - t0

        def strip(text: str) -> list[str]:
            # every line but the figure links; in a cell row, the cell, the paper's value and
            # the verdict (our value and note may hold timings, which vary from run to run;
            # the quick items' values are compared exactly by the test suite)
            from tiebreak.studies.reproduce import items

            timed = {i for i, it in items().items() if it.timed}
            out, skip = [], False
            for x in text.splitlines():
                if x.startswith("## "):  # a timed item varies; the summary counts follow it
                    skip = x[3:].split(": ", 1)[0] in timed or x in ("## Items by verdict",
                                                                      "## Cells by verdict")
                if skip or x.startswith("![ours: "):
                    continue
                if x.startswith("| ") and x.count(" | ") >= 4:
                    c = x.split(" | ")
                    x = " | ".join([c[0], c[1], c[3]])
                out.append(x)
            return out

        same = strip(Path(f"{tmp}/r.md").read_text()) == strip(page.read_text())
    print(f"{'matched' if same else 'DIFFERS':8} {dt:7.1f}s  docs/reproduction.md (every "
          "reproduce item)", flush=True)
    return same


def _run_block(ex, box: docs_blocks.Sandbox, verbose: bool) -> bool | None:
    """Run one block in its page's sandbox and print its line; None when skipped."""
    import pytest

    where = docs_blocks.example_id(ex)
    t0 = time.perf_counter()
    c0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        failures = docs_blocks.run_transcript(ex.parsed, box)
    except pytest.skip.Exception as e:
        print(f"skipped  {0:7.1f}s {0:7.1f}s cpu  {where}  ({e})", flush=True)
        return None
    dt = time.perf_counter() - t0
    c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = c1.ru_utime - c0.ru_utime + c1.ru_stime - c0.ru_stime
    flag = " slow" if ex.parsed.slow else ""
    print(f"{'matched' if not failures else 'DIFFERS':8} {dt:7.1f}s {cpu:7.1f}s cpu  {where}{flag}",
          flush=True)
    if failures and verbose:
        print("\n".join(failures), flush=True)
    return not failures


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--all", action="store_true", help="run the quick blocks too")
    ap.add_argument("-v", "--verbose", action="store_true", help="print the diffs")
    ap.add_argument("files", nargs="*", help="only the blocks of these files (e.g. README.md)")
    args = ap.parse_args(argv)

    examples = docs_blocks.console_examples(slow=None if args.all else True)
    if args.files:
        wanted = {Path(f).as_posix() for f in args.files}
        examples = [e for e in examples if docs_blocks.page_of(e) in wanted]
    n_ok = n_bad = n_skip = 0
    # the blocks of a page run in order in the page's temporary directory (a later block may
    # read what an earlier one wrote), removed when the page is done
    for _, page in itertools.groupby(examples, docs_blocks.page_of):
        with docs_blocks.Sandbox() as box:
            for ex in page:
                ok = _run_block(ex, box, args.verbose)
                n_skip += ok is None
                n_ok += ok is True
                n_bad += ok is False
    print(f"{n_ok} of {n_ok + n_bad} blocks matched ({n_skip} skipped)")
    if not args.files or "docs/reproduction.md" in args.files:
        n_bad += not _reproduction_page()
    return 1 if n_bad else 0


if __name__ == "__main__":
    sys.exit(main())
