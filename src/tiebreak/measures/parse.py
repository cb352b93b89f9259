"""Measure names as IR researchers type them: ir_measures syntax and trec_eval names.

* ir_measures: ``AP``, ``AP@10``, ``AP(rel=2)``, ``nDCG@10``, ``nDCG(dcg='exp-log2')@10``,
  ``nDCG(gains={0:0,1:1,2:3})``, ``P@5``, ``R@100``, ``RR``, ``RR@10``, ``Rprec``,
  ``RBP(p=0.5)``, ``RBP(p=0.8,rel=2)@100``, ``ERR@20``, ``Success@10``, ``bpref``,
  ``Judged@10``, ``infAP``, ``SetP``, ``NumRet``, ... (every registered family and alias);
* trec_eval: ``map``, ``map_cut.10`` (or ``map_cut_10``), ``P.5,10`` (or ``P_5``), ``ndcg``,
  ``ndcg_cut.10``, ``recip_rank``, ``rbp.p=0.8``, ``iprec_at_recall..1``, ``gm_map``, and the
  sets ``official``, ``all_trec`` and ``set``;
* ranx: ``hits@10``, ``precision@10``, ``ndcg_burges@10``, ``dcg_burges@10``, ``rbp.95``,
  ``map@100-l2`` (:mod:`tiebreak.measures.ranx_names`).
"""

from __future__ import annotations

import ast
import re

from .ranx_names import expand as ranx_expand
from .registry import Measure, MeasureError, family, make
from .trec_names import expand

__all__ = ["parse_measure", "parse_measures", "DEFAULT_MEASURES"]

DEFAULT_MEASURES = ("AP", "nDCG@10", "P@10", "RR", "R@1000", "RBP(p=0.8)", "bpref")
_IRM = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\s*(?:\((.*)\))?\s*(?:@\s*(\S+))?$", re.S)
_HINT = ("try e.g. AP, nDCG@10, P@10, RR, R@1000, RBP(p=0.8), bpref, ERR@20, Success@10, "
         "Judged@10, or trec_eval names map, P.10, ndcg_cut.10 (`tiebreak measures` lists "
         "every name)")


def _literal(node, text):
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        raise MeasureError(f"{text}: parameter values must be literals") from None


def parse_measure_list(text) -> list[Measure]:
    """Parse one name into its measures (a trec_eval name like ``P.5,10`` gives several).

    Raises
    ------
    MeasureError
        Unknown name, unknown or ill-typed parameter, a bad or missing cutoff.
    TypeError
        ``text`` is not a string.
    """
    if not isinstance(text, str):
        raise TypeError(f"a measure name must be a string such as 'AP' or 'nDCG@10', "
                        f"not {type(text).__name__} {text!r}")
    s = text.strip()
    got = ranx_expand(s)  # ranx's names the registry does not hold (hits@10, rbp.95, ...)
    if got is not None:
        return got
    mt = _IRM.match(s)
    fam = family(mt.group(1)) if mt else None
    exact = fam is not None and mt.group(1) in (fam.name, *fam.aliases)
    bare = mt is not None and mt.group(2) is None and mt.group(3) is None
    if not exact or (bare and (s != mt.group(1) or fam.cutoff == "required")):
        got = expand(s)  # trec_eval names first, unless the text is a family's own name
        if got is not None:
            return got
    if fam is None:
        raise MeasureError(f"unknown measure {text!r}; {_HINT}")
    kw: dict = {}
    if mt.group(2) is not None and mt.group(2).strip():
        try:
            call = ast.parse(f"f({mt.group(2)})", mode="eval").body
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            raise MeasureError(f"{text}: cannot parse parameters {mt.group(2)!r}") from None
        if not isinstance(call, ast.Call) or call.args or any(a.arg is None
                                                                for a in call.keywords):
            raise MeasureError(f"{text}: parameters must be named, e.g. RBP(p=0.8)")
        kw = {a.arg: _literal(a.value, text) for a in call.keywords}
    cut = mt.group(3)
    cutoff = kw.pop("cutoff", None)
    if cut is not None and fam.name == "IPrec" and "recall" not in kw:
        # ir_measures writes the recall level as IPrec's cutoff: IPrec@0.5
        try:
            kw["recall"] = float(cut)
        except ValueError:
            raise MeasureError(f"{text}: IPrec@r needs a recall level r in [0, 1]") from None
        cut = None
    if cut is not None:
        if not re.fullmatch(r"\d+", cut):
            raise MeasureError(f"{text}: the cutoff must be a positive integer, not {cut!r}")
        cutoff = int(cut)
    return [make(fam, s, cutoff=cutoff, name=s, **kw)]


def parse_measure(text) -> Measure:
    """Parse one measure name (ir_measures or trec_eval style) into a single measure."""
    ms = parse_measure_list(text)
    if len(ms) != 1:
        raise MeasureError(f"{text} names {len(ms)} measures; use parse_measures")
    return ms[0]


def parse_measures(names, with_residuals: bool = True) -> list[Measure]:
    """Parse names, drop repeated names, and add each RBP's residual right after it.
    :class:`Measure` objects are kept as given (no residual added, never dropped)."""
    out: list[Measure] = []
    seen = set()
    for n in names:
        if isinstance(n, Measure):
            out.append(n)
            continue
        todo = parse_measure_list(n)
        for m in list(todo):
            if with_residuals and m.family.name == "RBP":
                todo.insert(todo.index(m) + 1, residual_of(m))
        for x in todo:
            if x not in seen:
                seen.add(x)
                out.append(x)
    return out


def residual_of(m: Measure) -> Measure:
    """The RBP residual that goes with an RBP measure (same p and depth)."""
    if m.family.name != "RBP":
        raise MeasureError("only RBP has a residual")
    fam = family("RBP_resid")
    name = f"RBP_resid(p={m['p']:g})" + (f"@{m.cutoff}" if m.cutoff is not None else "")
    return make(fam, str(m), cutoff=m.cutoff, name=name, p=m["p"])
