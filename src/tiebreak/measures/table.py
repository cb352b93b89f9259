"""The measure table, generated from the registry (README, docs, ``tiebreak measures``)."""

from __future__ import annotations

from .ranx_names import RANX_NAMES
from .registry import REGISTRY, family
from .trec_names import TREC_NAMES

EXPECTED_TEXT = {
    "linear": "exact (linear)",
    "linear_uncut": "exact (linear); sampled under -M",
    "closed": "exact (closed form)",
    "sampled": "sampled (reported SE)",
    "trec_order": "trec_eval order",
}


def rows() -> list[dict]:
    """One row per registered family: name (ir_measures' where it has the measure), aliases,
    trec_eval names, ranx names, kind, how ``expected`` is computed, cutoff, parameters,
    definition and source."""
    family("AP")  # load the built-in families
    trec: dict[str, list[str]] = {}
    for t in TREC_NAMES:
        if t.family and not t.special:
            trec.setdefault(t.family, []).append(t.name)
    ranx: dict[str, list[str]] = {}
    for rn, (fam, fixed) in RANX_NAMES.items():
        extra = ",".join(f"{k}={v!r}" for k, v in fixed.items())
        ranx.setdefault(fam, []).append(rn + (f" ({extra})" if extra else ""))
    out = []
    for f in REGISTRY.values():
        params = ", ".join(f"{p.name}={p.default!r}" for p in f.params)
        out.append({
            "measure": f.name + ("@k" if f.cutoff == "required" else
                                 "[@k]" if f.cutoff == "optional" else ""),
            "aliases": ", ".join(f.aliases),
            "trec_eval": ", ".join(trec.get(f.name, [])),
            "ranx": ", ".join(ranx.get(f.name, [])),
            "kind": f.kind,
            "expected": EXPECTED_TEXT[f.expected],
            "params": params,
            "summary": f.summary if f.summary != "num_rel" else "sum",
            "definition": f.doc,
            "source": f.source,
        })
    return out


def markdown() -> str:
    """The measure table as Markdown (every regime applies to every measure; the column
    ``expected`` says how the exact expectation over tied groups is computed)."""
    head = ["measure", "also", "trec_eval", "ranx", "kind", "expected", "parameters",
            "definition"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows():
        cells = [f"`{r['measure']}`", r["aliases"], r["trec_eval"], r["ranx"], r["kind"],
                 r["expected"], r["params"], r["definition"]]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines) + "\n"


def plain(width: int = 100) -> str:
    """The measure table for a terminal: one line per measure with its other names, kind and
    how ``expected`` is computed (no definitions; ``--format md`` has them), columns aligned,
    lines cut at ``width`` characters."""
    head = ["measure", "also", "trec_eval", "kind", "expected"]
    body = [[r["measure"], r["aliases"], r["trec_eval"], r["kind"], r["expected"]]
            for r in rows()]
    widths = [min(max(len(x[j]) for x in [head] + body), 28) for j in range(len(head))]

    def line(cells):
        out = "  ".join((c if len(c) <= w else c[:w - 3] + "...").ljust(w)
                        for c, w in zip(cells, widths)).rstrip()
        return out[:width]

    return "\n".join([line(head), line(["-" * w for w in widths])] + [line(c) for c in body]) \
        + "\n"
