"""The values of measures on one prepared run under one tie regime, and their summary over
topics (trec_eval's order of additions). The kernels are in :mod:`tiebreak.measures`; the
rankings of each regime in :mod:`tiebreak.ranking`."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from ..io import Qrels
from ..measures import Measure
from ..measures.kernels import (
    CLOSED_SPARSE_SAFE,
    MIN_GEO_MEAN,
    depth_safe,
    sparse_safe,
)
from ..ranking import (
    ALL_REGIMES,
    DEFAULT_REGIMES,
    REGIMES,
    Prepared,
    expected_ranking,
    groups,
    order_for,
    ranking,
    sampled_ranking,
    topic_generators,
)

#: Measures with a cutoff up to this depth are computed on rankings of the top ranks alone.
DEPTH_MAX = 100

# warning labels that other modules read back (keep them in one place)
WARN_CONTRADICTIONS = "rank/score contradictions"
WARN_INCREASING = "scores increasing in file order (adjacent lines)"
WARN_TIED = "documents in tied groups"


def resolve_regimes(regimes) -> list[str]:
    """Expand ``all`` and check names; keeps the user's order, drops repeats."""
    if regimes is None:
        return list(DEFAULT_REGIMES)
    if isinstance(regimes, str):
        regimes = [regimes]
    out: list[str] = []
    for r in regimes:
        if not isinstance(r, str):
            raise TypeError(f"a regime must be a string such as 'expected', not {r!r}")
        for x in (ALL_REGIMES if r == "all" else [p.strip() for p in r.split(",") if p.strip()]):
            if x not in REGIMES:
                raise ValueError(f"unknown regime {x!r}; choose from {', '.join(REGIMES)}, all")
            if x not in out:
                out.append(x)
    return out


def measure_values(P: Prepared, measures: list[Measure], regime: str, *, samples: int = 1000,
                   seed: int = 0, cache: dict | None = None) -> tuple[list, list[str]]:
    """Per-topic values of every measure under one regime: the one evaluation path behind
    ``tiebreak eval``, ``tiebreak trec_eval`` and the API.

    Parameters
    ----------
    P : Prepared
        A judged run with its evaluated topics (:func:`tiebreak.ranking.prepare`).
    measures : list of Measure
    regime : str
        One of :data:`tiebreak.ranking.REGIMES`.
    samples, seed : int
        Seeded random orderings for the ``expected`` value of measures without a closed form
        or a linear form.
    cache : dict, optional
        Shared between calls on the same ``P`` (several regimes of one run): orderings and
        values computed once (``lower`` reuses ``realistic``, and so on).

    Returns
    -------
    values : list
        One entry per measure: float64 (T,), or a list of T strings for ``relstring``.
    notes : list of str
        What was estimated by sampling, with the largest standard error.
    """
    cache = {} if cache is None else cache
    from ..measures.fastpath import fill

    fill(P, measures, [regime], cache)  # the compiled twins, memoised (does nothing if absent)
    jo = [j for j, m in enumerate(measures) if _judged_only(m)]
    if jo:
        # ``judged_only=True`` (ir_measures): those measures see the run with its unjudged
        # documents dropped, as under trec_eval -J (a prepared run of their own)
        out_all: list = [None] * len(measures)
        rest = [j for j in range(len(measures)) if j not in set(jo)]
        notes_all: list[str] = []
        sub = cache.setdefault("judged_only", {})
        PJ = sub.get("prepared")
        if PJ is None:
            PJ = sub["prepared"] = P if P.judged_only else replace(P, judged_only=True,
                                                                    shared={})
        for idx, PP, cc in ((rest, P, cache), (jo, PJ, sub)):
            if not idx:
                continue
            vals, notes = _measure_values(PP, [measures[j] for j in idx], regime,
                                          samples=samples, seed=seed, cache=cc)
            for j, v in zip(idx, vals):
                out_all[j] = v
            notes_all += [n for n in notes if n not in notes_all]
        return out_all, notes_all
    return _measure_values(P, measures, regime, samples=samples, seed=seed, cache=cache)


def _judged_only(m: Measure) -> bool:
    return any(k == "judged_only" and v for k, v in m.values)


def _untied_reuse(P: Prepared, measures: list[Measure], regime: str, *, samples: int,
                  seed: int, cache: dict, out: list, notes: list[str]) -> list[int]:
    """Fill ``out[j]`` for the measures whose value under ``regime`` can be taken from the
    trec_eval values already computed, topic by topic; returns the indices of the others.

    A topic whose ranking under the regime's ordering is position for position the trec_eval
    ranking has the same value; a topic without a tied group has one ordering, so its
    ``expected`` value is that ordering's. Only the other topics (typically a few: ties sit in
    a few topics of a run) are evaluated, as a prepared run of their own (shared by the
    regimes that change the same topics), and spliced in.
    ``upper`` of monotone measures (promoted unjudged documents) is always evaluated whole."""
    memo = cache.get("values", {})
    todo: list[int] = []
    by_order: dict[str, list[int]] = {}
    for j, m in enumerate(measures):
        order = "expected" if regime == "expected" else order_for(regime, m.kind)
        base = ("trec_eval", m.family.name, m.cutoff, m.values)
        key = (order, m.family.name, m.cutoff, m.values)
        if key in memo:
            out[j] = memo[key]
        elif order in ("trec_eval", "upper_mono") or base not in memo:
            todo.append(j)
        else:
            by_order.setdefault(order, []).append(j)
    T = len(P.topic_ids)
    for order, js in by_order.items():
        idx = _differs(P, cache, order)
        if len(idx) == T:  # every topic differs: evaluate the run whole
            todo += js
            continue
        sub_vals: list = [None] * len(js)
        if len(idx):
            sub = cache.setdefault(("topics", idx.tobytes()), {})
            Ps = sub.get("prepared")
            if Ps is None:
                Ps = sub["prepared"] = replace(
                    P, topic_ids=P.topic_ids[idx], bogus=P.bogus[idx],
                    rel_levels=P.rel_levels[idx], shared={})
            sub_vals, sub_notes = _measure_values(Ps, [measures[j] for j in js], regime,
                                                  samples=samples, seed=seed, cache=sub)
            notes += [n for n in sub_notes if n not in notes]
        for j, v in zip(js, sub_vals):
            m = measures[j]
            base = memo[("trec_eval", m.family.name, m.cutoff, m.values)]
            if not len(idx):
                out[j] = base
            elif isinstance(base, list):  # relstring: one string per topic
                out[j] = list(base)
                for i, x in zip(idx.tolist(), v):
                    out[j][i] = x
            else:
                out[j] = np.array(base, np.float64)
                out[j][idx] = v
            memo[(order, m.family.name, m.cutoff, m.values)] = out[j]
    return sorted(todo)


def _differs(P: Prepared, cache: dict, order: str) -> np.ndarray:
    """Indices of the evaluated topics that ``order`` ranks otherwise than trec_eval (for
    ``expected``: the topics with a tied group), memoised in ``cache``."""
    key = ("differs", order)
    idx = cache.get(key)
    if idx is None:
        O = P.O
        tied = O.tied
        if order == "expected":
            qt = O.topic[tied]
        elif order == "file":
            qt = O.topic[O.order(order) != O.order("trec_eval")]
        else:  # re-sorted tied groups: the orderings differ inside tied groups only
            qt = O.topic[tied[O.order(order)[tied] != O.order("trec_eval")[tied]]]
        has = np.zeros(P.J.n_topics, bool)
        has[qt] = True
        idx = cache[key] = np.flatnonzero(has[P.topic_ids])
    return idx


def _measure_values(P: Prepared, measures: list[Measure], regime: str, *, samples: int,
                    seed: int, cache: dict) -> tuple[list, list[str]]:
    def R(order, m=None):
        # a measure that reads nothing from documents absent from the qrels gets the ranking
        # without them, and one with a small cutoff the top ranks only (the same values, from
        # arrays several times shorter)
        if m is None:
            key = order
        else:
            d = depth_safe(m)
            key = (order, sparse_safe(m), depth if d is not None and d <= DEPTH_MAX else None)
            if key[1:] == (False, None):
                key = order
        got = cache.get(key)
        if got is None:
            got = cache[key] = (ranking(P, order) if key == order else
                                ranking(P, order, sparse=key[1], depth=key[2]))
        return got

    # the one depth of the top-ranks rankings: the deepest small cutoff asked for
    depth = max((d for d in map(depth_safe, measures) if d is not None and d <= DEPTH_MAX),
                default=None)

    out: list = [None] * len(measures)
    notes: list[str] = []
    memo: dict = cache.setdefault("values", {})
    todo = range(len(measures))
    if regime != "trec_eval":
        todo = _untied_reuse(P, measures, regime, samples=samples, seed=seed, cache=cache,
                             out=out, notes=notes)
    if regime != "expected":
        for j in todo:
            m = measures[j]
            order = order_for(regime, m.kind)
            key = (order, m.family.name, m.cutoff, m.values)
            if key not in memo:
                memo[key] = m.family.kernel(R(order, m), m)
            out[j] = memo[key]
    else:
        cut = P.max_docs
        sampled = []
        # measures grouped by the structure they read (a fractional ranking, tied groups), each
        # structure built once and freed before the next: one at a time in memory
        plan: dict[tuple, list[int]] = {}
        for j in todo:
            m = measures[j]
            f = m.family
            mode = f.expected
            if mode == "linear_uncut":
                mode = "linear" if cut is None else "sampled"
            if mode == "closed" and f.name == "bpref" and cut is not None:
                mode = "sampled"
            key = ("expected", f.name, m.cutoff, m.values)
            if key in memo:
                out[j] = memo[key]
            elif mode == "linear":
                d = depth_safe(m)
                plan.setdefault(("linear", sparse_safe(m),
                                 depth if d is not None and d <= DEPTH_MAX else None),
                                []).append(j)
            elif mode == "closed":
                plan.setdefault(("closed", f.closed in CLOSED_SPARSE_SAFE), []).append(j)
            elif mode == "trec_order":
                plan.setdefault(("trec_order",), []).append(j)
            else:
                sampled.append(j)
        for what, js in plan.items():
            if what[0] == "linear":
                S_ = expected_ranking(P, what[1], what[2])
            elif what[0] == "closed":
                S_ = groups(P, sparse=what[1])
            else:
                S_ = R("trec_eval")
            for j in js:
                m = measures[j]
                f = m.family
                key = ("expected", f.name, m.cutoff, m.values)
                if key not in memo:
                    if what[0] == "closed":
                        k = m.cutoff if cut is None else (cut if m.cutoff is None
                                                          else min(cut, m.cutoff))
                        memo[key] = f.closed(S_, m, k)
                    else:
                        memo[key] = f.kernel(S_, m)
                out[j] = memo[key]
            del S_
        if sampled:
            S = max(int(samples), 1)
            acc = _sample_moments(P, [measures[j] for j in sampled], S, seed)
            worst = 0.0
            for j, (mean, se) in zip(sampled, acc):
                out[j] = mean
                worst = max(worst, float(se.max(initial=0.0)))
            names = ", ".join(dict.fromkeys(str(measures[j]) for j in sampled))
            notes.append(f"expected values of {names} estimated from {S} seeded random "
                         f"orderings of each tied group (seed {seed}); largest standard error "
                         f"{worst:.2g}")
    return _with_bogus(P, measures, out), notes


def _with_bogus(P: Prepared, measures: list[Measure], out: list) -> list:
    """``out`` with the fixed value of each family that has one on the -c topics without
    results (``Family.bogus``)."""
    if P.bogus.any():
        for j, m in enumerate(measures):
            b = m.family.bogus
            if b is None:
                continue
            if isinstance(b, str):
                out[j] = [b if z else s for s, z in zip(out[j], P.bogus)]
            else:
                out[j] = np.where(P.bogus, b, out[j])
    return out


def _evict(cache: dict, P: Prepared, measures: list[Measure], later: list[str]) -> None:
    """Free the rankings (and the orderings behind them) that the ``later`` regimes will not
    read: values already computed are memoised, so a ranking is kept only while some measure of
    a later regime still needs it. Peak memory is then that of the trec_eval ranking plus one
    regime's, not of every regime's (about half for the seven regimes)."""
    memo = cache.get("values", {})
    need = {"trec_eval"}  # the warnings read it last
    for reg in later:
        if reg == "expected":
            continue  # its own structures; 'trec_order' measures read trec_eval (kept)
        for m in measures:
            order = order_for(reg, m.kind)
            if (order, m.family.name, m.cutoff, m.values) not in memo:
                need.add(order)
    # the per-topic-subset evaluations a later regime reuses (the others are freed whole)
    keep = {_differs(P, cache, o).tobytes() for o in need
            if o not in ("trec_eval", "upper_mono") and ("differs", o) in cache}
    if "expected" in later:
        keep.add(_differs(P, cache, "expected").tobytes())
    for key in [k for k in cache if isinstance(k, tuple) and k[0] == "topics"]:
        if key[1] not in keep:
            del cache[key]
    _evict_rankings(cache, need)
    oc = P.O._cache
    if oc:
        for key in [k for k in oc if k not in need]:
            del oc[key]


def _evict_rankings(cache: dict, need: set) -> None:
    """Drop the rankings of ``cache`` (and of its per-topic-subset caches) whose ordering is
    not in ``need``; values, and which topics each ordering changes, stay."""
    for key in list(cache):
        if isinstance(key, str):
            if key in REGIMES or key == "upper_mono":
                if key not in need:
                    del cache[key]
            elif key == "judged_only":
                _evict_rankings(cache[key], need)
        elif key[0] == "topics":
            _evict_rankings(cache[key], need)
        elif len(key) == 3 and key[0] not in need:  # (order, sparse, depth)
            del cache[key]


def _sample_moments(P: Prepared, ms: list[Measure], S: int, seed: int):
    """Mean and standard error over ``S`` seeded random within-group orderings of each
    measure's per-topic values, in batches so memory stays proportional to the run."""
    T = len(P.topic_ids)
    n = max(len(P.J.qtopic), 1)
    batch = max(1, min(S, 2_000_000 // n))
    tot = [np.zeros(T) for _ in ms]
    sq = [np.zeros(T) for _ in ms]
    gens = topic_generators(P, seed)  # per topic: values do not depend on the other topics
    done = 0
    while done < S:
        b = min(batch, S - done)
        Rs = sampled_ranking(P, b, gens)
        for i, m in enumerate(ms):
            v = np.asarray(m.family.kernel(Rs, m), np.float64).reshape(b, T)
            # sample after sample (a cumulative sum along the samples adds in that order), so
            # the sums do not depend on the batch size, which depends on the run's size
            tot[i] = np.cumsum(np.vstack([tot[i][None], v]), axis=0)[-1]
            sq[i] = np.cumsum(np.vstack([sq[i][None], v * v]), axis=0)[-1]
        done += b
    out = []
    for t, q in zip(tot, sq):
        mean = t / S
        var = np.maximum(q / S - mean * mean, 0.0) * (S / (S - 1)) if S > 1 else np.zeros(T)
        out.append((mean, np.sqrt(var / S)))
    return out


def summarize(m: Measure, values: np.ndarray, order: np.ndarray | None = None, *,
              n: int | None = None, qrels: Qrels | None = None,
              complete: bool = False) -> float:
    """The summary over topics of one measure's per-topic ``values`` (T,), as trec_eval
    computes it: topics added in ``order`` (trec_eval's byte order of qids) one by one, then
    divided by ``n`` (default T). ``sum`` for counts, ``gmean`` the geometric mean with a
    1e-5 floor, and trec_eval's ``num_rel`` under ``-c`` (every qrels line with value > 0).
    A mean over zero topics is NaN."""
    v = np.asarray(values, np.float64)
    if order is not None:
        v = v[order]
    n = len(v) if n is None else n
    agg = m.agg
    if agg == "num_rel" and complete and qrels is not None:
        return float(np.count_nonzero(qrels.value > 0))
    if agg in ("sum", "num_rel"):
        return _in_order_sum(v) if len(v) else 0.0
    if n == 0:
        return float("nan")
    if agg == "gmean":
        x = np.log(np.maximum(v, MIN_GEO_MEAN))
        return math.exp(_in_order_sum(x) / n) if len(x) else float("nan")
    return _in_order_sum(v) / n if len(v) else 0.0


def _in_order_sum(v: np.ndarray) -> float:
    """The sum of a non-empty float64 array added one value after the other from the first,
    as ``np.cumsum(v)[-1]`` adds (a loop over a few hundred Python floats is faster than that
    numpy call; the additions are the same IEEE double additions)."""
    if len(v) > 256:
        return float(np.cumsum(v)[-1])
    x = v.tolist()
    s = x[0]
    for y in x[1:]:
        s += y
    return s
