"""BM25P with window-based n-gram counting (He, Huang & Zhou 2011): the window counts and the
scores against a hand computation on a three-document collection (numbers from the formula,
written out here), and the counts against a brute force over every window."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tiebreak.index.build import build_index_from_tokens
from tiebreak.retrieval import registry
from tiebreak.retrieval.he2011 import window_counts

#   d1: a b c a      (|D| = 4)
#   d2: b x x a c    (|D| = 5)
#   d3: c c x        (|D| = 3)
DOCS = {"d1": "a b c a", "d2": "b x x a c", "d3": "c c x"}
N, AVGDL = 3, 4.0
DF = {"a": 2, "b": 2, "c": 3, "x": 2}


def rsj(df):
    return math.log((N - df + 0.5) / (df + 0.5))


def build(tmp, docs):
    terms = sorted({t for text in docs.values() for t in text.split()})
    toks, ptr = [], [0]
    for text in docs.values():
        toks += [terms.index(t) for t in text.split()]
        ptr.append(len(toks))
    return build_index_from_tokens(tmp / "i", list(docs), np.array(toks), np.array(ptr), terms)


@pytest.fixture(scope="module")
def idx(tmp_path_factory):
    return build(tmp_path_factory.mktemp("he"), DOCS)


def scores(idx, q, **params):
    d, s = registry.run(idx, q.split(), 10, "bm25p", **params)
    return {str(idx.docnos[i]): float(x) for i, x in zip(d, s)}


def bm25(doc, q, k1=1.2, b=0.75):
    toks = DOCS[doc].split()
    K = k1 * ((1 - b) + b * len(toks) / AVGDL)
    return sum(rsj(DF[t]) * (k1 + 1) * toks.count(t) / (K + toks.count(t))
               for t in q.split() if toks.count(t))


def test_window_counts_by_hand(idx):
    # window 3. d1 = a0 b1 c2 a3: M = 2 windows [0..2] {a,b,c}, [1..3] {b,c,a}
    #   -> n_ab = 2, n_bc = 2, n_ac = 2
    # d2 = b0 x1 x2 a3 c4: M = 3 windows [0..2] {b}, [1..3] {a}, [2..4] {a,c}
    #   -> n_ab = 0, n_bc = 0, n_ac = 1
    # d3 = c0 c1 x2: one window {c} -> 0
    docs, pairs, counts, _, _ = window_counts(idx, "a b c".split(), 3, "all")
    got = {(str(idx.docnos[d]), tuple(p)): int(c)
           for i, d in enumerate(docs) for p, c in zip(pairs.tolist(), counts[i])}
    assert got == {("d1", (0, 1)): 2, ("d1", (0, 2)): 2, ("d1", (1, 2)): 2,
                   ("d2", (0, 1)): 0, ("d2", (0, 2)): 1, ("d2", (1, 2)): 0,
                   ("d3", (0, 1)): 0, ("d3", (0, 2)): 0, ("d3", (1, 2)): 0}
    # window 4 > |d3| = 3: one window, the whole document. "c x": d3 {c, x} -> 1;
    # d2 windows [0..3] {b,x,a}, [1..4] {x,a,c} -> 1; d1 has no x
    docs, _, counts, _, _ = window_counts(idx, ["c", "x"], 4)
    assert dict(zip(idx.docnos[docs].tolist(), counts[:, 0].tolist())) == \
        {"d1": 0, "d2": 1, "d3": 1}
    with pytest.raises(ValueError, match="window must be an integer >= 2"):
        window_counts(idx, ["a"], 1)


def test_bm25p_by_hand(idx):
    # adjacent pairs (a,b), (b,c), window 3: df_ab = df_bc = 1 (d1 only), idf log(2.5/1.5).
    # d1: M = 2, K = 1.2 (0.25 + 0.75 * 2/4) = 0.75; each pair 2.2 * 2 / (2 + 0.75) = 1.6
    idf1 = math.log(2.5 / 1.5)
    s = scores(idx, "a b c", window=3)
    assert s == pytest.approx({"d1": bm25("d1", "a b c") + 2 * idf1 * 1.6,
                               "d2": bm25("d2", "a b c"), "d3": bm25("d3", "a b c")}, rel=1e-12)
    assert s["d1"] - bm25("d1", "a b c") == pytest.approx(1.634642, abs=1e-6)
    # every pair, lam 0.5: (a,c) has df 2 (d1, d2), idf log(1.5/2.5) < 0.
    # d2: n_ac = 1, M = 3, K = 1.2 (0.25 + 0.75 * 3/4) = 0.975 -> 2.2 / 1.975
    idf2 = math.log(1.5 / 2.5)
    s = scores(idx, "a b c", window=3, pairs="all", lam=0.5)
    assert s == pytest.approx({"d1": bm25("d1", "a b c") + 0.5 * (2 * idf1 + idf2) * 1.6,
                               "d2": bm25("d2", "a b c") + 0.5 * idf2 * 2.2 / 1.975,
                               "d3": bm25("d3", "a b c")}, rel=1e-12)
    # lam 0 is BM25 (the registry's bm25 with the same k1, b, idf)
    d, sb = registry.run(idx, "a b c".split(), 10, "bm25", k1=1.2, b=0.75, idf="rsj")
    assert scores(idx, "a b c", lam=0.0) == pytest.approx(
        {str(idx.docnos[i]): float(x) for i, x in zip(d, sb)}, rel=1e-12)


def test_query_frequency_and_alias(idx):
    # "a a b": f_a = 2, f_b = 1, pair weight (2 + 1)/2; window 2: d1 a0 b1 -> n_ab = 1 of
    # M = 3 windows ([0..1] holds both; [1..2], [2..3] do not); d2 none. df_ab = 1.
    # K = 1.2 (0.25 + 0.75 * 3/4) = 0.975
    s = registry.run(idx, "a a b".split(), 10, "he-window", window=2)
    got = dict(zip(idx.docnos[s[0]].tolist(), s[1].tolist()))
    base = 2 * rsj(2) * 2.2 * 2 / (2 + 1.2) + rsj(2) * 2.2 / (1 + 1.2)   # d1: tf_a 2, tf_b 1
    assert got["d1"] == pytest.approx(base + 1.5 * math.log(2.5 / 1.5) * 2.2 / 1.975,
                                      rel=1e-12)
    assert registry.get("he-window") is registry.get("bm25p")
    with pytest.raises(ValueError, match="pairs must be one of"):
        registry.check("bm25p", {"pairs": "some"})
    with pytest.raises(ValueError, match="window must be an integer >= 2"):
        registry.check("bm25p", {"window": 1})


def test_window_counts_against_brute_force(tmp_path):
    rng = np.random.default_rng(7)
    vocab = list("abcde")
    docs = {f"d{i}": " ".join(rng.choice(vocab, int(rng.integers(1, 40)), p=[.3, .3, .2, .1, .1]))
            for i in range(60)}
    idx = build(tmp_path, docs)
    for w in (2, 3, 7, 50):
        got, pairs, counts, tids, _ = window_counts(idx, ["a", "b", "c"], w, "all")
        terms = [str(idx.terms[t]) for t in tids]
        for i, d in enumerate(got):
            toks = docs[str(idx.docnos[d])].split()
            M = max(len(toks) - w + 1, 1)
            for p, (x, y) in enumerate(pairs.tolist()):
                want = sum(1 for s in range(M)
                           if terms[x] in toks[s:s + w] and terms[y] in toks[s:s + w])
                assert counts[i, p] == want, (w, toks, terms[x], terms[y])
