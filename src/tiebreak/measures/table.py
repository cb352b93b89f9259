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


CWL_FAMILIES = ("INST", "INSQ", "SDCG", "BPM", "NERR8", "NERR9", "NERR10", "NERR11", "TBG",
                "UMeasure", "IFT")
NTCIR_FAMILIES = ("Qmeasure", "Omeasure", "Pmeasure", "Pplus", "nDCG_orig", "MSnDCG", "nERR",
                  "ERR_lin", "NCU", "AP_b")
#: which regime reproduces which provider, where it is known and tested
PROVIDER_REGIME = {
    "nDCG_run": "scikit-learn ndcg_score: expected (exact there, sampled here); trec_eval on "
                "untied runs",
    "RBP": "trec_eval order: ir_measures (cwl_eval, trectools providers); expected: trectools "
           "get_rbp(average_ties=True)",
    "xinfAP": "sample_eval (NIST, 2011) infAP: trec_eval, as xinfAP(eps=0.00001,"
              "prior=0.3333333333333333)",
    "infNDCG": "sample_eval (NIST, 2011) infNDCG: trec_eval",
    "Compat": "ir_measures: its docno-ascending tie order lies between lower and upper "
              "(equal on untied runs with positive scores)",
}


def _provider(name: str, trec: bool) -> str:
    base = name[:-6] if name.endswith("_resid") else name
    if base in CWL_FAMILIES:
        return "cwl_eval, ir_measures' cwl_eval provider: file (they score in file order)"
    if name in NTCIR_FAMILIES:
        return "NTCIREVAL, pyNTCIREVAL: file (they score the list as given)"
    if name in PROVIDER_REGIME:
        return PROVIDER_REGIME[name]
    if trec:
        return "trec_eval, pytrec_eval, ir_measures (pytrec_eval provider): trec_eval"
    return ""


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
        if f.source.startswith("user-defined"):  # tiebreak.define_measure's: not built in
            continue
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
            "provider": _provider(f.name, f.name in trec),
            "definition": f.doc,
            "source": f.source,
        })
    return out


def markdown() -> str:
    """The measure table as Markdown (every regime applies to every measure; the column
    ``expected`` says how the exact expectation over tied groups is computed, the last one
    which regime reproduces which peer tool)."""
    head = ["measure", "also", "trec_eval", "ranx", "kind", "expected", "parameters",
            "definition", "peer reproduced by regime"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows():
        cells = [f"`{r['measure']}`", r["aliases"], r["trec_eval"], r["ranx"], r["kind"],
                 r["expected"], r["params"], r["definition"], r["provider"]]
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
