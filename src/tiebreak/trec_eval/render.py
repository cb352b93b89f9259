"""trec_eval 10.0's output text: ``measure<pad>\\tqid\\tvalue`` lines and the ``all`` summary,
optionally as z-scores (``-Z``)."""

from __future__ import annotations

import numpy as np

from ..evaluation import summarize

MISSING_ZSCORE = -1000000.0


def _zscore(z: dict, qid: str, name: str, v: float) -> float:
    ms = z.get((qid, name))
    if ms is None:
        return MISSING_ZSCORE
    mean, sd = ms
    if sd:
        return (v - mean) / sd
    return 0.0 if v == mean else MISSING_ZSCORE


def _long(x: float) -> str:
    """A count as trec_eval prints it; an expected count that is not whole keeps 4 decimals."""
    r = round(x)
    return str(int(r)) if abs(x - r) < 1e-9 else f"{x:6.4f}"


def _f64(x: float) -> str:
    """C's ``%6.4f`` as trec_eval 10.0 prints on x86-64: a NaN (from 0.0/0.0, whose sign bit is
    set there) prints ``  -nan``; a number as ``f"{x:6.4f}"``."""
    return "  -nan" if x != x else f"{x:6.4f}"


def _fmt(r) -> str:
    if r.t.special == "prefs":
        return "long" if r.t.name.startswith("prefs_num") else "float"
    if r.t.special == "num_q":
        return "long"
    if r.measures:
        return r.measures[0].family.fmt
    return "float"


def render(reqs, tv, opts, runid: str, zs: dict | None, qrels=None) -> str:
    """trec_eval's text for one run (``tv``: a :class:`~.evaluate.TopicValues`)."""
    lines: list[str] = []
    qids = tv.qids
    T = len(qids)
    vals = dict(tv.values)
    zflag = zs is not None
    if zflag:
        for r in reqs:
            if _fmt(r) == "str" or r.t.special in ("runid", "num_q"):
                continue
            for name in r.names:
                v = np.asarray(vals[name], np.float64)
                vals[name] = np.array([_zscore(zs, q, name, float(x)) for q, x in zip(qids, v)])
    pz = "Z" if zflag else ""
    if opts.query:
        # one %-template per topic: "name\tqid\tvalue" for every measure, formatted in one call
        # ("%6.4f" and f"{x:6.4f}" give the same text)
        parts, cols = [], []
        for r in reqs:
            if r.t.special in ("runid", "num_q") or r.t.summary == "gmonly":
                continue
            fmt = _fmt(r)
            for name in r.names:
                v = vals[name]
                if fmt == "str":
                    head, spec, col = f"{name:<22}", "%s", [f"'{x}'" for x in v]
                elif fmt == "long" and not zflag:
                    head, spec = f"{name:<22}", "%s"
                    col = [_long(x) for x in np.asarray(v).tolist()]
                else:
                    head, spec = f"{pz}{name:<22}", "%6.4f"
                    arr = np.asarray(v, np.float64)
                    col = arr.tolist()
                    if np.isnan(arr).any():
                        spec, col = "%s", [_f64(x) for x in col]
                parts.append(head.replace("%", "%%") + "\t\x00\t" + spec)
                cols.append(col)
        if cols:
            template = "\n".join(parts)  # \x00 stands for the qid (no NUL in a qid)
            for q, row in zip(qids, zip(*cols)):
                lines.append(template.replace("\x00", q.replace("%", "%%")) % row)
    if opts.summary:
        for r in reqs:
            fmt = _fmt(r)
            if fmt == "str":
                continue
            for j, name in enumerate(r.names):
                if r.t.special == "runid":
                    lines.append(f"{name:<22}\tall\t{runid}")
                    continue
                if r.t.special == "num_q":
                    v = float(T)
                elif r.t.special in ("prefs", "jg"):
                    x = np.asarray(vals[name], np.float64)
                    agg = r.t.summary or "mean"
                    s = float(np.cumsum(x)[-1]) if T else 0.0
                    v = s if agg == "sum" else (s / T if T else 0.0)
                else:
                    v = summarize(r.measures[j], vals[name], n=T, qrels=qrels,
                                  complete=opts.complete)
                if fmt == "long" and not zflag:
                    lines.append(f"{name:<22}\tall\t{_long(v)}")
                else:
                    lines.append(f"{pz}{name:<22}\tall\t{_f64(v)}")
    return "".join(x + "\n" for x in lines)
