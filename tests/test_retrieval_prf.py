"""Pseudo-relevance feedback: RM3 (Anserini's definition) and Bo1 (Terrier's) by hand on a
three-document collection, and measured on Vaswani."""

from __future__ import annotations

import io
import math

import numpy as np
import pytest

import tiebreak as tb
from tiebreak.index import build_index
from tiebreak.index.build import build_index_from_tokens
from tiebreak.index.readers import read_topics
from tiebreak.index.testcollections import COLLECTIONS
from tiebreak.retrieval.prf import expand, search_prf
from tiebreak.retrieval.search import format_run, search

#   d0: aa bb cc aa    d1: bb xx xx aa cc    d2: cc cc xx      (N = 3)
DOCS = ["aa bb cc aa", "bb xx xx aa cc", "cc cc xx"]


@pytest.fixture(scope="module")
def idx(tmp_path_factory):
    terms = ["aa", "bb", "cc", "xx"]
    toks, ptr = [], [0]
    for text in DOCS:
        toks += [terms.index(t) for t in text.split()]
        ptr.append(len(toks))
    return build_index_from_tokens(tmp_path_factory.mktemp("prf") / "i", ["d0", "d1", "d2"],
                                   np.array(toks), np.array(ptr), terms)


def test_rm3_by_hand(idx):
    # d0 -> {aa:2, bb:1} (cut to 2 terms, tie bb/cc to bb), L1 3; d1 -> {xx:2, aa:1}, L1 3
    # rm: aa = 2/3*2 + 1/3*1 = 5/3, bb = 1/3*2, xx = 2/3*1 -> cut to {aa, bb}, L1 -> 5/7, 2/7
    # mixed with q = {aa: 1} at 0.5: aa = 0.5 + 0.5*5/7, bb = 0.5*2/7
    got = expand(idx, ["aa"], [0, 1], [2.0, 1.0], "rm3", fb_docs=2, fb_terms=2,
                 orig_weight=0.5, max_df_ratio=1.0)
    assert got == pytest.approx({"aa": 0.5 + 2.5 / 7, "bb": 1 / 7}, rel=1e-12)
    # Anserini's 10% document-frequency filter leaves no feedback term in 3 documents
    assert expand(idx, ["aa"], [0, 1], [2.0, 1.0], "rm3") == {"aa": 0.5}


def test_bo1_by_hand(idx):
    # terms in both feedback documents: aa (tfx 3, Pn = cf/N = 1), bb (2, 2/3), cc (2, 4/3)
    def w(tfx, pn):
        return tfx * math.log2((1 + pn) / pn) + math.log2(1 + pn)

    wa, wb, wc = w(3, 1.0), w(2, 2 / 3), w(2, 4 / 3)
    assert wa == pytest.approx(4.0) and wb > wc
    got = expand(idx, ["aa"], [0, 1], [2.0, 1.0], "bo1", fb_docs=2, fb_terms=2)
    assert got == pytest.approx({"aa": 1 + wa / wa, "bb": wb / wa}, rel=1e-12)


def test_expand_rejects_bad_parameters(idx):
    with pytest.raises(ValueError, match="prf: expected one of rm3, bo1"):
        expand(idx, ["aa"], [0], [1.0], "rocchio")
    with pytest.raises(ValueError, match="orig_weight"):
        expand(idx, ["aa"], [0], [1.0], "rm3", orig_weight=1.5)


@pytest.fixture(scope="module")
def vaswani(shared_data, tmp_path_factory):
    c = COLLECTIONS["vaswani"]
    idx = build_index(c.docs_source(shared_data), tmp_path_factory.mktemp("vas") / "i",
                      fields=c.fields, progress=False)
    return idx, read_topics(c.topics_source(shared_data)), tb.read_qrels(
        io.BytesIO(c.qrels(shared_data)))


def _map(idx, qrels, res):
    run = tb.read_run(io.BytesIO(format_run(idx, res, "t").encode()))
    return float(tb.evaluate(qrels, [run], ["AP"], ["trec_eval"]).mean[0, 0, 0])


@pytest.mark.slow
def test_prf_on_vaswani(vaswani):
    """Measured here (default analyser, top 1000): BM25 MAP 0.2858, BM25+RM3 0.2968,
    BM25+Bo1 0.2922 -- expansion helps BM25 on Vaswani, as is usual there."""
    idx, topics, qrels = vaswani
    base = _map(idx, qrels, search(idx, topics, "bm25", 1000))
    rm3 = _map(idx, qrels, search_prf(idx, topics, "bm25", 1000, "rm3"))
    bo1 = _map(idx, qrels, search_prf(idx, topics, "bm25", 1000, "bo1"))
    assert (round(base, 4), round(rm3, 4), round(bo1, 4)) == (0.2858, 0.2968, 0.2922)


@pytest.mark.slow
def test_prf_on_vaswani_ql(vaswani):
    """docs/retrieval.md's QL figures: QL MAP 0.1902, QL+RM3 0.1809, QL+Bo1 0.1799 (expansion
    does not help Dirichlet QL on Vaswani at the default parameters)."""
    idx, topics, qrels = vaswani
    base = _map(idx, qrels, search(idx, topics, "ql", 1000))
    rm3 = _map(idx, qrels, search_prf(idx, topics, "ql", 1000, "rm3"))
    bo1 = _map(idx, qrels, search_prf(idx, topics, "ql", 1000, "bo1"))
    assert (round(base, 4), round(rm3, 4), round(bo1, 4)) == (0.1902, 0.1809, 0.1799)


def test_search_cli_prf(idx, tmp_path):
    from click.testing import CliRunner

    from tiebreak.cli import main

    topics = tmp_path / "q.tsv"
    topics.write_text("q1\tbb\n")
    base = ["search", str(idx.path), "--topics", str(topics), "-q"]
    r = CliRunner().invoke(main, base + ["--prf", "bo1", "--fb-docs", "2", "--fb-terms", "3"])
    assert r.exit_code == 0, r.output
    lines = [x.split() for x in r.output.splitlines()]
    assert lines[0][5] == "bm25-bo1" and len(lines) == 3      # expansion (cc) reaches d2
    r = CliRunner().invoke(main, base + ["--model", "sdm", "--prf", "rm3", "--prf-model", "sdm"])
    assert r.exit_code == 2 and "term-weight model" in r.output
