"""Writers for evaluation results: TSV (machine-readable), JSON records, and a readable table."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..io import LineCounts

if TYPE_CHECKING:  # types only: EvalResult.__str__ calls this module, which needs no evaluate
    from .evaluator import EvalResult

TSV_HEADER = ("run", "measure", "regime", "qid", "value")


def write_tsv(res: EvalResult, fh, per_topic: bool = False, header: bool = False) -> None:
    """Rows ``run<TAB>measure<TAB>regime<TAB>qid<TAB>value``, qid ``all`` for the mean, values
    at full double precision (Python ``repr``); with ``header`` a first row naming the columns
    (:data:`TSV_HEADER`)."""
    w = fh.write
    if header:
        w("\t".join(TSV_HEADER) + "\n")
    for r, m, g, q, v in res.records(per_topic):
        w(f"{r}\t{m}\t{g}\t{q}\t{v!r}\n")


def write_json(res: EvalResult, fh, per_topic: bool = False, meta: dict | None = None,
               qrels_lines: LineCounts | None = None) -> None:
    """``{"meta": ..., "results": [{run, measure, regime, qid, value}, ...], "warnings": ...,
    "lines": {"qrels": counts, "runs": {run: counts}}}``; counts are
    :meth:`tiebreak.io.LineCounts.as_dict` (read, comment, blank, evaluated, dropped)."""
    recs = [
        {"run": r, "measure": m, "regime": g, "qid": q, "value": v}
        for r, m, g, q, v in res.records(per_topic)
    ]
    warnings = {r: {k: v for k, v in w.items() if not isinstance(v, LineCounts)}
                for r, w in res.warnings.items()}
    lines = {"qrels": qrels_lines.as_dict() if qrels_lines is not None else None,
             "runs": {r: v.as_dict() for r, w in res.warnings.items() for v in w.values()
                      if isinstance(v, LineCounts)}}
    dump_json({"meta": meta or {}, "results": recs, "warnings": warnings, "lines": lines}, fh)


def json_safe(obj):
    """``obj`` with every NaN or infinite float (Python or numpy) replaced by None, recursively
    through dicts, lists and tuples, so that ``json.dumps(..., allow_nan=False)`` succeeds and
    the output is JSON (``NaN`` is not)."""
    if isinstance(obj, dict):
        return {k: json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_safe(v) for v in obj]
    if isinstance(obj, float) or type(obj).__module__ == "numpy" and hasattr(obj, "dtype") \
            and obj.dtype.kind == "f" and obj.ndim == 0:
        f = float(obj)
        return f if f == f and f not in (float("inf"), float("-inf")) else None
    if type(obj).__module__ == "numpy" and hasattr(obj, "item") and getattr(obj, "ndim", 1) == 0:
        return obj.item()
    return obj


def dump_json(obj, fh, indent: int | None = 1) -> None:
    """Write ``obj`` as JSON (NaN and infinities as null, :func:`json_safe`) and a newline."""
    import json

    json.dump(json_safe(obj), fh, indent=indent, allow_nan=False, default=str)
    fh.write("\n")


def _fmt(v: float) -> str:
    return "-" if v != v else f"{v:.4f}"


PAIRS = (
    ("[realistic, optimistic]", "realistic", "optimistic",
     "the worst and best order of every tied group, unjudged documents non-relevant "
     "(Cabanac et al. 2010)"),
    ("YMT [lower, upper]", "lower", "upper",
     "bounds of Yang, Moffat & Turpin (2016); the upper bound of a measure that only grows "
     "with a gain (P, RR, Success, RBP, ERR, DCG) counts unjudged documents as relevant"),
)


def table_rows(res: EvalResult, per_topic: bool = False):
    """Header and rows of the readable grid: per run and measure the trec_eval value, the
    expected value, the tie range [realistic, optimistic] and, apart from it, the YMT bounds
    [lower, upper]; then any other regime asked for."""
    regs = list(res.regimes)
    cols: list[tuple[str, list[int]]] = []
    for g in ("trec_eval", "expected"):
        if g in regs:
            cols.append((g, [regs.index(g)]))
    paired = set()
    for head, a, b, _ in PAIRS:
        if a in regs and b in regs:
            cols.append((head, [regs.index(a), regs.index(b)]))
            paired |= {a, b}
    for g in regs:
        if g in ("trec_eval", "expected") or g in paired:
            continue
        cols.append((g, [regs.index(g)]))
    head = ["run", "measure"] + (["qid"] if per_topic else []) + [c for c, _ in cols]
    rows = []
    for i, r in enumerate(res.runs):
        for j, m in enumerate(res.measures):
            slots = [(None, res.mean[i, j])]
            if per_topic:
                slots = [(q, res.per_topic[i, j, :, t]) for t, q in enumerate(res.topics)
                         if not (res.per_topic[i, j, :, t] != res.per_topic[i, j, :, t]).all()]
                slots.append(("all", res.mean[i, j]))
            for q, vals in slots:
                row = [r, m] + ([q] if per_topic else [])
                for _, idx in cols:
                    if len(idx) == 2:
                        row.append(f"[{_fmt(vals[idx[0]])}, {_fmt(vals[idx[1]])}]")
                    else:
                        row.append(_fmt(vals[idx[0]]))
                rows.append(row)
    return head, rows


def legend(res: EvalResult) -> list[str]:
    """What the paired columns of the table mean (only those shown)."""
    regs = set(res.regimes)
    return [f"{h}: {text}" for h, a, b, text in PAIRS if a in regs and b in regs]


def grid(head: list[str], rows: list[list[str]], nleft: int) -> str:
    """A plain-text grid of string cells: the first ``nleft`` columns left-aligned, the rest
    right-aligned, columns as wide as their widest cell and two spaces apart, one dashed rule
    under the header, no trailing spaces. It is the layout of tabulate's ``simple`` format (with
    ``MIN_PADDING = 0`` and no number parsing; a test checks they agree) written out here because
    importing tabulate costs a third of ``tiebreak eval``'s cold start."""
    widths = [max([len(h)] + [len(r[j]) for r in rows]) for j, h in enumerate(head)]

    def line(cells):
        return "  ".join(c.ljust(w) if j < nleft else c.rjust(w)
                         for j, (c, w) in enumerate(zip(cells, widths))).rstrip()

    out = [line(head), "  ".join("-" * w for w in widths)]
    out += [line(r) for r in rows]
    return "\n".join(out) + "\n"


def write_table(res: EvalResult, fh, per_topic: bool = False) -> None:
    """The readable grid (:func:`grid`): run, measure (and qid) left-aligned, values
    right-aligned, one dashed rule under the header."""
    head, rows = table_rows(res, per_topic)
    fh.write(grid(head, rows, 3 if per_topic else 2))


def format_warnings(res: EvalResult, max_items: int = 8, lines: bool = False) -> list[str]:
    """One line per run with warnings: counts, and up to ``max_items`` topic ids per list;
    with ``lines``, also what became of the run file's lines (:class:`tiebreak.io.LineCounts`)."""
    out = []
    for run, w in res.warnings.items():
        parts = []
        for k, v in w.items():
            if isinstance(v, LineCounts):
                if lines:
                    parts.append(f"{k}: {v.summary()}")
                elif v.skipped():
                    parts.append(f"lines skipped: {v.skipped()}")
            elif isinstance(v, list):
                shown = ", ".join(v[:max_items]) + (", ..." if len(v) > max_items else "")
                parts.append(f"{k}: {len(v)} ({shown})")
            else:
                parts.append(f"{k}: {v}")
        if parts:
            out.append(f"{run}: " + "; ".join(parts))
    return out


def wide_rows(res: EvalResult, sort: str | None = None, precise: bool = False):
    """Header and rows of the runs x measures view: one row per run, one column per measure
    (``measure regime`` when several regimes), the means; sorted by the column ``sort`` (a
    measure name, its first regime) descending when given. ``precise``: values as ``repr``
    (full precision) instead of 4 decimals.

    Raises KeyError for a ``sort`` that is not a measure of the result."""
    cols = [(j, k) for j in range(len(res.measures)) for k in range(len(res.regimes))]
    many = len(res.regimes) > 1
    head = ["run"] + [f"{res.measures[j]} {res.regimes[k]}" if many else res.measures[j]
                      for j, k in cols]
    order = list(range(len(res.runs)))
    if sort is not None:
        if sort not in res.measures:
            raise KeyError(f"--sort {sort}: not a measure of this evaluation "
                           f"({', '.join(res.measures)})")
        j = res.measures.index(sort)
        vals = res.mean[:, j, 0]
        order.sort(key=lambda i: (vals[i] != vals[i], -vals[i] if vals[i] == vals[i] else 0))
    rows = [[res.runs[i]] + [repr(float(res.mean[i, j, k])) if precise else
                             _fmt(res.mean[i, j, k]) for j, k in cols] for i in order]
    return head, rows


def write_wide(res: EvalResult, fh, sort: str | None = None, fmt: str = "table") -> None:
    """Runs x measures (:func:`wide_rows`): a readable grid, or TSV with a header row and full
    precision (``fmt="tsv"``)."""
    head, rows = wide_rows(res, sort, precise=fmt == "tsv")
    if fmt == "tsv":
        fh.write("\t".join(head) + "\n")
        for r in rows:
            fh.write("\t".join(r) + "\n")
    else:
        fh.write(grid(head, rows, 1))


def summarise_warnings(res: EvalResult, verbose: bool = False, max_runs: int = 3) -> list[str]:
    """Input warnings for stderr: :func:`format_warnings`'s line per run when ``verbose`` or at
    most ``max_runs`` runs have warnings; else one line per kind of warning with the number of
    runs that have it, the total and one example (``unjudged documents in the top 10: 143 of
    143 runs, 9120 in all (e.g. BITEM_BL: 106); --verbose lists every run``)."""
    per_run = {r: {k: v for k, v in w.items() if not isinstance(v, LineCounts)}
               for r, w in res.warnings.items()}
    with_any = [r for r, w in per_run.items() if w]
    if verbose or len(with_any) <= max_runs:
        return format_warnings(res)
    kinds: dict[str, list] = {}
    for r in with_any:
        for k, v in per_run[r].items():
            kinds.setdefault(k, []).append((r, v))
    out = []
    for k, items in kinds.items():
        r0, v0 = items[0]
        if all(isinstance(v, bool) or not isinstance(v, (int, float, list)) for _, v in items):
            total = ""
        else:
            n = sum(len(v) if isinstance(v, list) else v for _, v in items
                    if not isinstance(v, bool))
            total = f", {n} in all"
        ex = f"{len(v0)} topics" if isinstance(v0, list) else str(v0)
        out.append(f"{k}: {len(items)} of {len(res.runs)} runs{total} (e.g. {r0}: {ex}); "
                   "--verbose lists every run")
    return out


class Progress:
    """Progress of one stage on standard error: a tqdm bar when stderr is a terminal; else one
    line when the stage starts (``[desc] 30 topics``) and one when it ends (``[desc] done in
    12.3 s``), so a redirected stderr gets no escape codes.

    >>> with Progress(30, "estimating", "topics") as bar:   # doctest: +SKIP
    ...     for t in range(30): bar.update(1)
    """

    def __init__(self, total: int, desc: str, unit: str = "items", stream=None,
                 enabled: bool = True):
        import sys

        self.total, self.desc, self.unit = total, desc, unit
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = enabled
        self.bar = None

    def __enter__(self):
        import time

        self.t0 = time.perf_counter()
        if not self.enabled:
            return self
        if getattr(self.stream, "isatty", lambda: False)():
            from tqdm import tqdm

            self.bar = tqdm(total=self.total, desc=self.desc, unit=self.unit[:-1] or self.unit,
                            file=self.stream, leave=False)
        else:
            self.stream.write(f"[{self.desc}] {self.total} {self.unit}\n")
            self.stream.flush()
        return self

    def update(self, n: int = 1) -> None:
        if self.bar is not None:
            self.bar.update(n)

    def __exit__(self, *exc):
        import time

        if self.bar is not None:
            self.bar.close()
        elif self.enabled and exc[0] is None:
            self.stream.write(f"[{self.desc}] done in {time.perf_counter() - self.t0:.1f} s\n")
            self.stream.flush()
        return False
