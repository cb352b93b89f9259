"""Measures: names as IR users type them, parameters, and dispatch to the kernels.

Names are accepted both ways:

* ir_measures style: ``AP``, ``AP@10``, ``AP(rel=2)``, ``nDCG@10``, ``nDCG(dcg='exp-log2')@10``,
  ``nDCG(gains={0:0,1:1,2:3})``, ``P@5``, ``R@100``, ``RR``, ``RR@10``, ``Rprec``,
  ``RBP(p=0.5)``, ``RBP(p=0.8,rel=2)@100``, ``ERR@20``, ``Success@10``, ``bpref``, ``Judged@10``;
  also ``RBP_resid(p=0.8)`` for the residual alone.
* trec_eval style: ``map``, ``map_cut_10``, ``P_5`` (or ``P.5``), ``recall_100``, ``ndcg``,
  ``ndcg_cut_10``, ``recip_rank``, ``Rprec``, ``bpref``, ``success_10``, ``rbp`` (p = 0.9),
  ``rbp_resid``.

Each measure belongs to one of three kinds, which decides its YMT bounds (spec §1.4):
``monotone`` (only grows when a gain grows, normaliser fixed: P, RR, Success, DCG-like RBP and
ERR), ``normalised`` (AP, nDCG, R, Rprec, bpref: unjudged stay non-relevant in both bounds), and
``judged``/``residual`` (Judged@k, RBP residual: ordered by judged-ness).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

import numpy as np

from ..io import Qrels
from ..ranking import Groups, Ranking
from . import kernels as K

__all__ = ["Measure", "parse_measure", "parse_measures", "DEFAULT_MEASURES", "QrelsStats"]

DEFAULT_MEASURES = ("AP", "nDCG@10", "P@10", "RR", "R@1000", "RBP(p=0.8)", "bpref")

_FAMILIES = {
    "ap": "AP", "map": "AP", "p": "P", "r": "R", "recall": "R", "rr": "RR", "mrr": "RR",
    "rprec": "Rprec", "ndcg": "nDCG", "rbp": "RBP", "rbp_resid": "RBP_resid", "err": "ERR",
    "success": "Success", "bpref": "bpref", "judged": "Judged",
}
_KIND = {
    "AP": "normalised", "P": "monotone", "R": "normalised", "RR": "monotone",
    "Rprec": "normalised", "nDCG": "normalised", "RBP": "monotone", "RBP_resid": "residual",
    "ERR": "monotone", "Success": "monotone", "bpref": "normalised", "Judged": "judged",
}
_NEEDS_CUTOFF = {"P", "Success", "Judged"}
_NO_CUTOFF = {"Rprec", "bpref"}
_PARAMS = {
    "AP": {"rel"}, "P": {"rel"}, "R": {"rel"}, "RR": {"rel"}, "Rprec": {"rel"},
    "nDCG": {"gains", "dcg"}, "RBP": {"p", "rel", "gains"}, "RBP_resid": {"p"},
    "ERR": set(), "Success": {"rel"}, "bpref": {"rel"}, "Judged": set(),
}
_TREC = [
    (re.compile(r"^map$"), "AP", None),
    (re.compile(r"^map_cut[_.](\d+)$"), "AP", 1),
    (re.compile(r"^P[_.](\d+)$"), "P", 1),
    (re.compile(r"^recall[_.](\d+)$"), "R", 1),
    (re.compile(r"^ndcg$"), "nDCG", None),
    (re.compile(r"^ndcg_cut[_.](\d+)$"), "nDCG", 1),
    (re.compile(r"^recip_rank$"), "RR", None),
    (re.compile(r"^success[_.](\d+)$"), "Success", 1),
    (re.compile(r"^rbp(?:\.p=([0-9.]+))?$"), "RBP", "p"),
    (re.compile(r"^rbp_resid(?:\.p=([0-9.]+))?$"), "RBP_resid", "p"),
]
_IRM = re.compile(r"^([A-Za-z_]+)\s*(?:\((.*)\))?\s*(?:@\s*(\d+))?$", re.S)


class MeasureError(ValueError):
    """An unknown measure name or a bad parameter."""


@dataclass(frozen=True)
class Measure:
    """One effectiveness measure with its parameters.

    Attributes
    ----------
    family : str
        ``AP``, ``P``, ``R``, ``RR``, ``Rprec``, ``nDCG``, ``RBP``, ``RBP_resid``, ``ERR``,
        ``Success``, ``bpref`` or ``Judged``.
    cutoff : int or None
        Evaluation depth k (RBP: depth d); None means the whole ranking.
    rel : int
        Relevance level: a judged document is relevant when its grade >= rel (trec_eval ``-l``).
    p : float or None
        RBP persistence.
    gains : tuple of (grade, gain) pairs or None
        Gain map for nDCG and RBP (RBP gains must lie in [0, 1]); a grade absent from the map
        has gain 0 (as in ir_measures' ``gains=``).
    dcg : str
        ``log2`` (linear gain, trec_eval) or ``exp-log2`` (gain 2^grade - 1).
    name : str
        Name shown in the output (as the user typed it).
    """

    family: str
    cutoff: int | None = None
    rel: int = 1
    p: float | None = None
    gains: tuple | None = None
    dcg: str = "log2"
    name: str = field(default="", compare=False)

    @property
    def kind(self) -> str:
        return _KIND[self.family]

    @property
    def canonical(self) -> str:
        """ir_measures-style name, e.g. ``AP(rel=2)@10``."""
        ps = []
        if self.p is not None:
            ps.append(f"p={self.p:g}")
        if self.rel != 1 and "rel" in _PARAMS[self.family]:
            ps.append(f"rel={self.rel}")
        if self.gains is not None:
            ps.append("gains={" + ",".join(f"{g}:{v:g}" for g, v in self.gains) + "}")
        if self.dcg != "log2":
            ps.append(f"dcg='{self.dcg}'")
        s = self.family + (f"({','.join(ps)})" if ps else "")
        return s + (f"@{self.cutoff}" if self.cutoff is not None else "")

    def __str__(self) -> str:
        return self.name or self.canonical

    def residual(self) -> Measure:
        """The RBP residual that goes with this RBP measure."""
        if self.family != "RBP":
            raise MeasureError("only RBP has a residual")
        n = self.name or ""
        if n.startswith("rbp"):
            name = "rbp_resid" + n[3:]
        else:
            name = ""
        m = Measure("RBP_resid", self.cutoff, 1, self.p, None, "log2", name)
        return m

    # ----------------------------------------------------------------- per-position gains
    def _gain_map(self, grade: np.ndarray) -> np.ndarray:
        keys = np.array([g for g, _ in self.gains], dtype=np.float64)
        vals = np.array([v for _, v in self.gains], dtype=np.float64)
        idx = np.searchsorted(keys, grade)
        idx[idx == len(keys)] = 0
        ok = keys[idx] == grade
        out = np.where(ok, vals[idx], 0.0)
        return out

    def gain(self, R: Ranking | Groups) -> np.ndarray:
        """Per-position gain of nDCG / RBP, float64 (n,)."""
        promoted = getattr(R, "promoted", None)
        if self.family == "nDCG":
            if self.gains is not None:
                g = self._gain_map(R.grade)
            elif self.dcg == "exp-log2":
                g = np.exp2(R.grade) - 1
            else:
                g = R.grade.copy()
            g[~R.judged] = 0.0
            return g
        # RBP
        if self.gains is not None:
            g = self._gain_map(R.grade)
            g[~R.judged] = 0.0
            if promoted is not None:
                g[promoted] = max(v for _, v in self.gains)
            return g
        return K._rel(R, self.rel).astype(np.float64)

    def rho(self, R: Ranking | Groups) -> np.ndarray:
        """ERR stopping probability (2^g - 1) / 2^gmax per position; gmax is the topic's
        largest grade (at least 1); unjudged documents get 0 (or gmax when promoted)."""
        gmax = np.maximum(R.gmax, 1.0)[R.topic]
        g = np.where(R.judged, R.grade, 0.0)
        promoted = getattr(R, "promoted", None)
        if promoted is not None:
            g = np.where(promoted, gmax, g)
        return (np.exp2(g) - 1) / np.exp2(gmax)

    # ----------------------------------------------------------------- evaluation
    def ordered(self, R: Ranking, st: QrelsStats) -> np.ndarray:
        """Per-topic values (n_topics,) for one fixed ranking of every topic."""
        f, k, L = self.family, self.cutoff, self.rel
        if f == "AP":
            return K.average_precision(R, k, L, st.nrel(L))
        if f == "P":
            return K.precision(R, k, L)
        if f == "R":
            return K.recall(R, k, L, st.nrel(L))
        if f == "RR":
            return K.reciprocal_rank(R, k, L)
        if f == "Rprec":
            return K.rprec(R, L, st.nrel(L))
        if f == "nDCG":
            return K._div(K.dcg(R, k, self.gain(R)), st.idcg(self))
        if f == "RBP":
            return K.rbp(R, self.p, k, self.gain(R))
        if f == "RBP_resid":
            return K.rbp_residual(R, self.p, k)
        if f == "ERR":
            return K.err(R, k, self.rho(R))
        if f == "Success":
            return K.success(R, k, L)
        if f == "bpref":
            return K.bpref(R, L, st.nrel(L), st.nnonrel(L))
        if f == "Judged":
            return K.judged_at(R, k)
        raise AssertionError(f)

    def expected(self, G: Groups, st: QrelsStats) -> np.ndarray:
        """Per-topic exact expectation (n_topics,) over all permutations inside tied groups."""
        f, k, L = self.family, self.cutoff, self.rel
        if f == "AP":
            return K.e_average_precision(G, k, L, st.nrel(L))
        if f == "P":
            return K.e_precision(G, k, L)
        if f == "R":
            return K.e_recall(G, k, L, st.nrel(L))
        if f == "RR":
            return K.e_reciprocal_rank(G, k, L)
        if f == "Rprec":
            return K.e_rprec(G, L, st.nrel(L))
        if f == "nDCG":
            return K._div(K.e_dcg(G, k, self.gain(G)), st.idcg(self))
        if f == "RBP":
            return K.e_rbp(G, self.p, k, self.gain(G))
        if f == "RBP_resid":
            return K.e_rbp_residual(G, self.p, k)
        if f == "ERR":
            return K.e_err(G, k, self.rho(G))
        if f == "Success":
            return K.e_success(G, k, L)
        if f == "bpref":
            return K.e_bpref(G, L, st.nrel(L), st.nnonrel(L))
        if f == "Judged":
            return K.e_judged_at(G, k)
        raise AssertionError(f)


class QrelsStats:
    """Per-topic qrels quantities that measures need, computed once and cached.

    All arrays have shape (n_topics,) in the order of ``qrels.topics``.
    """

    def __init__(self, qrels: Qrels):
        self.qrels = qrels
        self._c: dict = {}
        self.gmax = qrels.max_grade()

    def nrel(self, level: int) -> np.ndarray:
        """R: relevant documents (grade >= level) in the qrels, retrieved or not."""
        key = ("R", level)
        if key not in self._c:
            self._c[key] = self.qrels.num_rel(level)
        return self._c[key]

    def nnonrel(self, level: int) -> np.ndarray:
        """N: judged non-relevant documents (0 <= grade < level)."""
        key = ("N", level)
        if key not in self._c:
            self._c[key] = self.qrels.num_nonrel(level)
        return self._c[key]

    def idcg(self, m: Measure) -> np.ndarray:
        """Ideal DCG@k from every judged grade of the topic, retrieved or not (trec_eval)."""
        key = ("IDCG", m.cutoff, m.gains, m.dcg)
        if key not in self._c:
            q = self.qrels
            sel = q.value >= 0
            t = q.topic[sel]
            grade = q.value[sel].astype(np.float64)
            if m.gains is not None:
                g = m._gain_map(grade)
            elif m.dcg == "exp-log2":
                g = np.exp2(grade) - 1
            else:
                g = grade
            o = np.lexsort((-g, t))
            t, g = t[o], g[o]
            starts = np.searchsorted(t, np.arange(len(q.topics)))
            rank = np.arange(len(t)) - starts[t] + 1
            w = (rank <= m.cutoff) if m.cutoff is not None else np.ones(len(t), bool)
            w &= g > 0
            self._c[key] = np.bincount(
                t[w], weights=g[w] * K.discount(rank[w]), minlength=len(q.topics)
            )
        return self._c[key]


# --------------------------------------------------------------------------------------------
# parsing
# --------------------------------------------------------------------------------------------


def _literal(node, text):
    try:
        return ast.literal_eval(node)
    except ValueError:
        raise MeasureError(f"{text}: parameter values must be literals") from None


def parse_measure(text: str) -> Measure:
    """Parse one measure name (ir_measures or trec_eval style).

    Raises
    ------
    MeasureError
        Unknown name, unknown or ill-typed parameter, or a missing/forbidden cutoff.
    """
    s = text.strip()
    for rx, fam, arg in _TREC:
        mt = rx.match(s)
        if mt:
            if fam in ("RBP", "RBP_resid"):
                p = float(mt.group(1)) if mt.group(1) else 0.9
                return _check(Measure(fam, None, 1, p, name=s), s)
            cutoff = int(mt.group(1)) if arg else None
            return _check(Measure(fam, cutoff, name=s), s)
    mt = _IRM.match(s)
    if not mt or mt.group(1).lower() not in _FAMILIES:
        raise MeasureError(
            f"unknown measure {text!r}; try e.g. AP, nDCG@10, P@10, RR, R@1000, RBP(p=0.8), "
            "bpref, ERR@20, Success@10, Judged@10, or trec_eval names map, P_10, ndcg_cut_10"
        )
    fam = _FAMILIES[mt.group(1).lower()]
    kw: dict = {}
    if mt.group(2) is not None and mt.group(2).strip():
        try:
            call = ast.parse(f"f({mt.group(2)})", mode="eval").body
        except SyntaxError:
            raise MeasureError(f"{text}: cannot parse parameters {mt.group(2)!r}") from None
        if call.args:
            raise MeasureError(f"{text}: parameters must be named, e.g. RBP(p=0.8)")
        kw = {a.arg: _literal(a.value, text) for a in call.keywords}
    cutoff = int(mt.group(3)) if mt.group(3) else kw.pop("cutoff", None)
    bad = set(kw) - _PARAMS[fam]
    if bad:
        allowed = ", ".join(sorted(_PARAMS[fam])) or "none"
        raise MeasureError(f"{text}: unknown parameter(s) {sorted(bad)}; {fam} takes: {allowed}")
    gains = kw.get("gains")
    if gains is not None:
        if not isinstance(gains, dict) or not gains:
            raise MeasureError(f"{text}: gains must be a dict like {{0:0,1:1,2:3}}")
        try:
            gains = tuple(sorted((int(g), float(v)) for g, v in gains.items()))
        except (TypeError, ValueError):
            raise MeasureError(f"{text}: gains must map integer grades to numbers") from None
    p = kw.get("p")
    if fam in ("RBP", "RBP_resid"):
        p = 0.8 if p is None else p
        if not isinstance(p, (int, float)) or not 0 < p < 1:
            raise MeasureError(f"{text}: p must be a number in (0, 1)")
        p = float(p)
    rel = kw.get("rel", 1)
    if not isinstance(rel, int):
        raise MeasureError(f"{text}: rel must be an integer relevance level")
    dcg = kw.get("dcg", "log2")
    if dcg not in ("log2", "exp-log2"):
        raise MeasureError(f"{text}: dcg must be 'log2' or 'exp-log2'")
    return _check(Measure(fam, cutoff, rel, p, gains, dcg, name=s), s)


def _check(m: Measure, text: str) -> Measure:
    if m.cutoff is not None and (not isinstance(m.cutoff, int) or m.cutoff < 1):
        raise MeasureError(f"{text}: the cutoff must be a positive integer")
    if m.family in _NEEDS_CUTOFF and m.cutoff is None:
        raise MeasureError(f"{text}: {m.family} needs a cutoff, e.g. {m.family}@10")
    if m.family in _NO_CUTOFF and m.cutoff is not None:
        raise MeasureError(f"{text}: {m.family} takes no cutoff")
    if m.family == "RBP" and m.gains is not None:
        if any(not 0 <= v <= 1 for _, v in m.gains):
            raise MeasureError(f"{text}: RBP gains must lie in [0, 1]")
    return m


def parse_measures(names, with_residuals: bool = True) -> list[Measure]:
    """Parse names, drop repeats, and add each RBP's residual right after it."""
    out: list[Measure] = []
    seen = set()
    for n in names:
        m = parse_measure(n)
        todo = [m]
        if with_residuals and m.family == "RBP":
            todo.append(m.residual())
        for x in todo:
            if x not in seen:
                seen.add(x)
                out.append(x)
    return out
