"""The models added for Lu (2018) Table 2.1 (issue 40) against hand computations on the
three-document collection of ``test_retrieval_models.py``: the DFR unigram models (PL2, DPH,
DFR_BM25) and pDFR on a DFR base, PLM's kernels and document scorings, Fagan's phrases, Song &
Croft's bigram and Srikanth & Srihari's biterm language models, de Kretser & Moffat's locality
model."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tiebreak.index.build import build_index_from_tokens
from tiebreak.retrieval import registry
from tiebreak.retrieval.search import search

#   d1: a b c a      (|D| = 4)      d2: b x x a c    (|D| = 5)      d3: c c x    (|D| = 3)
DOCS = {"d1": "a b c a", "d2": "b x x a c", "d3": "c c x"}
N, C, AVGDL = 3, 12, 4.0
DF = {"a": 2, "b": 2, "c": 3, "x": 2}
CF = {"a": 3, "b": 2, "c": 4, "x": 3}
L15 = math.log(1.5)


def _index(path, docs):
    terms = sorted({t for text in docs.values() for t in text.split()})
    toks, ptr = [], [0]
    for text in docs.values():
        toks += [terms.index(t) for t in text.split()]
        ptr.append(len(toks))
    return build_index_from_tokens(path, list(docs), np.array(toks), np.array(ptr), terms)


@pytest.fixture(scope="module")
def idx(tmp_path_factory):
    return _index(tmp_path_factory.mktemp("tp") / "i", DOCS)


def scores(idx, model, q, **params):
    d, s = registry.run(idx, q.split(), 10, model, **params)
    return {str(idx.docnos[i]): float(x) for i, x in zip(d, s)}


def tf(doc, t):
    return DOCS[doc].split().count(t)


def dl(doc):
    return len(DOCS[doc].split())


# ------------------------------------------------------------------ DFR unigram models
def pl2(doc, t, c=1.0):
    tfn = tf(doc, t) * math.log2(1 + c * AVGDL / dl(doc))
    lam = CF[t] / N
    return (tfn * math.log2(tfn / lam) + (lam - tfn) / math.log(2)
            + 0.5 * math.log2(2 * math.pi * tfn)) / (tfn + 1)


def dph(doc, t):
    f = tf(doc, t) / dl(doc)
    x = tf(doc, t)
    return (1 - f) ** 2 / (x + 1) * (x * math.log2(x * AVGDL / dl(doc) * N / CF[t])
                                     + 0.5 * math.log2(2 * math.pi * x * (1 - f)))


def dfr_bm25(doc, t, qtf=1):
    tfn = tf(doc, t) * math.log2(1 + AVGDL / dl(doc))
    return 1001 * qtf / (1000 + qtf) * tfn / (tfn + 1.2) * math.log2(
        (N - DF[t] + 0.5) / (DF[t] + 0.5))


@pytest.mark.parametrize("model,f", [("pl2", pl2), ("dph", dph), ("dfr_bm25", dfr_bm25)])
def test_dfr_unigram_models_by_hand(idx, model, f):
    want = {d: sum(f(d, t) for t in ("a", "b") if tf(d, t)) for d in ("d1", "d2")}
    assert scores(idx, model, "a b") == pytest.approx(want, rel=1e-12)
    # rank-safe pruning through the traversal layer gives the same scores
    assert scores(idx, model, "a b", algorithm="maxscore") == pytest.approx(want, rel=1e-12)
    # and so does a topic set through search() (the batched traversal; "a" is a stopword of
    # the analyser, so the topic is "b c")
    (res,) = search(idx, [("q1", "b c")], model, 10)
    want = {d: sum(f(d, t) for t in ("b", "c") if tf(d, t)) for d in ("d1", "d2", "d3")}
    assert {str(idx.docnos[i]): float(x) for i, x in zip(res.docids, res.scores)} == \
        pytest.approx(want, rel=1e-12)


def test_dfr_repeated_query_term_and_c(idx):
    # PL2 and DPH weight a repeated term by f_{q,Q}; DFR_BM25 by (k3+1) f / (k3 + f)
    assert scores(idx, "pl2", "a a")["d1"] == pytest.approx(2 * pl2("d1", "a"), rel=1e-12)
    assert scores(idx, "dfr_bm25", "a a")["d2"] == pytest.approx(dfr_bm25("d2", "a", 2),
                                                                 rel=1e-12)
    assert scores(idx, "pl2", "c", c=2.0)["d3"] == pytest.approx(pl2("d3", "c", 2.0), rel=1e-12)
    # DPH of a document made of one term only: (1 - f)^2 = 0
    one = _index(idx.path.parent / "one", {"u": "z z", "v": "z y"})
    assert scores(one, "dph", "z")["u"] == 0.0


def test_pdfr_on_a_dfr_base(idx):
    # the proximity part is unchanged; only the unigram base is replaced
    for base, f in (("pl2", pl2), ("dph", dph)):
        on_bm25 = scores(idx, "pdfr", "a b c", window=3)
        on_dfr = scores(idx, "pdfr", "a b c", window=3, base=base)
        bm = scores(idx, "bm25", "a b c", k1=0.9, b=0.4, idf="rw")
        for d in ("d1", "d2", "d3"):
            uni = sum(f(d, t) for t in ("a", "b", "c") if tf(d, t))
            assert on_dfr[d] - uni == pytest.approx(on_bm25[d] - bm[d], abs=1e-12)
    with pytest.raises(ValueError, match="base"):
        registry.run(idx, ["a"], 10, "bdfr", base="ql")


# ------------------------------------------------------------------ PLM
KERNELS = {
    "gaussian": lambda d, s: math.exp(-d * d / (2 * s * s)),
    "triangle": lambda d, s: 1 - d / s if d <= s else 0.0,
    "cosine": lambda d, s: 0.5 * (1 + math.cos(math.pi * d / s)) if d <= s else 0.0,
    "circle": lambda d, s: math.sqrt(1 - (d / s) ** 2) if d <= s else 0.0,
    "passage": lambda d, s: 1.0 if d <= s else 0.0,
}


def plm_ref(doc, q, kernel, sigma, mu, top=1, beta=0.0):
    toks = DOCS[doc].split()
    L = len(toks)
    pc = {t: CF[t] / C for t in q}
    k = KERNELS[kernel]
    pos_scores = []
    for i, t in enumerate(toks):
        if t not in q:
            continue
        if kernel == "gaussian":
            r2 = sigma * math.sqrt(2)
            z = math.sqrt(2 * math.pi) * sigma * 0.5 * (math.erf((L - 1 - i) / r2)
                                                        - math.erf(-i / r2))
        else:
            z = sum(k(abs(j - i), sigma) for j in range(L))
        pos_scores.append(sum(
            math.log((sum(k(abs(j - i), sigma) for j, u in enumerate(toks) if u == w)
                      + mu * pc[w]) / (z + mu)) for w in q))
    pos_scores.sort(reverse=True)
    s = sum(pos_scores[:top]) / min(top, len(pos_scores))
    whole = sum(math.log((toks.count(w) + mu * pc[w]) / (L + mu)) for w in q)
    return (1 - beta) * s + beta * whole


@pytest.mark.parametrize("kernel", list(KERNELS))
def test_plm_kernels_by_hand(idx, kernel):
    got = scores(idx, "plm", "a b", sigma=2.0, mu=5.0, kernel=kernel)
    want = {d: plm_ref(d, ["a", "b"], kernel, 2.0, 5.0) for d in ("d1", "d2")}
    assert got == pytest.approx(want, rel=1e-12)


def test_plm_multi_position_and_multi_sigma(idx):
    got = scores(idx, "plm", "a b", sigma=2.0, mu=5.0, kernel="triangle", top=2, beta=0.3)
    want = {d: plm_ref(d, ["a", "b"], "triangle", 2.0, 5.0, top=2, beta=0.3)
            for d in ("d1", "d2")}
    assert got == pytest.approx(want, rel=1e-12)
    # beta = 1: the whole-document Dirichlet model, i.e. query likelihood with mu
    lm = scores(idx, "plm", "a b", mu=5.0, beta=1.0)
    ql = scores(idx, "ql", "a b", mu=5.0)
    # log((tf + mu p_C)/(|D| + mu)) = log(mu/(|D| + mu)) + log p_C + log(1 + tf/(mu p_C))
    const = math.log(CF["a"] / C) + math.log(CF["b"] / C)
    assert {d: v - const for d, v in lm.items()} == pytest.approx(ql, rel=1e-12)


# ------------------------------------------------------------------ Fagan
def test_fagan_phrases_by_hand(idx):
    qn = L15 * math.sqrt(2)                       # ||Q||: a and b, weight ln 1.5 each
    n1 = L15 * math.sqrt((1 + math.log(2)) ** 2 + 1)   # ||d1||: a (tf 2), b; c has idf 0
    n2 = L15 * math.sqrt(2 + (1 + math.log(2)) ** 2)   # ||d2||: a, b, x (tf 2)
    vsm = scores(idx, "vsm", "a b")
    # window 2: d1 holds (a0, b1) and (b1, a3): tf_p 2; d2's (b0, a3) is 3 apart; df_p 1
    s = scores(idx, "fagan", "a b", window=2)
    ip = math.log(3)
    assert s == pytest.approx({"d1": vsm["d1"] + ip * (1 + math.log(2)) * ip / (qn * n1),
                               "d2": vsm["d2"]}, rel=1e-12)
    # window 3: d2's pair counts too (tf_p 1), df_p 2, idf_p ln 1.5; lam 0.5
    s = scores(idx, "fagan", "a b", window=3, lam=0.5)
    assert s == pytest.approx({"d1": vsm["d1"] + 0.5 * L15 * (1 + math.log(2)) * L15 / (qn * n1),
                               "d2": vsm["d2"] + 0.5 * L15 * L15 / (qn * n2)}, rel=1e-12)
    # lam 0 is the cosine model
    assert scores(idx, "fagan", "a b", lam=0.0) == pytest.approx(vsm, rel=1e-15)
    # adjacent pairs only: in "a x b" the pairs are (a, x) and (x, b), which d1 lacks
    cos = scores(idx, "vsm", "a x b")
    adj = scores(idx, "fagan", "a x b", window=2, pairs="adjacent")
    every = scores(idx, "fagan", "a x b", window=2)
    assert adj["d1"] == pytest.approx(cos["d1"], rel=1e-15) and every["d1"] > cos["d1"] + 0.1


# ------------------------------------------------------------------ bigram / biterm LMs
def uni(doc, t, mu):
    return (tf(doc, t) + mu * CF[t] / C) / (dl(doc) + mu)


@pytest.mark.parametrize("q,pair_bigram,pair_biterm", [
    # d1 = a0 b1 c2 a3: "a b" at 0 (c(a b) 1, c(b a) 0); c(a) 2, c(b) 1
    ("a b", {"d1": 1 / 2, "d2": 0.0, "d3": 0.0}, {"d1": 1.0, "d2": 0.0, "d3": 0.0}),
    ("b a", {"d1": 0.0, "d2": 0.0, "d3": 0.0}, {"d1": 1.0, "d2": 0.0, "d3": 0.0}),
])
def test_bigram_and_biterm_lm_by_hand(idx, q, pair_bigram, pair_biterm):
    t1, t2 = q.split()
    for model, pair in (("bigram_lm", pair_bigram), ("biterm_lm", pair_biterm)):
        got = scores(idx, model, q, mu=5.0, lam=0.5)
        want = {d: math.log(uni(d, t1, 5.0)) + math.log(0.5 * uni(d, t2, 5.0) + 0.5 * pair[d])
                for d in ("d1", "d2")}
        assert got == pytest.approx(want, rel=1e-12), model
    # lam 0: query likelihood with the same mu, up to the constant sum log(mu cf/|C|)
    got = scores(idx, "bigram_lm", q, mu=5.0, lam=0.0)
    ql = scores(idx, "ql", q, mu=5.0)
    const = sum(math.log(CF[t] / C) for t in (t1, t2))
    assert {d: v - const for d, v in got.items()} == pytest.approx(ql, rel=1e-12)


def test_biterm_probability_capped(tmp_path):
    # "a b a": c(a b) 1 + c(b a) 1 over min(c(a) 2, c(b) 1) = 2 -> capped at 1
    one = _index(tmp_path / "i", {"u": "a b a", "v": "b x"})
    got = scores(one, "biterm_lm", "a b", mu=1.0, lam=0.5)
    pa, pb = (2 + 2 / 5) / (3 + 1.0), (1 + 2 / 5) / (3 + 1.0)
    assert got["u"] == pytest.approx(math.log(pa) + math.log(0.5 * pb + 0.5), rel=1e-12)


# ------------------------------------------------------------------ locality
@pytest.mark.parametrize("kernel,half", [("triangle", 0.5), ("cosine", 0.5),
                                         ("circle", math.sqrt(0.75)),
                                         ("arc", 1 - math.sqrt(0.75))])
def test_locality_by_hand(idx, kernel, half):
    # spread 2, h_a = h_b = ln 1.5. d1 = a0 b1 c2 a3: at 0, a0 gives h and b1 (d 1, u 1/2)
    # K(1/2) h; a3 is 3 away. At 1 the same; at 3 only a3 (b1 is 2 away: K(1) = 0).
    # d2 = b0 .. a3: the two are 3 apart, so h.
    got = scores(idx, "locality", "a b", kernel=kernel, spread=2.0)
    assert got == pytest.approx({"d1": (1 + half) * L15, "d2": L15}, rel=1e-12)


def test_new_models_are_registered_and_checked(idx):
    for m in ("pl2", "dph", "dfr_bm25", "fagan", "bigram_lm", "biterm_lm", "locality"):
        assert m in registry.MODELS and registry.get(m).citation
    with pytest.raises(ValueError, match="kernel"):
        registry.run(idx, ["a"], 10, "locality", kernel="box")
    with pytest.raises(ValueError, match="top"):
        registry.run(idx, ["a"], 10, "plm", top=0)
    with pytest.raises(ValueError, match="lam"):
        registry.run(idx, ["a"], 10, "bigram_lm", lam=1.0)   # log 0 without the bigram
