"""Statistics: paired tests (:mod:`.significance`), corrections (:mod:`.corrections`), rank
correlation (:mod:`.correlation`), rank-biased overlap (:mod:`.overlap`) and the system comparison
of ``tiebreak compare`` (:mod:`.compare`).

The tie studies of the project (Cabanac et al. 2010, "Tie-breaker: a new perspective of ranking
and evaluation for information retrieval"; Yang, Moffat & Turpin 2016, "How precise does document
scoring need to be?") ask two kinds of question of per-topic scores:

* is one treatment of ties significantly different from (or at least ``ratio`` times as good as)
  another, over topics? -> :func:`paired_t`, :func:`wilcoxon`, :func:`randomization_test`,
  :func:`bootstrap_ci`, and for every pair of systems :func:`all_pairs`,
  :func:`discrimination_ratio`, :func:`holm`, :func:`benjamini_hochberg`;
* does the ordering of systems change? -> :func:`kendall_tau`, :func:`tau_ap`.

Conventions: per-topic scores are 1-D float arrays of shape ``(n_topics,)`` with the same topic
order in both arguments; a score matrix has shape ``(n_systems, n_topics)``; correlations take two
arrays of shape ``(n_systems,)``. Bad input (wrong shapes, too few values, NaN or infinity) raises
:class:`ValueError`. A p-value is significant at level alpha when ``p < alpha``.

scipy is imported inside the functions that need it, so ``import tiebreak`` stays fast.

>>> from tiebreak import stats
>>> r = stats.paired_t(banded, original, alternative="greater", ratio=0.99)
>>> r.pvalue < 0.05          # banded >= 0.99 * original, significantly
>>> p, pairs = stats.all_pairs(scores, test="t", correction="holm")
>>> stats.discrimination_ratio(p)
"""

from __future__ import annotations

from .corrections import ADJUSTMENTS, adjust, benjamini_hochberg, bonferroni, holm
from .correlation import (
    COEFFICIENTS,
    bootstrap_correlations,
    correlations,
    kendall_tau,
    spearman,
    tau_a,
    tau_ap,
)
from .overlap import RBO, rbo, rbo_at
from .significance import (
    ALTERNATIVES,
    CORRECTIONS,
    ROW_TESTS,
    TESTS,
    BootstrapCI,
    PairedTestResult,
    all_pairs,
    bootstrap_ci,
    bootstrap_test,
    discrimination_ratio,
    effect_size_rows,
    paired_ci_rows,
    paired_pvalues_rows,
    paired_t,
    paired_t_rows,
    randomization_test,
    wilcoxon,
)

__all__ = [
    "PairedTestResult", "BootstrapCI", "paired_t", "paired_t_rows", "wilcoxon",
    "randomization_test", "bootstrap_ci", "kendall_tau", "tau_ap", "discrimination_ratio", "holm",
    "benjamini_hochberg", "bonferroni", "adjust", "bootstrap_test", "paired_pvalues_rows",
    "paired_ci_rows", "effect_size_rows", "all_pairs", "ALTERNATIVES", "TESTS", "CORRECTIONS",
    "ROW_TESTS", "ADJUSTMENTS", "rbo", "RBO", "rbo_at", "tau_a", "spearman", "correlations",
    "bootstrap_correlations", "COEFFICIENTS",
]
