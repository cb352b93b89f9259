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
* per-topic differences against the baseline, topics sorted by the difference, each with a
  whisker from the worst to the best tie order (system realistic minus baseline optimistic, up to
  system optimistic minus baseline realistic);
* the input warnings (qrels and runs).

matplotlib is imported only when a page is built.
"""

from __future__ import annotations

import base64
import html
import io
import math

import click
import numpy as np

from .evaluate import EvalResult
from .stats.compare import (
    CompareResult,
    compare,
    compare_options,
    evaluate_for_compare,
    input_warnings,
)

__all__ = ["build_report", "report_cmd"]

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
"""


def _esc(x) -> str:
    return html.escape(str(x), quote=True)


def _num(v: float, digits: int = 4, signed: bool = False) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    if isinstance(v, float) and math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return f"{v:+.{digits}f}" if signed else f"{v:.{digits}f}"


def _td(col: str, v, text: str | None = None, cls: str = "") -> str:
    """A cell carrying the full-precision value in data-value (the TSV text)."""
    from .stats.compare import _cell

    raw = _cell(v)
    c = f' class="{cls}"' if cls else ""
    shown = _esc(text if text is not None else raw)
    return f'<td data-col="{col}" data-value="{_esc(raw)}"{c}>{shown}</td>'


def _table(c: CompareResult, measure: str) -> str:
    head = ["system"] + (["vs"] if c.baseline is None else []) + [
        "mean", "delta", f"{c.level:.0%} CI", "d_z", "p", "p_adj", "W/T/L", "sig", "tie-robust"]
    out = [f'<table class="comparison" data-measure="{_esc(measure)}"><thead><tr>']
    out += [f'<th class="{"name" if h in ("system", "vs") else ""}">{_esc(h)}</th>'
            for h in head]
    out.append("</tr></thead><tbody>")
    if c.baseline is not None:
        b = c.systems.index(c.baseline)
        j = c.measures.index(measure)
        out.append(f'<tr class="baseline"><td class="name">{_esc(c.baseline)} (baseline)</td>'
                   f'<td data-col="baseline_mean" data-value="{c.means[b, j]!r}">'
                   f'{_num(c.means[b, j])}</td>' + "<td></td>" * (len(head) - 2) + "</tr>")
    for x in c.comparisons:
        if x.measure != measure:
            continue
        sig_cls = ("sig-up" if x.delta > 0 else "sig-down") if x.significant else ""
        cells = [f'<td class="name" data-col="system" data-value="{_esc(x.system)}">'
                 f'{_esc(x.system)}</td>']
        if c.baseline is None:
            cells.append(f'<td class="name" data-col="baseline" data-value="{_esc(x.baseline)}">'
                         f'{_esc(x.baseline)}</td>')
        cells += [
            _td("mean", x.mean, _num(x.mean)),
            _td("delta", x.delta, _num(x.delta, signed=True)),
            f'<td data-col="ci" data-low="{x.ci_low!r}" data-high="{x.ci_high!r}">'
            f"[{_num(x.ci_low, signed=True)}, {_num(x.ci_high, signed=True)}]</td>",
            _td("effect_size", x.effect_size, _num(x.effect_size, 2, signed=True)),
            _td("p", x.p, _pfmt(x.p)),
            _td("p_adjusted", x.p_adjusted, _pfmt(x.p_adjusted)),
            f'<td data-col="wtl" data-wins="{x.wins}" data-ties="{x.ties}" '
            f'data-losses="{x.losses}">{x.wins}/{x.ties}/{x.losses}</td>',
            _td("marker", x.marker, x.marker, sig_cls),
            _td("tie_robust", x.tie_robust,
                x.tie_robust + (f" ({x.tie_note})" if x.tie_note else ""),
                "fragile" if x.tie_robust == "no" else ""),
        ]
        out.append('<tr class="comparison-row">' + "".join(cells) + "</tr>")
    out.append("</tbody></table>")
    return "".join(out)


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


def _topic_figure(res: EvalResult, c: CompareResult, system: str, baseline: str,
                  measure: str) -> str:
    plt = _pyplot()
    i, b = res.runs.index(system), res.runs.index(baseline)
    j = res.measures.index(measure)
    k = {g: res.regimes.index(g) for g in ("realistic", "optimistic")}
    k0 = res.regimes.index(c.regime)
    d = res.per_topic[i, j, k0] - res.per_topic[b, j, k0]
    worst = res.per_topic[i, j, k["realistic"]] - res.per_topic[b, j, k["optimistic"]]
    best = res.per_topic[i, j, k["optimistic"]] - res.per_topic[b, j, k["realistic"]]
    order = np.argsort(-d, kind="stable")
    x = np.arange(len(d))
    fig, ax = plt.subplots(figsize=(max(4.0, 0.12 * len(d) + 2), 2.6))
    colors = np.where(d[order] > 0, "#55a868", np.where(d[order] < 0, "#c44e52", "#999999"))
    ax.bar(x, d[order], color=colors, width=0.8)
    spread = (best - worst)[order] > 0
    if spread.any():
        ax.vlines(x[spread], worst[order][spread], best[order][spread], color="#222", lw=0.8,
                  label="worst to best tie order")
        ax.legend(fontsize=7, frameon=False)
    ax.axhline(0, color="#444", lw=0.6)
    ax.set_xticks([])
    ax.set_xlabel(f"{len(d)} topics, sorted by difference")
    ax.set_ylabel(f"{measure} difference")
    ax.set_title(f"{system} minus {baseline}", fontsize=10)
    return _svg(fig)


def build_report(res: EvalResult, c: CompareResult, warnings: list[str] | None = None,
                 title: str = "tiebreak comparison", qrels_name: str = "") -> str:
    """The HTML page as text.

    Parameters
    ----------
    res : EvalResult
        The evaluation the comparison came from (per-topic values for the plots); it must hold
        the realistic and optimistic regimes.
    c : CompareResult
        From :func:`tiebreak.stats.compare.compare` on ``res``.
    warnings : list of str, optional
        Input warnings, one line each (see :func:`tiebreak.output.format_warnings`).

    Returns
    -------
    str
        A complete HTML5 document that needs no network (figures as ``data:`` URIs).
    """
    base = c.baseline or c.systems[0]
    parts = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_esc(title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{_esc(title)}</h1>",
        f'<p class="meta">qrels: {_esc(qrels_name)}; {len(res.topics)} topics; '
        f"{len(c.systems)} runs; measures: {_esc(', '.join(c.measures))}.</p>",
        "<h2>Comparison</h2>", f'<p class="legend">{_esc(c.legend())}</p>',
    ] + [f'<p class="note"><strong>Note:</strong> {_esc(n)}</p>' for n in c.notes]
    for m in c.measures:
        parts.append(f"<h3>{_esc(m)}</h3>" + _table(c, m))
    parts.append("<h2>Tie ranges</h2><p class=\"legend\">Mean of each system with the "
                 "documents of every tied group in the realistic order (relevant last) and the "
                 "optimistic order (relevant first); the difference is what the tie-breaking "
                 "rule alone can change.</p>")
    parts.append('<div class="plots">')
    for m in c.measures:
        parts.append(f'<figure><img class="plot" alt="tie ranges, {_esc(m)}" '
                     f'src="{_range_figure(c, m)}"></figure>')
    parts.append("</div>")
    parts.append(f"<h2>Per-topic differences against {_esc(base)}</h2>")
    for m in c.measures:
        parts.append(f'<h3>{_esc(m)}</h3><div class="plots">')
        for s in c.systems:
            if s == base:
                continue
            parts.append(f'<figure><img class="plot" alt="{_esc(s)} minus {_esc(base)}, '
                         f'{_esc(m)}" src="{_topic_figure(res, c, s, base, m)}"></figure>')
        parts.append("</div>")
    parts.append("<h2>Input warnings</h2>")
    if warnings:
        parts.append('<ul class="warnings">' + "".join(f"<li>{_esc(w)}</li>" for w in warnings)
                     + "</ul>")
    else:
        parts.append("<p>None.</p>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


@click.command("report", short_help="Write a self-contained HTML report comparing runs.")
@click.argument("qrels")
@click.argument("runs", nargs=-1, required=True, type=click.Path(allow_dash=True))
@compare_options
@click.option("-o", "--output", type=click.Path(dir_okay=False, allow_dash=True),
              default="report.html", show_default=True, help="HTML file to write ('-': stdout).")
@click.option("--title", default="tiebreak comparison", show_default=True, help="Page title.")
def report_cmd(qrels, runs, baseline, measures, test, correction, alpha, all_pairs, regime,
               level, resamples, seed, jobs, name_by, quiet, output, title):
    """Write one self-contained HTML page comparing RUNS.

    It holds the comparison table of 'tiebreak compare' (same options), each system's tie range
    per measure, per-topic differences against the baseline (default: the first run) with the
    span of tie orders, and the input warnings. The page loads nothing from the network.
    """
    from .cli import _fail
    from .io import InputError
    from .measures import MeasureError
    try:
        q, res, bidx = evaluate_for_compare(qrels, runs, measures, regime, baseline, jobs,
                                            name_by)
        c = compare(res, bidx, test=test, correction=correction, alpha=alpha,
                    all_pairs=all_pairs, regime=regime, level=level, n=resamples, seed=seed)
    except (InputError, MeasureError, ValueError) as e:
        _fail(str(e))
    warn = input_warnings(q, res)
    page = build_report(res, c, warn, title, q.name)
    if output == "-":
        click.echo(page, nl=False)
    else:
        from .cli import open_output

        with open_output(output) as fh:
            fh.write(page)
        if not quiet:
            click.echo(f"tiebreak: wrote {output}", err=True)
    if not quiet:
        for line in warn:
            click.echo(f"tiebreak: warning: {line}", err=True)
