"""Which comparisons between systems the tied scores decide (``tiebreak swaps``).

For every pair of systems ``(a, b)`` and every measure, the difference of their means
``delta = mean(a) - mean(b)`` is taken under each point regime (``trec_eval``: score, then docno
descending; ``file``: the order of the lines; ``expected``: the exact mean over the orders of
every tied group, McSherry & Najork 2008) and as the range the ties allow,
``[mean(a_realistic) - mean(b_optimistic), mean(a_optimistic) - mean(b_realistic)]`` (Cabanac,
Hubert, Boughanem & Chrisment, "Tie-breaking bias: effect of an uncontrolled parameter on
information retrieval evaluation", CLEF 2010: relevant documents last / first inside each tied
group; each topic's extremes are reached independently, so the bounds of the mean are
attained). A pair

* **swaps** when the sign of ``delta`` (+, 0, -) is not the same in every point regime;
* **is decided by ties** when its range holds differences of both signs (``low < 0 < high``):
  some order of the tied documents reverses the pair;
* **changes significance** when the verdict of the chosen test and correction (+, -, or not
  significant, over the family of all pairs of the measure) is not the same in every point
  regime, or when a difference significant under ``trec_eval`` is not significant in the same
  direction at its worst case (the winner realistic, the loser optimistic; as
  :func:`tiebreak.stats.compare.compare` checks it).

Everything is vectorized over the pairs, so the 10,153 pairs of 143 runs take well under a
second per measure with the t-test. Differences are kept at full precision (a reversal of
``+0.00026`` to ``-0.00007`` vanishes in a 4-decimal table).

>>> from tiebreak.stats.swaps import swaps, NEEDED_REGIMES
>>> res = tb.Evaluator(qrels, ["AP"], NEEDED_REGIMES).evaluate(paths)
>>> print(swaps(res).format("table"))
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field

import numpy as np

from ..evaluation import EvalResult
from .compare import _cell, check_test_options  # a TSV cell; the test options' checks

__all__ = ["SwapResult", "swaps", "NEEDED_REGIMES", "POINT_REGIMES", "FORMATS", "TSV_COLUMNS"]

#: the regimes whose differences are compared point by point
POINT_REGIMES = ("trec_eval", "file", "expected")
#: the regimes an evaluation must hold for :func:`swaps`
NEEDED_REGIMES = (*POINT_REGIMES, "realistic", "optimistic")
FORMATS = ("table", "tsv", "json", "latex")
TSV_COLUMNS = (
    "measure", "system_a", "system_b", "delta_trec_eval", "delta_file", "delta_expected",
    "delta_low", "delta_high", "swap", "ties_decide", "p_trec_eval", "p_file", "p_expected",
    "p_worst", "sig_trec_eval", "sig_file", "sig_expected", "sig_worst", "sig_change",
)


@dataclass
class SwapResult:
    """Per measure and pair of systems, the differences and verdicts across tie regimes.

    ``measures`` (M,), ``systems`` (S,); ``ii``, ``jj`` int64 (P,) with ``P = S (S - 1) / 2``
    the pairs ``a = systems[ii]``, ``b = systems[jj]`` (``i < j``). ``delta``: regime ->
    float64 (M, P) for ``trec_eval``, ``file``, ``expected``, ``low``, ``high``. ``p``:
    regime -> float64 (M, P) corrected p-values for ``trec_eval``, ``file``, ``expected``,
    ``worst`` (for the studentized-range tests, ``tukey`` and ``tukey-oneway``, only for the
    listed pairs, NaN elsewhere: scipy integrates each value numerically; their verdicts
    compare the statistic with the critical value). ``sig``: regime -> int8 (M, P), +1 / -1
    when ``a`` is significantly above / below ``b``, 0 otherwise. ``swap``, ``ties_decide``,
    ``sig_change``: bool (M, P).
    """

    measures: list[str]
    systems: list[str]
    ii: np.ndarray
    jj: np.ndarray
    delta: dict[str, np.ndarray]
    p: dict[str, np.ndarray]
    sig: dict[str, np.ndarray]
    swap: np.ndarray
    ties_decide: np.ndarray
    sig_change: np.ndarray
    test: str = "t"
    correction: str = "holm"
    alpha: float = 0.05
    notes: list[str] = field(default_factory=list)

    # ------------------------------------------------------------------------ access
    def summary(self) -> list[dict]:
        """One dict per measure: ``measure``, ``pairs``, ``swap_file`` / ``swap_expected``
        (pairs whose sign under that regime differs from ``trec_eval``'s), ``swap`` (any point
        regime), ``ties_decide``, ``significant`` (under ``trec_eval``) and ``sig_change``."""
        out = []
        te = np.sign(self.delta["trec_eval"])
        for k, m in enumerate(self.measures):
            out.append({
                "measure": m, "pairs": int(self.ii.size),
                "swap_file": int((np.sign(self.delta["file"][k]) != te[k]).sum()),
                "swap_expected": int((np.sign(self.delta["expected"][k]) != te[k]).sum()),
                "swap": int(self.swap[k].sum()), "ties_decide": int(self.ties_decide[k].sum()),
                "significant": int((self.sig["trec_eval"][k] != 0).sum()),
                "sig_change": int(self.sig_change[k].sum())})
        return out

    def rows(self, everything: bool = False) -> list[dict]:
        """One dict per listed (measure, pair), keys :data:`TSV_COLUMNS`: the pairs that swap,
        that the ties decide or whose significance changes (all pairs with ``everything``),
        by measure, then by ``|delta_trec_eval|`` ascending."""
        out = []
        for k, m in enumerate(self.measures):
            keep = np.arange(self.ii.size) if everything else np.flatnonzero(
                self.swap[k] | self.ties_decide[k] | self.sig_change[k])
            keep = keep[np.argsort(np.abs(self.delta["trec_eval"][k, keep]), kind="stable")]
            for q in keep:
                r = {"measure": m, "system_a": self.systems[self.ii[q]],
                     "system_b": self.systems[self.jj[q]]}
                for g in ("trec_eval", "file", "expected", "low", "high"):
                    r[f"delta_{g}"] = float(self.delta[g][k, q])
                r["swap"], r["ties_decide"] = bool(self.swap[k, q]), bool(self.ties_decide[k, q])
                for g in ("trec_eval", "file", "expected", "worst"):
                    r[f"p_{g}"] = float(self.p[g][k, q])
                for g in ("trec_eval", "file", "expected", "worst"):
                    r[f"sig_{g}"] = "+-"[0 if self.sig[g][k, q] > 0 else 1] \
                        if self.sig[g][k, q] else ""
                r["sig_change"] = bool(self.sig_change[k, q])
                out.append(r)
        return out

    def legend(self) -> str:
        return (f"delta = mean(system_a) - mean(system_b) under trec_eval, file, expected; "
                "[low, high]: the range some order of the tied documents reaches (a realistic "
                "and b optimistic, and the reverse). swap: the sign differs between point "
                "regimes; ties decide: the range holds both signs; sig: +/- significant "
                f"({self.test} test, {self.correction} over all pairs of a measure, alpha "
                f"{self.alpha:g}); worst: the trec_eval winner realistic, the loser optimistic.")

    # ----------------------------------------------------------------------- writers
    def format(self, fmt: str = "table", everything: bool = False) -> str:
        """``table`` (summary, then the listed pairs with 6 significant digits), ``tsv``
        (header row, full precision), ``json`` (summary and rows, full precision) or
        ``latex`` (booktabs). Raises ValueError for another format."""
        rows = self.rows(everything)
        if fmt == "tsv":
            lines = ["\t".join(TSV_COLUMNS)]
            lines += ["\t".join(_cell(r[c]) for c in TSV_COLUMNS) for r in rows]
            return "\n".join(lines) + "\n"
        if fmt == "json":
            def clean(v):
                return None if isinstance(v, float) and not math.isfinite(v) else v
            doc = {"meta": {"test": self.test, "correction": self.correction,
                            "alpha": self.alpha, "systems": self.systems,
                            "measures": self.measures, "notes": self.notes},
                   "summary": self.summary(),
                   "pairs": [{k: clean(v) for k, v in r.items()} for r in rows]}
            return json.dumps(doc, indent=1) + "\n"
        if fmt == "table":
            return self._table(rows)
        if fmt == "latex":
            return self._latex(rows)
        raise ValueError(f"format must be one of {FORMATS}, got {fmt!r}")

    def _table(self, rows: list[dict]) -> str:
        from tabulate import tabulate

        sm = tabulate([list(s.values()) for s in self.summary()],
                      ["measure", "pairs", "swap vs file", "swap vs expected", "swap (any)",
                       "ties decide", "significant", "sig changes"], tablefmt="simple",
                      disable_numparse=True)
        head = ["measure", "system a", "system b", "trec_eval", "file", "expected", "low",
                "high", "swap", "ties", "sig te/file/exp/worst"]
        body = [[r["measure"], r["system_a"], r["system_b"]]
                + [f"{r[f'delta_{g}']:+.6g}" for g in ("trec_eval", "file", "expected", "low",
                                                         "high")]
                + ["yes" if r["swap"] else "", "yes" if r["ties_decide"] else "",
                   "/".join(r[f"sig_{g}"] or "." for g in ("trec_eval", "file", "expected",
                                                           "worst"))]
                for r in rows]
        out = sm + "\n\n"
        if body:
            out += tabulate(body, head, tablefmt="simple", disable_numparse=True) + "\n\n"
        return out + self.legend() + "\n"

    def _latex(self, rows: list[dict]) -> str:
        from .compare import _tex

        out = [r"\begin{table}", r"\centering", r"\begin{tabular}{lllrrrrrc}", r"\toprule",
               r"Measure & System A & System B & trec\_eval & file & expected & low & high & "
               r"swap \\", r"\midrule"]
        for r in rows:
            cells = [_tex(r["measure"]), _tex(r["system_a"]), _tex(r["system_b"])]
            cells += [f"{r[f'delta_{g}']:+.6g}" for g in ("trec_eval", "file", "expected",
                                                           "low", "high")]
            cells.append(r"\checkmark" if r["swap"] else "")
            out.append(" & ".join(cells) + r" \\")
        out += [r"\bottomrule", r"\end{tabular}", rf"\caption{{{_tex(self.legend())}}}",
                r"\end{table}"]
        return "\n".join(out) + "\n"




def swaps(res: EvalResult, measures=None, *, test: str = "t", correction: str = "holm",
          alpha: float = 0.05, n: int = 10000, seed=0) -> SwapResult:
    """The pairs of systems whose order or significance the tie regimes change.

    Parameters
    ----------
    res : EvalResult
        Must hold :data:`NEEDED_REGIMES` and no NaN per-topic values (``average="qrels"``).
    measures : list of str, optional
        Subset of ``res.measures``; default all.
    test, correction, alpha, n, seed
        As :func:`tiebreak.stats.compare.compare` (a paired test with a correction over the
        ``S (S - 1) / 2`` pairs of a measure, or ``tukey``, ``tukey-oneway``,
        ``randomised-tukey``, which need none).

    Returns
    -------
    SwapResult

    Raises
    ------
    ValueError
        A missing regime or measure, fewer than 2 runs or topics, NaN values, an unknown test
        or correction.
    """
    from .. import stats
    from .significance import family_pvalues, tukey_q

    family = check_test_options(test, correction, alpha)
    missing = [g for g in NEEDED_REGIMES if g not in res.regimes]
    if missing:
        raise ValueError(f"the evaluation lacks regime(s) {', '.join(missing)}; evaluate with "
                         f"regimes={list(NEEDED_REGIMES)}")
    if len(res.runs) < 2 or len(res.topics) < 2:
        raise ValueError("swaps needs at least 2 runs and 2 topics")
    ms = list(res.measures) if measures is None else list(measures)
    for m in ms:
        if m not in res.measures:
            raise ValueError(f"measure {m!r} was not evaluated; have {', '.join(res.measures)}")
    per = res.per_topic[:, [res.measures.index(m) for m in ms]]  # (S, M, R, T)
    if np.isnan(per).any():
        raise ValueError("per-topic values contain NaN (evaluate with average='qrels' so that "
                         "every qrels topic counts)")
    g = {r: res.regimes.index(r) for r in NEEDED_REGIMES}
    ii, jj = np.triu_indices(len(res.runs), 1)
    M, P = len(ms), ii.size
    delta = {r: np.empty((M, P)) for r in (*POINT_REGIMES, "low", "high")}
    pv = {r: np.full((M, P), np.nan) for r in (*POINT_REGIMES, "worst")}
    hit = {r: np.zeros((M, P), bool) for r in pv}  # significant (either direction)
    later = []  # studentized-range p-values, computed only for the listed pairs
    means = per.mean(axis=3)  # (S, M, R)
    for k in range(M):
        mk = means[:, k]
        for r in POINT_REGIMES:
            delta[r][k] = mk[ii, g[r]] - mk[jj, g[r]]
        delta["low"][k] = mk[ii, g["realistic"]] - mk[jj, g["optimistic"]]
        delta["high"][k] = mk[ii, g["optimistic"]] - mk[jj, g["realistic"]]
        # worst case for the trec_eval winner: it realistic, the loser optimistic
        up = delta["trec_eval"][k] >= 0
        real, opt = per[:, k, g["realistic"]], per[:, k, g["optimistic"]]
        for r in (*POINT_REGIMES, "worst"):
            X = per[:, k, g["trec_eval" if r == "worst" else r]]
            if test in ("tukey", "tukey-oneway"):
                from scipy import stats as st

                d = np.where(up, delta["low"][k], delta["high"][k]) if r == "worst" \
                    else delta[r][k]
                q, df = tukey_q(X, d, test)
                hit[r][k] = q > st.studentized_range.isf(alpha, X.shape[0], df)
                later.append((r, k, X, d))
                continue
            if family:
                d = np.where(up, delta["low"][k], delta["high"][k]) if r == "worst" else None
                pv[r][k] = family_pvalues(X, ii, jj, test, n=n, seed=seed, diffs=d)
            else:
                dr = (np.where(up[:, None], real[ii] - opt[jj], opt[ii] - real[jj])
                      if r == "worst" else X[ii] - X[jj])
                pv[r][k] = stats.adjust(stats.paired_pvalues_rows(dr, test, n=n, seed=seed),
                                        correction)
            hit[r][k] = pv[r][k] < alpha
    sig = {r: np.where(hit[r], np.sign(delta[r]), 0).astype(np.int8) for r in POINT_REGIMES}
    worst_d = np.where(delta["trec_eval"] >= 0, delta["low"], delta["high"])
    sig["worst"] = np.where(hit["worst"], np.sign(worst_d), 0).astype(np.int8)
    sgn = np.stack([np.sign(delta[r]) for r in POINT_REGIMES])
    swap = (sgn != sgn[0]).any(axis=0)
    ties_decide = (delta["low"] < 0) & (delta["high"] > 0)
    vs = np.stack([sig[r] for r in POINT_REGIMES])
    sig_change = (vs != vs[0]).any(axis=0) | ((sig["trec_eval"] != 0)
                                              & (sig["worst"] != sig["trec_eval"]))
    listed = swap | ties_decide | sig_change
    for r, k, X, d in later:
        q = np.flatnonzero(listed[k])
        if q.size:
            pv[r][k, q] = family_pvalues(X, ii[q], jj[q], test, diffs=d[q])
    return SwapResult(ms, list(res.runs), ii, jj, delta, pv, sig, swap, ties_decide,
                      sig_change, test, "none" if family else correction, float(alpha))
