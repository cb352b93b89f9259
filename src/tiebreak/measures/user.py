"""Measures users define: :func:`define_measure` registers a per-topic function as a measure
family of the one registry, so that it gets every tie regime, the ``-m`` names of
``tiebreak eval``, the API and the compat layers like a built-in measure.

The function sees one topic at a time::

    per_topic_fn(gains, judged, qrels_gains, **params) -> float

``gains`` float64 (n,)
    The qrels value of the document at each rank 1..n (0 for an unjudged one, negative grades
    as 0), n = the documents retrieved, or the cutoff k when the measure is named ``NAME@k``
    and the run retrieved more.
``judged`` float64 (n,)
    1.0 where the document is judged, else 0.0.
``qrels_gains`` float64 (m,)
    The qrels values (>= 0) of every judged document of the topic, descending: what an ideal
    ranking is built from.

Regimes: ``file``, ``trec_eval``, ``realistic``, ``optimistic``, ``lower`` (realistic) and
``upper`` (optimistic) call the function on that ordering, so each is exact. ``expected`` is
the exact mean over the orderings of every tied group when the function is declared
``linear=True`` (a linear function of ``gains`` and ``judged`` for fixed qrels: its
expectation is the function of the per-rank means, McSherry & Najork, ECIR 2008), else the
mean over seeded random orderings (``Evaluator(samples=, seed=)``) whose largest standard
error is reported in the result's notes.

Example: precision at k weighted by grade (``gains.sum() / k``) is linear::

    import tiebreak
    tiebreak.define_measure("GP", lambda g, j, q: g.sum() / max(len(g), 1), linear=True)
    tiebreak.evaluate("qrels.txt", ["a.run"], ["GP@10"], ["trec_eval", "expected"])
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .registry import REGISTRY, Family, MeasureError, Param, family, register

__all__ = ["define_measure", "user_measures"]

_USER: dict[str, Family] = {}
_KINDS = {bool: "bool", int: "int", float: "float", str: "str"}


def _kernel(fn: Callable):
    def kernel(R, m) -> np.ndarray:
        gain = R.per_position(("user_gain",), lambda c, t: np.maximum(c, 0).astype(np.float64)
                              * (c >= 0))
        judged = R.per_position(("user_judged",), lambda c, t: (c >= 0).astype(np.float64))
        starts = np.searchsorted(R.topic, np.arange(R.n_topics + 1))
        levels = np.arange(R.rel_levels.shape[1], dtype=np.float64)
        kw = {k: v for k, v in m.values}
        out = np.empty(R.n_topics)
        for t in range(R.n_topics):
            a, b = starts[t], starts[t + 1]
            n = int(R.n_ret[t]) if m.cutoff is None else min(int(R.n_ret[t]), m.cutoff)
            g, j = np.zeros(n), np.zeros(n)
            r = R.rank[a:b] - 1
            keep = r < n
            g[r[keep]], j[r[keep]] = gain[a:b][keep], judged[a:b][keep]
            q = np.repeat(levels, R.rel_levels[t])[::-1]
            out[t] = float(fn(g, j, q, **kw))
        return out
    return kernel


def define_measure(name: str, per_topic_fn: Callable, *, linear: bool = False,
                   cutoff: str = "optional", params: dict | None = None, doc: str = "",
                   summary: str = "mean", replace: bool = False) -> Family:
    """Register ``per_topic_fn`` as the measure family ``name`` (see the module docstring
    for what the function receives).

    Parameters
    ----------
    name : str
        A new measure name (letters, digits, ``_``; not a registered name or alias).
    per_topic_fn : callable ``(gains, judged, qrels_gains, **params) -> float``
    linear : bool
        The function is linear in ``gains`` and ``judged`` for fixed qrels: ``expected`` is
        then exact, not sampled.
    cutoff : {"optional", "required", "none"}
        Whether ``NAME@k`` is allowed, needed or refused.
    params : dict, optional
        Parameters and their defaults (``{"p": 0.8}``: ``NAME(p=0.5)``), passed to the
        function by keyword; the type of each default is the parameter's type.
    doc, summary
        One-line definition; ``mean``, ``sum`` or ``gmean`` over topics. (The family's kind
        is ``other``: ``lower`` and ``upper`` are the realistic and optimistic orders.)
    replace : bool
        Replace a measure defined earlier by this function (not a built-in one).

    Returns
    -------
    Family
        The registered family (``tiebreak.measures.REGISTRY[name]``).

    Raises
    ------
    MeasureError
        A bad or taken name, an unknown ``cutoff``/``summary``, a parameter whose
        default is not a bool, int, float or str.
    TypeError
        ``per_topic_fn`` is not callable.
    """
    import re

    if not callable(per_topic_fn):
        raise TypeError(f"define_measure({name!r}): per_topic_fn must be callable, not "
                        f"{type(per_topic_fn).__name__}")
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", name):
        raise MeasureError(f"define_measure: name {name!r} must be letters, digits and _, "
                           "starting with a letter")
    if cutoff not in ("optional", "required", "none"):
        raise MeasureError(f"define_measure({name!r}): cutoff must be 'optional', "
                           f"'required' or 'none', not {cutoff!r}")
    if summary not in ("mean", "sum", "gmean"):
        raise MeasureError(f"define_measure({name!r}): summary must be mean, sum or gmean")
    ps = []
    for k, v in (params or {}).items():
        pk = _KINDS.get(type(v))
        if pk is None:
            raise MeasureError(f"define_measure({name!r}): parameter {k} needs a bool, int, "
                               f"float or str default, not {type(v).__name__}")
        ps.append(Param(k, pk, v, f"user parameter {k}"))
    old = family(name)
    if old is not None:
        if not (replace and _USER.get(old.name) is old):
            raise MeasureError(f"define_measure: {name!r} is already a measure "
                               f"({old.name}: {old.doc})")
        from . import registry
        del REGISTRY[old.name], registry._ALIASES[old.name.lower()]
    fam = register(Family(name, doc or f"user-defined measure {name}", "other",
                          _kernel(per_topic_fn), tuple(ps), cutoff,
                          "linear" if linear else "sampled", summary=summary,
                          source="user-defined (tiebreak.define_measure)"))
    _USER[name] = fam
    return fam


def user_measures() -> dict[str, Family]:
    """The families :func:`define_measure` registered, by name (the table of built-in
    measures, ``tiebreak measures``, leaves them out)."""
    return dict(_USER)
