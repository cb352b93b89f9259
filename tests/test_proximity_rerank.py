"""Two-stage proximity ranking (tiebreak.retrieval.rerank): with K = all candidates it equals
the full Lkp / Lkpf / L2p ranking bit for bit; with a small K it scores exactly the first pass's
documents, each with its full-model score."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from tiebreak.index import build_index
from tiebreak.retrieval import dependency as dep
from tiebreak.retrieval.rerank import rerank

WORDS = ["alpha", "beta", "gamma", "delta", "kappa", "omega", "zeta", "theta", "iota", "sigma"]
QUERIES = ["alpha beta", "alpha beta gamma", "gamma alpha delta beta",
           "beta alpha beta gamma kappa", "alpha", "omega zeta alpha", "gamma delta",
           "alpha beta gamma delta kappa omega zeta theta iota"]   # 9 terms: EPS-CDF-A


def random_index(tmp_path, seed, ndocs=80, vocab=10, maxlen=40):
    rng = random.Random(seed)
    lines = []
    for i in range(ndocs):
        text = " ".join(rng.choice(WORDS[:vocab]) for _ in range(rng.randint(1, maxlen)))
        lines.append(json.dumps({"docno": f"d{i:03d}", "text": text}))
    src = tmp_path / f"r{seed}.jsonl"
    src.write_text("\n".join(lines) + "\n")
    return build_index(str(src), str(tmp_path / f"idx{seed}"), progress=False)


@pytest.mark.parametrize("seed", [4, 5])
def test_rerank_all_equals_full(tmp_path, seed):
    idx = random_index(tmp_path, seed)
    for qtext in QUERIES:
        q = idx.analyzer.analyze(qtext)
        for model in ("lkp", "lkpf", "l2p"):
            for method in ("auto", "lps_if_all", "eps_cdf_all"):
                d0, s0 = getattr(dep, model)(idx, q, 1000, method=method)
                d1, s1 = rerank(idx, q, 1000, first_k=idx.num_docs, model=model,
                                method=method)
                assert d1.tolist() == d0.tolist(), (model, qtext)
                assert np.array_equal(s1, s0), (model, qtext)
                # prefix property at a smaller output depth
                d2, s2 = rerank(idx, q, 7, first_k=idx.num_docs, model=model, method=method)
                assert d2.tolist() == d0[:7].tolist() and np.array_equal(s2, s0[:7])


def test_rerank_scores_only_first_pass(tmp_path):
    from tiebreak.retrieval.models import bm25

    idx = random_index(tmp_path, 6)
    q = idx.analyzer.analyze("alpha beta gamma")
    full_d, full_s = dep.lkp(idx, q, 1000, lam=0.6)
    full = dict(zip(full_d.tolist(), full_s.tolist()))
    first, _ = bm25(idx, q, 10, idf="rw", k1=dep.K1, b=dep.B)
    d, s = rerank(idx, q, 1000, first_k=10, lam=0.6)
    assert sorted(d.tolist()) == sorted(first.tolist())
    for x, y in zip(d.tolist(), s.tolist()):
        assert y == full[x]
    assert list(s) == sorted(s, reverse=True)


@pytest.mark.parametrize("lam", [0.4, 1.0])
def test_rerank_tail(tmp_path, lam):
    """tail=True: the first K documents with their full Eq. 4.3 scores, then the first pass's
    documents K+1..k with (1 - lam) BM25 -- a lower bound of Eq. 4.3 -- all in trec_eval order."""
    from tiebreak.retrieval.models import bm25

    idx = random_index(tmp_path, 9, ndocs=120)
    for qtext in QUERIES[:4]:
        q = idx.analyzer.analyze(qtext)
        full_d, full_s = dep.lkp(idx, q, 1000, lam=lam)
        full = dict(zip(full_d.tolist(), full_s.tolist()))
        lkp0 = dict(zip(*(x.tolist() for x in dep.lkp(idx, q, 1000, lam=0.0))))
        first, _ = bm25(idx, q, 40, idf="rw", k1=dep.K1, b=dep.B)
        d, s = rerank(idx, q, 40, first_k=8, lam=lam, tail=True)
        assert sorted(d.tolist()) == sorted(first.tolist())
        head = set(first[:8].tolist())
        for x, y in zip(d.tolist(), s.tolist()):
            if x in head:
                assert y == full[x]
            else:  # BM25 part only; lam=0 Lkp is BM25^(2), so (1 - lam) times it
                assert y == pytest.approx((1.0 - lam) * lkp0[x], rel=1e-12, abs=1e-12)
                assert y <= full[x] + 1e-12
        # trec_eval order: score descending, then docno descending (lam = 1: the tail is 0)
        docnos = [idx.docnos[x] for x in d.tolist()]
        keys = list(zip(s.tolist(), docnos))
        assert keys == sorted(keys, reverse=True)
        # K >= k: the tail changes nothing; without tail only K documents come back
        d2, s2 = rerank(idx, q, 40, first_k=40, lam=lam, tail=True)
        d3, s3 = rerank(idx, q, 40, first_k=40, lam=lam)
        assert d2.tolist() == d3.tolist() and np.array_equal(s2, s3)
        assert len(rerank(idx, q, 40, first_k=8, lam=lam)[0]) == min(8, len(first))


def test_rerank_bad_input(tmp_path):
    idx = random_index(tmp_path, 7)
    q = idx.analyzer.analyze("alpha beta")
    with pytest.raises(ValueError, match="first_k must be an integer >= 1"):
        rerank(idx, q, 10, first_k=0)
    with pytest.raises(ValueError, match="model: expected one of lkp, lkpf, l2p"):
        rerank(idx, q, 10, model="sdm")
    with pytest.raises(ValueError, match="lam must be in"):
        rerank(idx, q, 10, lam=2)
    with pytest.raises(ValueError, match="tail needs the BM25"):
        rerank(idx, q, 10, first_k=2, tail=True, first="ql")
    with pytest.raises(ValueError, match="tail needs the BM25"):
        rerank(idx, q, 10, first_k=2, tail=True, idf="lucene")
    assert len(rerank(idx, q, 10, first_k=2, tail=True, b=0.5, k1=1.2)[0]) > 2  # model's k1, b
    d, s = rerank(idx, ["nonexistentterm"], 10)
    assert len(d) == 0 and len(s) == 0


def test_cli_rerank_option(tmp_path):
    from click.testing import CliRunner

    from tiebreak.cli import main

    idx = random_index(tmp_path, 8)
    t = tmp_path / "t.tsv"
    t.write_text("1\talpha beta gamma\n2\tdelta kappa\n")
    r = CliRunner()
    full = r.invoke(main, ["search", str(idx.path), "--topics", str(t), "--model", "lkp",
                           "-k", "20", "-q", "--tag", "x"])
    two = r.invoke(main, ["search", str(idx.path), "--topics", str(t), "--rerank", "lkp",
                          "--first", "bm25", "-k", "20", "--first-k", "1000", "-q", "--tag",
                          "x"])
    assert full.exit_code == 0 and two.exit_code == 0, two.output
    assert two.output == full.output and two.output.count("\n") == 40
    # --tail: depth -k with --first-k 5; the first 5 lines are the two-stage K = 5 run's
    tl = r.invoke(main, ["search", str(idx.path), "--topics", str(t), "--rerank", "lkp",
                         "-k", "20", "--first-k", "5", "--tail", "-q", "--tag", "x"])
    short = r.invoke(main, ["search", str(idx.path), "--topics", str(t), "--rerank", "lkp",
                            "-k", "20", "--first-k", "5", "-q", "--tag", "x"])
    assert tl.exit_code == 0 and tl.output.count("\n") == 40, tl.output
    assert [x for x in tl.output.splitlines() if int(x.split()[3]) <= 5] \
        == short.output.splitlines()
    bad = r.invoke(main, ["search", str(idx.path), "--topics", str(t), "--rerank", "lkp",
                          "--first", "nope", "-q"])
    assert bad.exit_code == 2 and "unknown model 'nope'" in bad.output


@pytest.mark.parametrize("first", ["bm25", "ql"])
def test_rerank_pruned_first_pass_equals_exhaustive(tmp_path, first):
    """The first pass can use rank-safe pruning (MaxScore, block-max WAND): the candidates and
    their scores are the exhaustive ones, so the two-stage result is identical, with --tail
    too; the CLI passes --algorithm to the first pass and refuses the other traversal
    options there."""
    from click.testing import CliRunner

    from tiebreak.cli import main
    from tiebreak.retrieval.rerank import search_rerank

    idx = random_index(tmp_path, 9, ndocs=300)
    for q in QUERIES:
        terms = idx.analyzer.analyze(q)
        for fk in (3, 10, 40):
            want = rerank(idx, terms, 25, first=first, first_k=fk)
            for alg in ("maxscore", "bmw"):
                got = rerank(idx, terms, 25, first=first, first_k=fk, algorithm=alg)
                assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])
            if first == "bm25":
                want = rerank(idx, terms, 25, first_k=fk, tail=True)
                got = rerank(idx, terms, 25, first_k=fk, tail=True, algorithm="bmw")
                assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])
    # the pruned first pass really runs: it scores fewer postings
    st_ex, st_pr = np.zeros(2, np.int64), np.zeros(2, np.int64)
    for q in QUERIES:
        terms = idx.analyzer.analyze(q)
        rerank(idx, terms, 3, first=first, first_k=3, stats=st_ex)
        rerank(idx, terms, 3, first=first, first_k=3, algorithm="bmw", stats=st_pr)
    assert 0 < st_pr[0] < st_ex[0]
    topics = [(str(i), q) for i, q in enumerate(QUERIES)]
    with pytest.raises(ValueError, match="bm25 or ql first pass"):
        search_rerank(idx, topics, 20, first="lkp", algorithm="bmw")
    a = search_rerank(idx, topics, 20, first=first, first_k=10)
    b = search_rerank(idx, topics, 20, first=first, first_k=10, algorithm="maxscore")
    assert all(np.array_equal(x.docids, y.docids) and np.array_equal(x.scores, y.scores)
               for x, y in zip(a, b))
    with pytest.raises(ValueError, match="algorithm"):
        search_rerank(idx, topics, 20, algorithm="wand")
    t = tmp_path / "t.tsv"
    t.write_text("1\talpha beta gamma\n2\tdelta kappa\n")
    r = CliRunner()
    base = ["search", str(idx.path), "--topics", str(t), "--rerank", "lkp", "--first", first,
            "-k", "20", "--first-k", "8", "-q", "--tag", "x"]
    ex = r.invoke(main, base)
    pr = r.invoke(main, base + ["--algorithm", "bmw"])
    assert ex.exit_code == 0 and pr.exit_code == 0, pr.output
    assert pr.output == ex.output and ex.output.count("\n") == 16
    bad = r.invoke(main, base + ["--quantize", "8"])
    assert bad.exit_code == 2 and "--rerank" in bad.output


def tied_index(tmp_path, seed, ndocs=60):
    """Few words, short documents, each written twice under two docnos: many exact ties."""
    rng = random.Random(seed)
    lines = []
    for i in range(ndocs // 2):
        text = " ".join(rng.choice(WORDS[:4]) for _ in range(rng.randint(1, 8)))
        for c in "ab":
            lines.append(json.dumps({"docno": f"d{i:03d}{c}", "text": text}))
    src = tmp_path / f"t{seed}.jsonl"
    src.write_text("\n".join(lines) + "\n")
    return build_index(str(src), str(tmp_path / f"tidx{seed}"), progress=False)


def check_pruned_prefix(idx, q, first_k, ks):
    """rerank at output depth k < K (bound-based early stop) = the top k of rerank at depth K
    (every candidate scored), documents and scores; tied scores in trec_eval order."""
    for model in ("lkp", "lkpf", "l2p"):
        d0, s0 = rerank(idx, q, first_k, first_k=first_k, model=model)
        full_d, full_s = getattr(dep, model)(idx, q, 1000)
        for k in ks:
            d1, s1 = rerank(idx, q, k, first_k=first_k, model=model)
            assert d1.tolist() == d0[:k].tolist(), (model, q, k)
            assert np.array_equal(s1, s0[:k]), (model, q, k)
            if first_k >= idx.num_docs:      # K = every candidate: the full model's top k
                assert d1.tolist() == full_d[:k].tolist() and np.array_equal(s1, full_s[:k])


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_rerank_early_stop_exact_with_ties(tmp_path, seed):
    idx = tied_index(tmp_path, seed)
    for qtext in ("alpha beta", "alpha beta gamma", "delta gamma beta alpha", "beta beta alpha"):
        q = idx.analyzer.analyze(qtext)
        check_pruned_prefix(idx, q, idx.num_docs, (1, 2, 3, 5, 9))
        check_pruned_prefix(idx, q, 20, (1, 4, 7))


@pytest.mark.slow
def test_rerank_early_stop_exact_cacm(shared_data, tmp_path):
    """On CACM (every 4th topic; K = 100, k = 1, 10, 30): the early stop changes nothing."""
    from tiebreak.index.readers import read_topics

    d = shared_data / "cacm"
    idx = build_index(d / "anserini_cacm_html.tar.gz", tmp_path / "cacm", progress=False)
    topics = read_topics(d / "anserini_topics.cacm.txt")[::4]
    for _, text in topics:
        q = list(dict.fromkeys(idx.analyzer.analyze(text)))[:8]
        for model in ("lkp", "l2p"):
            d0, s0 = rerank(idx, q, 100, first_k=100, model=model)
            for k in (1, 10, 30):
                d1, s1 = rerank(idx, q, k, first_k=100, model=model)
                assert d1.tolist() == d0[:k].tolist() and np.array_equal(s1, s0[:k]), (text, k)


@pytest.mark.filterwarnings("ignore:divide by zero:RuntimeWarning")   # BM25's idf of df = 0
def test_term_without_postings(tmp_path):
    """An index built from tokens may list a term no document uses (df = 0): Lkp and the
    two-stage path give it no weight (this divided by zero before) and rank as without it."""
    from tiebreak.index import Analyzer
    from tiebreak.index.build import build_index_from_tokens

    tok = np.array([0, 1, 0, 1, 1, 0, 2], np.int32)
    idx = build_index_from_tokens(tmp_path / "t", ["a", "b", "c"], tok,
                                  np.array([0, 2, 5, 7]), ["x", "y", "z", "unused"],
                                  Analyzer("none", "none"))
    assert idx.term_id("unused") >= 0
    for model in ("lkp", "l2p"):
        d0, s0 = getattr(dep, model)(idx, ["x", "y"], 10)
        d1, s1 = getattr(dep, model)(idx, ["x", "unused", "y"], 10)
        assert sorted(d1.tolist()) == sorted(d0.tolist()) and len(d0) == 3
        d2, s2 = rerank(idx, ["x", "unused", "y"], 10, first_k=2, model=model)
        assert len(d2) == 2
