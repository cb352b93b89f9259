"""The compiled fast path of the evaluation: every regime of a run in one C call.

The measure families listed in :data:`tiebreak.measures.twins.TWINS` have a compiled twin in
``src/tiebreak/_native/_ext_eval.c`` (``tiebreak._native._ext.eval_core``): six (AP, P, R, RR,
nDCG with trec_eval's gains, bpref) under every regime, the others under the deterministic
orderings. For one prepared run it orders every topic's tied groups as each deterministic regime
asks (``trec_eval``, ``realistic``/``lower``, ``optimistic``/``upper``, ``upper_mono``) and
computes the values of the requested measures under every requested regime, the ``expected`` one
by the same closed and linear forms as the kernels of :mod:`tiebreak.measures.kernels`, with the
same floating-point operations in the same order: the values are bit-identical to the kernels'
(tested on generated rankings with ties, ``tests/test_eval_fastpath.py``). The kernels stay the
definitions; this is their fast path, taken only where it applies (the C extension is built and
not turned off by ``TIEBREAK_NO_EXT``; no ``-M``, no ``-J``, no ``judged_only``; trec_eval's
gains for nDCG) and otherwise left to the general path of
:func:`tiebreak.evaluation.compute.measure_values`, which finds the values computed here
memoised under its own keys.

One declaration drives both sides: the table :data:`~tiebreak.measures.twins.TWINS` (per twin:
the kernel, the C family name, the expected form it implements, its float parameters in slot
order) gives this module each measure's spec and float parameters
(:func:`tiebreak.measures.twins.pack`), and generates the C header ``_native/_ev_specs.h`` of
family codes, orderings and parameter slots that ``_ext_eval.c`` reads. A new measure gets a C
twin with its numpy kernel (the definition, registered as usual), one row in that table, the
header regenerated (``python -m tiebreak.measures.twins --header``), one ``case`` in the C code
(``ev_det``, and ``ev_expected`` for a twin of the expected regime) reading its parameters as
``fp[EV_FP_<FAMILY>_<PARAMETER>]``, and the measure added to the bit-identity test.
"""

from __future__ import annotations

import numpy as np

from .._native import ext
from ..ranking import order_for
from .twins import ORDERINGS, TWINS, pack

#: The kernels with a compiled twin -> their row of :data:`tiebreak.measures.twins.TWINS`.
_TWINS = {t.kernel: t for t in TWINS}
#: Orderings of ``_ext_eval.c`` (``None``: the expected regime) -> code.
_ORDERS = {r: i for i, (r, _) in enumerate(ORDERINGS)}
#: Regimes the compiled path computes.
REGIMES = ("trec_eval", "expected", "realistic", "optimistic", "lower", "upper")

_LOG2: list = [np.zeros(0)]


def _spec(m):
    """((family code, cutoff or -1, rel), float parameters, whether the expected regime is
    compiled too) of a measure with a compiled twin (its family's registered ``expected`` form
    the one the twin implements, when it implements one), else None."""
    twin = _TWINS.get(m.family.kernel)
    if twin is None or (twin.expected is not None and m.family.expected != twin.expected):
        return None
    packed = pack(twin, m)
    return None if packed is None else (*packed, twin.expected is not None)


def _log2_table(n: int) -> np.ndarray:
    """log2(r + 1) for r = 0..n-1 at least, computed by numpy as the kernels compute it."""
    t = _LOG2[0]
    if len(t) < n:
        t = _LOG2[0] = np.log2(np.arange(max(n, 2 * len(t), 1024)) + 1.0)
    return t


def key(regime: str, m) -> tuple:
    """The key under which :func:`tiebreak.evaluation.compute.measure_values` memoises the values of
    measure ``m`` under ``regime``."""
    return ("expected" if regime == "expected" else order_for(regime, m.kind), m.family.name,
            m.cutoff, m.values)


def fill(P, measures, regimes, cache: dict) -> bool:
    """Compute in one compiled call the values of every measure of ``measures`` with a compiled
    twin under every regime of ``regimes`` the compiled path knows, and memoise them in
    ``cache["values"]`` under the keys of :func:`tiebreak.evaluation.compute.measure_values`
    (:func:`key`);
    also ``cache["unjudged_top"]``, the count of unjudged documents in the top
    :data:`tiebreak.measures.kernels.UNJUDGED_TOP_K` ranks under ``trec_eval``. Does nothing when
    the
    path does not apply (see the module docstring). Returns True when every measure under every
    regime is memoised (the compiled path did all the work)."""
    done = cache.get("fastpath_done")
    if done is not None and done[0] is measures and done[1].issuperset(regimes):
        return done[2]
    c = ext()
    if c is None or P.max_docs is not None or P.judged_only:
        return False
    plan = _plan(measures, regimes)
    if plan is None:
        return False
    regs, whole, specs, fps, ords, slots = plan
    memo = cache.setdefault("values", {})
    if not all(k in memo for k, _, _ in slots):
        ids = np.ascontiguousarray(P.topic_ids, np.int64)
        if len(ids) > 1 and len(np.unique(ids)) < len(ids):
            return False
        out = _compute(c, P, ids, specs, fps, ords, cache)
        for k, j, r in slots:
            memo.setdefault(k, out[j, r])
    cache["fastpath_done"] = (measures, set(regs), whole)
    return whole


_PLANS: dict = {}  # (ids of the measures, regimes) -> (the measures, kept alive; the plan)


def _plan(measures, regimes):
    """What :func:`fill` computes for these measures and regimes, built once per list of
    measure objects: (regimes, whether that is everything, family specs (M, 3), float
    parameters (M, EV_NFP), orderings (M, K), (memo key, row, column) of every value kept);
    None when no measure has a compiled twin."""
    k = (tuple(map(id, measures)), tuple(regimes))
    got = _PLANS.get(k)
    if got is not None:
        return got[1]
    regs = [r for r in dict.fromkeys(regimes) if r in REGIMES]
    whole = len(regs) == len(set(regimes))
    det = [r for r in regs if r != "expected"]
    specs, fps, ords, slots = [], [], [], []
    for m in measures:
        s = _spec(m)
        if s is None:
            whole = False
            continue
        rs = regs if s[2] else det
        whole &= len(rs) == len(regs)
        if not rs:
            continue
        j = len(specs)
        specs.append(s[0])
        fps.append(s[1])
        # a regime the measure lacks here repeats trec_eval's ordering (its value not kept)
        ords.append([_ORDERS[None if r == "expected" else order_for(r, m.kind)]
                     if r in rs else 0 for r in regs])
        slots += [(key(r, m), j, regs.index(r)) for r in rs]
    plan = None
    if specs:
        plan = (regs, whole, np.array(specs, np.int64), np.array(fps, np.float64),
                np.array(ords, np.int64), slots)
    if len(_PLANS) >= 64:
        _PLANS.clear()
    _PLANS[k] = (list(measures), plan)
    return plan


def _compute(c, P, ids, specs, fps, ords, cache) -> np.ndarray:
    """The values (M, K, T) of the planned measures on the prepared run ``P``."""
    from .kernels import UNJUDGED_TOP_K

    O, J = P.O, P.J
    so = O.score_order
    code = np.ascontiguousarray(J.relkey[so], np.int64)
    docrank = np.ascontiguousarray(J.docrank[so], np.int64)
    levels = np.ascontiguousarray(P.rel_levels, np.int64)
    T, L = len(ids), levels.shape[1] if levels.ndim == 2 else 0
    longest = max(int(O.n_ret.max(initial=0)), int(levels.sum(axis=1).max(initial=0)))
    out = np.empty((len(specs), ords.shape[1], T))
    cache["unjudged_top"] = c.eval_core(
        np.ascontiguousarray(O.starts, np.int64), np.ascontiguousarray(O.n_ret, np.int64), ids,
        code, docrank, np.ascontiguousarray(O.group, np.int64), levels, L,
        _log2_table(longest + 4), specs, fps, ords, out, UNJUDGED_TOP_K)
    return out
