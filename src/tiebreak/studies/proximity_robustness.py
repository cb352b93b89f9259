"""Per-query robustness of the dependence features (Lu 2018, §3.2: Fig. 3.3, Fig. 3.4, Table
3.3): how many queries the ordered (``#1``) and the unordered (``#uw8``) window features hurt
against the bag-of-words model, by query length, the queries the ordered feature hurts and the
unordered one does not, and a test of the thesis's reading that "using proximity features
without an order constraint may be more robust".

Input: per-topic AP of the study's models (:data:`tiebreak.studies.study_proximity.MODELS`:
``BOW``, ``BOW+OW``, ``BOW+UW``, ``SDM``, ``FDM``) and each topic's query length (distinct
analysed in-vocabulary terms). As in the thesis, single-term queries are left out (they have
no proximity feature).

* Fig. 3.3 (:func:`robustness_rows`): per model, the topics in each bucket of the relative AP
  change ``100 (AP - AP_BOW) / AP_BOW``
  and the number with a loss of more than 25 % (the thesis's "25+% degradation"); the buckets
  are those of every per-topic change figure of the proximity study (:func:`delta_buckets`).
* Fig. 3.4 (:func:`by_length_rows`): per model and query length (2, 3, 4, 5+), the topics, the
  mean AP change against BOW and the losses of more than 25 %.
* Table 3.3 (:func:`ow_outliers`): the topics with the largest AP loss of BOW+OW that BOW+UW
  does not lose, with the change of every model.
* The test (:func:`order_test`): McNemar's exact test on the paired indicators "loses more than
  25 % under BOW+OW" / "under BOW+UW" (two-sided binomial test of the discordant topics).
"""

from __future__ import annotations

import numpy as np

__all__ = ["LOSS", "EDGES", "MODELS", "delta_buckets", "bucket_labels", "robustness_rows",
           "by_length_rows", "ow_outliers", "order_test",
           "relative_change"]

#: the thesis's threshold of a degradation, percent
LOSS = 25.0
#: bucket edges of the per-topic AP change in percent (Figs 3.3, 3.4, 4.7)
EDGES = (-100.0, -50.0, -10.0, 0.0, 10.0, 50.0, 100.0)
#: the compared models and their baseline
MODELS = ("BOW+OW", "BOW+UW", "SDM", "FDM")
BASE = "BOW"


def delta_buckets(ap, base) -> tuple[list[str], np.ndarray]:
    """(labels, counts) of the per-topic change ``100 (ap - base) / base`` in the buckets of
    :data:`EDGES`: ``<= -50``, ``(-50, -10]``, ``(-10, 0)``, ``= 0``, ``(0, 10)``, ``[10, 50)``,
    ``[50, 100)``, ``>= 100``, plus ``base=0`` (base 0, ap > 0). ``ap``, ``base``: float (n,)."""
    ap = np.asarray(ap, float)
    base = np.asarray(base, float)
    labels = ["<=-50", "(-50,-10]", "(-10,0)", "=0", "(0,10)", "[10,50)", "[50,100)", ">=100",
              "base=0"]
    counts = np.zeros(len(labels), int)
    for a, b in zip(ap, base):
        if b == 0:
            counts[3 if a == 0 else 8] += 1
            continue
        d = 100.0 * (a - b) / b
        if d == 0:
            counts[3] += 1
        elif d < 0:
            counts[0 if d <= -50 else 1 if d <= -10 else 2] += 1
        else:
            counts[4 if d < 10 else 5 if d < 50 else 6 if d < 100 else 7] += 1
    return labels, counts


def topic_folds(n: int, folds: int, seed: int = 0) -> np.ndarray:
    """Fold of each of ``n`` topics (int (n,)): a seeded random permutation dealt round-robin
    into ``folds`` folds (the folds :func:`cv_lambda` and
    :func:`tiebreak.studies.proximity_select.cv_select` use).
    Raises ValueError when ``n < folds`` or ``folds < 2``."""
    if folds < 2 or n < folds:
        raise ValueError(f"cross-validation needs 2 <= folds <= topics, got {folds} folds and "
                         f"{n} topics")
    rng = np.random.default_rng(seed)
    fold = np.empty(n, int)
    fold[rng.permutation(n)] = np.arange(n) % folds
    return fold


def relative_change(ap, base) -> np.ndarray:
    """``100 (ap - base) / base`` per topic; +inf where base is 0 and ap > 0, 0 where both are."""
    ap = np.asarray(ap, float)
    base = np.asarray(base, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        d = np.where(base > 0, 100.0 * (ap - base) / np.where(base > 0, base, 1.0),
                     np.where(ap > 0, np.inf, 0.0))
    return d


def _multi(lengths) -> np.ndarray:
    return np.asarray(lengths) >= 2


def robustness_rows(ap: dict, lengths) -> list:
    """Fig. 3.3 rows: ``[model, topics, *bucket counts, losses > 25 %]`` over the topics with
    at least two query terms; ``ap``: model name -> per-topic AP (n,)."""
    keep = _multi(lengths)
    rows = []
    for m in MODELS:
        _, counts = delta_buckets(ap[m][keep], ap[BASE][keep])
        loss = int((relative_change(ap[m][keep], ap[BASE][keep]) < -LOSS).sum())
        rows.append([m, int(keep.sum()), *counts.tolist(), loss])
    return rows


def bucket_labels() -> list[str]:
    """The labels of :func:`delta_buckets`."""
    return delta_buckets([0.0], [1.0])[0]


def by_length_rows(ap: dict, lengths) -> list:
    """Fig. 3.4 rows: ``[model, length, topics, mean AP change, losses > 25 %]`` for query
    lengths 2, 3, 4 and ``5+``."""
    lengths = np.asarray(lengths)
    rows = []
    for m in MODELS:
        for lab, sel in (("2", lengths == 2), ("3", lengths == 3), ("4", lengths == 4),
                         ("5+", lengths >= 5)):
            if not sel.any():
                continue
            d = ap[m][sel] - ap[BASE][sel]
            loss = int((relative_change(ap[m][sel], ap[BASE][sel]) < -LOSS).sum())
            rows.append([m, lab, int(sel.sum()), float(d.mean()), loss])
    return rows


def ow_outliers(ap: dict, lengths, topics, top: int = 3) -> list:
    """Table 3.3 rows: the ``top`` topics with the largest AP loss of BOW+OW against BOW whose
    BOW+UW AP is not below BOW's, ``[topic, length, AP_BOW, delta per model of MODELS]``, by
    decreasing loss."""
    keep = _multi(lengths)
    d = {m: ap[m] - ap[BASE] for m in MODELS}
    cand = np.flatnonzero(keep & (d["BOW+OW"] < 0) & (d["BOW+UW"] >= 0))
    order = cand[np.argsort(d["BOW+OW"][cand], kind="stable")][:top]
    return [[topics[i], int(lengths[i]), float(ap[BASE][i]), *(float(d[m][i]) for m in MODELS)]
            for i in order]


def order_test(ap: dict, lengths) -> dict:
    """McNemar's exact test of "BOW+OW loses more than 25 % on more topics than BOW+UW":
    ``{"ow_losses", "uw_losses", "ow_only", "uw_only", "p"}`` (``p`` two-sided, the binomial
    test of ``ow_only`` among the ``ow_only + uw_only`` discordant topics at 1/2; 1 when none)."""
    from scipy.stats import binomtest

    keep = _multi(lengths)
    lo = relative_change(ap["BOW+OW"][keep], ap[BASE][keep]) < -LOSS
    lu = relative_change(ap["BOW+UW"][keep], ap[BASE][keep]) < -LOSS
    b = int((lo & ~lu).sum())
    c = int((lu & ~lo).sum())
    p = float(binomtest(b, b + c, 0.5).pvalue) if b + c else 1.0
    return {"ow_losses": int(lo.sum()), "uw_losses": int(lu.sum()), "ow_only": b,
            "uw_only": c, "p": p}
