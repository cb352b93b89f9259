"""``tiebreak study precision-runs``: how precise must the scores of finished runs be? Yang,
Moffat & Turpin's question (2016, §4–5) asked of the number formats scores are stored in now.

Z. Yang, A. Moffat, A. Turpin. How precise does document scoring need to be? AIRS 2016,
LNCS 9994, pp. 279–291. G. Cabanac, G. Hubert, M. Boughanem, C. Chrisment. Tie-breaking bias:
effect of an uncontrolled parameter on information retrieval evaluation. CLEF 2010.

Protocol
--------
Every run of a set is rounded to each score format (:mod:`tiebreak.ranking.formats`) and
evaluated, as the full-precision run is, under the ``expected`` regime (the exact mean over the
orders of tied documents) and Cabanac et al.'s ``realistic`` / ``optimistic`` orders. Per run
and format:

* ties: the share of documents tied, by Yang et al.'s definition (a group of s equal scores
  counts s - 1) and Cabanac et al.'s (it counts s), before and after rounding
  (:func:`tiebreak.studies.ties.run_stats`);
* per measure: the change of the mean expected value (formatted − full precision), and the tie
  range, the mean optimistic minus the mean realistic value;
* Table 3 of Yang et al.: the systems whose formatted expected scores are significantly above
  99 % / 97 % of their full-precision ones (one-tailed paired t over topics,
  :func:`tiebreak.studies.study_bands.table3`).

Per format and measure, over the systems: Kendall's τ and τ_AP of the ranking by the mean
(expected) against full precision (:mod:`tiebreak.stats.correlation`), and the pairs of systems
whose order flips or whose two-sided paired t-test changes side of α.

The bridge to Yang et al.'s bands: a binary format with m mantissa bits has a relative step of
at most 2^-m, like a geometric band of ratio ρ ≈ 1 + 2^-m (m = -log2(ρ - 1)); the figure puts
the effect of banding at ρ on the same bits axis as the formats.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from ..ranking.formats import parse_format

__all__ = ["DEFAULT_FORMATS", "FormatStudy", "run_study", "tables", "figure", "rho_bits"]

DEFAULT_FORMATS = ("float32", "bits:16", "bits:12", "float16", "bits:8", "bfloat16", "bits:6",
                   "bits:5", "bits:4", "bits:3", "bits:2", "bits:1", "int8", "int8-global",
                   "decimals:4", "decimals:3", "decimals:2", "decimals:1")
DEFAULT_MEASURES = ("AP", "nDCG@10")
DEFAULT_RHOS = ("1.1", "1.2", "1.4", "1.7", "2.0")
REGIMES = ("expected", "realistic", "optimistic")
RATIOS = (0.99, 0.97)


def rho_bits(rho) -> float:
    """The mantissa bits m with 1 + 2^-m = ρ: -log2(ρ - 1) (inf for ρ = 1)."""
    r = float(rho) - 1.0
    return float("inf") if r <= 0 else -float(np.log2(r))


@dataclass
class FormatStudy:
    """Values of full-precision and formatted runs.

    ``full``: (n_sys, n_met, 3, n_top) values under :data:`REGIMES`; ``formatted``: (n_fmt,
    n_sys, n_met, 3, n_top); ``ties``: per format (full precision first, named ``float64``) a
    DataFrame of per-run tie shares; ``banded``: (n_rho, n_sys, n_met, n_top) expected values of
    the runs banded at each ρ (cut from trec_eval's order), or None; ``warnings``: per format,
    the format's warnings summed over runs."""

    systems: list[str]
    metrics: list[str]
    topics: list[str]
    formats: list[str]
    full: np.ndarray
    formatted: np.ndarray
    ties: dict
    rhos: list[str]
    banded: np.ndarray | None
    warnings: dict


def _evaluate(state, task):
    """One task: ("format", spec) evaluates every run rounded to spec; ("band", rho) every run
    banded at rho; returns the values (and, for formats, the tie shares and warnings)."""
    from ..evaluation import Evaluator
    from ..ranking.bands import band_run
    from ..ranking.formats import round_scores
    from .ties import run_stats

    runs, measures, qrels = state
    kind, spec = task
    if kind == "band":
        ev = Evaluator(qrels, measures, ["expected"])
        res = ev.evaluate([band_run(r, spec, order="trec_eval") for r in runs])
        return task, res.per_topic[:, :, 0, :], None, None
    ev = Evaluator(qrels, measures, list(REGIMES), score_precision=spec)
    res = ev.evaluate(runs)
    rows = []
    warn: dict[str, int] = {}
    fmt = parse_format(spec)
    for r in runs:
        s, w = round_scores(r.score, fmt, r.topic, len(r.topics))
        row, _ = run_stats(dataclasses.replace(r, score=s), ks=(10,))
        rows.append({"run": r.name, "docs": row["docs"], "tie_frac": row["tie_frac"],
                     "tie_frac_members": row["tie_frac_members"],
                     "topics_with_ties": row["topics_with_ties"]})
        for k, v in w.items():
            warn[k] = warn.get(k, 0) + v
    return task, res.per_topic, rows, warn


def run_study(qrels, runs, formats=DEFAULT_FORMATS, metrics=DEFAULT_MEASURES,
              rhos=DEFAULT_RHOS, jobs: int = 1, progress: bool = False) -> FormatStudy:
    """Evaluate every run at full precision, rounded to every format, and banded at every ρ.

    Parameters
    ----------
    qrels : Qrels
    runs : list of Run or paths
    formats : list of score-format specs (:mod:`tiebreak.ranking.formats`)
    metrics : list of measure names
    rhos : list of ρ (decimal strings, > 1) for the banding beside the formats; () for none
    jobs : int
        Worker processes (fork); 1 = in this process.
    progress : bool
        A progress bar on stderr.

    Raises
    ------
    ValueError
        A bad format, measure or ρ; fewer than two runs.
    """
    import pandas as pd

    from .._native.parallel import cpus, imap
    from ..io import Run, read_run
    from ..measures import parse_measure
    from ..ranking.bands import band_starts

    fmts = [str(parse_format(f, "--score-format")) for f in formats]
    fmts = ["float64"] + [f for f in fmts if f != "float64"]  # the reference row first
    for r in rhos:
        band_starts(r, 0)
    measures = [parse_measure(m) for m in metrics]
    objs = [r if isinstance(r, Run) else read_run(r) for r in runs]
    if len(objs) < 2:
        raise ValueError("the study needs at least two runs")
    tasks = [("format", f) for f in fmts] + [("band", r) for r in rhos]
    out = {}
    for task, vals, rows, warn in imap(_evaluate, tasks, jobs if jobs > 0 else cpus(),
                                       (objs, measures, qrels),
                                       progress="formats and bands" if progress else None):
        out[task] = (vals, rows, warn)
    full = out[("format", "float64")][0]
    ties = {f: pd.DataFrame(out[("format", f)][1]) for f in fmts}
    return FormatStudy([r.name for r in objs], [str(m) for m in measures],
                       list(qrels.topics), fmts, full,
                       np.stack([out[("format", f)][0] for f in fmts]) if fmts else
                       np.zeros((0, *full.shape)), ties, [str(r) for r in rhos],
                       np.stack([out[("band", r)][0] for r in rhos]) if rhos else None,
                       {f: out[("format", f)][2] for f in fmts})


def _pairs(a: np.ndarray, b: np.ndarray, alpha: float):
    """Pairs (i, j), i < j, whose order of means flips and whose two-sided paired t-test
    changes side of alpha, between per-topic values a and b (n_sys, n_top)."""
    from ..stats import all_pairs

    iu = np.triu_indices(a.shape[0], 1)
    ma, mb = a.mean(axis=1), b.mean(axis=1)
    da, db = (ma[:, None] - ma[None])[iu], (mb[:, None] - mb[None])[iu]
    flips = np.sign(da) != np.sign(db)
    pa, pb = all_pairs(a)[0][iu], all_pairs(b)[0][iu]
    sig = (pa < alpha) != (pb < alpha)
    return iu, flips, sig, pa, pb


def tables(study: FormatStudy, alpha: float = 0.05, ratios=RATIOS) -> dict:
    """The study's tables (pandas DataFrames):

    * ``formats``: per format and measure: bits m, ρ = 1 + 2^-m, tie shares (YMT, Cabanac;
      over every document of every run), mean and largest tie range over systems, mean and
      largest |change| of the expected mean, Kendall τ, τ_AP, flipped pairs, pairs whose
      significance changes, and Table 3's counts (``>=99%``, ``>=97%``);
    * ``runs``: per run, format and measure: tie shares, expected change, tie range;
    * ``pairs``: every pair of systems whose order or significance changes, per format and
      measure;
    * ``bands``: per ρ and measure: bits -log2(ρ - 1), mean change of the expected mean.
    """
    import pandas as pd

    from ..stats.correlation import kendall_tau, tau_ap
    from .study_bands import BandStudy, table3

    E, LO, HI = (REGIMES.index(x) for x in REGIMES)
    full = study.full
    t0 = study.ties["float64"]
    fmt_rows, run_rows, pair_rows = [], [], []
    t3 = table3(BandStudy(study.systems, study.metrics, study.topics, study.formats,
                          full[:, :, E], study.formatted[:, :, :, E], {}), ratios, alpha)
    for k, f in enumerate(study.formats):
        fm = parse_format(f)
        tf = study.ties[f]
        docs = tf["docs"].sum()
        share = float((tf["tie_frac"] * tf["docs"]).sum() / docs)
        share_c = float((tf["tie_frac_members"] * tf["docs"]).sum() / docs)
        for j, m in enumerate(study.metrics):
            a, b = full[:, j], study.formatted[k, :, j]
            ma, mb = a[:, E].mean(axis=1), b[:, E].mean(axis=1)
            change = mb - ma
            rng = b[:, HI].mean(axis=1) - b[:, LO].mean(axis=1)
            iu, flips, sig, pa, pb = _pairs(a[:, E], b[:, E], alpha)
            t3row = t3[(t3["metric"] == m) & (t3["rho"] == f)].iloc[0]
            fmt_rows.append({
                "format": f, "measure": m, "bits": fm.bits, "rho": fm.rho,
                "tied_ymt_%": 100 * share, "tied_cabanac_%": 100 * share_c,
                "range_mean": float(rng.mean()), "range_max": float(rng.max()),
                "change_mean": float(change.mean()),
                "change_max": float(np.abs(change).max()),
                "tau": kendall_tau(ma, mb), "tau_ap": tau_ap(ma, mb),
                "flipped_pairs": int(flips.sum()), "significance_changed": int(sig.sum()),
                **{c: int(t3row[c]) for c in t3.columns if c.startswith(">=")},
            })
            for i, s in enumerate(study.systems):
                run_rows.append({
                    "run": s, "format": f, "measure": m,
                    "tied_ymt_%": 100 * float(tf["tie_frac"].iloc[i]),
                    "tied_ymt_full_%": 100 * float(t0["tie_frac"].iloc[i]),
                    "tied_cabanac_%": 100 * float(tf["tie_frac_members"].iloc[i]),
                    "expected_full": float(ma[i]), "expected": float(mb[i]),
                    "change": float(change[i]), "tie_range": float(rng[i]),
                })
            for x in np.flatnonzero(flips | sig):
                i, i2 = iu[0][x], iu[1][x]
                pair_rows.append({
                    "format": f, "measure": m, "system_a": study.systems[i],
                    "system_b": study.systems[i2], "order_flips": bool(flips[x]),
                    "p_full": float(pa[x]), "p_formatted": float(pb[x]),
                    "significance_changes": bool(sig[x]),
                })
    band_rows = []
    if study.banded is not None:
        for k, r in enumerate(study.rhos):
            for j, m in enumerate(study.metrics):
                ch = study.banded[k, :, j].mean(axis=1) - full[:, j, E].mean(axis=1)
                band_rows.append({"rho": r, "measure": m, "bits": rho_bits(r),
                                  "change_mean": float(ch.mean()),
                                  "change_max": float(np.abs(ch).max())})
    pair_cols = ["format", "measure", "system_a", "system_b", "order_flips", "p_full",
                 "p_formatted", "significance_changes"]
    return {"formats": pd.DataFrame(fmt_rows), "runs": pd.DataFrame(run_rows),
            "pairs": pd.DataFrame(pair_rows, columns=pair_cols),
            "bands": pd.DataFrame(band_rows)}


def first_changes(fmt_table, measure: str) -> dict[str, tuple[str, str]]:
    """Where the ranking by ``measure`` first changes (Kendall τ < 1) and where a pair's
    significance first changes, going from the finest format to the coarsest, separately for
    the binary formats (by mantissa bits) and the linear grids (int8, decimals:D; by the bits of
    their step): ``{"binary": (format, format), "linear": (format, format)}``, "none" where
    no format of the group changes it."""
    t = fmt_table[fmt_table["measure"] == measure]
    lin = t["format"].str.startswith(("int8", "decimals"))
    out = {}
    for group, sel in (("binary", ~lin), ("linear", lin)):
        order = t[sel].sort_values("bits", ascending=False, kind="stable")
        tau = order[order["tau"] < 1 - 1e-12]  # tau-b of an unchanged ranking with ties: 1 - ulp
        sig = order[order["significance_changed"] > 0]
        out[group] = (tau["format"].iloc[0] if len(tau) else "none",
                      sig["format"].iloc[0] if len(sig) else "none")
    return out


def figure(study: FormatStudy, tabs: dict, measure: str, stem: str) -> list[str]:
    """The figure of one measure: mean change of the expected value (over systems, with the
    mean tie range as error bars) against bits of precision m; binary formats as dots, int8
    and decimals:D (linear grids) as squares, Yang et al.'s banding at ρ as crosses at
    m = -log2(ρ - 1). Writes ``<stem>.png`` and ``<stem>.svg``; returns their paths."""
    from . import pyplot

    plt = pyplot()
    ft, bt = tabs["formats"], tabs["bands"]
    fig, ax = plt.subplots(figsize=(5.6, 4.0))
    t = ft[ft["measure"] == measure]
    lin = t["format"].str.startswith(("int8", "decimals"))
    for sel, mk, lab in ((~lin, "o", "binary formats (bits:K, float)"),
                         (lin, "s", "linear grids (int8, decimals:D)")):
        s = t[sel]
        ax.errorbar(s["bits"], s["change_mean"], yerr=s["range_mean"] / 2, fmt=mk, ms=4,
                    capsize=2, lw=0.8, label=lab)
    if len(bt):
        b = bt[bt["measure"] == measure]
        ax.plot(b["bits"], b["change_mean"], "x", color="C3", ms=7,
                label="banding at rho (m = -log2(rho - 1))")
        for _, r in b.iterrows():
            ax.annotate(f"rho {r['rho']}", (r["bits"], r["change_mean"]), fontsize=6,
                        xytext=(3, -8), textcoords="offset points")
    for _, r in t.iterrows():
        if not r["format"].startswith("bits:"):
            ax.annotate(r["format"], (r["bits"], r["change_mean"]), fontsize=6,
                        xytext=(3, 4), textcoords="offset points")
    ax.axhline(0, color="grey", lw=0.6)
    ax.set_xscale("symlog", linthresh=1)
    ax.set_xlabel("bits of precision m (rho = 1 + 2^-m)")
    ax.set_ylabel(f"change of mean expected {measure}")
    ax.legend(fontsize=7)
    ax.set_title(f"{measure}: score formats against full precision ({len(study.systems)} "
                 f"systems, {len(study.topics)} topics; bars: mean tie range)", fontsize=8)
    fig.tight_layout()
    try:
        paths = [f"{stem}.png", f"{stem}.svg"]
        for p in paths:
            fig.savefig(p, dpi=150 if p.endswith(".png") else None, bbox_inches="tight")
        return paths
    finally:
        plt.close(fig)
