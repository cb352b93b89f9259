"""trec_eval's preference measures (the ``all_prefs`` set) for ``-R prefs`` and ``-R qrels_prefs``.

Semantics follow trec_eval 10.0 (``get_prefs.c``, ``get_qrels_prefs.c``, ``form_prefs_counts.c``
and the ``m_prefs_*.c`` measures); the code is an independent numpy implementation.

Judgments
---------
A topic's judgments are split into *judgment groups* (JG, one user's information need) and, inside a
JG, *judgment sub-groups* (JSG). Inside one JSG a doc with a higher ``rel_level`` is preferred to
every doc with a lower one. A JG with one JSG is a complete ordering by level (its "equivalence
classes" are the levels); a JG with several JSGs is a partial order: the union of its JSGs'
preferences, closed transitively. ``rel_level > 0`` means relevant, ``0`` non-relevant. Different
JGs may contradict each other. ``-R qrels_prefs`` reads ordinary qrels ``qid iter docno rel`` as
prefs with JG = ``iter`` and a single JSG per JG.

Counting
--------
Judged docs the run retrieved (within ``-M``) are ranked 0..NJR-1 in run order; judged docs it did
not retrieve come after them. A preference A > B is

* fulfilled *retrieved* (A above B, both retrieved) or failed retrieved (B above A, both retrieved),
* fulfilled *implied* (only A retrieved) or failed implied (only B retrieved),
* *not occurring* (neither retrieved): always a failure.

Each JG counts its own preferences; the measures combine the counts over JGs (``simp``: pooled,
``avgjg``: averaged over JGs, ``pair``: averaged over doc pairs, each pair scoring the share of its
JG preferences that it fulfils). Suffix ``_ret``: only preferences with both docs retrieved;
``_imp``: ignore preferences where neither doc was retrieved; no suffix: not-occurring ones count as
failures.

Docnos, topic ids and group names are compared by their bytes (C ``strcmp``); docnos are held as
latin-1 text (one code point per byte) like :mod:`tiebreak.io`.

trec_eval details reproduced here (checked against its expected outputs)
------------------------------------------------------------------------
* **Tie order.** The preference code sorts the run by score descending and breaks ties by docno
  *ascending* (``form_prefs_counts.c``), the opposite of every other trec_eval measure; ``-M``
  is applied after that sort. Pass ``scores`` to :func:`prefs_measures` (or use
  :func:`prefs_order`); ``results.test`` topic 301 is off by one preference otherwise.
* **Topics and ``all``.** Evaluated topics are those in both the run and the judgments (without
  ``-c``, trec_eval 10.0 stops when a judged topic has no run lines). ``all`` is the sum over the
  evaluated topics for the three counts (:data:`SUMMARY_IS_SUM`) and the mean for the rest
  (:func:`prefs_summary`).
* **prefs_avgjg_Rnonrel(_ret)** when a JG has more non-relevant docs than relevant ones: the
  recount pairs *every* doc of the lowest level, those of the lowest level included, with the
  first R docs of that level, so non-relevant-vs-non-relevant pairs (and a doc with itself) count
  as preferences. Without this, ``qrels.test`` topic 301 would be 0.1230, not trec_eval's 0.1223.
  A JG with no preference to count there gives 0/0 = NaN, which makes the topic's value 0.
* **prefs_avgjg*** divide by the number of JGs, including JGs with nothing to count, and print 0
  unless the sum is positive.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from tiebreak.io import InputError
from tiebreak.io.prefs import TopicPrefs, read_prefs

__all__ = [
    "PREFS_MEASURES",
    "SUMMARY_IS_SUM",
    "TopicPrefs",
    "format_value",
    "prefs_measures",
    "prefs_order",
    "prefs_summary",
    "read_prefs",
]

PREFS_MEASURES: tuple[str, ...] = (
    "prefs_num_prefs_poss",
    "prefs_num_prefs_ful",
    "prefs_num_prefs_ful_ret",
    "prefs_simp",
    "prefs_pair",
    "prefs_avgjg",
    "prefs_avgjg_Rnonrel",
    "prefs_simp_ret",
    "prefs_pair_ret",
    "prefs_avgjg_ret",
    "prefs_avgjg_Rnonrel_ret",
    "prefs_simp_imp",
    "prefs_pair_imp",
    "prefs_avgjg_imp",
)
"""The 14 measures of trec_eval's ``all_prefs`` set, in its output order."""

SUMMARY_IS_SUM: frozenset[str] = frozenset(
    {"prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret"}
)
"""Counts: trec_eval prints them as integers and their ``all`` value is the sum over topics; every
other measure's ``all`` value is the mean over the evaluated topics."""

# --------------------------------------------------------------------------------------------
# per-JG preference counts
# --------------------------------------------------------------------------------------------


@dataclass
class _JG:
    """Preference counts of one judgment group (see the module docstring)."""

    w: np.ndarray  # preferred doc's rank, one entry per preference
    lo: np.ndarray  # the other doc's rank
    ful_ret: int
    ful_imp: int
    poss_ret: int  # fulfilled + failed, both retrieved
    poss_imp: int  # fulfilled + failed, exactly one retrieved
    notoccur: int
    rn: tuple[int, int]  # (fulfilled, possible) for prefs_avgjg_Rnonrel
    rn_ret: tuple[int, int]  # (fulfilled, possible) for prefs_avgjg_Rnonrel_ret


def _pairs_by_level(rank: np.ndarray, level: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """All (higher-level, lower-level) pairs of entries, as rank arrays (one per pair)."""
    o = np.lexsort((rank, -level))
    r, lv = rank[o], level[o]
    n = len(r)
    # for each entry, the first position whose level is strictly lower
    start = np.searchsorted(-lv, -lv, side="right")
    cnt = n - start
    tot = int(cnt.sum())
    if tot == 0:
        e = np.zeros(0, np.int64)
        return e, e
    w = np.repeat(r, cnt)
    off = np.repeat(np.cumsum(cnt) - cnt, cnt)
    idx = np.arange(tot) - off + np.repeat(start, cnt)
    return w, r[idx]


def _count(w: np.ndarray, lo: np.ndarray, njr: int) -> tuple[int, int, int, int, int]:
    """(ful_ret, ful_imp, poss_ret, poss_imp, notoccur) of the preferences w > lo."""
    wr, lr = w < njr, lo < njr
    up = w < lo
    ful_ret = int(np.count_nonzero(up & lr))
    ful_imp = int(np.count_nonzero(wr & ~lr))
    both = int(np.count_nonzero(wr & lr))
    imp = int(np.count_nonzero(wr ^ lr))
    return ful_ret, ful_imp, both, imp, len(w) - both - imp


def _ratio(ful: int, poss: int) -> float:
    """ful / poss in C double arithmetic (0/0 is NaN, which trec_eval lets through)."""
    return ful / poss if poss else math.nan


def _closure(adj: np.ndarray) -> np.ndarray:
    """Transitive closure of a boolean preference matrix (repeated squaring)."""
    m = adj.shape[0]
    reach = adj | np.eye(m, dtype=bool)
    while True:
        f = reach.astype(np.float32)
        nxt = (f @ f) > 0
        if (nxt == reach).all():
            break
        reach = nxt
    np.fill_diagonal(reach, False)
    return reach


def _ec_jg(rank: np.ndarray, level: np.ndarray, njr: int) -> _JG:
    """A JG with a single JSG: complete order by level; entries are input lines."""
    w, lo = _pairs_by_level(rank, level)
    ful_ret, ful_imp, poss_ret, poss_imp, notoccur = _count(w, lo, njr)
    rel = level > 0
    ret = rank < njr
    n_rel, n_nonrel = int(rel.sum()), int((~rel).sum())
    n_rel_ret, n_nonrel_ret = int((rel & ret).sum()), int((~rel & ret).sum())
    # docs of the lowest level (trec_eval's "last equivalence class"), in rank order
    lowest = level == level.min()
    last = np.sort(rank[lowest])
    sorted_all = np.sort(rank)

    # prefs_avgjg_Rnonrel
    if n_rel >= n_nonrel:
        extra = n_rel - n_nonrel
        rn = (ful_ret + ful_imp + n_rel_ret * extra,
              poss_ret + poss_imp + notoccur + n_rel * extra)
    else:
        # keep the first R docs of the lowest level; pairs between the other levels as usual;
        # then every entry (the lowest level's own included, as trec_eval does) against them
        keep = last[:n_rel]  # (trec_eval reads past the level when it has < R docs; we clip)
        upper = ~lowest
        w1, l1 = _pairs_by_level(rank[upper], level[upper])
        ful = int(np.count_nonzero((w1 < l1) & (w1 < njr)))
        poss = len(w1)
        ful += int(np.searchsorted(sorted_all, np.minimum(keep, njr), side="left").sum())
        poss += len(sorted_all) * len(keep)
        rn = (ful, poss)

    # prefs_avgjg_Rnonrel_ret
    if n_rel_ret >= n_nonrel_ret:
        extra = n_rel_ret - n_nonrel_ret
        rn_ret = (ful_ret + n_rel_ret * extra, poss_ret + n_rel * extra)
    else:
        keep = last[:n_rel_ret]
        keep = keep[keep < njr]
        upper = ~lowest & ret
        w1, l1 = _pairs_by_level(rank[upper], level[upper])
        ful = int(np.count_nonzero(w1 < l1))
        poss = len(w1)
        ret_sorted = sorted_all[sorted_all < njr]
        ful += int(np.searchsorted(ret_sorted, keep, side="left").sum())
        poss += len(ret_sorted) * len(keep)
        rn_ret = (ful, poss)
    return _JG(w, lo, ful_ret, ful_imp, poss_ret, poss_imp, notoccur, rn, rn_ret)


def _pa_jg(rank: np.ndarray, level: np.ndarray, jsg: np.ndarray, njr: int, where: str) -> _JG:
    """A JG with several JSGs: partial order, closed transitively; counted once per doc pair."""
    udoc, local = np.unique(rank, return_inverse=True)
    local = local.reshape(-1)
    m = len(udoc)
    adj = np.zeros((m, m), dtype=bool)
    for s in np.unique(jsg):
        sel = jsg == s
        a, b = _pairs_by_level(local[sel], level[sel])
        adj[a, b] = True
    reach = _closure(adj)
    if (reach & reach.T).any():
        i, j = np.argwhere(reach & reach.T)[0]
        raise InputError(
            f"{where}: preferences of one judgment group contradict each other (a cycle through "
            f"the docs ranked {int(udoc[i])} and {int(udoc[j])}); split them into judgment groups"
        )
    a, b = np.nonzero(reach)
    w, lo = udoc[a], udoc[b]
    ful_ret, ful_imp, poss_ret, poss_imp, notoccur = _count(w, lo, njr)

    # each doc's level: the last one assigned in trec_eval's order (JSG, level desc, rank)
    o = np.lexsort((rank, -level, jsg))[::-1]
    _, last = np.unique(local[o], return_index=True)
    doc_level = level[o][last]
    rel, nonrel = doc_level > 0, doc_level == 0
    ret = udoc < njr
    n_rel, n_nonrel = int(rel.sum()), int(nonrel.sum())
    n_rel_ret, n_nonrel_ret = int((rel & ret).sum()), int((nonrel & ret).sum())

    if n_rel >= n_nonrel:
        extra = n_rel - n_nonrel
        rn = (ful_ret + ful_imp + n_rel_ret * extra,
              poss_ret + poss_imp + notoccur + n_rel * extra)
    else:
        # drop non-relevant docs after the first R of them (in rank order; udoc is sorted)
        drop = nonrel & (np.cumsum(nonrel) > n_rel)
        k = ~drop[a] & ~drop[b]
        rn = (int(np.count_nonzero(k & (w < lo) & (w < njr))), int(np.count_nonzero(k)))

    if n_rel_ret >= n_nonrel_ret:
        extra = n_rel_ret - n_nonrel_ret
        rn_ret = (ful_ret + n_rel_ret * extra, poss_ret + n_rel * extra)
    else:
        # trec_eval keeps the first R (all relevant, not only retrieved) retrieved non-relevant
        nr = nonrel & ret
        drop = nr & (np.cumsum(nr) > n_rel)
        k = ~drop[a] & ~drop[b] & (w < njr) & (lo < njr)
        rn_ret = (int(np.count_nonzero(k & (w < lo))), int(np.count_nonzero(k)))
    return _JG(w, lo, ful_ret, ful_imp, poss_ret, poss_imp, notoccur, rn, rn_ret)


# --------------------------------------------------------------------------------------------
# measures
# --------------------------------------------------------------------------------------------


def _ranks(tp: TopicPrefs, ranked_docnos: list[str]) -> tuple[np.ndarray, int]:
    """Rank of each judged doc: retrieved ones 0..NJR-1 in run order, the rest after them in
    docno byte order."""
    nd = len(tp.docnos)
    ranked = np.asarray(ranked_docnos, dtype=str) if len(ranked_docnos) else np.zeros(0, "U1")
    if len(np.unique(ranked)) != len(ranked):
        u, c = np.unique(ranked, return_counts=True)
        raise ValueError(f"topic {tp.qid}: docno {u[c > 1][0]!r} retrieved twice")
    pos = np.searchsorted(tp.docnos, ranked)
    posc = np.minimum(pos, max(nd - 1, 0))
    hit = (pos < nd) & (tp.docnos[posc] == ranked) if nd else np.zeros(len(ranked), bool)
    judged_ret = posc[hit]  # judged docs in run order
    njr = len(judged_ret)
    rank = np.full(nd, -1, np.int64)
    rank[judged_ret] = np.arange(njr)
    rest = rank < 0
    rank[rest] = njr + np.arange(int(rest.sum()))
    return rank, njr


def _pair_measures(jgs: list[_JG], njr: int) -> tuple[float, float, float]:
    """(prefs_pair, prefs_pair_ret, prefs_pair_imp) from the preferences of all JGs."""
    if not jgs:
        return 0.0, 0.0, 0.0
    w = np.concatenate([j.w for j in jgs])
    lo = np.concatenate([j.lo for j in jgs])
    if not len(w):
        return 0.0, 0.0, 0.0
    a, b = np.minimum(w, lo), np.maximum(w, lo)
    n = int(b.max()) + 1
    key = a * n + b
    ukey, inv = np.unique(key, return_inverse=True)
    inv = inv.reshape(-1)
    total = np.bincount(inv, minlength=len(ukey))
    up = np.bincount(inv, weights=(w < lo).astype(np.float64), minlength=len(ukey))
    ratio = up / total
    ua, ub = ukey // n, ukey % n
    both = ub < njr
    one = (ua < njr) & ~both
    # trec_eval sums pairs in row order: first both retrieved, then exactly one retrieved
    r_both, r_one = ratio[both], ratio[one]
    n_both, n_one, n_all = len(r_both), len(r_one), len(ukey)
    s = np.cumsum(np.concatenate([r_both, r_one]))
    s_both = float(s[n_both - 1]) if n_both else 0.0
    s_ret_imp = float(s[-1]) if len(s) else 0.0
    pair = s_ret_imp / n_all if n_all else 0.0
    pair_ret = s_both / n_both if n_both else 0.0
    pair_imp = s_ret_imp / (n_both + n_one) if n_both + n_one else 0.0
    return pair, pair_ret, pair_imp


def _avg_over_jgs(ratios: list[float]) -> float:
    """Sum in JG order, NaN included; trec_eval reports sum / num_jgs only when sum > 0."""
    total = 0.0
    for r in ratios:
        total += r
    return total / len(ratios) if total > 0.0 else 0.0


def prefs_order(docnos, scores, max_docs: int | None = None) -> list[str]:
    """The ranking the preference measures use: score descending, ties by docno **ascending**.

    trec_eval's ``form_prefs_counts.c`` breaks score ties by ``strcmp(a, b)``, the opposite of
    the docno-descending order of ``form_res_rels.c`` that every other measure uses; ``-M`` is
    applied after this sort.

    Parameters
    ----------
    docnos : sequence of str
        The run's docnos for one topic, any order (latin-1 text of the bytes, so that code-point
        order is byte order).
    scores : sequence of float
        Their scores.
    max_docs : int, optional
        trec_eval's ``-M``: keep only the first ``max_docs`` after sorting.

    Returns
    -------
    list[str]
    """
    d = np.asarray(docnos, dtype=str) if len(docnos) else np.zeros(0, "U1")
    sc = np.asarray(scores, dtype=np.float64)
    if d.shape != sc.shape:
        raise ValueError(f"{len(d)} docnos but {len(sc)} scores")
    o = np.lexsort((d, -sc))
    if max_docs is not None:
        o = o[:max(max_docs, 0)]
    return d[o].tolist()


def prefs_measures(tp: TopicPrefs, ranked_docnos: list[str], *, scores=None,
                   max_docs: int | None = None) -> dict[str, float]:
    """trec_eval 10.0's ``all_prefs`` measures for one topic (``m_prefs_*.c`` semantics).

    Parameters
    ----------
    tp : TopicPrefs
        The topic's judgments, from :func:`read_prefs`.
    ranked_docnos : list[str]
        The run's docnos for this topic (latin-1 text of the bytes, as :mod:`tiebreak.io` holds
        them). Without ``scores`` they are used in the order given, truncated to ``max_docs``.
    scores : sequence of float, optional
        The docnos' scores. When given, the docnos are first put in the order trec_eval's
        preference code uses (:func:`prefs_order`: score descending, ties by docno
        **ascending**, unlike the docno-descending order of the other trec_eval measures), then
        cut to ``max_docs``. Pass them whenever the run may contain tied scores: it is the only
        way to be byte-identical on ties (``results.test`` topic 301 differs otherwise).
    max_docs : int, optional
        trec_eval's ``-M``.

    Returns
    -------
    dict[str, float]
        One value per name of :data:`PREFS_MEASURES` (counts are whole numbers):

        * ``prefs_num_prefs_poss``: number of preferences (over all JGs);
        * ``prefs_num_prefs_ful``: preferences fulfilled, retrieved or implied;
        * ``prefs_num_prefs_ful_ret``: preferences fulfilled with both docs retrieved;
        * ``prefs_simp``: fulfilled / all preferences, pooled over JGs;
        * ``prefs_pair``: mean over judged doc pairs of the share of the pair's preferences
          (over JGs) it fulfils; pairs with neither doc retrieved score 0;
        * ``prefs_avgjg``: fulfilled / all preferences inside each JG, averaged over JGs;
        * ``prefs_avgjg_Rnonrel``: as ``prefs_avgjg``, with each JG's non-relevant docs cut or
          padded to R (its number of relevant docs), a bpref-like measure;
        * ``prefs_simp_ret``, ``prefs_pair_ret``, ``prefs_avgjg_ret``,
          ``prefs_avgjg_Rnonrel_ret``: the same, counting only preferences between two
          retrieved docs;
        * ``prefs_simp_imp``, ``prefs_pair_imp``, ``prefs_avgjg_imp``: the same, ignoring
          preferences where neither doc was retrieved.

        A ratio with nothing to count is 0, as trec_eval prints it.

    Raises
    ------
    InputError
        The preferences of one JG with several JSGs form a cycle (trec_eval aborts).
    ValueError
        A docno appears twice in the (truncated) ranking (trec_eval stops on duplicate docs), or
        ``scores`` does not match ``ranked_docnos`` in length.
    """
    if scores is not None:
        ranked_docnos = prefs_order(ranked_docnos, scores, max_docs)
    elif max_docs is not None:
        ranked_docnos = list(ranked_docnos)[:max(max_docs, 0)]
    rank_of_doc, njr = _ranks(tp, ranked_docnos)
    rank = rank_of_doc[tp.doc]
    jgs: list[_JG] = []
    for g in range(len(tp.jgs)):
        sel = tp.jg == g
        if len(np.unique(tp.jsg[sel])) > 1:
            where = f"{tp.source}:{int(tp.lineno[sel].min())}: topic {tp.qid} group {tp.jgs[g]}"
            jgs.append(_pa_jg(rank[sel], tp.level[sel], tp.jsg[sel], njr, where))
        else:
            jgs.append(_ec_jg(rank[sel], tp.level[sel], njr))

    ful_ret = sum(j.ful_ret for j in jgs)
    ful_imp = sum(j.ful_imp for j in jgs)
    poss_ret = sum(j.poss_ret for j in jgs)
    poss_imp = sum(j.poss_imp for j in jgs)
    notoccur = sum(j.notoccur for j in jgs)
    ful, poss = ful_ret + ful_imp, poss_ret + poss_imp + notoccur
    partial_order = len(tp.jsgs) > 1  # (with one JG, several JSGs mean a preference array)
    if len(jgs) == 1 and (partial_order or len(np.unique(tp.doc)) == len(tp.doc)):
        # one JG, each doc pair preferred at most once: every pair scores 0 or 1, so the pair
        # measures are the simple ratios (same sums, exact in floating point)
        pair = ful / poss if poss else 0.0
        pair_ret = ful_ret / poss_ret if poss_ret else 0.0
        pair_imp = ful / (poss_ret + poss_imp) if poss_ret + poss_imp else 0.0
    else:
        pair, pair_ret, pair_imp = _pair_measures(jgs, njr)

    def ratio0(f: int, p: int) -> float:
        return f / p if p else 0.0

    def per_jg(f, p) -> list[float]:
        # JGs with nothing possible add nothing (but still count in the average)
        return [f(j) / p(j) if p(j) else 0.0 for j in jgs]

    return {
        "prefs_num_prefs_poss": float(poss),
        "prefs_num_prefs_ful": float(ful),
        "prefs_num_prefs_ful_ret": float(ful_ret),
        "prefs_simp": ratio0(ful, poss),
        "prefs_pair": pair,
        "prefs_avgjg": _avg_over_jgs(per_jg(
            lambda j: j.ful_ret + j.ful_imp, lambda j: j.poss_ret + j.poss_imp + j.notoccur)),
        "prefs_avgjg_Rnonrel": _avg_over_jgs([_ratio(*j.rn) for j in jgs]),
        "prefs_simp_ret": ratio0(ful_ret, poss_ret),
        "prefs_pair_ret": pair_ret,
        "prefs_avgjg_ret": _avg_over_jgs(per_jg(lambda j: j.ful_ret, lambda j: j.poss_ret)),
        "prefs_avgjg_Rnonrel_ret": _avg_over_jgs([_ratio(*j.rn_ret) for j in jgs]),
        "prefs_simp_imp": ratio0(ful, poss_ret + poss_imp),
        "prefs_pair_imp": pair_imp,
        "prefs_avgjg_imp": _avg_over_jgs(per_jg(
            lambda j: j.ful_ret + j.ful_imp, lambda j: j.poss_ret + j.poss_imp)),
    }


def prefs_summary(per_topic: dict[str, dict[str, float]]) -> dict[str, float]:
    """trec_eval's ``all`` line: the sum over topics for :data:`SUMMARY_IS_SUM`, else the mean.

    Parameters
    ----------
    per_topic : dict[str, dict[str, float]]
        :func:`prefs_measures` of every evaluated topic (without ``-c``: the topics that are in
        both the run and the judgments), in trec_eval's topic order (byte order of the ids).

    Returns
    -------
    dict[str, float]
        One value per name of :data:`PREFS_MEASURES`; 0 when there are no topics.
    """
    n = len(per_topic)
    out = {}
    for m in PREFS_MEASURES:
        total = 0.0
        for vals in per_topic.values():
            total += vals[m]
        out[m] = total if m in SUMMARY_IS_SUM or n == 0 else total / n
    return out


def format_value(measure: str, value: float) -> str:
    """A value as trec_eval prints it: counts as integers, the rest with 4 decimals."""
    return f"{int(value)}" if measure in SUMMARY_IS_SUM else f"{value:.4f}"
