"""Term-dependency models over an index (tiebreak.retrieval.dependency): a two-document
collection checked by hand, and random collections against a per-document reference built
from tiebreak.retrieval.proximity."""

from __future__ import annotations

import itertools
import json
import math
import random

import numpy as np
import pytest

from tiebreak.retrieval import dependency as dep
from tiebreak.retrieval import proximity as px

pytest.importorskip("tiebreak.index")
from tiebreak.index import build_index  # noqa: E402


@pytest.fixture(scope="module")
def two_docs(tmp_path_factory):
    """D1 = "alpha beta zeta alpha", D2 = "gamma zeta delta gamma"; query alpha beta gamma
    delta. Every query term has df = 1, so w = ln 2 (< 1, so min(w, 1) = w); |D| = avg|D| = 4,
    so K = k1 = 0.9 for both documents."""
    d = tmp_path_factory.mktemp("two")
    src = d / "docs.jsonl"
    src.write_text(
        json.dumps({"docno": "D1", "text": "alpha beta zeta alpha"})
        + "\n"
        + json.dumps({"docno": "D2", "text": "gamma zeta delta gamma"})
        + "\n"
    )
    idx = build_index(str(src), str(d / "idx"), progress=False)
    q = idx.analyzer.analyze("alpha beta gamma delta")
    assert q == ["alpha", "beta", "gamma", "delta"]
    return idx, q


def g(S, K=0.9, k1=0.9):
    """Eq. 4.2 saturation."""
    return S * (1 + k1) / (S + K)


def test_lkp_two_documents_by_hand(two_docs):
    idx, q = two_docs
    w = math.log(2)
    bm25 = w * 3.8 / 2.9 + w  # tf 2 and tf 1, K = 0.9: (1.9 tf) / (tf + 0.9)
    # D1: {alpha, beta} optimal [0..1], [1..3]; non-overlapping [0..1]:
    #     Eq. 4.1 = w*w / (2 / (w + w))^2 = w^4; phrase "alpha beta" at 0..1: also w^4
    d1 = 0.6 * bm25 + 0.4 * (g(w**4) + g(w**4))
    # D2: {gamma, delta} optimal [0..2], [2..3]; non-overlapping [0..2]:
    #     Eq. 4.1 = w*w / (3 / 2w)^2 = 4 w^4 / 9; no "gamma delta" phrase (delta precedes gamma
    #     only at 2..3, reversed)
    d2 = 0.6 * bm25 + 0.4 * g(4 * w**4 / 9)
    for model in (dep.lkp, dep.lkpf, dep.l2p):  # only pairs occur, all within 4|Q'|
        for method in ("lps_if_all", "eps_cdf_all"):
            docids, scores = model(idx, q, 10, method=method)
            assert [idx.docno(i) for i in docids] == ["D1", "D2"]
            assert scores == pytest.approx([d1, d2], abs=1e-12)
    # lam = 0 leaves BM25^(2) only: the two documents tie, docno descending breaks it
    docids, scores = dep.lkp(idx, q, 10, lam=0.0)
    assert [idx.docno(i) for i in docids] == ["D2", "D1"]
    assert scores == pytest.approx([bm25, bm25], abs=1e-12)
    docids, scores = dep.lkp(idx, q, 1)
    assert [idx.docno(i) for i in docids] == ["D1"]


def test_sdm_fdm_two_documents_by_hand(two_docs):
    idx, q = two_docs
    mu, C, dl = 2500.0, 8.0, 4.0
    cf = {"alpha": 2, "beta": 1, "gamma": 2, "delta": 1}

    def phi(f_d, f_c):
        return math.log((f_d + mu * f_c / C) / (dl + mu))

    def uni(tf):
        return sum(phi(tf[t], cf[t]) for t in q) / 4

    tf1 = {"alpha": 2, "beta": 1, "gamma": 0, "delta": 0}
    tf2 = {"alpha": 0, "beta": 0, "gamma": 2, "delta": 1}
    # collection counts: #1(alpha beta) = 1 (D1); #1(beta gamma) = #1(gamma delta) = 0;
    # #uw8(alpha beta) = 1 (D1: [0..1]; [1..3] overlaps it); #uw8(gamma delta) = 1 (D2: [0..2])
    # features with collection count 0 are left out; groups divided by 3 children (SDM)
    sdm1 = 0.8 * uni(tf1) + 0.15 / 3 * phi(1, 1) + 0.05 / 3 * (phi(1, 1) + phi(0, 1))
    sdm2 = 0.8 * uni(tf2) + 0.15 / 3 * phi(0, 1) + 0.05 / 3 * (phi(0, 1) + phi(1, 1))
    docids, scores = dep.sdm(idx, q, 10)
    assert [idx.docno(i) for i in docids] == ["D1", "D2"]
    assert scores == pytest.approx([sdm1, sdm2], abs=1e-12)
    # FDM: 6 contiguous (#1) and 11 unordered (#uw 4|Q'|) features; the only non-zero ones are
    # #1(alpha beta), #uw8(alpha beta), #uw8(gamma delta)
    fdm1 = 0.8 * uni(tf1) + 0.1 / 6 * phi(1, 1) + 0.1 / 11 * (phi(1, 1) + phi(0, 1))
    fdm2 = 0.8 * uni(tf2) + 0.1 / 6 * phi(0, 1) + 0.1 / 11 * (phi(0, 1) + phi(1, 1))
    for method in ("lps_if_all", "eps_cdf_all"):
        docids, scores = dep.fdm(idx, q, 10, method=method)
        assert [idx.docno(i) for i in docids] == ["D1", "D2"]
        assert scores == pytest.approx([fdm1, fdm2], abs=1e-12)


# ---------------------------------------------------------------------------------------------
# random collections against the per-document reference
# ---------------------------------------------------------------------------------------------

WORDS = ["alpha", "beta", "gamma", "delta", "kappa", "omega", "zeta"]


def random_index(tmp_path, seed, ndocs=40, vocab=6, maxlen=25):
    rng = random.Random(seed)
    lines = []
    for i in range(ndocs):
        n = rng.randint(1, maxlen)
        text = " ".join(rng.choice(WORDS[:vocab]) for _ in range(n))
        lines.append(json.dumps({"docno": f"d{i:03d}", "text": text}))
    src = tmp_path / f"r{seed}.jsonl"
    src.write_text("\n".join(lines) + "\n")
    return build_index(str(src), str(tmp_path / f"idx{seed}"), progress=False)


def doc_positions(idx, tids):
    """{docid: [positions of each query term]} from the index contract's positions()."""
    out = {}
    for j, t in enumerate(tids):
        docids, _ = idx.postings(t)
        offs, pos = idx.positions(t)
        for i, d in enumerate(docids):
            out.setdefault(int(d), [np.zeros(0, np.int32)] * len(tids))
            out[int(d)] = list(out[int(d)])
            out[int(d)][j] = np.asarray(pos[offs[i] : offs[i + 1]])
    return out


def reference_lkp(idx, q, variant, lam=0.4, k1=0.9, b=0.3):
    tids, qtf = dep.query_plan(idx, q)
    N = idx.num_docs
    w = np.log(N / np.asarray(idx.df)[tids].astype(float))
    out = {}
    for d, pl in doc_positions(idx, tids).items():
        dl = float(idx.doclen[d])
        K = px.saturation_K(dl, idx.avgdl, k1, b)
        bm = sum(qtf[j] * w[j] * (k1 + 1) * len(p) / (len(p) + K) for j, p in enumerate(pl))
        phr, un = px.lkp_proximity(pl, w, dl, idx.avgdl, variant, k1, b)
        out[d] = (1 - lam) * bm + lam * (phr + un)
    return out


def reference_mrf(idx, q, full, weights, mu=2500.0, window=8):
    tids, qtf = dep.query_plan(idx, q)
    k = len(tids)
    C = idx.collection_length
    docs = doc_positions(idx, tids)
    if full:
        ordered = [tuple(range(i, i + L)) for L in range(2, k + 1) for i in range(k - L + 1)]
        unordered = [s for r in range(2, k + 1) for s in itertools.combinations(range(k), r)]
    else:
        ordered = unordered = [(i, i + 1) for i in range(k - 1)]
    cnt_o = {
        d: [px.count_ordered([pl[t] for t in f], 1) for f in ordered] for d, pl in docs.items()
    }
    cnt_u = {
        d: [
            px.count_unordered([pl[t] for t in f], 4 * len(f) if full else window)
            for f in unordered
        ]
        for d, pl in docs.items()
    }
    tot_o = np.sum(list(cnt_o.values()), axis=0) if ordered else []
    tot_u = np.sum(list(cnt_u.values()), axis=0) if unordered else []
    cf = np.asarray(idx.cf)[tids]
    lt, lo, lu = weights
    out = {}
    for d, pl in docs.items():
        L = float(idx.doclen[d]) + mu

        def phi(fd, fc, L=L):
            return math.log((fd + mu * fc / C) / L)

        s = lt / qtf.sum() * sum(qtf[j] * phi(len(pl[j]), cf[j]) for j in range(k))
        s += sum(lo / len(ordered) * phi(c, t) for c, t in zip(cnt_o[d], tot_o) if t > 0)
        s += sum(lu / len(unordered) * phi(c, t) for c, t in zip(cnt_u[d], tot_u) if t > 0)
        out[d] = s
    return out


QUERIES = [
    "alpha beta",
    "alpha beta gamma",
    "gamma alpha delta beta",
    "beta alpha beta gamma kappa",
    "alpha",
    "omega zeta alpha",
]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_models_equal_reference(tmp_path, seed):
    idx = random_index(tmp_path, seed)
    for qtext in QUERIES:
        q = idx.analyzer.analyze(qtext)
        for name, ref in (
            ("lkp", reference_lkp(idx, q, "lkp")),
            ("lkpf", reference_lkp(idx, q, "lkpf")),
            ("l2p", reference_lkp(idx, q, "l2p")),
            ("sdm", reference_mrf(idx, q, False, dep.SDM_WEIGHTS)),
            ("fdm", reference_mrf(idx, q, True, dep.FDM_WEIGHTS)),
        ):
            for method in ("lps_if_all", "eps_cdf_all"):
                docids, scores = getattr(dep, name)(idx, q, idx.num_docs, method=method)
                assert sorted(docids.tolist()) == sorted(ref), (name, qtext)
                got = dict(zip(docids.tolist(), scores.tolist()))
                for d in ref:
                    assert got[d] == pytest.approx(ref[d], rel=1e-9, abs=1e-12), (name, qtext, d)
                # result order: score desc, then docno desc
                keys = [(-s, [-ord(c) for c in idx.docno(d)]) for d, s in zip(docids, scores)]
                assert keys == sorted(keys)


def test_topk_is_prefix_and_ties(tmp_path):
    idx = random_index(tmp_path, 9, ndocs=60, vocab=3, maxlen=4)  # many tied documents
    q = idx.analyzer.analyze("alpha beta")
    for model in (dep.lkp, dep.sdm, dep.fdm, dep.l2p, dep.lkpf):
        full_d, full_s = model(idx, q, 1000)
        for k in (1, 5, 17):
            d, s = model(idx, q, k)
            assert d.tolist() == full_d[:k].tolist() and np.array_equal(s, full_s[:k])
        assert d.dtype == np.int32 and s.dtype == np.float64


def test_equivalences_with_bag_of_words(tmp_path):
    models = pytest.importorskip("tiebreak.retrieval.models")
    idx = random_index(tmp_path, 4)
    for qtext in QUERIES:
        q = idx.analyzer.analyze(qtext)
        d1, s1 = dep.lkp(idx, q, 100, lam=0.0)
        d2, s2 = models.MODELS["bm25"](idx, q, 100, idf="rw", b=0.3)
        assert d1.tolist() == d2.tolist() and s1 == pytest.approx(s2, rel=1e-12)
        # SDM with weights (1, 0, 0) is query likelihood up to a per-query constant
        tids, qtf = dep.query_plan(idx, q)
        cf = np.asarray(idx.cf)[tids]
        const = float(np.sum(qtf * np.log(cf / idx.collection_length)))
        d3, s3 = dep.sdm(idx, q, 100, weights=(1, 0, 0))
        d4, s4 = models.MODELS["ql"](idx, q, 100)
        assert d3.tolist() == d4.tolist()
        assert s3 * qtf.sum() - const == pytest.approx(s4, rel=1e-9, abs=1e-9)


def test_registry_dispatches_here(two_docs):
    models = pytest.importorskip("tiebreak.retrieval.models")
    idx, q = two_docs
    for name in ("sdm", "fdm", "lkp", "lkpf", "l2p"):
        d1, s1 = models.MODELS[name](idx, q, 10)
        d2, s2 = getattr(dep, name)(idx, q, 10)
        assert d1.tolist() == d2.tolist() and np.array_equal(s1, s2)


def test_empty_and_errors(two_docs):
    idx, q = two_docs
    for model in (dep.sdm, dep.fdm, dep.lkp, dep.lkpf, dep.l2p):
        for args in (([], 10), (["nosuchterm"], 10), (q, 0)):
            d, s = model(idx, *args)
            assert d.shape == (0,) and s.shape == (0,)
        with pytest.raises(ValueError):
            model(idx, q, 10, method="bogus")
    with pytest.raises(ValueError):
        dep.lkp(idx, q, 10, lam=1.5)
    with pytest.raises(ValueError):
        dep.sdm(idx, q, 10, mu=0)


def test_pure_python_kernel_agrees(two_docs):
    """The uncompiled kernels (the readable definition) give the same scores as the compiled
    ones. Swapping a module global cannot do this (a compiled caller keeps the compiled callee it
    was built with), so the uncompiled run is a process with ``NUMBA_DISABLE_JIT=1``."""
    import os
    import subprocess
    import sys

    from tiebreak.retrieval import intervals as iv

    if not iv.HAVE_NUMBA:
        pytest.skip("numba absent")
    idx, q = two_docs
    fast = [dep.lkp(idx, q, 10), dep.fdm(idx, q, 10)]
    # the pruned traversal (tiebreak.retrieval.dependency.pruned), uncompiled too
    fast += [f(idx, q, 1, algorithm="bounds") for f in (dep.lkp, dep.fdm, dep.sdm)]
    code = (
        "import json, sys\n"
        "from tiebreak.index import open_index\n"
        "from tiebreak.retrieval import dependency as dep\n"
        "from tiebreak.retrieval import intervals as iv\n"
        "assert not hasattr(dep.mrf._mrf_query, 'signatures'), 'compiled'\n"
        "idx = open_index(sys.argv[1]); q = sys.argv[2:]\n"
        "out = [dep.lkp(idx, q, 10), dep.fdm(idx, q, 10)]\n"
        "out += [f(idx, q, 1, algorithm='bounds') for f in (dep.lkp, dep.fdm, dep.sdm)]\n"
        "print(json.dumps([[a.tolist(), [float(x) for x in b]] for a, b in out]))\n"
    )
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    res = subprocess.run([sys.executable, "-c", code, str(idx.path), *q], env=env,
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    slow = json.loads(res.stdout)
    assert len(fast[0][0]) > 0 and len(fast[1][0]) > 0
    for (a, b), (c, e) in zip(fast, slow):
        assert a.tolist() == c and list(b) == pytest.approx(e, abs=1e-12)


# ---------------------------------------------------------------------------------------------
# long queries: proximity over the max_prox_terms highest-IDF terms (deliberate deviation)
# ---------------------------------------------------------------------------------------------


def long_index(tmp_path, nwords=36, ndocs=80, seed=5):
    rng = random.Random(seed)
    vocab = [f"w{chr(97 + i // 26)}{chr(97 + i % 26)}" for i in range(nwords)]
    lines = []
    for i in range(ndocs):
        # skewed term choice, so that the document frequencies differ
        text = " ".join(vocab[min(int(rng.expovariate(0.08)), nwords - 1)] for _ in range(30))
        lines.append(json.dumps({"docno": f"d{i:03d}", "text": text}))
    src = tmp_path / "long.jsonl"
    src.write_text("\n".join(lines) + "\n")
    return build_index(str(src), str(tmp_path / "longidx"), progress=False), vocab


def test_proximity_terms_choice():
    assert dep.proximity_terms([5, 1, 3], 12).tolist() == [0, 1, 2]
    # the two smallest df (ties to the earlier term), in query order, then the rest
    assert dep.proximity_terms([5, 1, 3, 1, 2], 2).tolist() == [1, 3, 0, 2, 4]
    assert dep.proximity_terms([4, 2, 2, 9], 3).tolist() == [0, 1, 2, 3]


def test_long_queries_every_model(tmp_path):
    idx, vocab = long_index(tmp_path)
    rng = random.Random(7)
    words = [w for w in vocab if idx.term_id(w) >= 0]
    q = rng.sample(words, 30)
    q = q + q[:3]  # repeated terms keep their query frequency
    tids, qtf = dep.query_plan(idx, q)
    assert len(tids) == 30
    N = idx.num_docs
    for name in ("sdm", "fdm", "lkp", "lkpf", "l2p"):
        d, s = getattr(dep, name)(idx, q, N)
        assert len(d) > 0 and np.all(np.isfinite(s)), name
        keys = [(-x, [-ord(c) for c in idx.docno(y)]) for y, x in zip(d, s)]
        assert keys == sorted(keys)
    # Lkp family: (1 - lam) BM25 over all terms + lam * proximity over the chosen terms
    order = dep.proximity_terms(np.asarray(idx.df)[tids], dep.MAX_PROX_TERMS)
    terms = [idx.term(int(t)) for t in tids[order]]
    rep = {t: f for t, f in zip(terms, qtf[order])}
    qp = [t for t in terms[: dep.MAX_PROX_TERMS] for _ in range(int(rep[t]))]
    qr = [t for t in terms[dep.MAX_PROX_TERMS :] for _ in range(int(rep[t]))]
    for name in ("lkp", "lkpf"):
        got = dict(zip(*[a.tolist() for a in getattr(dep, name)(idx, q, N)]))
        part = dict(zip(*[a.tolist() for a in getattr(dep, name)(idx, qp, N)]))
        rest = dict(zip(*[a.tolist() for a in dep.lkp(idx, qr, N, lam=0.0)]))
        assert set(got) == set(part) | set(rest)
        for doc, v in got.items():
            want = part.get(doc, 0.0) + 0.6 * rest.get(doc, 0.0)
            assert v == pytest.approx(want, rel=1e-9, abs=1e-12), (name, doc)
    # SDM / L2p keep every term up to 62
    for name in ("sdm", "l2p"):
        a = getattr(dep, name)(idx, q, N)
        b = getattr(dep, name)(idx, q, N, max_prox_terms=62)
        assert a[0].tolist() == b[0].tolist() and np.array_equal(a[1], b[1])
    for name, bad in (("fdm", 21), ("lkp", 1), ("sdm", 63), ("l2p", 0)):
        with pytest.raises(ValueError):
            getattr(dep, name)(idx, q, 10, max_prox_terms=bad)


def test_short_queries_unchanged_by_cap(tmp_path):
    idx, vocab = long_index(tmp_path)
    q = [w for w in vocab if idx.term_id(w) >= 0][:12]
    N = idx.num_docs
    for name, full in (("sdm", 62), ("fdm", 20), ("lkp", 20), ("lkpf", 20), ("l2p", 62)):
        for method in ("lps_if_all", "eps_cdf_all"):
            a = getattr(dep, name)(idx, q, N, method=method)
            b = getattr(dep, name)(idx, q, N, method=method, max_prox_terms=full)
            assert a[0].tolist() == b[0].tolist() and np.array_equal(a[1], b[1]), name
    # and with <= 12 terms the models still equal the per-document reference
    q5 = q[:5]
    for name, ref in (("lkp", reference_lkp(idx, q5, "lkp")),
                      ("fdm", reference_mrf(idx, q5, True, dep.FDM_WEIGHTS))):  # fmt: skip
        got = dict(zip(*[a.tolist() for a in getattr(dep, name)(idx, q5, N)]))
        assert set(got) == set(ref)
        for doc in ref:
            assert got[doc] == pytest.approx(ref[doc], rel=1e-9, abs=1e-12)
