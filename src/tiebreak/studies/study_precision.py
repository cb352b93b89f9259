"""``tiebreak study precision``: how precise does document scoring need to be, in the engine?

Yang, Moffat & Turpin, "How Precise Does Document Scoring Need to Be?", AIRS 2016, Sections 4-5,
asked it of finished runs; this study asks it of the search engine. For every model (BM25, query
likelihood) the exact run (exhaustive, float64) is compared with

* ``bmw`` -- rank-safe block-max WAND (must score exactly as the exact run),
* ``rho=R`` -- band-safe top-k: every document in its exact geometric band, a band one tied
  group (:mod:`tiebreak.retrieval.bandsafe`),
* ``q=B`` -- impacts quantised to B bits (PISA's linear quantiser) with block-max WAND,
* ``q=8,rho=1.4`` -- both,

on throughput (queries/s over the topic set, one thread, best of ``--repeat``), postings scored,
and effectiveness under the YMT protocol: every run is evaluated in the ``expected`` tie regime
(the exact mean over all orderings inside its tied groups, so deliberate ties cost what they
cost on average), and a one-tailed paired t-test over topics asks whether the approximate run
scores above 99% and 97% of the exact run (H1: approx > ratio x exact, :func:`tiebreak.stats.
paired_t`); ``p <= alpha`` means "no loss beyond that ratio" is supported.

Outputs in ``--out``: ``precision.tsv`` (one row per collection, model, configuration and
measure), ``precision.png``/``.svg`` (mean effectiveness relative to exact against the share of
postings scored), and the runs (``runs/<collection>.<model>.<config>.run``).
"""

from __future__ import annotations

import io
import time
from pathlib import Path

import click
import numpy as np

__all__ = ["run_precision", "configurations"]

DEFAULT_MEASURES = ("AP", "nDCG@10", "P@10", "RR")
RATIOS = (0.99, 0.97)


def configurations(rhos, bits) -> list[tuple[str, dict]]:
    """(name, retrieve options) of every configuration, exact first."""
    cfg = [("exact", {}), ("bmw", {"algorithm": "bmw"})]
    cfg += [(f"rho={r}", {"rho": r}) for r in rhos]
    cfg += [(f"q={b}", {"quantize": int(b), "algorithm": "bmw"}) for b in bits]
    if "1.4" in rhos and 8 in [int(b) for b in bits]:
        cfg.append(("q=8,rho=1.4", {"quantize": 8, "rho": "1.4"}))
    return cfg


# BM25 as Lu (2018)'s BM25^(1) (RSJ idf), the setting of the documented tables
MODEL_PARAMS = {"bm25": {"idf": "rsj"}}


def _timed(idx, queries, k, model, opts, repeat):
    opts = {**MODEL_PARAMS.get(model, {}), **opts}
    from ..retrieval.traversal import retrieve_many

    stats = np.zeros(2, np.int64)
    res = retrieve_many(idx, queries, k, model, stats=stats, **opts)   # warm-up, counts
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        retrieve_many(idx, queries, k, model, **opts)
        best = min(best, time.perf_counter() - t)
    return res, len(queries) / best if best > 0 else float("inf"), int(stats[0])


def _run_bytes(idx, qids, results, tag) -> bytes:
    from ..retrieval.search import Result, format_run

    return format_run(idx, [Result(q, d, s) for q, (d, s) in zip(qids, results)], tag).encode()


def run_precision(idx, topics, qrels, name: str, models, rhos, bits, measures, k: int,
                  repeat: int, alpha: float, out: Path, progress: bool = False) -> list[dict]:
    """Rows of the study for one collection (see the module docstring)."""
    from ..evaluation import Evaluator
    from ..io import read_run
    from ..stats import paired_t

    analyze = idx.analyzer.analyze
    qids = [str(q) for q, _ in topics]
    queries = [analyze(t) for _, t in topics]
    ev = Evaluator(qrels, list(measures), ["expected"])
    rows = []
    (out / "runs").mkdir(parents=True, exist_ok=True)
    for model in models:
        base = None
        for cname, opts in configurations(rhos, bits):
            if progress:
                click.echo(f"  {name} {model} {cname}", err=True)
            res, qps, post = _timed(idx, queries, k, model, opts, repeat)
            data = _run_bytes(idx, qids, res, f"{model}.{cname}")
            (out / "runs" / f"{name}.{model}.{cname}.run").write_bytes(data)
            er = ev.evaluate([read_run(io.BytesIO(data), name=f"{model}.{cname}")])
            per = er.per_topic[0, :, 0, :]                       # (measures, topics)
            if base is None:
                base = (qps, post, per)
            for j, m in enumerate(er.measures):
                a, b = per[j], base[2][j]
                ok = ~(np.isnan(a) | np.isnan(b))
                row = {"collection": name, "model": model, "config": cname, "measure": m,
                       "qps": qps, "speedup": qps / base[0], "postings": post,
                       "postings_share": post / base[1] if base[1] else float("nan"),
                       "mean": float(np.nanmean(a)), "exact_mean": float(np.nanmean(b))}
                row["relative"] = row["mean"] / row["exact_mean"] if row["exact_mean"] else \
                    float("nan")
                for r in RATIOS:
                    if cname == "exact" or ok.sum() < 2:
                        p = float("nan")
                    else:
                        p = paired_t(a[ok], b[ok], alternative="greater", ratio=r).pvalue
                    row[f"p>{r:.0%}"] = p
                rows.append(row)
    return rows


def _plot(df, stem: Path) -> list[str]:
    from . import pyplot

    plt = pyplot()
    ms = list(dict.fromkeys(df["measure"]))
    fig, axes = plt.subplots(1, len(ms), figsize=(4.2 * len(ms), 3.6), squeeze=False)
    for ax, m in zip(axes[0], ms):
        d = df[(df["measure"] == m) & (df["config"] != "exact")]
        for (c, mod), g in d.groupby(["collection", "model"], sort=False):
            ax.plot(g["postings_share"], g["relative"], "o", ms=4, label=f"{c} {mod}")
            for _, r in g.iterrows():
                ax.annotate(r["config"], (r["postings_share"], r["relative"]), fontsize=5)
        for r in RATIOS:
            ax.axhline(r, ls=":", lw=0.8, color="grey")
        ax.set_xlabel("postings scored / exhaustive")
        ax.set_ylabel(f"{m} (expected) / exact")
        ax.set_title(m)
    axes[0][0].legend(fontsize=6)
    fig.tight_layout()
    files = []
    for ext in ("png", "svg"):
        f = f"{stem}.{ext}"
        fig.savefig(f, dpi=130)
        files.append(f)
    plt.close(fig)
    return files
