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
    ("an output file fails (`report -o`, `estimate --gains`, `reproduce -o`, `fuse -o`, "
     "`run -o` on a full disk)",
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
     "exit 2: `e.run: no result lines (an empty file): the run retrieved nothing ...` (was "
     "scored 0 and called significantly worse)",
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
    ("`tiebreak ties empty.txt`", "exit 2 naming the file (the empty-run rule); with "
     "`--allow-empty-runs` a row of zeros for that run (was IndexError)",
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
    ("an empty run (empty file, comments only, zero-byte `.gz`) in `eval`, `pool`, `ties`, "
     "`fuse`, `run`, `estimate`",
     "one rule: exit 2, `e.run: no result lines (an empty file): the run retrieved nothing ...` "
     "(`InputError` in the API); `--allow-empty-runs` (`allow_empty=True`) scores it 0 (was "
     "exit 0 and zeros)", "test_integrity_surfaces.py::test_empty_runs_refused_by_every_command"),
    ("`eval -m infNumRel` / `--convention sample_eval -m inum_rel` on a run with ties, default "
     "regimes", "R_hat under every regime (order-free: the trec_eval order serves `expected`) "
     "(was exit 2 \"need a ranking of a prepared run\")",
     "test_integrity_surfaces.py::test_inum_rel_under_the_default_regimes"),
    ("`fuse -w nan`, `-w inf`, `--rrf-k -1`, `--rrf-k nan` (and the old `-k`)",
     "exit 2: `--rrf-k must be in (-1, inf) (k + rank must stay above 0 at every rank >= 1)`; one "
     "rule (`tiebreak.io.params.Range`) for click and the API (was inf/nan scores, exit 0)",
     "test_integrity_surfaces.py::test_fuse_refuses_non_finite_parameters"),
    ("`fuse --method wsum -w 1e308 -w 1e308` (a sum that overflows)",
     "exit 2 naming the run, topic and docno of the first non-finite score; no run is written "
     "with one", "test_integrity_surfaces.py::test_fused_overflow_names_the_document"),
    ("`run --norm zmuv` (and min-max, sum) on scores near +-1e300",
     "each topic scaled by a power of two first: the same scores bit for bit where they were "
     "finite, finite where the variance overflowed (was every score nan)",
     "test_integrity_surfaces.py::test_normalisations_are_scale_free_on_huge_scores"),
    ("a run with a NaN or infinite score written (`write_run`, `format_trec_run`) or put in a "
     "`Run` object and evaluated", "`InputError` naming run, topic and docno; nothing written",
     "test_integrity_surfaces.py::test_writer_refuses_a_non_finite_score"),
    ("`search --model mindist -p alpha=1e-320`, `bm25 -p k1=1e308`, `sdm -p weights=1,2`",
     "exit 2 with the range and its reason (`alpha must be in [1e-300, inf) (exp(-delta) / "
     "alpha overflows below it)`, `weights must be 3 numbers (lambda_t, lambda_ow, "
     "lambda_uw ...)`); a model that still yields a non-finite score is refused naming it",
     "test_integrity_surfaces.py::test_model_parameters_ranges"),
    ("JSON run or qrels in UTF-16/32 or with a UTF-8 byte-order mark",
     "read by the byte-order mark; UTF-16/32 without one refused naming the file",
     "test_integrity_surfaces.py::test_json_encodings_by_byte_order_mark"),
    ("JSON: invalid UTF-8, nested 100,000 levels, `true`/`null`/string scores, a duplicate "
     "docno or topic key, a NaN",
     "`InputError` naming the file, topic and docno (`r.json: topic '1': docno 'd1' appears "
     "twice`, `r.json:1: invalid UTF-8 (byte 0xe9 at column 10)`); over 1 GiB refused (was a "
     "traceback, 1.0, or the last score kept)",
     "test_integrity_surfaces.py::test_json_run_errors_name_the_file_and_record"),
    ("Parquet: a null id, boolean scores, a duplicate docno, a qid starting with `#`",
     "`InputError` naming the file, row group, row and column (`n.parquet: row group 1, row 1 "
     "(row 3 of the file): doc_id is missing`)",
     "test_integrity_surfaces.py::test_parquet_errors_name_row_group_row_and_column"),
    ("ir_measures qrels or run as plain tuples; records of the wrong shape; a docno twice",
     "tuples read positionally; others `InputError` naming the item (was AttributeError, or the "
     "last score silently kept)",
     "test_integrity_surfaces.py::test_ir_measures_plain_tuples_and_bad_records"),
    ("pytrec_eval shape: a bytes qid or docno, a float relevance, numpy float32 scores",
     "pytrec_eval's own TypeError (`Expected string as key.`, `Unable to extract query/object "
     "scores.`) (was read as \"b'1'\")",
     "test_integrity_surfaces.py::test_pytrec_eval_type_errors_as_pytrec_eval"),
    ("`study power` with one run, identical runs, `--min-diff nan`/`0`/`1e308`",
     "a sentence (`needs two or more runs ...`, `the runs differ by the same amount on every "
     "topic ... identical runs?`); 1e308: power 1 (was a shape, a NaN or a numpy message)",
     "test_integrity_surfaces.py::test_study_power_degenerate_inputs_answered_with_a_sentence"),
    ("`study error-rate --size 0`, `--size -3`, `--fuzziness nan`",
     "exit 2 saying the range (was the default size silently, or \"needs -3 topics\")",
     "test_integrity_surfaces.py::test_study_error_rate_arguments"),
    ("`compare --test randomised-tukey` where no resample is as wide",
     "p = (count + 1) / (B + 1), never 0 (was p = 0.0)",
     "test_integrity_surfaces.py::test_randomised_tukey_p_never_zero"),
    ("`run --topics ''`, `--topics-file /dev/null`, `--topics 999`",
     "exit 2 naming the option given (was an empty run with exit 0; `--keep-topics`, an option "
     "that does not exist)",
     "test_integrity_surfaces.py::test_run_topic_filters_refuse_what_selects_nothing"),
    ("`--regime ''` or `--regime ,`", "exit 2: `regime '' names no regime` (was an empty table)",
     "test_integrity_surfaces.py::test_empty_regime_refused"),
    ("`nDCG(gains={1:-1})`", "exit 2: gains must be finite and >= 0 (was accepted)",
     "test_integrity_surfaces.py::test_negative_gains_refused"),
    ("`--chunk-topics 1` with a sampled expectation",
     "the sampling note once, with the largest standard error (was one line per chunk)",
     "test_integrity_surfaces.py::test_sampling_note_once_over_chunks"),
    ("a run directory holding a broken link, a subdirectory, a hidden file",
     "each named on stderr with the reason (`eval`, `pool`, `ties`) (was left out silently)",
     "test_integrity_surfaces.py::test_directory_entries_left_out_are_named"),
    ("`--score-precision float32` on scores beyond float32's range",
     "exit 2 naming the first such score (was inf, tied, and a numpy RuntimeWarning)",
     "test_integrity_surfaces.py::test_float32_overflow_reported"),
    ("`bounds --depth 10000000` (exact arithmetic, minutes)",
     "a progress bar per table cell on a terminal (was minutes without a word)",
     "test_integrity_surfaces.py::test_bounds_reports_progress_per_cell"),
    ("fuzzed JSON and Parquet inputs (C extension on and off), `fuse` methods, normalisations, "
     "weights and k, `run` normalisations, model parameters (hypothesis)",
     "a result with finite scores or an error naming the input; the same with and without the "
     "C extension", "test_integrity_fuzz.py::test_mutated_json_and_the_c_extension_on_and_off"),
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
