"""ranx's metric names (``hits@10``, ``ndcg_burges@10``, ``rbp.95``, ``map@100-l2``, ...) as an
alias table onto the registered families, the way :mod:`.trec_names` maps trec_eval's names.

ranx (Bassani, ECIR 2022) writes a metric as ``name[@k][-lN]``: ``@k`` the cutoff, ``-lN`` the
relevance level (``rel=N``); RBP is ``rbp.P`` or ``rbp@P`` with the persistence's decimals
(``rbp.95`` is p = 0.95), has no cutoff, and uses each relevant document's grade as its gain.
Names that are already a registered family or alias with ranx's meaning (``map``, ``mrr``,
``ndcg``, ``dcg``, ``recall``, ``f1``, ``bpref``) parse as those; this table adds the others.
On DCG and nDCG, ``-lN`` gives the grades below N gain 0 (ranx drops those judgments).
"""

from __future__ import annotations

import re

from .registry import Measure, MeasureError, family, make

__all__ = ["RANX_NAMES", "expand"]

#: ranx name -> (family, fixed parameters)
RANX_NAMES: dict[str, tuple[str, dict]] = {
    "hits": ("Hits", {}),
    "hit_rate": ("Success", {}),
    "precision": ("P", {}),
    "recall": ("R", {}),
    "f1": ("F1", {}),
    "r-precision": ("Rprec", {}),
    "mrr": ("RR", {}),
    "map": ("AP", {}),
    "ndcg": ("nDCG", {}),
    "ndcg_burges": ("nDCG", {"dcg": "exp-log2"}),
    "dcg": ("DCG", {}),
    "dcg_burges": ("DCG", {"dcg": "exp-log2"}),
    "bpref": ("bpref", {}),
    "rbp": ("RBP", {"graded": True}),
}
# only these need the table (the rest are registered names already), unless -lN is given
_OWN = ("hits", "hit_rate", "precision", "r-precision", "ndcg_burges", "dcg_burges", "rbp")
_NAME = re.compile(r"^([a-z][a-z0-9_-]*?)(?:\.(\d+))?(?:@(\d+))?(?:-l(\d+))?$")


def expand(text: str) -> list[Measure] | None:
    """The measure for a ranx metric name, or None when ``text`` is not one.

    Raises
    ------
    MeasureError
        A ranx name with a bad persistence, or ``-lN`` on a measure without a relevance level.
    """
    s = text.strip()
    mt = _NAME.match(s)
    if not mt or mt.group(1) not in RANX_NAMES:
        return None
    name, pdec, cut, lvl = mt.groups()
    if name not in _OWN and lvl is None:
        return None
    if name == "rbp":  # ranx: rbp.95 or rbp@95, persistence 0.95, no cutoff
        if pdec is None and cut is None:
            return None  # bare "rbp" is trec_eval's
        if pdec is not None and cut is not None:
            raise MeasureError(f"{text}: ranx's RBP takes its persistence and no cutoff, e.g. "
                               "rbp.95 (RBP(p=0.95,graded=True)@k for a cutoff)")
        pdec, cut = pdec or cut, None
    elif pdec is not None:
        return None
    fam_name, fixed = RANX_NAMES[name]
    fam = family(fam_name)
    kw = dict(fixed)
    if pdec is not None:
        kw["p"] = float("0." + pdec)
    if lvl is not None:
        if any(p.name == "rel" for p in fam.params):
            kw["rel"] = int(lvl)
        elif fam.name in ("DCG", "nDCG"):  # ranx drops the judgments below the level
            kw["gains"] = {g: 0 for g in range(int(lvl))} or None
        else:
            raise MeasureError(f"{text}: {fam.name} has no relevance level (-l)")
    cutoff = int(cut) if cut is not None else None
    if cutoff == 0:
        cutoff = None
    if cutoff is None and fam.cutoff == "required":
        raise MeasureError(f"{text}: needs a cutoff, e.g. {name}@10")
    return [make(fam, s, cutoff=cutoff, name=s, **kw)]
