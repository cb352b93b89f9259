"""The table of ``docs/robustness.md`` section "Every command: failures and bad input", one row
per input or failure class with the test that shows it. ``tests/test_integrity_doc.py`` checks
that the page holds exactly :func:`render` and that every named test exists, so the page cannot
drift from the tests. Regenerate the page's section with ``python tests/robustness_table.py``.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "robustness.md"
BEGIN = "<!-- robustness-table: generated from tests/robustness_table.py; do not edit -->"
END = "<!-- end robustness-table -->"

#: (input or failure, what tiebreak does, the test that shows it: file::function)
ROWS: list[tuple[str, str, str]] = [
    ("standard output fails (`> /dev/full`), any command",
     "exit 1: `tiebreak: error: standard output: the disk is full: free some space or write "
     "elsewhere ([Errno 28] No space left on device)`; no traceback",
     "test_integrity_cli.py::test_full_stdout_is_one_line_exit_1"),
    ("an output file fails (`report -o`, `estimate --gains`, `reproduce -o` on a full disk)",
     "exit 1, the message names the file",
     "test_integrity_cli.py::test_full_output_file_is_named"),
    ("output directory missing (`report -o nodir/sub/r.html`)",
     "exit 1: `nodir/sub/r.html: no such file or directory: create the directory first`",
     "test_integrity_cli.py::test_missing_output_directory"),
    ("standard output closed (`tiebreak measures | head`)",
     "quiet exit, no `Exception ignored` message",
     "test_integrity_cli.py::test_closed_pipe_is_quiet"),
    ("index array corrupt (flipped byte in `docnos.npy`), then `search`",
     "exit 2, one line: `...docnos.npy: checksum mismatch ...`",
     "test_integrity_cli.py::test_index_error_is_one_line"),
    ("shards of a sharded index swapped on disk",
     "`search` and open: exit 2, `not the shard the sharded manifest lists at position 0 "
     "(... shards swapped ...)` (the manifest records each shard's docnos crc32; an older "
     "manifest: checked by the global docno ranks)",
     "test_integrity_index.py::test_swapped_shards_refused"),
    ("disk full while `index` writes (ENOSPC, or numpy's `N requested and M written`)",
     "exit 1 naming the destination given with `-o` (never a `.tmp` path or byte counts); "
     "nothing left behind",
     "test_integrity_index.py::test_disk_full_names_the_destination"),
    ("two fresh builds of one index racing",
     "the loser: `another build created the index DIR while this one ran ...`",
     "test_integrity_index.py::test_racing_fresh_builds_clear_message"),
    ("generations left by killed or racing builds",
     "removed by the next rebuild when provably unused (the builder's lock is free, or a "
     "finished generation was superseded); a running build's stays",
     "test_integrity_index.py::test_stale_generations_provably_unused_removed"),
    ("gzip corrupt in a way ISA-L reports with its own exception",
     "exit 2: `file: corrupt gzip data (...): the file is truncated or damaged ...`",
     "test_integrity_inputs.py::test_corrupt_gzip_any_decoder"),
    ("topics file with a UTF-8 byte-order mark",
     "the mark is removed (topic `1`, not `\\ufeff1`)",
     "test_integrity_inputs.py::test_topics_bom_removed"),
    ("topics file with invalid UTF-8, a NUL byte, or UTF-16 text",
     "exit 2: `t.tsv:2: invalid UTF-8 in the topics (byte 0xe9 at column 6) ...`",
     "test_integrity_inputs.py::test_topics_bad_encoding"),
    ("truncated topics `.gz`",
     "exit 2: `t.tsv.gz: corrupt gzip data ...` (was \"nothing was indexed\")",
     "test_integrity_inputs.py::test_truncated_topics_gz"),
    ("a truncated or corrupt ir_datasets archive in the local copy",
     "exit 2: `its local copy under IR_DATASETS_HOME=... is truncated or corrupt (...)`; "
     "delete it and download again (was \"no usable local copy ... download failed\")",
     "test_integrity_inputs.py::test_truncated_irds_archive_is_not_offline"),
    ("`pd.NA`, `None` or NaN in a run or qrels DataFrame (ids, scores, grades) or dict",
     "`InputError` naming row and column (`<DataFrame run>: row 1: query_id is missing "
     "(<NA>)`); never a topic or docno `<NA>`",
     "test_integrity_inputs.py::test_run_frame_na_and_bytes"),
    ("a DataFrame row the TREC reader refuses (NUL byte, a qid starting with `#`)",
     "the error names the row, not `<stream>:N`",
     "test_integrity_inputs.py::test_run_frame_na_and_bytes"),
    ("`trec_eval`: a 5-field results line among 6- or 7-field lines, too few fields, a blank "
     "qrels line, an empty file",
     "trec_eval 10.0's own stdout, stderr (`trec_eval.get_results: Malformed line N`) and "
     "exit status 2",
     "test_trec_eval_binary.py::test_malformed_input_like_trec_eval"),
    ("`trec_eval -J`, a topic whose retrieved documents are all unjudged",
     "`-nan` for `iprec_at_recall` at lround(x R) = 0 and `11pt_avg`, as trec_eval 10.0",
     "test_trec_eval_binary.py::test_judged_only_nan_like_trec_eval"),
    ("`pool Q RUN --unjudged` with run topics absent from Q",
     "warning naming the topics and their lines left out of the pool",
     "test_integrity_commands.py::test_pool_warns_about_run_topics_not_in_qrels"),
    ("`estimate` with run topics absent from the qrels",
     "warning naming them", "test_integrity_commands.py::"
     "test_estimate_warns_about_run_topics_not_in_qrels"),
    ("grade -2 in the qrels given to `pool`",
     "written as it is and counted among the judgments kept, with a note",
     "test_integrity_commands.py::test_pool_counts_negative_grades"),
    ("`pool /dev/null RUNS --depth 10`, an empty or comment-only qrels",
     "a fresh pool: every pooled document with relevance -1",
     "test_integrity_commands.py::test_fresh_pool_from_empty_qrels"),
    ("`pool --depth 0`, `estimate --dprime -5`, `estimate` on an empty run",
     "exit 2 saying what is allowed (never numpy's text)",
     "test_integrity_commands.py::test_estimate_bad_numbers_are_clear"),
    ("`pool --budget -3`, `pool --dmax 0`, `estimate --theta nan`",
     "exit 2 saying what is allowed (were accepted silently)",
     "test_integrity_commands.py::test_judgment_options_checked"),
    ("an empty run (empty file, gzip of nothing, zero-byte `.gz`) in `compare`",
     "exit 2: `run X retrieved nothing ...` (was scored 0 and called significantly worse)",
     "test_integrity_commands.py::test_compare_refuses_an_empty_run"),
    ("diversity measures in `compare`/`report` on subtopic qrels",
     "the subtopic column is read (was \"docno judged twice\")",
     "test_integrity_commands.py::test_diversity_on_subtopic_qrels_in_compare_and_report"),
    ("alpha-nDCG and other diversity measures on ad hoc qrels (second column 0)",
     "warning: `ad hoc qrels read as subtopic qrels: ... rewards no diversity`",
     "test_integrity_commands.py::test_diversity_on_adhoc_qrels_says_so"),
    ("comment and blank lines in runs and qrels",
     "counted in the default warnings (`lines skipped: 1 comment, 1 blank`)",
     "test_integrity_commands.py::test_skipped_lines_in_default_warnings"),
    ("`-j -1` (any command)", "exit 2: `-1 is not in the range x>=0`",
     "test_integrity_commands.py::test_negative_jobs_refused"),
    ("`tiebreak ties empty.txt`", "a row of zeros for that run (was IndexError)",
     "test_integrity_commands.py::test_ties_on_an_empty_run"),
    ("a cutoff beyond 64 bits (`-m P@99999999999999999999999`; trec_eval `-m P.9999...`)",
     "`eval`: exit 2, `the cutoff must be below 2**63`; `trec_eval`: saturated like C's atol "
     "(was OverflowError)", "test_integrity_commands.py::test_huge_cutoffs"),
    ("`band --digits 10**20`, `bounds --depth 10**20`",
     "exit 2 saying the range (were OverflowError / a format error)",
     "test_integrity_commands.py::test_huge_numbers_in_options"),
    ("relevance 2^63-1 with ERR", "exit 2: `relevance grade ... is too large ...`",
     "test_integrity_commands.py::test_huge_grade_is_a_clear_error"),
    ("a bad run evaluated on Dask (`--dask local`)",
     "one line, the run's error; no worker traceback or scheduler logs",
     "test_integrity_commands.py::test_dask_error_is_one_line"),
    ("query `cafe\\u0301` (e + combining acute)",
     "finds what `café` finds: documents and queries are NFKC-normalised",
     "test_integrity_index.py::test_unicode_normalised_documents_and_queries"),
    ("fuzzed topics files, DataFrames and gzip streams (hypothesis)",
     "a result or an error naming the input, never another exception",
     "test_io_fuzz.py::test_topics_files_give_topics_or_a_named_error"),
]


def render() -> str:
    """The generated section of the page, markers included."""
    def cell(s: str) -> str:
        return s.replace("|", "\\|")

    lines = [BEGIN, "", "| input or failure | what tiebreak does | shown by |", "|---|---|---|"]
    for what, does, test in ROWS:
        lines.append(f"| {cell(what)} | {cell(does)} | `tests/{test}` |")
    lines += ["", END]
    return "\n".join(lines) + "\n"


def current(text: str) -> str | None:
    """The generated section found in the page's ``text`` (None if absent)."""
    m = re.search(re.escape(BEGIN) + r".*?" + re.escape(END) + r"\n", text, re.S)
    return m.group(0) if m else None


def write() -> None:
    text = DOC.read_text(encoding="utf-8")
    old = current(text)
    DOC.write_text(text.replace(old, render()) if old else text.rstrip("\n") + "\n\n"
                   + render(), encoding="utf-8")


if __name__ == "__main__":
    write()
    sys.stdout.write(f"wrote {DOC}\n")
