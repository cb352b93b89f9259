"""Compare systems with significance tests, and say which conclusions depend on tied scores.

A comparison takes the per-topic values of an :class:`~tiebreak.evaluation.EvalResult` (shape
``(n_runs, n_measures, n_regimes, n_topics)``) and, per measure, tests every system against a
baseline (or every pair of systems) on the values of one *primary* regime (``trec_eval`` by
default): mean, difference with a confidence interval, effect size, p-value before and after a
multiple-comparison correction, per-topic wins/ties/losses and a significance marker.

Tie robustness
--------------
Tied scores leave the order of some documents to an arbitrary rule, so a measured difference can
be an artefact of that rule (Cabanac, Hubert, Boughanem & Chrisment, "Tie-breaking bias: effect
of an uncontrolled parameter on information retrieval evaluation", CLEF 2010; Yang, Moffat &
Turpin, "How precise does document scoring need to be?", AIRS 2016). For every difference that
is significant in the primary regime, the same test (and the same correction over the same
family) is repeated

* at the **worst case for the claim**: the winning system scored in Cabanac et al.'s
  *realistic* order (relevant documents last inside each tied group) and the losing system in
  their *optimistic* order (relevant documents first), and
* under the **expected** value over all orderings of each tied group (McSherry & Najork 2008).

The difference is ``tie_robust = "yes"`` when it stays significant in the same direction in
both, ``"no"`` otherwise (``tie_note`` says which failed and whether the direction reversed);
differences that are not significant in the primary regime get ``""``.

Family of the correction: all comparisons of one measure (``n_systems - 1`` against a baseline,
``n (n - 1) / 2`` for all pairs).

>>> import tiebreak as tb
>>> from tiebreak.stats.compare import compare_runs
>>> c = compare_runs(tb.read_qrels("qrels"), ["a.run", "b.run"], ["AP"], baseline=0)
>>> print(c.format("table"))

Size: one module because the comparison object, its tables (text, TSV, JSON, LaTeX) and the tie-
dependence flags all read the same per-pair arrays.
"""

from __future__ import annotations

import json
import math
import os
import sys
from dataclasses import asdict, dataclass, field

import numpy as np

from ..evaluation import EvalResult, Evaluator

__all__ = ["Comparison", "CompareResult", "compare", "compare_runs", "needed_regimes",
           "FORMATS", "TSV_COLUMNS"]

FORMATS = ("table", "markdown", "latex", "tsv", "json")
TIE_REGIMES = ("expected", "realistic", "optimistic")
TSV_COLUMNS = (
    "system", "baseline", "measure", "regime", "mean", "baseline_mean", "delta", "ci_low",
    "ci_high", "effect_size", "p", "p_adjusted", "significant", "wins", "ties", "losses",
    "p_adjusted_worst", "p_adjusted_expected", "tie_robust", "tie_note", "marker",
    "effect_low", "effect_high",
)
# Per-topic values closer than this count as a tie in wins/ties/losses.
TIE_ATOL = 1e-12


@dataclass
class Comparison:
    """One system against one other on one measure (all values at the primary regime unless
    named otherwise).

    ``delta = mean - baseline_mean``; ``[ci_low, ci_high]`` its confidence interval;
    ``effect_size`` Cohen's d_z of the per-topic differences, ``[effect_low, effect_high]``
    its confidence interval (noncentral t, at the comparison's level); ``p`` the two-sided
    p-value and ``p_adjusted`` after the correction; ``wins/ties/losses`` count topics where
    ``system`` is above / equal to (within 1e-12) / below ``baseline``; ``p_adjusted_worst`` and
    ``p_adjusted_expected`` the corrected p-values of the tie-robustness checks (NaN when not
    significant); ``tie_robust`` ``"yes"``, ``"no"`` or ``""``; ``marker`` ``"+"`` / ``"-"``
    (significantly above / below), with ``"~"`` appended when not tie-robust.
    """

    system: str
    baseline: str
    measure: str
    regime: str
    mean: float
    baseline_mean: float
    delta: float
    ci_low: float
    ci_high: float
    effect_size: float
    p: float
    p_adjusted: float
    significant: bool
    wins: int
    ties: int
    losses: int
    p_adjusted_worst: float = math.nan
    p_adjusted_expected: float = math.nan
    tie_robust: str = ""
    tie_note: str = ""
    marker: str = ""
    effect_low: float = math.nan
    effect_high: float = math.nan


@dataclass
class CompareResult:
    """All comparisons, plus each system's mean and tie range per measure.

    ``systems`` (n_systems,) and ``measures`` (n_measures,) name the axes of ``means`` (float64,
    (n_systems, n_measures), primary regime) and of ``ranges``: regime name -> float64
    (n_systems, n_measures) for ``expected``, ``realistic`` and ``optimistic``.
    ``baseline`` is the baseline's name, or None in all-pairs mode. ``notes`` says when the
    settings cannot show any difference significant (too few resamples for the family).
    """

    systems: list[str]
    measures: list[str]
    regime: str
    test: str
    correction: str
    alpha: float
    level: float
    baseline: str | None
    comparisons: list[Comparison]
    means: np.ndarray
    ranges: dict[str, np.ndarray] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    # ------------------------------------------------------------------------------ access
    def to_pandas(self):
        """One row per comparison, columns :data:`TSV_COLUMNS`."""
        import pandas as pd

        return pd.DataFrame([asdict(c) for c in self.comparisons], columns=list(TSV_COLUMNS))

    def letters(self) -> dict[str, str]:
        """Letter of each system (a, b, ..., z, aa, ab, ...) used by all-pairs markers."""
        out = {}
        for i, s in enumerate(self.systems):
            k, name = i, ""
            while True:
                name = chr(ord("a") + k % 26) + name
                k = k // 26 - 1
                if k < 0:
                    break
            out[s] = name
        return out

    def markers(self) -> dict[tuple[str, str], str]:
        """(system, measure) -> marker text. Baseline mode: the comparison's marker. All-pairs:
        the letters of the systems this one is significantly better than, each followed by
        ``~`` when that difference is not tie-robust."""
        out: dict[tuple[str, str], str] = {}
        if self.baseline is not None:
            for c in self.comparisons:
                out[(c.system, c.measure)] = c.marker
            return out
        let = self.letters()
        for c in self.comparisons:
            if not c.significant:
                continue
            win, lose = (c.system, c.baseline) if c.delta > 0 else (c.baseline, c.system)
            tag = let[lose] + ("~" if c.tie_robust != "yes" else "")
            key = (win, c.measure)
            out[key] = (out.get(key, "") + " " + tag).strip()
        return out

    # ---------------------------------------------------------------------------- writers
    def format(self, fmt: str = "table") -> str:
        """The comparison as text: ``table`` (readable), ``markdown``, ``latex`` (booktabs),
        ``tsv`` (header row, full precision) or ``json``. Raises ValueError for another
        format."""
        if fmt == "tsv":
            return self._tsv()
        if fmt == "json":
            return self._json()
        if fmt == "latex":
            return self._latex()
        if fmt in ("table", "markdown"):
            return self._grid(fmt)
        raise ValueError(f"format must be one of {FORMATS}, got {fmt!r}")

    def legend(self) -> str:
        corr = {"none": "no correction", "holm": "Holm", "bh": "Benjamini-Hochberg",
                "bonferroni": "Bonferroni"}[self.correction]
        test = {"t": "paired t-test", "wilcoxon": "Wilcoxon signed-rank test",
                "randomization": "paired randomization test", "bootstrap": "paired bootstrap test",
                "sign": "sign test",
                "tukey": "Tukey's HSD over all systems, topics as blocks (two-way ANOVA "
                         "residual)",
                "tukey-oneway": "Tukey's HSD over all systems, one-way (topics unpaired)",
                "randomised-tukey": "randomised Tukey HSD over all systems (p >= 1/(B+1))"}
        if self.test in ("tukey", "tukey-oneway", "randomised-tukey"):
            corr = "family-wise over all pairs by the test itself, no further"
        against = (f"against baseline {self.baseline}" if self.baseline is not None
                   else "over all pairs of systems")
        mark = ("+/-: significantly above/below the baseline" if self.baseline is not None
                else "letters: systems this one is significantly better than")
        return (f"{test[self.test]} {against}, two-sided, {corr} correction per measure, "
                f"alpha {self.alpha:g}; values in the {self.regime} regime; CI {self.level:.0%}. "
                f"{mark}; ~: the difference does not hold when the winner is scored in the "
                "realistic and the loser in the optimistic order of their tied documents, or "
                "under the expected value over tie orders (tie_robust = no).")

    def _tsv(self) -> str:
        lines = ["\t".join(TSV_COLUMNS)]
        for c in self.comparisons:
            d = asdict(c)
            lines.append("\t".join(_cell(d[k]) for k in TSV_COLUMNS))
        return "\n".join(lines) + "\n"

    def _json(self) -> str:
        def clean(v):  # JSON has no NaN or infinity: null
            return None if isinstance(v, float) and not math.isfinite(v) else v

        doc = {
            "meta": {"regime": self.regime, "test": self.test, "correction": self.correction,
                     "alpha": self.alpha, "level": self.level, "baseline": self.baseline,
                     "systems": self.systems, "measures": self.measures, "notes": self.notes},
            "means": [{"system": s, "measure": m, "mean": float(self.means[i, j]),
                       **{g: float(r[i, j]) for g, r in self.ranges.items()}}
                      for i, s in enumerate(self.systems) for j, m in enumerate(self.measures)],
            "comparisons": [{k: clean(v) for k, v in asdict(c).items()}
                            for c in self.comparisons],
        }
        return json.dumps(doc, indent=1) + "\n"

    def _grid(self, fmt: str) -> str:
        from tabulate import tabulate

        pct = f"{self.level:.0%} CI"
        head = ["system", "mean", "delta", pct, "d_z", "p", "p_adj", "W/T/L", "sig",
                "tie-robust"]
        if self.baseline is None:
            head.insert(1, "vs")
        blocks = []
        for m in self.measures:
            rows = []
            j = self.measures.index(m)
            if self.baseline is not None:
                b = self.systems.index(self.baseline)
                rows.append([self.baseline + " (baseline)", _f(self.means[b, j])]
                            + [""] * (len(head) - 2))
            for c in self.comparisons:
                if c.measure != m:
                    continue
                row = [c.system, _f(c.mean), f"{c.delta:+.4f}",
                       f"[{c.ci_low:+.4f}, {c.ci_high:+.4f}]", f"{c.effect_size:+.2f}",
                       _p(c.p), _p(c.p_adjusted), f"{c.wins}/{c.ties}/{c.losses}",
                       c.marker, c.tie_robust + (f" ({c.tie_note})" if c.tie_note else "")]
                if self.baseline is None:
                    row.insert(1, c.baseline)
                rows.append(row)
            tf = "github" if fmt == "markdown" else "simple"
            title = f"### {m}" if fmt == "markdown" else f"{m}"
            blocks.append(title + "\n\n" + tabulate(rows, head, tablefmt=tf,
                                                    disable_numparse=True))
        return "\n\n".join(blocks) + "\n\n" + self.legend() + "\n"

    def _latex(self) -> str:
        """Systems x measures, means with markers as superscripts, best mean per measure in
        bold, booktabs rules (needs ``\\usepackage{booktabs}``)."""
        marks = self.markers()
        best = np.nanmax(self.means, axis=0) if len(self.systems) else []
        cols = "l" + "r" * len(self.measures)
        out = [r"\begin{table}", r"\centering", rf"\begin{{tabular}}{{{cols}}}", r"\toprule",
               "System & " + " & ".join(_tex(m) for m in self.measures) + r" \\", r"\midrule"]
        let = self.letters()
        for i, s in enumerate(self.systems):
            name = _tex(s)
            if self.baseline is None:
                name += f" ({let[s]})"
            elif s == self.baseline:
                name += " (baseline)"
            cells = []
            for j, m in enumerate(self.measures):
                v = f"{self.means[i, j]:.4f}"
                if self.means[i, j] == best[j]:
                    v = rf"\textbf{{{v}}}"
                mk = marks.get((s, m), "")
                if mk:
                    sup = mk.replace("~", r"\sim").replace(" ", r"\,")
                    v += rf"$^{{{sup}}}$"
                cells.append(v)
            out.append(name + " & " + " & ".join(cells) + r" \\")
        out += [r"\bottomrule", r"\end{tabular}", rf"\caption{{{_tex(self.legend())}}}",
                r"\end{table}"]
        return "\n".join(out) + "\n"


def check_test_options(test: str, correction: str, alpha: float) -> bool:
    """Check a significance test name (:data:`tiebreak.stats.ROW_TESTS` or a family test),
    a multiple-comparison ``correction`` (:data:`tiebreak.stats.ADJUSTMENTS`) and ``alpha``
    in (0, 1); returns whether the test is a family test. Raises ValueError naming the bad
    option."""
    from .. import stats
    from .significance import FAMILY_TESTS

    family = test in FAMILY_TESTS
    if test not in stats.ROW_TESTS and not family:
        raise ValueError(f"test must be one of {', '.join(stats.ROW_TESTS + FAMILY_TESTS)}, "
                         f"got {test!r}")
    if correction not in stats.ADJUSTMENTS:
        raise ValueError(f"correction must be one of {', '.join(stats.ADJUSTMENTS)}, "
                         f"got {correction!r}")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    return family


def _cell(v) -> str:
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return "" if math.isnan(v) else repr(v)
    return str(v)


def _f(v: float) -> str:
    return "-" if v != v else f"{v:.4f}"


def _p(v: float) -> str:
    if v != v:
        return "-"
    return "<0.0001" if v < 1e-4 else f"{v:.4f}"


_TEX = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
        "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def _tex(s: str) -> str:
    return "".join(_TEX.get(ch, ch) for ch in s)


# ---------------------------------------------------------------------------------- compute


def needed_regimes(regime: str = "trec_eval") -> list[str]:
    """Regimes an :class:`~tiebreak.evaluation.EvalResult` must hold for :func:`compare`."""
    return [regime] + [g for g in TIE_REGIMES if g != regime]


def _resolve(res: EvalResult, who, what: str) -> int:
    if isinstance(who, (int, np.integer)):
        if not 0 <= who < len(res.runs):
            raise ValueError(f"{what} index {who} out of range (0..{len(res.runs) - 1})")
        return int(who)
    if who in res.runs:
        return res.runs.index(who)
    raise ValueError(f"{what} {who!r} is not one of the runs: {', '.join(res.runs)}")


def compare(res: EvalResult, baseline=None, *, measures=None, test: str = "t",
            correction: str = "holm", alpha: float = 0.05, all_pairs: bool = False,
            regime: str = "trec_eval", level: float = 0.95, n: int = 10000,
            seed=0) -> CompareResult:
    """Compare the runs of an evaluation result.

    Parameters
    ----------
    res : EvalResult
        Must hold ``regime``, ``expected``, ``realistic`` and ``optimistic`` (see
        :func:`needed_regimes`) and no NaN per-topic values (evaluate with ``average="qrels"``).
    baseline : str or int, optional
        Run name or index; default the first run. Ignored with ``all_pairs``.
    measures : list of str, optional
        Subset of ``res.measures``; default all.
    test : {"t", "wilcoxon", "randomization", "bootstrap", "sign", "tukey", "tukey-oneway",
            "randomised-tukey"}
        Two-sided paired test over topics (:func:`tiebreak.stats.paired_pvalues_rows`), or a
        test of all systems at once (:func:`tiebreak.stats.significance.family_pvalues`):
        Tukey's HSD with topics as blocks (``tukey``), its one-way form (``tukey-oneway``, as
        statsmodels' ``pairwise_tukeyhsd`` and ranx) or the randomised Tukey HSD (Carterette
        2012). These control the error over all pairs of systems themselves: ``correction``
        is not applied, and the interval of ``delta`` is the test's simultaneous one
        (:func:`tiebreak.stats.significance.tukey_ci`; for ``randomised-tukey`` it excludes 0
        exactly when ``p < alpha`` when ``level = 1 - alpha``). Their tie-robustness checks
        test the worst-case difference against the primary
        regime's null distribution, and repeat the whole test on the expected values.
    correction : {"holm", "bh", "bonferroni", "none"}
        Multiple-comparison correction over the comparisons of each measure (paired tests).
    alpha : float
        Significance level in (0, 1); significant means ``p_adjusted < alpha``.
    all_pairs : bool
        Compare every pair of systems instead of each against the baseline.
    regime : str
        Primary regime of the reported values.
    level : float
        Confidence level of the interval of ``delta``: Student's t interval for ``test="t"``,
        a percentile bootstrap over topics otherwise.
    n, seed : int
        Resamples and seed of the randomization / bootstrap test and of the bootstrap interval.

    Returns
    -------
    CompareResult

    Raises
    ------
    ValueError
        A missing regime, an unknown run, test or correction, fewer than 2 runs or 2 topics, or
        NaN per-topic values.
    """
    from .. import stats
    from .significance import effect_size_ci_rows, family_pvalues, tukey_ci

    family = check_test_options(test, correction, alpha)
    missing = [g for g in needed_regimes(regime) if g not in res.regimes]
    if missing:
        raise ValueError(f"the evaluation lacks regime(s) {', '.join(missing)}; evaluate with "
                         f"regimes={needed_regimes(regime)}")
    if len(res.runs) < 2:
        raise ValueError("comparing needs at least 2 runs")
    if len(res.topics) < 2:
        raise ValueError("comparing needs at least 2 topics")
    ms = list(res.measures) if measures is None else list(measures)
    for m in ms:
        if m not in res.measures:
            raise ValueError(f"measure {m!r} was not evaluated; have {', '.join(res.measures)}")
    mi = [res.measures.index(m) for m in ms]
    per = res.per_topic[:, mi]
    if np.isnan(per).any():
        raise ValueError("per-topic values contain NaN (evaluate with average='qrels' so that "
                         "every qrels topic counts)")
    k0, ke, kr, ko = (res.regimes.index(g) for g in (regime, *TIE_REGIMES))
    nsys = len(res.runs)
    if all_pairs:
        ii, jj = np.triu_indices(nsys, 1)
        base_name = None
    else:
        b = _resolve(res, 0 if baseline is None else baseline, "baseline")
        jj = np.full(nsys - 1, b)
        ii = np.array([i for i in range(nsys) if i != b])
        base_name = res.runs[b]

    comps: list[Comparison] = []
    for j, m in enumerate(ms):
        prim = per[:, j, k0]  # (n_sys, n_topics)
        d = prim[ii] - prim[jj]
        if family:
            p = family_pvalues(prim, ii, jj, test, n=n, seed=seed)
            p_adj = p
            lo, hi = tukey_ci(prim, ii, jj, level, test, n=n, seed=seed,
                              alpha=alpha if abs(1 - level - alpha) < 1e-9 else None)
        else:
            p = stats.paired_pvalues_rows(d, test, n=n, seed=seed)
            p_adj = stats.adjust(p, correction)
            lo, hi = stats.paired_ci_rows(d, "t" if test == "t" else "bootstrap", level, n,
                                          seed)
        eff = stats.effect_size_rows(d)
        e_lo, e_hi = effect_size_ci_rows(d, level)
        delta = d.mean(axis=1)
        sig = p_adj < alpha
        # worst case for each claim: the winner realistic, the loser optimistic
        up = delta >= 0
        win = np.where(up, ii, jj)
        lose = np.where(up, jj, ii)
        sign = np.where(up, 1.0, -1.0)
        d_worst = (per[win, j, kr] - per[lose, j, ko]) * sign[:, None]  # in ii - jj direction
        d_exp = per[ii, j, ke] - per[jj, j, ke]
        if family:
            p_w = family_pvalues(prim, ii, jj, test, n=n, seed=seed,
                                 diffs=d_worst.mean(axis=1))
            p_e = family_pvalues(per[:, j, ke], ii, jj, test, n=n, seed=seed)
        else:
            p_w = stats.adjust(stats.paired_pvalues_rows(d_worst, test, n=n, seed=seed),
                               correction)
            p_e = stats.adjust(stats.paired_pvalues_rows(d_exp, test, n=n, seed=seed),
                               correction)
        mw, me = d_worst.mean(axis=1), d_exp.mean(axis=1)
        wins = (d > TIE_ATOL).sum(axis=1)
        losses = (d < -TIE_ATOL).sum(axis=1)
        for k in range(len(ii)):
            c = Comparison(
                res.runs[ii[k]], res.runs[jj[k]], m, regime, float(prim[ii[k]].mean()),
                float(prim[jj[k]].mean()), float(delta[k]), float(lo[k]), float(hi[k]),
                float(eff[k]), float(p[k]), float(p_adj[k]), bool(sig[k]), int(wins[k]),
                int(d.shape[1] - wins[k] - losses[k]), int(losses[k]))
            c.effect_low, c.effect_high = float(e_lo[k]), float(e_hi[k])
            if sig[k]:
                notes = []
                for label, mean_k, pk in (("worst tie order", mw[k], p_w[k]),
                                          ("expected", me[k], p_e[k])):
                    if np.sign(mean_k) != np.sign(delta[k]) and mean_k != 0:
                        notes.append(f"reverses at {label}")
                    elif not pk < alpha or mean_k == 0:
                        notes.append(f"not significant at {label}")
                c.p_adjusted_worst, c.p_adjusted_expected = float(p_w[k]), float(p_e[k])
                c.tie_robust = "no" if notes else "yes"
                c.tie_note = "; ".join(notes)
                c.marker = ("+" if delta[k] > 0 else "-") + ("~" if notes else "")
            comps.append(c)
    means = per[:, :, k0].mean(axis=2)
    ranges = {g: per[:, :, res.regimes.index(g)].mean(axis=2) for g in TIE_REGIMES}
    notes = [] if family else _resolution_notes(test, correction, alpha, n, len(ii),
                                                  per.shape[-1])
    return CompareResult(list(res.runs), ms, regime, test, "none" if family else correction,
                         float(alpha), float(level), base_name, comps, means, ranges, notes)


def _resolution_notes(test: str, correction: str, alpha: float, n: int, family: int,
                      n_topics: int) -> list[str]:
    """A randomization test's p-value is at least 1/(n+1) (2/2^T when exact), so Holm and
    Bonferroni over a large family may make every difference non-significant whatever the
    data; say so."""
    if test != "randomization" or correction not in ("holm", "bonferroni"):
        return []
    exact = n_topics < 63 and 2**n_topics <= n
    p_min = 2.0 / 2**n_topics if exact else 1.0 / (n + 1)
    if p_min * family < alpha:
        return []
    need = int(math.ceil(family / alpha))
    return [f"the randomization test's smallest p-value is {p_min:.2g}; {correction} over "
            f"{family} comparisons per measure raises it to at least {p_min * family:.2g}, not "
            f"below alpha {alpha:g}, so no difference can be significant: use --resamples "
            f">= {need} (or --correction bh)"]


def compare_runs(qrels, runs, measures=None, baseline=None, *, regime: str = "trec_eval",
                 jobs: int = 1, convention=None, score_precision: str = "float64",
                 **kw) -> CompareResult:
    """Evaluate ``runs`` (Run objects, paths, DataFrames or dicts) against ``qrels`` in the
    regimes a comparison needs, then :func:`compare` them; ``kw`` goes to :func:`compare`.
    To keep the per-topic values too, call :class:`~tiebreak.evaluation.Evaluator` with
    :func:`needed_regimes` and then :func:`compare`. ``convention``: read the measure names
    as a peer spells them (:mod:`tiebreak.measures.conventions`); ``score_precision``: round
    the scores to a score format first (:mod:`tiebreak.ranking.formats`)."""
    ev = Evaluator(qrels, measures, needed_regimes(regime), convention=convention,
                   score_precision=score_precision)
    res = ev.evaluate(runs, jobs=jobs)
    return compare(res, baseline, regime=regime, **kw)


# --------------------------------------------------------------------------------------- CLI


def _match_baseline(baseline: str, paths: list[str]) -> int | None:
    """Index of ``baseline`` among the run paths (same file), else None."""
    for i, p in enumerate(paths):
        if p == baseline:
            return i
        try:
            if p != "-" and os.path.exists(baseline) and os.path.samefile(p, baseline):
                return i
        except OSError:
            continue
    return None


def evaluate_for_compare(qrels_spec, runs, measures, regime, baseline, jobs, name_by="tag",
                         convention=None, quiet=False, regimes=None,
                         score_precision="float64"):
    """Shared by ``compare``, ``swaps`` and ``report``: read the qrels, evaluate the runs (and
    the baseline file when it is not among them) in the regimes a comparison needs
    (``regime``: the primary regime, or a list of them, one comparison each), or in
    ``regimes`` when given. Returns ``(qrels, EvalResult, baseline index or None)``. A progress
    bar on a terminal unless ``quiet``. ``score_precision``: round the scores to a score format
    first (:mod:`tiebreak.ranking.formats`)."""
    import click

    from ..io.discover import find_runs
    from ..io.inputs import as_qrels

    paths, skipped = find_runs(runs)
    for p, why in skipped:
        click.echo(f"tiebreak: note: skipped {p}: not a run ({why})", err=True)
    bidx = None
    if baseline is not None:
        bidx = _match_baseline(baseline, paths)
        if bidx is None and os.path.isfile(baseline):
            paths = [baseline] + paths
            bidx = 0
    # the Evaluator reads a qrels path itself: with a diversity measure it keeps the subtopic
    # column (as 'tiebreak eval' does)
    ev = Evaluator(qrels_spec if isinstance(qrels_spec, str) else as_qrels(qrels_spec),
                   list(measures) or ["AP", "nDCG@10"],
                   list(regimes) if regimes else
                   list(dict.fromkeys(g for r in ([regime] if isinstance(regime, str) else regime)
                                      for g in needed_regimes(r))),
                   convention=convention if measures else None,
                   score_precision=score_precision)
    q = ev.qrels
    if jobs <= 0:
        from .._native.parallel import cpus

        jobs = cpus()
    kw = dict(jobs=jobs if len(paths) >= 4 else 1, name_by=name_by)
    if len(paths) > 3 and sys.stderr.isatty() and not quiet:
        from tqdm import tqdm

        with tqdm(total=len(paths), desc="evaluating runs", file=sys.stderr, leave=False) as bar:
            res = ev.evaluate(paths, progress=lambda r: bar.update(1), **kw)
    else:
        res = ev.evaluate(paths, **kw)
    from ..io.runs import WARN_EMPTY

    empty = [r for r in res.runs if WARN_EMPTY in res.warnings.get(r, {})]
    if empty:
        from ..io import InputError

        raise InputError(f"run {', '.join(empty)} retrieved nothing (an empty file, or blank and "
                         "comment lines only): a comparison would score it 0 on every topic; "
                         "leave it out or check the file")
    if baseline is not None and bidx is None:
        if baseline not in res.runs:
            raise ValueError(f"--baseline {baseline!r} is neither one of the run files nor a "
                             f"run name ({', '.join(res.runs)})")
        bidx = res.runs.index(baseline)
    return q, res, bidx


def input_warnings(q, res, verbose: bool = True) -> list[str]:
    """One line per run with warnings (``verbose``; else, with more than 3 runs, one line per
    kind of warning, :func:`tiebreak.evaluation.output.summarise_warnings`), after one for the
    qrels when
    it has any."""
    from ..evaluation.output import summarise_warnings

    out = summarise_warnings(res, verbose)
    if q.warnings:
        out.insert(0, f"qrels {q.name}: " + "; ".join(f"{k}: {v}" for k, v in q.warnings.items()))
    return out

