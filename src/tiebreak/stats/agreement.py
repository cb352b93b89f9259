"""Agreement between two sets of judgments of the same topics: Cohen's kappa (binary, and
weighted over grades), Krippendorff's alpha, Jaccard of the relevant sets, the confusion matrix
of grades and the overlap of the judged sets.

References: J. Cohen, "A coefficient of agreement for nominal scales", Educational and
Psychological Measurement 20(1), 1960, and "Weighted kappa", Psychological Bulletin 70(4), 1968;
K. Krippendorff, "Content Analysis: An Introduction to Its Methodology", 4th ed., 2019, ch. 12
(the coincidence-matrix form of alpha with the nominal, ordinal and interval metrics).

Conventions. Two judgments are compared on the documents both qrels judge (a value >= 0; a
negative value means "pooled but not judged" and counts as unjudged). Documents judged by one
side only are counted apart (``a_only``, ``b_only``, and how many of them that side calls
relevant); they enter the Jaccard of the relevant sets (a relevant document is relevant whether
or not the other side saw it) but not kappa or alpha (for alpha this is what a missing value
means: a unit with one value is not pairable). A document is relevant when its value is at
least ``level`` (default 1). Kappa's categories are the sorted union of the grades both sides
use; weighted kappa weighs a disagreement by the distance between category positions (linear:
|i - j|, quadratic: (i - j)^2), as scikit-learn's ``cohen_kappa_score`` does.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..io import Qrels

__all__ = ["cohen_kappa", "krippendorff_alpha", "Agreement", "agreement", "aligned"]


def _confusion(a: np.ndarray, b: np.ndarray, cats: np.ndarray) -> np.ndarray:
    """Counts (len(cats), len(cats)): row = a's category, column = b's."""
    ia, ib = np.searchsorted(cats, a), np.searchsorted(cats, b)
    k = len(cats)
    return np.bincount(ia * k + ib, minlength=k * k).reshape(k, k).astype(np.float64)


def cohen_kappa(a, b, weights: str | None = None) -> float:
    """Cohen's kappa of two raters' labels of the same items.

    ``kappa = 1 - sum(w * O) / sum(w * E)`` with O the observed confusion proportions, E the
    product of the two marginals, and w = 1 off the diagonal (unweighted), |i - j| (``linear``)
    or (i - j)^2 (``quadratic``) for category positions i, j in the sorted union of labels.
    ``a``, ``b``: 1-D integer arrays of equal length (n_items,). Returns a float in [-1, 1]; NaN
    when there are no items or chance agreement is already perfect (one category). Raises
    ValueError on unequal lengths or an unknown ``weights``.
    """
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"two label arrays of one length are needed, got {a.shape}, {b.shape}")
    if weights not in (None, "linear", "quadratic"):
        raise ValueError(f"weights must be None, 'linear' or 'quadratic', not {weights!r}")
    if a.size == 0:
        return math.nan
    cats = np.union1d(a, b)
    o = _confusion(a, b, cats)
    e = np.outer(o.sum(1), o.sum(0)) / o.sum()
    i, j = np.indices(o.shape)
    w = {None: (i != j).astype(float), "linear": np.abs(i - j).astype(float),
         "quadratic": ((i - j) ** 2).astype(float)}[weights]
    den = float(np.sum(w * e))
    return 1.0 - float(np.sum(w * o)) / den if den > 0 else math.nan


def krippendorff_alpha(a, b, level: str = "ordinal") -> float:
    """Krippendorff's alpha of two coders with a value each for every unit (n_units,).

    From the coincidence matrix o = C + C^T (C the confusion counts of the values present),
    n_c its marginals and n = 2 n_units: ``alpha = 1 - (n - 1) sum o_ck d_ck / sum n_c n_k d_ck``
    with the difference d nominal (1 when c != k), interval ((c - k)^2) or ordinal
    ((sum_{g between c and k} n_g - (n_c + n_k) / 2)^2). NaN when fewer than two units or one
    value only. Raises ValueError on unequal lengths or an unknown ``level``.
    """
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"two value arrays of one length are needed, got {a.shape}, {b.shape}")
    if level not in ("nominal", "ordinal", "interval"):
        raise ValueError(f"level must be nominal, ordinal or interval, not {level!r}")
    if a.size < 2:
        return math.nan
    cats = np.union1d(a, b)
    if len(cats) < 2:
        return math.nan
    c = _confusion(a, b, cats)
    o = c + c.T
    nc = o.sum(1)
    n = nc.sum()
    i, j = np.indices(o.shape)
    if level == "nominal":
        d = (i != j).astype(float)
    elif level == "interval":
        v = cats.astype(float)
        d = (v[i] - v[j]) ** 2
    else:
        cum = np.r_[0.0, np.cumsum(nc)]
        lo, hi = np.minimum(i, j), np.maximum(i, j)
        d = (cum[hi + 1] - cum[lo] - (nc[i] + nc[j]) / 2.0) ** 2
    de = float(np.sum(np.outer(nc, nc) * d))
    return 1.0 - (n - 1) * float(np.sum(o * d)) / de if de > 0 else math.nan


def aligned(qa: Qrels, qb: Qrels):
    """The two judgments side by side: a pandas DataFrame with columns qid, docno, a, b (the
    values; NaN where a side did not judge the document, negative values included as NaN),
    sorted by qid (natural order of ``qa`` then ``qb``) and docno; only topics of both qrels."""
    import pandas as pd

    def frame(q: Qrels, col: str):
        keep = q.value >= 0
        return pd.DataFrame({"qid": np.asarray(q.topics, dtype=object)[q.topic[keep]],
                             "docno": q.docnos[q.docid[keep]].astype(str),
                             col: q.value[keep]})

    topics = [t for t in qa.topics if t in set(qb.topics)]
    df = frame(qa, "a").merge(frame(qb, "b"), on=["qid", "docno"], how="outer")
    df = df[df["qid"].isin(topics)]
    order = {t: i for i, t in enumerate(topics)}
    df = df.assign(_t=df["qid"].map(order)).sort_values(["_t", "docno"]).drop(columns="_t")
    return df.reset_index(drop=True), topics


@dataclass
class Agreement:
    """What :func:`agreement` finds. ``rows``: one dict per topic and a last one with qid
    ``all`` (pooled over topics): qid, judged_a, judged_b, both, a_only, b_only, a_only_rel,
    b_only_rel, judged_jaccard, rel_a, rel_b, rel_jaccard, kappa, kappa_linear,
    alpha_ordinal, alpha_nominal. ``confusion``: (grades, counts) over the documents both judge,
    counts[i, j] = documents graded grades[i] by A and grades[j] by B. ``topics_a_only``,
    ``topics_b_only``: topics in one qrels only (left out)."""

    rows: list[dict] = field(default_factory=list)
    grades: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    confusion: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    topics_a_only: list[str] = field(default_factory=list)
    topics_b_only: list[str] = field(default_factory=list)


def _row(qid, a: np.ndarray, b: np.ndarray, level: int) -> dict:
    ja, jb = ~np.isnan(a), ~np.isnan(b)
    both = ja & jb
    ra, rb = ja & (np.nan_to_num(a, nan=-1) >= level), jb & (np.nan_to_num(b, nan=-1) >= level)
    x, y = a[both].astype(np.int64), b[both].astype(np.int64)
    union_rel = int(np.sum(ra | rb))
    union_j = int(np.sum(ja | jb))
    return {
        "qid": qid, "judged_a": int(ja.sum()), "judged_b": int(jb.sum()), "both": int(both.sum()),
        "a_only": int(np.sum(ja & ~jb)), "b_only": int(np.sum(jb & ~ja)),
        "a_only_rel": int(np.sum(ra & ~jb)), "b_only_rel": int(np.sum(rb & ~ja)),
        "judged_jaccard": int(both.sum()) / union_j if union_j else math.nan,
        "rel_a": int(ra.sum()), "rel_b": int(rb.sum()),
        "rel_jaccard": int(np.sum(ra & rb)) / union_rel if union_rel else math.nan,
        "kappa": cohen_kappa(x >= level, y >= level),
        "kappa_linear": cohen_kappa(x, y, "linear"),
        "alpha_ordinal": krippendorff_alpha(x, y, "ordinal"),
        "alpha_nominal": krippendorff_alpha((x >= level).astype(np.int64),
                                            (y >= level).astype(np.int64), "nominal"),
    }


def agreement(qa: Qrels, qb: Qrels, level: int = 1) -> Agreement:
    """Agreement of qrels ``qa`` and ``qb`` per topic and pooled (see the module docstring);
    ``level``: the smallest relevant value. Returns :class:`Agreement`."""
    df, topics = aligned(qa, qb)
    out = Agreement(topics_a_only=[t for t in qa.topics if t not in set(qb.topics)],
                    topics_b_only=[t for t in qb.topics if t not in set(qa.topics)])
    a = df["a"].to_numpy(dtype=np.float64)
    b = df["b"].to_numpy(dtype=np.float64)
    q = df["qid"].to_numpy()
    cut = np.flatnonzero(np.r_[True, q[1:] != q[:-1]]) if len(q) else np.zeros(0, np.int64)
    for s, e in zip(cut, np.r_[cut[1:], len(q)], strict=True):
        out.rows.append(_row(str(q[s]), a[s:e], b[s:e], level))
    out.rows.append(_row("all", a, b, level))
    both = ~np.isnan(a) & ~np.isnan(b)
    x, y = a[both].astype(np.int64), b[both].astype(np.int64)
    out.grades = np.union1d(x, y)
    out.confusion = _confusion(x, y, out.grades).astype(np.int64)
    return out
