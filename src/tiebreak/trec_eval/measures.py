"""trec_eval 10.0's measures, vectorised over every topic of a run.

Each measure is a :class:`TrecMeasure`: its name, how ``-m name.PARAMS`` parameters are read,
how per-topic values are summarised on the ``all`` line, and a kernel ``compute(R, p, ctx)``
that maps a :class:`~tiebreak.trec_eval.ranks.Ranked` (T topics) to a list of
``(printed name, values (T,))`` pairs. Definitions follow trec_eval 10.0's ``m_*.c`` files;
the one-line definition of each measure is in its ``doc`` and in ``docs/trec_eval.md``.

``linear`` marks kernels that only use per-position indicators (relevant, judged non-relevant,
unjudged, gain) through sums weighted by rank-dependent factors: they give exact expectations on
the fractional ranking of the ``expected`` regime. The others (``map``, ``recip_rank``,
``bpref``, ``success`` have closed forms in the eval core; ``iprec_at_recall``, ``11pt_avg``,
``infAP``, ``binG``, ``G``, ``ndcg_rel``, ``Rndcg`` do not) need an actual order per topic.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from .ranks import NONPOOL, UNJUDGED, Ranked

LONG_CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
RECALL_PTS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
RPREC_MULTS = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)
MIN_GEO_MEAN = 0.00001
INFAP_EPSILON = 0.00001


class TrecEvalError(Exception):
    """A trec_eval usage or input error: ``message`` is printed, ``status`` is the exit code."""

    def __init__(self, message: str, status: int = 1):
        super().__init__(message)
        self.status = status


@dataclass
class Context:
    """Evaluation parameters shared by all measures (trec_eval's EPI)."""

    num_docs_in_coll: int = 0


@dataclass
class TrecMeasure:
    name: str
    doc: str
    compute: Callable
    params: str = "none"        # none | long_cuts | double_cuts | floats | pairs | float
    default: tuple = ()
    fmt: str = "float"          # float | long | str
    summary: str = "mean"       # mean | sum | gm | none (per-topic only) | only (summary only)
    linear: bool = True
    closed: bool = False        # closed form available from the eval core (expected regime)
    prefs: bool = False
    jg: bool = False


# ---------------------------------------------------------------------------------------------
# parameter parsing and printed names
# ---------------------------------------------------------------------------------------------


def _atof(s: str) -> float:
    """C atof: the longest numeric prefix, 0.0 when there is none."""
    s = s.strip()
    m = re.match(r"[+-]?(\d+\.?\d*([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?)", s)
    return float(m.group(0)) if m else 0.0


def _atol(s: str) -> int:
    """C atol: the leading integer, 0 when there is none."""
    m = re.match(r"\s*[+-]?\d+", s)
    return int(m.group(0)) if m else 0


@dataclass
class Requested:
    """A measure to compute, with its parsed parameters and printed names."""

    m: TrecMeasure
    raw: str | None              # parameter text from -m, None for the defaults
    values: tuple = ()
    names: list[str] = field(default_factory=list)


def resolve(m: TrecMeasure, raw: str | None) -> Requested:
    """Parse ``raw`` (text after the first '.' of ``-m``) as trec_eval does for ``m``."""
    kind = m.params
    if kind == "none":
        return Requested(m, None, (), [m.name])
    if raw is None:
        vals = m.default
    elif kind == "long_cuts":
        vals = tuple(sorted({_atol(x) for x in raw.split(",")}))
        if any(v <= 0 for v in vals):
            raise TrecEvalError(f"trec_eval: illegal measure '{m.name}.{raw}'")
    elif kind == "double_cuts":
        vals = tuple(sorted({_atof(x) for x in raw.split(",")}))
    elif kind == "floats":
        vals = tuple(_atof(x) for x in raw.split(","))
    elif kind == "float":
        vals = (_atof(raw.split(",")[0]),)
    elif kind == "pairs":
        vals = []
        for item in raw.split(","):
            if "=" not in item:
                raise TrecEvalError(f"trec_eval: illegal measure '{m.name}.{raw}'")
            k, v = item.split("=", 1)
            vals.append((k, _atof(v)))
        vals = tuple(vals)
    else:  # pragma: no cover
        raise AssertionError(kind)
    if kind == "long_cuts":
        names = [f"{m.name}_{c}" for c in vals]
    elif kind == "double_cuts":
        names = [f"{m.name}_{c:3.2f}" for c in vals]
    else:
        names = [m.name if raw is None else f"{m.name}_{raw}"]
    return Requested(m, raw, tuple(vals), names)


# ---------------------------------------------------------------------------------------------
# kernels
# ---------------------------------------------------------------------------------------------


def _div(a, b):
    a = np.asarray(a, np.float64)
    b = np.asarray(b, np.float64)
    out = np.zeros(np.broadcast(a, b).shape)
    np.divide(a, b, out=out, where=b != 0)
    return out


def _hits(R: Ranked, k) -> np.ndarray:
    """Relevant documents in the top k (k scalar or per-topic array)."""
    return R.at(R.cum_rel, k)


def k_num_ret(R, p, ctx):
    return R.num_ret.astype(np.float64)


def k_num_rel(R, p, ctx):
    return R.num_rel.astype(np.float64)


def k_num_rel_ret(R, p, ctx):
    return R.tsum(R.rel)


def k_num_nonrel_judged_ret(R, p, ctx):
    return R.tsum(R.nonrel)


def _prec_at_rel(R: Ranked):
    """Precision at each position, and the cumulative count of relevant documents."""
    c = R.cum_rel
    return R.cached("prec", lambda: c / (R.i + 1.0)), c


def _cum_ap(R: Ranked):
    """Inclusive per-topic cumulative sum of rel_i * precision_i (the AP numerator)."""
    return R.cached("cum_ap", lambda: R.cumsum(R.rel * _prec_at_rel(R)[0]))


def k_map(R, p, ctx):
    return _div(R.at(_cum_ap(R), R.num_ret), R.num_rel)


def k_map_cut(R, cuts, ctx):
    c = _cum_ap(R)
    return [_div(R.at(c, k), R.num_rel) for k in cuts]


def k_Rprec(R, p, ctx):
    nrel = R.num_rel
    return _div(_hits(R, nrel), nrel)


def k_recip_rank(R, p, ctx):
    first = R.rel > 0
    out = np.zeros(R.n_topics)
    if first.any():
        t = R.t[first]
        i = R.i[first]
        u = np.r_[True, t[1:] != t[:-1]]
        out[t[u]] = 1.0 / (i[u] + 1.0)
    return out


def k_bpref(R, p, ctx):
    """bpref as trec_eval computes it (Buckley & Voorhees 2004)."""
    nb = R.cumsum(R.nonrel)
    nrel = R.num_rel.astype(np.float64)
    den = np.minimum(R.num_judged_nonrel, R.num_rel)[R.t].astype(np.float64)
    Rt = nrel[R.t]
    term = np.ones(len(nb))
    ok = (nb > 0) & (den > 0)
    term[ok] = 1.0 - np.minimum(nb[ok], Rt[ok]) / den[ok]
    return _div(R.tsum(term, R.rel > 0), nrel)


def _interp_prec_at_rel(R: Ranked):
    """For each relevant position: the interpolated precision max_{i >= rank} P(i); also the
    index j (1-based) of the relevant document among the topic's retrieved relevant ones."""
    prec, c = _prec_at_rel(R)
    # suffix max per topic: reverse cumulative max within segments
    n = len(prec)
    if not n:
        return np.zeros(0), np.zeros(0, np.int64), np.zeros(0, np.int64)
    # offset topics so that a single global running max works: add 2 * (T - t) (prec <= 1)
    key = prec + 2.0 * (R.n_topics - R.t)
    sm = np.maximum.accumulate(key[::-1])[::-1] - 2.0 * (R.n_topics - R.t)
    isr = R.rel > 0
    return sm[isr], R.t[isr], c[isr].astype(np.int64)


def _iprec(R: Ranked, pts) -> list[np.ndarray]:
    """Interpolated precision at recall points (trec_eval 10: cutoff = lround(pt * R))."""
    ip, t, j = _interp_prec_at_rel(R)
    nrel = R.num_rel
    nrr = np.bincount(t, minlength=R.n_topics)
    # value at the j-th relevant document of each topic, j = 1..nrr
    base = np.searchsorted(t, np.arange(R.n_topics))
    first = np.zeros(R.n_topics)
    has = nrr > 0
    first[has] = ip[base[has]]
    out = []
    for pt in pts:
        cut = _lround_arr(pt * nrel.astype(np.float64))
        v = np.zeros(R.n_topics)
        ok = (cut >= 1) & (cut <= nrr)
        v[ok] = ip[base[ok] + cut[ok] - 1]
        zero = (cut == 0) & has
        v[zero] = first[zero]
        out.append(v)
    return out


def _lround_arr(x: np.ndarray) -> np.ndarray:
    """C lround for x >= 0 (half away from zero), exact: floor plus (fraction >= 1/2)."""
    r = np.floor(x)
    return (r + (x - r >= 0.5)).astype(np.int64)


def k_iprec_at_recall(R, pts, ctx):
    return _iprec(R, pts)


def k_11pt_avg(R, pts, ctx):
    if not pts:
        raise TrecEvalError("trec_eval.calc_m_11ptavg: No cutoff values", 4)
    return sum(_iprec(R, pts)) / len(pts)


def k_P(R, cuts, ctx):
    return [_hits(R, k) / k for k in cuts]


def k_recall(R, cuts, ctx):
    nrel = R.num_rel
    return [_div(_hits(R, k), nrel) for k in cuts]


def k_relative_P(R, cuts, ctx):
    nrel = R.num_rel
    return [_div(_hits(R, k), np.minimum(k, nrel)) for k in cuts]


def k_success(R, cuts, ctx):
    return [(_hits(R, k) > 0).astype(np.float64) for k in cuts]


def k_infAP(R, p, ctx):
    """Inferred AP (Yilmaz & Aslam 2006) with trec_eval's epsilon smoothing."""
    code = R.code
    judged_rel = R.rel > 0
    nonrel_b = R.cumsum(R.nonrel) - R.nonrel
    unj_pool = (code == UNJUDGED).astype(np.float64)
    unj_b = R.cumsum(unj_pool) - unj_pool
    rel_b = R.cumsum(R.rel) - R.rel
    j = R.i.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        term = 1.0 / (j + 1.0) + (j / (j + 1.0)) * ((rel_b + nonrel_b + unj_b) / j) * (
            (rel_b + INFAP_EPSILON) / (rel_b + nonrel_b + 2 * INFAP_EPSILON))
    term = np.where(R.i == 0, 1.0, term)
    return _div(R.tsum(term, judged_rel), R.num_rel)


def k_Rprec_mult(R, mults, ctx):
    nrel = R.num_rel
    out = []
    for m in mults:
        k = np.floor(m * nrel + 0.9).astype(np.int64)
        out.append(_div(_hits(R, k), k))
    return out


def k_utility(R, coef, ctx):
    if len(coef) != 4:
        raise TrecEvalError("trec_eval.calc_utility: improper number of coefficients", 4)
    a, b, c, d = coef
    rr = R.tsum(R.rel)
    nr = R.num_ret.astype(np.float64)
    nrel = R.num_rel.astype(np.float64)
    return a * rr + b * (nr - rr) + c * (nrel - rr) + d * (ctx.num_docs_in_coll + rr - nr - nrel)


def k_binG(R, p, ctx):
    c = R.cumsum(R.rel)
    isr = R.rel > 0
    term = np.zeros(len(c))
    term[isr] = 1.0 / np.log2(3.0 + R.i[isr] - c[isr])
    s = R.tsum(term, isr)
    return np.where(R.tsum(R.rel) > 0, _div(s, R.num_rel), 0.0)


# -- gains (ndcg family, G, rbp) -----------------------------------------------------------------


def _gain_table(R: Ranked, pairs):
    """trec_eval's setup_gains for every topic.

    Returns ``table(codes, topics) -> gains`` (per-position gain lookup: the parameter gain of a
    level, else the level itself when 0 <= level < num_rel_levels of the topic, else 0) and the
    per-topic gain table sorted by decreasing gain: gains (K,) and qrels counts (T, K)."""
    nlev = R.num_rel_levels
    L = R.rel_levels.shape[1]
    pmap = {}
    for name, val in pairs:
        try:
            pmap[int(name)] = float(val)
        except ValueError:
            continue  # non-integer names (rbp's p=) are not gains
    levels = sorted(set(range(L)) | set(pmap))
    lv = np.array(levels, np.int64)
    gain = np.array([pmap.get(x, float(x)) for x in levels])
    in_table = (lv[None, :] >= 0) & (lv[None, :] < nlev[:, None])
    in_table |= np.isin(lv, list(pmap))[None, :]
    counts = np.zeros((R.n_topics, len(lv)), np.int64)
    ok = (lv >= 0) & (lv < L)
    counts[:, ok] = R.rel_levels[:, lv[ok]]
    counts = np.where(in_table, counts, 0)

    def table(code: np.ndarray, t: np.ndarray) -> np.ndarray:
        g = np.zeros(len(code))
        inside = (code >= 0) & (code < nlev[t])
        g[inside] = code[inside]
        for lvl, val in pmap.items():
            g[code == lvl] = val
        return g

    order = np.argsort(-gain, kind="stable")
    return table, gain[order], counts[:, order], in_table[:, order]


def gains_of(R: Ranked, pairs):
    """(per-position gains, sorted gain table, counts) under the gain parameters ``pairs``."""
    def make():
        table, gsorted, csorted, _ = _gain_table(R, pairs)
        return R.gain(("gain", tuple(pairs)), table), gsorted, csorted
    return R.cached(("gains_of", tuple(pairs)), make)


def _ideal(gsorted: np.ndarray, csorted: np.ndarray, T: int, length: int):
    """Ideal gain at positions 0..length-1 of every topic, (T, length), 0 past the end: the
    topic's gain table expanded by its qrels counts, in decreasing gain order."""
    out = np.zeros((T, length))
    tot = csorted.sum(axis=1)
    flat = np.repeat(np.tile(gsorted, T), csorted.ravel())
    rows = np.repeat(np.arange(T), tot)
    off = np.r_[0, np.cumsum(tot)[:-1]]
    cols = np.arange(len(flat)) - np.repeat(off, tot)
    keep = cols < length
    out[rows[keep], cols[keep]] = flat[keep]
    return out


def _ideal_flat(R: Ranked, pairs, extra: int = 0):
    """Ideal gains aligned with R's positions (n,), the ideal lists (T, Lx) and the ideal DCG
    through each position (T, Lx), positive gains only (trec_eval stops at gain <= 0)."""
    def make():
        _, gs, cs = gains_of(R, pairs)
        tot = cs.sum(axis=1)
        Lx = int(max(tot.max(initial=0), R.num_ret.max(initial=0))) + 1 + extra
        I = _ideal(gs, cs, R.n_topics, Lx)
        Ic = np.cumsum(np.where(I > 0, I, 0) * (1.0 / np.log2(np.arange(Lx) + 2.0)), axis=1)
        return I[R.t, R.i], I, Ic
    return R.cached(("ideal", tuple(pairs), extra), make)


def _cum_dcg(R: Ranked, pairs):
    g = gains_of(R, pairs)[0]
    return R.cached(("cum_dcg", tuple(pairs)),
                    lambda: R.cumsum(np.where(g != 0, g * R.disc, 0.0)))


def k_ndcg(R, pairs, ctx):
    _, _, Ic = _ideal_flat(R, pairs)
    return _div(R.at(_cum_dcg(R, pairs), R.num_ret), Ic[:, -1])


def k_dcg(R, pairs, ctx):
    return R.at(_cum_dcg(R, pairs), R.num_ret)


def k_ideal_dcg(R, pairs, ctx):
    return _ideal_flat(R, pairs)[2][:, -1]


def k_ndcg_cut(R, cuts, ctx):
    _, I, Ic = _ideal_flat(R, (), extra=max(cuts, default=0))
    c = _cum_dcg(R, ())
    return [_div(R.at(c, k), Ic[:, min(k, I.shape[1]) - 1]) for k in cuts]


def k_ndcg_rel(R, pairs, ctx):
    g = gains_of(R, pairs)[0]
    _, I, Ic = _ideal_flat(R, pairs)
    rc = _cum_dcg(R, pairs)
    icum = Ic[R.t, R.i]
    pos = g > 0
    s = R.tsum(_div(rc, icum), pos)
    num_rel = (I > 0).sum(axis=1)
    num_rel_ret = np.bincount(R.t[pos], minlength=R.n_topics)
    rtot = R.at(rc, R.num_ret)
    s = s + (num_rel - num_rel_ret) * _div(rtot, Ic[:, -1])
    return np.where(s > 0, _div(s, num_rel), 0.0)


def k_Rndcg(R, pairs, ctx):
    _, I, Ic = _ideal_flat(R, pairs)                 # Ic: ideal dcg through position j
    T, Lx = I.shape
    rc = _cum_dcg(R, pairs)
    # results dcg through position j (j < num_ret), as a (T, Lx) table
    Rc = np.zeros((T, Lx))
    Rc[R.t, R.i] = rc
    n = R.num_ret
    last = np.where(n > 0, Rc[np.arange(T), np.maximum(n - 1, 0)], 0.0)
    col = np.arange(Lx)[None, :]
    Rc = np.where(col >= n[:, None], last[:, None], Rc)
    # i*: first position with ideal gain <= 0
    istar = np.argmax(I <= 0, axis=1)
    prev = np.concatenate([I[:, :1], I[:, :-1]], axis=1)
    change = (I != prev) & (col >= 1) & (col <= istar[:, None])
    Rprev = np.concatenate([np.zeros((T, 1)), Rc[:, :-1]], axis=1)   # results through c-1
    Iprev = np.concatenate([np.zeros((T, 1)), Ic[:, :-1]], axis=1)
    ok = change & (Iprev > 0)
    ssum = np.where(ok, _div(Rprev, Iprev), 0.0).sum(axis=1)
    cnt = ok.sum(axis=1).astype(np.float64)
    extra = n > istar + 1
    itot = Ic[:, -1]
    add = extra & (itot > 0)
    ssum = ssum + np.where(add, _div(last, itot), 0.0)
    cnt = cnt + add
    out = _div(ssum, cnt)
    return np.where(R.num_rel > 0, out, 0.0)


def k_G(R, pairs, ctx):
    g = gains_of(R, pairs)[0]
    Ipos, I, _ = _ideal_flat(R, pairs)
    cost = np.maximum(Ipos, 1.0)
    sc = R.cumsum(cost)
    sr = R.cumsum(g)
    nz = g != 0
    term = np.zeros(len(g))
    term[nz] = g[nz] / np.log2(2.0 + sc[nz] - sr[nz])
    res = R.tsum(term, nz)
    ideal = np.where(I > 0, I, 0).sum(axis=1)
    return _div(res, ideal)


def k_rbp(R, pairs, ctx):
    """RBP (Moffat & Zobel 2008) with trec_eval's gains rescaled to [0, 1] when any gain lies
    outside; trec_eval 10.0 reads uninitialised min/max here, we use the defined min/max."""
    p = 0.9
    for name, val in pairs:
        if name == "p":
            p = float(val)
    base, gains, _, in_table = _gain_table(R, pairs)
    # per-topic min / max over the topic's gain table (trec_eval leaves them uninitialised)
    gmin = np.where(in_table, gains, np.inf).min(axis=1, initial=np.inf)
    gmax = np.where(in_table, gains, -np.inf).max(axis=1, initial=-np.inf)
    gmin[~in_table.any(axis=1)] = 0.0
    gmax[~in_table.any(axis=1)] = 0.0

    def table(code, t):
        g = base(code, t)
        lo, hi = gmin[t], gmax[t]
        sc = (lo < 0) | (hi > 1)
        span = np.where(hi > lo, hi - lo, 1.0)
        return np.where(sc, (g - lo) / span, g)

    g = R.gain(("rbpgain", tuple(pairs)), table)
    w = (1.0 - p) * g * p ** R.i.astype(np.float64)
    return R.tsum(w)


def k_rbp_resid(R, p, ctx):
    """trec_eval 10.0's rbp_resid (p = 0.9): p^n + (1-p) * sum of p^i over unjudged ranks, or 0
    when no retrieved document is unjudged."""
    pp = 0.9
    w = R.unj * pp ** R.i.astype(np.float64)
    s = R.tsum(w)
    tail = pp ** R.num_ret.astype(np.float64)
    anyu = R.tsum(R.unj)
    # in the fractional ranking the indicator is P(unjudged); P(any unjudged) is 1 if the
    # topic has one at all among the retrieved (the retrieved set does not depend on order)
    return np.where(anyu > 0, tail + (1 - pp) * s, 0.0)


def k_unj(R, cuts, ctx):
    c = R.cumsum(R.unj)
    return [R.at(c, k) / k for k in cuts]


def k_set_P(R, p, ctx):
    return _div(R.tsum(R.rel), R.num_ret)


def k_set_relative_P(R, p, ctx):
    return _div(R.tsum(R.rel), np.minimum(R.num_ret, R.num_rel))


def k_set_recall(R, p, ctx):
    return _div(R.tsum(R.rel), R.num_rel)


def k_set_map(R, p, ctx):
    rr = R.tsum(R.rel)
    return _div(rr, R.num_ret) * _div(rr, R.num_rel)


def k_set_F(R, beta, ctx):
    x = beta[0]
    rr = R.tsum(R.rel)
    P = _div(rr, R.num_ret)
    Rc = _div(rr, R.num_rel)
    ok = (R.num_ret > 0) & (R.num_rel > 0)
    return np.where(ok, _div((x + 1.0) * P * Rc, x * P + Rc), 0.0)


def k_relstring(R, length, ctx):
    n = int(length[0])
    out = []
    code = R.code
    for t in range(R.n_topics):
        a, b = R.starts[t], R.starts[t + 1]
        cs = code[a:min(b, a + max(n, 0))]
        out.append("".join(_relchar(int(c)) for c in cs))
    return [out]


def _relchar(c: int) -> str:
    if c > 9:
        return ">"
    if c >= 0:
        return chr(48 + c)
    if c == NONPOOL:
        return "-"
    if c == UNJUDGED:
        return "."
    return "<"


def _none(R, p, ctx):  # computed by the driver (runid, num_q)
    return np.zeros(R.n_topics)


M = TrecMeasure
MEASURES: list[TrecMeasure] = [
    M("runid", "run tag of the results file", _none, fmt="str", summary="only"),
    M("num_q", "number of topics evaluated", _none, fmt="long", summary="only"),
    M("num_ret", "documents retrieved", k_num_ret, fmt="long", summary="sum"),
    M("num_rel", "relevant documents in the qrels", k_num_rel, fmt="long", summary="sum"),
    M("num_rel_ret", "relevant documents retrieved", k_num_rel_ret, fmt="long", summary="sum"),
    M("map", "average precision: mean precision at each relevant document, over R",
      k_map, linear=False, closed=True),
    M("gm_map", "geometric mean over topics of AP (floor 1e-5)", k_map, summary="gmonly",
      linear=False, closed=True),
    M("Rprec", "precision after R documents", k_Rprec),
    M("bpref", "fraction of relevant documents ranked above judged non-relevant ones",
      k_bpref, linear=False, closed=True),
    M("recip_rank", "1 / rank of the first relevant document", k_recip_rank, linear=False,
      closed=True),
    M("iprec_at_recall", "interpolated precision at recall levels (cutoff lround(level R))",
      k_iprec_at_recall, "double_cuts", RECALL_PTS, linear=False),
    M("P", "precision at k", k_P, "long_cuts", LONG_CUTS),
    M("relstring", "relevance codes of the top N documents (per topic only)", k_relstring,
      "float", (10.0,), fmt="str", summary="none", linear=False),
    M("recall", "recall at k", k_recall, "long_cuts", LONG_CUTS),
    M("infAP", "inferred AP (Yilmaz & Aslam 2006), -1 in qrels = pooled but unjudged",
      k_infAP, linear=False),
    M("gm_bpref", "geometric mean over topics of bpref (floor 1e-5)", k_bpref,
      summary="gmonly", linear=False, closed=True),
    M("Rprec_mult", "precision at int(m R + 0.9) documents", k_Rprec_mult, "double_cuts",
      RPREC_MULTS),
    M("utility", "a rel_ret + b nonrel_ret + c rel_nonret + d nonrel_nonret (-N)", k_utility,
      "floats", (1.0, -1.0, 0.0, 0.0)),
    M("11pt_avg", "interpolated precision averaged over the recall levels", k_11pt_avg,
      "floats", RECALL_PTS, linear=False),
    M("binG", "mean over relevant documents of 1/log2(2 + non-relevant above)", k_binG,
      linear=False),
    M("G", "gain / log2(2 + ideal cost - gain so far), normalised (Buckley 2008)", k_G,
      "pairs", (), linear=False),
    M("dcg", "discounted cumulative gain, gain = relevance value", k_dcg, "pairs", ()),
    M("ideal_dcg", "DCG of the ideal ranking", k_ideal_dcg, "pairs", ()),
    M("ndcg", "DCG / ideal DCG (Jarvelin & Kekalainen 2002), gains level=gain", k_ndcg,
      "pairs", ()),
    M("ndcg_rel", "nDCG averaged over the relevant documents", k_ndcg_rel, "pairs", (),
      linear=False),
    M("Rndcg", "nDCG averaged at the R levels of the ideal ranking", k_Rndcg, "pairs", (),
      linear=False),
    M("ndcg_cut", "nDCG at k", k_ndcg_cut, "long_cuts", LONG_CUTS),
    M("map_cut", "AP over the top k, divided by R", k_map_cut, "long_cuts", LONG_CUTS,
      linear=False, closed=True),
    M("relative_P", "precision at k / its maximum min(k, R)/k", k_relative_P, "long_cuts",
      LONG_CUTS),
    M("success", "1 if a relevant document is in the top k", k_success, "long_cuts",
      (1, 5, 10), linear=False, closed=True),
    M("set_P", "relevant retrieved / retrieved", k_set_P),
    M("set_relative_P", "relevant retrieved / min(retrieved, R)", k_set_relative_P),
    M("set_recall", "relevant retrieved / R", k_set_recall),
    M("set_map", "set_P x set_recall", k_set_map, linear=False),
    M("set_F", "(x+1) P R / (x P + R) over the retrieved set", k_set_F, "float", (1.0,),
      linear=False),
    M("num_nonrel_judged_ret", "judged non-relevant documents retrieved",
      k_num_nonrel_judged_ret, fmt="long", summary="sum"),
]
_PREFS_NAMES = (
    "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret", "prefs_simp",
    "prefs_pair", "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret",
    "prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp",
    "prefs_avgjg_imp")
for _n in _PREFS_NAMES:
    _count = _n.startswith("prefs_num")
    MEASURES.append(M(_n, "preference measure (see docs/trec_eval.md)", _none, prefs=True,
                      linear=False, fmt="long" if _count else "float",
                      summary="sum" if _count else "mean"))
MEASURES += [
    M("map_avgjg", "map averaged over judgment groups", _none, jg=True, linear=False),
    M("P_avgjg", "P at k averaged over judgment groups", _none, "long_cuts", LONG_CUTS,
      jg=True, linear=False),
    M("Rprec_mult_avgjg", "Rprec_mult averaged over judgment groups", _none, "double_cuts",
      RPREC_MULTS, jg=True, linear=False),
    M("rbp", "rank-biased precision, p=0.9 (gains rescaled to [0,1])", k_rbp, "pairs", ()),
    M("rbp_resid", "RBP residual, trec_eval 10 definition (0 when nothing is unjudged)",
      k_rbp_resid, linear=False),
    M("unj", "fraction of unjudged documents in the top k", k_unj, "long_cuts", (5, 10, 20)),
]
del M
BY_NAME = {m.name: m for m in MEASURES}
ORDER = {m.name: i for i, m in enumerate(MEASURES)}

NICKNAMES = {
    "official": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
                 "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P"),
    "all_trec": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
                 "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P", "relstring",
                 "recall", "infAP", "gm_bpref", "Rprec_mult", "utility", "11pt_avg", "binG",
                 "G", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut", "map_cut", "relative_P",
                 "success", "set_P", "set_relative_P", "set_recall", "set_map", "set_F",
                 "num_nonrel_judged_ret", "rbp", "rbp_resid", "unj"),
    "set": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P",
            "set_recall", "set_relative_P", "set_map", "set_F"),
    "all_prefs": ("runid", "num_q") + _PREFS_NAMES,
    "prefs": ("runid", "num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful",
              "prefs_num_prefs_ful_ret", "prefs_simp", "prefs_pair", "prefs_avgjg"),
    "qrels_jg": ("runid", "num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg"),
}


def mark(args: list[str]) -> list[Requested]:
    """The measures requested by the ``-m`` arguments, in trec_eval's printing order.

    Raises :class:`TrecEvalError` (status 1) for an unknown measure, like trec_eval's
    ``illegal measure``."""
    marked: set[str] = set()
    params: dict[str, str] = {}
    for arg in args or ["official"]:
        name, dot, raw = arg.partition(".")
        if dot:
            if raw == "":
                raise TrecEvalError(f"trec_eval: improper measure in parameter '{name}'\n"
                                    f"trec_eval: illegal measure '{arg}'")
            params[name] = raw
        if name in NICKNAMES:
            marked.update(NICKNAMES[name])
        elif name in BY_NAME:
            marked.add(name)
        else:
            raise TrecEvalError(f"trec_eval: illegal measure '{arg}'")
    return [resolve(BY_NAME[n], params.get(n)) for n in sorted(marked, key=ORDER.get)]
