"""One self-contained HTML page that reports a comparison of runs (``tiebreak report``).

The page holds, with nothing fetched at view time (figures are SVG embedded as ``data:`` URIs,
styles inline, no scripts):

* the comparison table of :mod:`tiebreak.stats.compare` per measure (every number also carried at
  full
  precision in a ``data-value`` attribute, equal to ``tiebreak compare --format tsv``);
* each system's **tie range** per measure: the mean in Cabanac et al.'s realistic and optimistic
  orders as a bar, with the trec_eval and expected values marked, systems sorted by the primary
  regime's mean, in the manner of Yang, Moffat & Turpin, "How precise does document scoring need to
  be?" (AIRS 2016), Fig. 2;
* per-topic differences against the baseline, topics sorted by the difference and labelled by
  their ids, each with a whisker from the worst to the best tie order (system realistic minus
  baseline optimistic, up to system optimistic minus baseline realistic): small inline SVG
  charts drawn by the template, one ``<details>`` section per measure, closed until opened;
* the tiebreak version, the date and the input files;
* the input warnings (qrels and runs).

matplotlib is imported only when a page is built.
"""

from __future__ import annotations

import base64
import io
import math

import numpy as np

from ..evaluation import EvalResult
from ..stats.compare import CompareResult

__all__ = ["build_report"]

_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:2em auto;max-width:72em;
color:#222;padding:0 1em}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;margin:.5em 0 1.5em;font-size:.9em}
th,td{padding:.25em .6em;text-align:right;border-bottom:1px solid #e4e4e4;white-space:nowrap}
td[data-col=tie_robust]{text-align:left;white-space:normal}
th{border-bottom:2px solid #888}td.name,th.name{text-align:left}
tr.baseline td{color:#666;font-style:italic}
td.sig-up{color:#0a6b2b;font-weight:600}td.sig-down{color:#a11;font-weight:600}
td.fragile{background:#fff4d6}
.legend,.meta{color:#555;font-size:.9em;max-width:60em}
.plots{display:flex;flex-wrap:wrap;gap:.5em 1.5em}figure{margin:.5em 0}
figure img{max-width:100%;height:auto}
ul.warnings li{font-family:ui-monospace,monospace;font-size:.85em}
details.per-topic{margin:.5em 0}details.per-topic summary{cursor:pointer;font-weight:600}
svg.topic-chart text{font-size:7px;fill:#333}svg.topic-chart text.t{font-size:10px}
svg.topic-chart text.a{text-anchor:end}svg.topic-chart .up{fill:#55a868}
svg.topic-chart .down{fill:#c44e52}svg.topic-chart .zero{fill:#999}
svg.topic-chart line.z{stroke:#444;stroke-width:.6}
svg.topic-chart line.w{stroke:#222;stroke-width:.8}
"""


def _num(v: float, digits: int = 4, signed: bool = False) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    if isinstance(v, float) and math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return f"{v:+.{digits}f}" if signed else f"{v:.{digits}f}"


def _cell(col: str, v, text: str | None = None, cls: str = "") -> dict:
    """A cell carrying the full-precision value in data-value (the TSV text)."""
    from ..stats.compare import _cell as tsv_text

    raw = tsv_text(v)
    return {"col": col, "data": [("value", raw)], "cls": cls,
            "text": text if text is not None else raw}


def _table(c: CompareResult, measure: str) -> dict:
    """The comparison table of one measure, as the template's cells."""
    head = ["system"] + (["vs"] if c.baseline is None else []) + [
        "mean", "delta", f"{c.level:.0%} CI", "d_z", "p", "p_adj", "W/T/L", "sig", "tie-robust"]
    base = None
    if c.baseline is not None:
        b = c.systems.index(c.baseline)
        j = c.measures.index(measure)
        base = {"name": c.baseline,
                "mean": {"col": "baseline_mean", "data": [("value", repr(c.means[b, j]))],
                         "cls": "", "text": _num(c.means[b, j])}}
    rows = []
    for x in c.comparisons:
        if x.measure != measure:
            continue
        sig_cls = ("sig-up" if x.delta > 0 else "sig-down") if x.significant else ""
        cells = [{"col": "system", "data": [("value", x.system)], "cls": "name",
                  "text": x.system}]
        if c.baseline is None:
            cells.append({"col": "baseline", "data": [("value", x.baseline)], "cls": "name",
                          "text": x.baseline})
        cells += [
            _cell("mean", x.mean, _num(x.mean)),
            _cell("delta", x.delta, _num(x.delta, signed=True)),
            {"col": "ci", "data": [("low", repr(x.ci_low)), ("high", repr(x.ci_high))],
             "cls": "",
             "text": f"[{_num(x.ci_low, signed=True)}, {_num(x.ci_high, signed=True)}]"},
            _cell("effect_size", x.effect_size, _num(x.effect_size, 2, signed=True)),
            _cell("p", x.p, _pfmt(x.p)),
            _cell("p_adjusted", x.p_adjusted, _pfmt(x.p_adjusted)),
            {"col": "wtl", "data": [("wins", x.wins), ("ties", x.ties), ("losses", x.losses)],
             "cls": "", "text": f"{x.wins}/{x.ties}/{x.losses}"},
            _cell("marker", x.marker, x.marker, sig_cls),
            _cell("tie_robust", x.tie_robust,
                  x.tie_robust + (f" ({x.tie_note})" if x.tie_note else ""),
                  "fragile" if x.tie_robust == "no" else ""),
        ]
        rows.append(cells)
    return {"measure": measure, "head": head, "baseline": base, "rows": rows}


def _pfmt(v: float) -> str:
    if v != v:
        return "-"
    return "<0.0001" if v < 1e-4 else f"{v:.4f}"


def _svg(fig) -> str:
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="svg", bbox_inches="tight")
    plt.close(fig)
    data = base64.b64encode(buf.getvalue()).decode("ascii")
    return f"data:image/svg+xml;base64,{data}"


def _pyplot():
    try:
        import matplotlib
    except ImportError:
        raise ImportError("the HTML report draws its figures with matplotlib: "
                          "pip install 'tiebreak[plot]'") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams["svg.hashsalt"] = "tiebreak"  # stable ids: the same input gives the same page
    plt.rcParams["svg.fonttype"] = "none"
    return plt


def _range_figure(c: CompareResult, measure: str) -> str:
    plt = _pyplot()
    j = c.measures.index(measure)
    order = np.argsort(-c.means[:, j], kind="stable")
    n = len(order)
    lo = c.ranges["realistic"][order, j]
    hi = c.ranges["optimistic"][order, j]
    fig, ax = plt.subplots(figsize=(max(4.0, 0.45 * n + 1.5), 3.2))
    x = np.arange(n)
    ax.vlines(x, lo, hi, color="#4c72b0", lw=6, alpha=0.45, label="realistic to optimistic")
    ax.plot(x, c.means[order, j], "_", ms=14, mew=2, color="#222", label=c.regime)
    ax.plot(x, c.ranges["expected"][order, j], "o", ms=4, color="#c44e52", label="expected")
    ax.set_xticks(x, [c.systems[i] for i in order], rotation=60, ha="right", fontsize=8)
    ax.set_ylabel(f"mean {measure}")
    ax.set_title(f"{measure}: tie range of each system", fontsize=10)
    ax.legend(fontsize=7, frameon=False)
    ax.grid(axis="y", alpha=0.3)
    return _svg(fig)


def _topic_chart(res: EvalResult, c: CompareResult, system: str, baseline: str,
                 measure: str) -> dict:
    """Per-topic differences ``system - baseline`` as the geometry of a small inline SVG bar
    chart (drawn by the template; no image data): topics sorted by the difference, a bar per
    topic labelled with its id and carrying a tooltip, a whisker from the worst to the best tie
    order (system realistic minus baseline optimistic, to system optimistic minus baseline
    realistic). Coordinates in pixels, rounded to 0.1."""
    i, b = res.runs.index(system), res.runs.index(baseline)
    j = res.measures.index(measure)
    k = {g: res.regimes.index(g) for g in ("realistic", "optimistic")}
    k0 = res.regimes.index(c.regime)
    d = res.per_topic[i, j, k0] - res.per_topic[b, j, k0]
    worst = res.per_topic[i, j, k["realistic"]] - res.per_topic[b, j, k["optimistic"]]
    best = res.per_topic[i, j, k["optimistic"]] - res.per_topic[b, j, k["realistic"]]
    ok = ~np.isnan(d)
    idx = np.flatnonzero(ok)
    idx = idx[np.argsort(-d[idx], kind="stable")]
    vals = np.r_[0.0, d[idx], worst[idx], best[idx]]
    vals = vals[np.isfinite(vals)]
    lo, hi = float(vals.min()), float(vals.max())
    if hi - lo < 1e-12:
        lo, hi = lo - 1, hi + 1
    step, left, top, plot_h, label_h = 12, 44, 18, 110, 34
    width = left + step * len(idx) + 8

    def y(v):
        return round(top + (hi - v) / (hi - lo) * plot_h, 1)

    bars = []
    for n, t in enumerate(idx):
        v = float(d[t])
        x = left + n * step
        y0, y1 = sorted((y(0.0), y(v)))
        bars.append({
            "x": x + 1, "y": y0, "h": round(max(y1 - y0, 0.5), 1), "w": step - 2,
            "cls": "up" if v > 0 else "down" if v < 0 else "zero",
            "tip": f"topic {res.topics[t]}: {v:+.4f} (tie orders {float(worst[t]):+.4f} to "
                   f"{float(best[t]):+.4f})",
            "label": res.topics[t], "lx": x + step / 2, "ly": top + plot_h + 4,
            "whisker": (None if not best[t] > worst[t] else
                        {"x": x + step / 2, "y1": y(float(best[t])),
                         "y2": y(float(worst[t]))})})
    return {"title": f"{system} minus {baseline}", "alt": f"{system} minus {baseline}, "
            f"{measure}", "width": width, "height": top + plot_h + label_h,
            "left": left, "right": width - 8, "zero": y(0.0), "top": top,
            "bottom": top + plot_h, "hi": f"{hi:+.3f}", "lo": f"{lo:+.3f}", "bars": bars}


def build_report(res: EvalResult, c: CompareResult, warnings: list[str] | None = None,
                 title: str = "tiebreak comparison", qrels_name: str = "",
                 inputs: list[str] | None = None, date: str | None = None) -> str:
    """The HTML page as text.

    Parameters
    ----------
    res : EvalResult
        The evaluation the comparison came from (per-topic values for the plots); it must hold
        the realistic and optimistic regimes.
    c : CompareResult
        From :func:`tiebreak.stats.compare.compare` on ``res``.
    warnings : list of str, optional
        Input warnings, one line each (see :func:`tiebreak.evaluation.output.format_warnings`).
    inputs : list of str, optional
        The run files, as given (default: the run names).
    date : str, optional
        The date shown (default: now, UTC).

    The page is the jinja2 template ``tiebreak/report/templates/report.html.j2``; per-topic charts
    sit in a ``<details>`` element per measure, closed until opened.

    Returns
    -------
    str
        A complete HTML5 document that needs no network (figures as ``data:`` URIs).
    """
    import datetime
    from importlib.metadata import PackageNotFoundError, version
    from importlib.resources import files

    import jinja2

    try:   # the installed distribution's version (pyproject.toml), read without the facade
        __version__ = version("tiebreak")
    except PackageNotFoundError:  # pragma: no cover - a source tree that was never installed
        __version__ = "unknown"

    base = c.baseline or c.systems[0]
    topic_sections = []
    for m in c.measures:
        topic_sections.append({"measure": m, "figures": [
            _topic_chart(res, c, s, base, m)
            for s in c.systems if s != base]})
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(files("tiebreak") / "report" / "templates")),
        autoescape=True, trim_blocks=False, lstrip_blocks=False)
    page = env.get_template("report.html.j2").render(
        title=title, css=jinja2.utils.markupsafe.Markup(_CSS), qrels=qrels_name,
        n_topics=len(res.topics), runs=c.systems, measures=c.measures, version=__version__,
        date=(date or datetime.datetime.now(datetime.UTC).strftime(
            "%Y-%m-%d %H:%M UTC")),
        inputs=inputs if inputs is not None else c.systems, legend=c.legend(), notes=c.notes,
        tables=[_table(c, m) for m in c.measures], baseline=base,
        range_figures=[{"alt": f"tie ranges, {m}", "src": _range_figure(c, m)}
                       for m in c.measures],
        topic_sections=topic_sections, warnings=warnings or [])
    return page + "\n"
