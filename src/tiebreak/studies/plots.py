"""Figures of ``tiebreak study depth``: coverage/inversion/discrimination against the evaluation
depth (Lu 2018 Fig. 5.6, Table 5.5) and volatility heat maps (Figs. 5.8-5.10)."""

from __future__ import annotations

import numpy as np

from . import pyplot


def _save(fig, stem: str) -> list[str]:
    paths = [f"{stem}.png", f"{stem}.svg"]
    for p in paths:
        fig.savefig(p, dpi=130 if p.endswith(".png") else None, bbox_inches="tight")
    return paths


def plot_coverage(table, stem: str, pool_depth: int) -> list[str]:
    """Three panels (discrimination, coverage, inversion, %) against k (log axis), one line per
    metric (first regime only); a dotted line marks the pool depth. Writes ``<stem>.png`` and
    ``.svg``; returns their paths."""
    plt = pyplot()
    reg = table["regime"].iloc[0]
    t = table[table["regime"] == reg]
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.8))
    for ax, col, title in zip(axes, ("disc", "cov", "inv"),
                              ("discrimination %", "coverage %", "inversion %")):
        for m, g in t.groupby("metric", sort=False):
            ax.plot(g["k"], g[col], marker="o", ms=3, label=m)
        ax.set_xscale("log")
        ax.axvline(pool_depth, color="grey", ls=":", lw=1)
        ax.set_xlabel("evaluation depth k")
        ax.set_title(title)
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    out = _save(fig, stem)
    plt.close(fig)
    return out


def plot_score_curves(st, stem: str, systems: str = "contributing", regime: int = 0) -> list[str]:
    """Per-system mean scores against the evaluation depth k over the volatility grid (Lu 2018
    Figs. 5.1-5.5, 5.6f and 5.7 plot these): one panel per metric, one line per system, a dotted
    line at the pool depth. ``st``: a :class:`tiebreak.studies.depth.DepthStudy`. Writes
    ``<stem>.png`` and ``.svg``."""
    plt = pyplot()
    sel = st.contributing if systems == "contributing" else np.ones(len(st.systems), bool)
    n = len(st.metrics)
    cols = min(n, 4)
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(3.6 * cols, 3.0 * rows), squeeze=False)
    k = np.asarray(st.vol_depths)
    for ax, (a, m) in zip(axes.ravel(), enumerate(st.metrics)):
        for y in st.vol_means[sel, a, :, regime]:
            ax.plot(k, y, lw=0.8, alpha=0.8)
        if k[0] <= st.pool_depth <= k[-1]:
            ax.axvline(st.pool_depth, color="grey", ls=":", lw=1)
        ax.set_title(m, fontsize=9)
        ax.set_xlabel("evaluation depth k")
    for ax in axes.ravel()[n:]:
        ax.axis("off")
    axes[0, 0].set_ylabel("mean score")
    fig.tight_layout()
    out = _save(fig, stem)
    plt.close(fig)
    return out


def plot_volatility(mats: dict, depths, stem: str, pool_depth: int) -> list[str]:
    """Heat maps of Kendall tau matrices (Lu 2018 Eq. 5.5), one panel per entry of ``mats``
    (name -> ndarray (n, n)); tau >= 0.9 in the darkest green. Rows are k1 (first metric), columns
    k2. Writes ``<stem>.png`` and ``.svg``."""
    plt = pyplot()
    from matplotlib.colors import BoundaryNorm, ListedColormap

    n = len(mats)
    cols = min(n, 4)
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(3.4 * cols, 3.2 * rows), squeeze=False)
    bounds = [-1, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0001]
    cmap = ListedColormap(["#f7f7f7", "#d9f0d3", "#a6dba0", "#5aae61", "#1b7837", "#00441b"])
    norm = BoundaryNorm(bounds, cmap.N)
    d = np.asarray(depths)
    im = None
    for ax, (name, M) in zip(axes.ravel(), mats.items()):
        im = ax.imshow(M, origin="lower", cmap=cmap, norm=norm,
                       extent=(d[0] - 0.5, d[-1] + 0.5, d[0] - 0.5, d[-1] + 0.5))
        if d[0] <= pool_depth <= d[-1]:
            ax.axvline(pool_depth, color="red", lw=0.6, ls=":")
            ax.axhline(pool_depth, color="red", lw=0.6, ls=":")
        ax.set_title(name, fontsize=9)
        ax.set_xlabel("k2")
        ax.set_ylabel("k1")
    for ax in axes.ravel()[n:]:
        ax.axis("off")
    if im is not None:
        fig.colorbar(im, ax=axes.ravel().tolist(), shrink=0.8, label="Kendall tau")
    out = _save(fig, stem)
    plt.close(fig)
    return out


def plot_gain_fits(st, stem: str, topic: int | None = None) -> list[str]:
    """Fitted gain curves against the empirical gain of the deep judgments, one panel per d'
    for one topic (default: the topic with the most relevant documents in the deep gains).
    Writes ``<stem>.png`` and ``.svg``."""
    plt = pyplot()
    if topic is None:
        topic = int(np.argmax([g.sum() for g in st.deep_gains]))
    n = len(st.dprimes)
    fig, axes = plt.subplots(1, n, figsize=(3.6 * n, 3.2), squeeze=False, sharey=True)
    k = np.arange(1, st.depth + 1)
    for ax, dp in zip(axes[0], st.dprimes):
        E = st.estimates[dp]
        ax.plot(k, st.deep_gains[topic], ".", ms=3, color="grey", label="deep empirical")
        for name, m in E.models[topic].items():
            if name in ("const",):
                continue
            ax.plot(k, m.curve[: st.depth], lw=1, label=name)
        ax.axvline(dp, color="k", ls=":", lw=0.8)
        ax.set_title(f"topic {st.topics[topic]}, d' = {dp}", fontsize=9)
        ax.set_xlabel("rank k")
    axes[0][0].set_ylabel("gain")
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    out = _save(fig, stem)
    plt.close(fig)
    return out


def plot_estimates(st, stem: str, estimators=("LB", "RM", "lin", "L_b")) -> list[str]:
    """Mean estimated RBP against the deep range [LB, UB] per system (error bars), one panel
    per d'. Writes ``<stem>.png`` and ``.svg``."""
    plt = pyplot()
    n = len(st.dprimes)
    fig, axes = plt.subplots(1, n, figsize=(3.6 * n, 3.4), squeeze=False, sharey=True)
    lo, hi = st.truth_lb.mean(1), st.truth_ub.mean(1)
    o = np.argsort(lo)
    x = np.arange(len(o))
    for ax, dp in zip(axes[0], st.dprimes):
        E = st.estimates[dp]
        ax.fill_between(x, lo[o], hi[o], color="#cccccc", step="mid", label="deep [LB, UB]")
        for e in estimators:
            if e in E.estimators:
                ax.plot(x, E.get(e).mean(1)[o], marker="o", ms=3, lw=0.8, label=e)
        ax.set_title(f"d' = {dp}", fontsize=9)
        ax.set_xlabel("system (by deep LB)")
    axes[0][0].set_ylabel(f"mean RBP({st.p})@{st.depth}")
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    out = _save(fig, stem)
    plt.close(fig)
    return out
