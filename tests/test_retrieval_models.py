"""Every registered model against a hand computation on a three-document collection (numbers
from the formulas, written out here), the Table 4.1 worked values of Lu (2018) and the registry
itself."""

from __future__ import annotations

import math

import numpy as np
import pytest
from click.testing import CliRunner

from tiebreak.cli import main
from tiebreak.index.build import build_index_from_tokens
from tiebreak.retrieval import registry
from tiebreak.retrieval.positional import aggregate
from tiebreak.retrieval.search import search

#   d1: a b c a      (|D| = 4)
#   d2: b x x a c    (|D| = 5)
#   d3: c c x        (|D| = 3)
DOCS = {"d1": "a b c a", "d2": "b x x a c", "d3": "c c x"}
N, C, AVGDL = 3, 12, 4.0
DF = {"a": 2, "b": 2, "c": 3, "x": 2}
CF = {"a": 3, "b": 2, "c": 4, "x": 3}
RW = {t: math.log(N / DF[t]) for t in DF}          # Robertson-Walker idf log(N/df)


@pytest.fixture(scope="module")
def idx(tmp_path_factory):
    terms = ["a", "b", "c", "x"]
    toks, ptr = [], [0]
    for text in DOCS.values():
        toks += [terms.index(t) for t in text.split()]
        ptr.append(len(toks))
    return build_index_from_tokens(tmp_path_factory.mktemp("m3") / "i", list(DOCS),
                                   np.array(toks), np.array(ptr), terms)


def scores(idx, model, q, **params):
    d, s = registry.run(idx, q.split(), 10, model, **params)
    return {str(idx.docnos[i]): float(x) for i, x in zip(d, s)}


def bm25(doc, q, k1=0.9, b=0.4):
    toks = DOCS[doc].split()
    K = k1 * ((1 - b) + b * len(toks) / AVGDL)
    return sum(RW[t] * (k1 + 1) * toks.count(t) / (K + toks.count(t))
               for t in q.split() if toks.count(t))


def knorm(doc, k1=0.9, b=0.4):
    return k1 * ((1 - b) + b * len(DOCS[doc].split()) / AVGDL)


def test_vsm_cosine_by_hand(idx):
    # w = (1 + ln tf) ln(N/df); c has idf 0. ||Q|| = ln1.5 sqrt2
    s = scores(idx, "vsm", "a b")
    l15 = math.log(1.5)
    d1 = (l15 * (1 + math.log(2)) * l15 + l15 * l15) / (
        l15 * math.sqrt(2) * l15 * math.sqrt((1 + math.log(2)) ** 2 + 1))
    d2 = (2 * l15 * l15) / (l15 * math.sqrt(2) * l15 * math.sqrt(2 + (1 + math.log(2)) ** 2))
    assert s == pytest.approx({"d1": d1, "d2": d2}, rel=1e-12)
    assert d1 == pytest.approx(0.9684, abs=1e-4) and d2 == pytest.approx(0.6410, abs=1e-4)


def test_ql_smoothings_by_hand(idx):
    # Dirichlet mu=2500: |Q| log(mu/(|D|+mu)) + log(1 + tf |C|/(mu cf))
    s = scores(idx, "lmds", "a")
    assert s["d1"] == pytest.approx(math.log(2500 / 2504) + math.log(1 + 2 * 12 / (2500 * 3)))
    assert s == scores(idx, "ql", "a")
    # Jelinek-Mercer lam=0.1: log(1 + (1-lam) tf |C| / (lam |D| cf))
    s = scores(idx, "ql", "a", smoothing="jm")
    assert s == pytest.approx({"d1": math.log(19.0), "d2": math.log(8.2)}, rel=1e-12)
    # the full log-likelihood differs by a constant: sum_q log(lam cf/|C|)
    full = {d: math.log(0.9 * DOCS[d].split().count("a") / len(DOCS[d].split()) + 0.1 * 3 / 12)
            for d in ("d1", "d2")}
    assert full["d1"] - s["d1"] == pytest.approx(full["d2"] - s["d2"], abs=1e-12)
    # absolute discount delta=0.7: log(1 + (tf-delta)|C|/(delta u cf)) + log(delta u/|D|)
    s = scores(idx, "ql", "a", smoothing="ad")
    d1 = math.log(1 + 1.3 * 12 / (0.7 * 3 * 3)) + math.log(0.7 * 3 / 4)
    d2 = math.log(1 + 0.3 * 12 / (0.7 * 4 * 3)) + math.log(0.7 * 4 / 5)
    assert s == pytest.approx({"d1": d1, "d2": d2}, rel=1e-12)
    full = {"d1": math.log(1.3 / 4 + 0.7 * 3 / 4 * 3 / 12),
            "d2": math.log(0.3 / 5 + 0.7 * 4 / 5 * 3 / 12)}
    assert full["d1"] - d1 == pytest.approx(full["d2"] - d2, abs=1e-12)


def test_bctp_by_hand(idx):
    wa, wb = RW["a"], RW["b"]
    # d1 CDF a0 b1 a3: pairs (a0,b1) d=1 and (b1,a3) d=2
    acc_a, acc_b = wb * (1 + 1 / 4), wa * (1 + 1 / 4)
    K = knorm("d1")
    d1 = bm25("d1", "a b") + sum(min(1, w) * x * 1.9 / (x + K)
                                 for w, x in ((wa, acc_a), (wb, acc_b)))
    # d2 CDF b0 a3: one pair, d=3
    K2 = knorm("d2")
    d2 = bm25("d2", "a b") + min(1, wa) * (wb / 9) * 1.9 / (wb / 9 + K2) \
        + min(1, wb) * (wa / 9) * 1.9 / (wa / 9 + K2)
    assert scores(idx, "bctp", "a b") == pytest.approx({"d1": d1, "d2": d2}, rel=1e-12)


def test_rs_by_hand(idx):
    w = min(RW["a"], RW["b"])
    d1 = bm25("d1", "a b") + w * 1.25 * 1.9 / (1.25 + knorm("d1"))
    d2 = bm25("d2", "a b") + w * (1 / 9) * 1.9 / (1 / 9 + knorm("d2"))
    assert scores(idx, "rs", "a b") == pytest.approx({"d1": d1, "d2": d2}, rel=1e-12)
    # a window of 2 drops d2's pair at distance 3
    assert scores(idx, "rs", "a b", window=2)["d2"] == pytest.approx(bm25("d2", "a b"))


# d1 = a0 b1 c2 a3, query "a b c": non-overlapping optimal intervals per subquery
# {a,b}: [0..1] (|I|=2);  {a,c}: [0..2] (3);  {b,c}: [1..2] (2);  {a,b,c}: [0..2] (3)
# d2 = b0 x x a3 c4:  {a,b}: [0..3] (4); {a,c}: [3..4] (2); {b,c}: [0..4] (5); {a,b,c}: [0..4] (5)
# d3 = c c x: one term, no interval
D1 = [(2, 2), (3, 2), (2, 2), (3, 3)]          # (|I|, |Q'|)
D2 = [(4, 2), (2, 2), (5, 2), (5, 3)]


@pytest.mark.parametrize("model,params,f", [
    ("ht", {}, lambda L, m: 1 / (L - 1)),
    ("ht", {"root": 1}, lambda L, m: 1 / math.sqrt(L - 1)),
    ("cdr", {"w": 3}, lambda L, m: 3 / L if L > 3 else 1.0),
    ("vdv", {}, lambda L, m: (m - 1) / (L - 1)),
    ("sumdist", {}, lambda L, m: 1 / L),
    ("sumdist", {"root": 1, "lam": 0.5}, lambda L, m: 0.5 / math.sqrt(L)),
    ("mindist", {}, lambda L, m: math.log(1 + math.exp(-L) / 0.3)),
])
def test_interval_models_by_hand(idx, model, params, f):
    s = scores(idx, model, "a b c", **params)
    lam = params.get("lam", 1.0) if model not in ("mindist", "sumdist") else 1.0
    want = {"d1": bm25("d1", "a b c") + lam * sum(f(L, m) for L, m in D1),
            "d2": bm25("d2", "a b c") + lam * sum(f(L, m) for L, m in D2),
            "d3": bm25("d3", "a b c")}
    assert s == pytest.approx(want, rel=1e-12)


def test_amortized_by_hand(idx):
    # d1: per term, sum over the subqueries holding it of |Q'|^2 / |I|
    acc = {"a": 4 / 2 + 4 / 3 + 9 / 3, "b": 4 / 2 + 4 / 2 + 9 / 3, "c": 4 / 3 + 4 / 2 + 9 / 3}
    K = knorm("d1")
    d1 = bm25("d1", "a b c") + sum(RW[t] * acc[t] * 1.9 / (acc[t] + K) for t in acc)
    assert scores(idx, "amortized", "a b c")["d1"] == pytest.approx(d1, rel=1e-12)


def test_table_4_1_worked_values():
    """Lu (2018) §4.1.1, Fig. 4.1: the two non-overlapping intervals the text uses are
    [0..17] and [18..64] (|I| 18 and 47). The text's MinDist 18, MaxDist 46 and AvgDist 32
    take 46 for the second (p_r - p_l); Summation^1 0.07 is 0.0768 truncated, Summation^2
    0.38; the Amortized example (Song et al., lambda 2, gamma 1) is 3^2/18 + 3^2/47 = 0.69 per
    term, times three terms 2.07 (printed 2.08)."""
    assert aggregate([18, 46], "min") == 18
    assert aggregate([18, 46], "max") == 46
    assert aggregate([18, 46], "avg") == 32
    assert aggregate([18, 47], "avg") == 32.5
    assert math.floor(aggregate([18, 47], "sum1") * 100) / 100 == 0.07
    assert round(aggregate([18, 47], "sum2"), 2) == 0.38
    am = aggregate([18, 47], "amortized", n_terms=3)
    assert round(am / 3, 2) == 0.69 and abs(am - 2.08) < 0.01


def test_registry_names_aliases_and_checks(idx):
    assert {"vsm", "bm25", "ql", "lmds", "sdm", "fdm", "lkp", "lkpf", "l2p", "bctp", "rs", "ht",
            "cdr", "vdv", "mindist", "maxdist", "avgdist", "sumdist",
            "amortized"} <= set(registry.names())
    assert registry.get("lmds") is registry.get("ql")
    with pytest.raises(ValueError, match="lmds fixes smoothing"):
        registry.check("lmds", {"smoothing": "jm"})
    with pytest.raises(ValueError, match="smoothing must be one of"):
        registry.check("ql", {"smoothing": "xx"})
    with pytest.raises(ValueError, match="bctp has no parameter 'mu'"):
        registry.check("bctp", {"mu": 3})
    with pytest.raises(ValueError, match="unknown model 'nope'"):
        registry.get("nope")
    # search() and the registry agree
    r = search(idx, [("q1", "b c")], "cdr", 10, w=3)   # (the analyser drops the stopword a)
    assert dict(zip(idx.docnos[r[0].docids].tolist(), r[0].scores.tolist())) == \
        scores(idx, "cdr", "b c", w=3)


def test_models_command_lists_every_model():
    r = CliRunner().invoke(main, ["models", "--format", "tsv"])
    assert r.exit_code == 0, r.output
    rows = [line.split("\t") for line in r.output.splitlines()[1:]]
    assert [row[0] for row in rows] == list(registry.MODELS)
    assert all(row[6] for row in rows)                 # every model cites its source
    assert "ql" in r.output and "lmds" in r.output


def test_search_cli_reaches_a_new_model(idx):
    path = str(idx.path)
    import tempfile

    with tempfile.NamedTemporaryFile("w", suffix=".tsv", delete=False) as fh:
        fh.write("q1\tb\n")
    r = CliRunner().invoke(main, ["search", path, "--topics", fh.name, "--model", "ql",
                                  "-p", "smoothing=jm", "-q"])
    assert r.exit_code == 0, r.output
    first = r.output.splitlines()[0].split()
    # d1: log(1 + 0.9*1*12/(0.1*4*2)) = log 14.5
    assert first[2] == "d1" and float(first[4]) == pytest.approx(math.log(14.5), rel=1e-12)


def test_readme_models_table_in_sync():
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    a = readme.index("<!-- models-table:start -->\n") + len("<!-- models-table:start -->\n")
    b = readme.index("<!-- models-table:end -->")
    r = CliRunner().invoke(main, ["models", "--format", "markdown"])
    assert readme[a:b] == r.output


def test_plm_by_hand(idx):
    # query "a b", sigma 2, mu 5; best position among the query-term positions
    sigma, mu = 2.0, 5.0
    pc = {"a": 3 / 12, "b": 2 / 12}

    def score(doc):
        toks = DOCS[doc].split()
        L = len(toks)
        best = -math.inf
        for i, t in enumerate(toks):
            if t not in pc:
                continue
            r2 = sigma * math.sqrt(2)
            z = math.sqrt(2 * math.pi) * sigma * 0.5 * (
                math.erf((L - 1 - i) / r2) - math.erf(-i / r2))
            s = 0.0
            for w in ("a", "b"):
                c = sum(math.exp(-((j - i) ** 2) / (2 * sigma ** 2))
                        for j, u in enumerate(toks) if u == w)
                s += math.log((c + mu * pc[w]) / (z + mu))
            best = max(best, s)
        return best

    got = scores(idx, "plm", "a b", sigma=sigma, mu=mu)
    assert got == pytest.approx({"d1": score("d1"), "d2": score("d2")}, rel=1e-12)


def _pbil(pf, doclen, window, norm2):
    """Terrier's pBiL / pBiL2, written out from the formula."""
    n = 1.0 if 0 < doclen < window else doclen - window + 1.0
    pf = min(pf, n - 0.1)
    x = pf * math.log2(1 + AVGDL / n) if norm2 else pf
    bg = AVGDL if norm2 else n
    bg = 2.0 if bg == 1.0 else bg
    p = 1 / bg
    lg2 = math.log(2)
    return ((-math.lgamma(bg + 1) + math.lgamma(x + 1) + math.lgamma(bg - x + 1)) / lg2
            - x * math.log2(p) - (bg - x) * math.log2(1 - p)) / (1 + x)


@pytest.mark.parametrize("model,norm2", [("pdfr", False), ("bdfr", True)])
def test_dfr_dependence_by_hand(idx, model, norm2):
    # window 3. d1 = a0 b1 c2 a3 (|D| 4): {a,b} [0..1] (then [1..3] overlaps) pf 1; {b,c} [1..2]
    # pf 1; {a,c} [0..2] pf 1.  d2 = b0 x x a3 c4 (|D| 5): {a,b} [0..3] and {b,c} [0..4] are
    # longer than 3 (pf 0); {a,c} [3..4] pf 1
    s = scores(idx, model, "a b c", window=3)
    assert s == pytest.approx({"d1": bm25("d1", "a b c") + 2 * _pbil(1, 4, 3, norm2),
                               "d2": bm25("d2", "a b c"), "d3": bm25("d3", "a b c")}, rel=1e-12)
    s = scores(idx, model, "a b c", window=3, pairs="all", lam=0.5)
    assert s == pytest.approx({"d1": bm25("d1", "a b c") + 0.5 * 3 * _pbil(1, 4, 3, norm2),
                               "d2": bm25("d2", "a b c") + 0.5 * _pbil(1, 5, 3, norm2),
                               "d3": bm25("d3", "a b c")}, rel=1e-12)


def test_wsdm_by_hand(idx):
    # query "c a", mu 5, |C| 12: phi(f, cf) = ln((f + 5 cf/12) / (|D| + 5)).
    # lambda(c) = .5 + .2 ln cf_c + .1 ln df_c (cf 4, df 3); lambda(a): cf 3, df 2.
    # The pair "c a": #1 once in d1 (positions 2, 3), collection count 1, 1 document, so its
    # ln features are 0 and lambda = v0 = .3 for #1 and #uw8 alike. #uw8 counts (non-overlapping
    # optimal intervals of length <= 8): d1 1 ([0..2]; [2..3] overlaps it), d2 1 ([3..4]),
    # collection 2.
    mu = 5.0

    def phi(f, cf, dl):
        return math.log((f + mu * cf / C) / (dl + mu))

    lc = 0.5 + 0.2 * math.log(4) + 0.1 * math.log(3)
    la = 0.5 + 0.2 * math.log(3) + 0.1 * math.log(2)
    feats = {"d1": (1, 2, 1, 1, 4), "d2": (1, 1, 0, 1, 5), "d3": (2, 0, 0, 0, 3)}
    want = {d: lc * phi(tc, 4, dl) + la * phi(ta, 3, dl) + 0.3 * phi(o, 1, dl)
            + 0.3 * phi(u, 2, dl) for d, (tc, ta, o, u, dl) in feats.items()}
    got = scores(idx, "wsdm", "c a", uni=(0.5, 0.2, 0.1), bi=(0.3, 1.0, 1.0), mu=mu)
    assert got == pytest.approx(want, rel=1e-12)
    # constant weights only: SDM with weights (a |Q|, c (k-1), c (k-1))
    assert scores(idx, "wsdm", "c a b", uni=(0.7, 0, 0), bi=(0.2, 0, 0)) == pytest.approx(
        scores(idx, "sdm", "c a b", weights=(2.1, 0.4, 0.4)), rel=1e-12)
    with pytest.raises(ValueError, match="learned concept weights"):
        scores(idx, "wsdm", "c a", bi=(0.3, 0, 0))
    with pytest.raises(ValueError, match="3 numbers"):
        registry.check("wsdm", {"uni": (1, 2)})
    # a shard alone would count phrases and windows over its own documents only
    from types import SimpleNamespace

    from tiebreak.retrieval.wsdm import wsdm

    with pytest.raises(ValueError, match="sharded"):
        wsdm(SimpleNamespace(global_stats=object()), ["a"], 10, (1, 0, 0), (1, 0, 0))


def test_wsdm_phrase_counts_against_brute_force(tmp_path):
    from tiebreak.retrieval.wsdm import phrase_stats

    rng = np.random.default_rng(7)
    terms = ["p", "q", "r"]
    toks, ptr, docs = [], [0], []
    for i in range(60):
        n = int(rng.integers(1, 12))
        toks += rng.integers(0, 3, n).tolist()
        ptr.append(len(toks))
        docs.append(f"d{i:02d}")
    ix = build_index_from_tokens(tmp_path / "i", docs, np.array(toks), np.array(ptr), terms)
    for a in range(3):
        for b in range(3):
            if a == b:
                continue
            cf = df = 0
            for i in range(60):
                d = toks[ptr[i]:ptr[i + 1]]
                n = sum(1 for j in range(len(d) - 1) if d[j] == a and d[j + 1] == b)
                cf += n
                df += n > 0
            assert phrase_stats(ix, ix.term_id(terms[a]), ix.term_id(terms[b])) == (cf, df)


def test_tpspan_segmentation_rules():
    from tiebreak.retrieval.spans import segment

    # Song et al.'s worked example: "sea thousand years", hits sea 5, 29; thousand 7, 10;
    # years 8, 11; max_dis 10 -> spans {5, 7, 8}, {10, 11}, {29}
    hits = [(5, "sea"), (7, "thousand"), (8, "years"), (10, "thousand"), (11, "years"),
            (29, "sea")]
    assert segment(*zip(*hits), max_dis=10) == [[0, 1, 2], [3, 4], [5]]
    # rule 3: b goes with the closer occurrence of a
    assert segment([0, 4, 5], ["a", "b", "a"]) == [[0], [1, 2]]
    assert segment([0, 1, 5], ["a", "b", "a"]) == [[0, 1], [2]]
    # rule 2: the same term twice in a row; rule 1: a gap wider than max_dis
    assert segment([0, 1, 2, 3], ["a", "a", "b", "b"]) == [[0], [1, 2], [3]]
    # (n - c + 1 > max_dis: a gap of 44 positions is the widest kept at 45)
    assert segment([0, 44], ["a", "b"]) == [[0, 1]]
    assert segment([0, 45], ["a", "b"]) == [[0], [1]]
    with pytest.raises(ValueError, match="ascending"):
        segment([3, 1], ["a", "b"])


def test_tpspan_by_hand(idx, tmp_path):
    # "a b", defaults (k1 .9, b .4, idf ln(N/df), max_dis 45, lam 2, gamma 1).
    # d1 "a b c a": a0 b1 | a3 (rule 3: b is 2 from a0, 3 from a3): {a0, b1} gives 2^2/2 = 2
    # to a and b, {a3} (one hit, width 45) 1/45 to a. d2 "b x x a c": {b0, a3}: 2^2/4 = 1 each.
    def part(rc, doc):
        return RW["a"] * rc * 1.9 / (rc + knorm(doc))

    want = {"d1": part(2 + 1 / 45, "d1") + part(2.0, "d1"), "d2": 2 * part(1.0, "d2")}
    assert scores(idx, "tpspan", "a b") == pytest.approx(want, rel=1e-12)
    # the worked example's document, lam 1, gamma 0.5, max_dis 10: rc(sea) = 3/4^.5 + 1/10^.5,
    # rc(thousand) = rc(years) = 3/4^.5 + 2/2^.5; N 2, df 1 each, |D| 30, avgdl 16
    toks = ["x"] * 30
    for p, t in [(5, "sea"), (7, "thousand"), (8, "years"), (10, "thousand"), (11, "years"),
                 (29, "sea")]:
        toks[p] = t
    terms = ["x", "sea", "thousand", "years"]
    ids = [terms.index(t) for t in toks] + [0, 0]
    ix = build_index_from_tokens(tmp_path / "e", ["e1", "e2"], np.array(ids),
                                 np.array([0, 30, 32]), terms)
    K = 0.9 * (0.6 + 0.4 * 30 / 16)
    rcs = [1.5 + 10 ** -0.5, 1.5 + 2 ** 0.5, 1.5 + 2 ** 0.5]
    want = sum(math.log(2) * rc * 1.9 / (rc + K) for rc in rcs)
    d, s = registry.run(ix, ["sea", "thousand", "years"], 10, "tpspan", lam=1.0, gamma=0.5,
                        max_dis=10)
    assert d.tolist() == [0] and s[0] == pytest.approx(want, rel=1e-12)
