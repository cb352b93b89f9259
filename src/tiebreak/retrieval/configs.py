"""The term-dependency configurations of Lu (2018), Table 3.1, as the thesis states them, and
their query forms.

=========  =================================================  ==========================
name       features and subqueries                            lambda_t / _ow / _uw
=========  =================================================  ==========================
BOW        unigrams                                           1
BOW+OW     + ``#1`` over every contiguous sub-sequence |Q'|>=2  0.85 / 0.15 / 0
BOW+UW     + ``#uw(4|Q'|)`` over every subset |Q'| >= 2        0.85 / 0 / 0.15
SDM        + ``#1`` and ``#uw8`` over adjacent pairs           0.8 / 0.1 / 0.1
FDM        + ``#1`` contiguous, ``#uw(4|Q'|)`` every subset    0.8 / 0.15 / 0.05
=========  =================================================  ==========================

All are Dirichlet language models (mu 2500) with Indri's semantics (each group averaged over
its children, :func:`tiebreak.retrieval.dependency.sdm`); the thesis ran them in Indri with
Krovetz stemming and stopwords kept (``tiebreak index --stemmer krovetz --stopwords none``).
Each configuration is a registered model with parameters (:data:`TABLE_3_1`); the study's own
defaults (:data:`tiebreak.studies.study_proximity.MODELS`) differ where noted there and the
thesis's are one option away (``tiebreak study proximity --table31 thesis``).

Note the weights: Table 3.1 gives SDM (0.8, 0.1, 0.1) and FDM (0.8, 0.15, 0.05); Table 4.3
gives them the other way round (SDM (0.8, 0.15, 0.05), FDM (0.8, 0.1, 0.1)), which are the
registered ``sdm`` / ``fdm`` defaults.
"""

from __future__ import annotations

from itertools import combinations

__all__ = ["TABLE_3_1", "query_form", "indri_query"]

#: configuration -> (registered model, parameters), Lu (2018) Table 3.1
TABLE_3_1: dict[str, tuple[str, dict]] = {
    "BOW": ("ql", {"smoothing": "dirichlet", "mu": 2500.0}),
    "BOW+OW": ("fdm", {"weights": (0.85, 0.15, 0.0)}),
    "BOW+UW": ("fdm", {"weights": (0.85, 0.0, 0.15)}),
    "SDM": ("sdm", {"weights": (0.8, 0.1, 0.1), "window": 8}),
    "FDM": ("fdm", {"weights": (0.8, 0.15, 0.05)}),
}


def query_form(model: str, params: dict, terms) -> list[tuple[float, list[str]]]:
    """The query a (model, parameters) pair scores for the distinct query ``terms``: a list of
    (group weight, features) with features as Indri operators (``a``, ``#1(a b)``,
    ``#uw8(a b)``); groups with weight 0 are left out. ``ql`` is one unigram group of weight
    1; ``sdm`` uses adjacent pairs and ``#uw{window}``; ``fdm`` every contiguous sub-sequence
    of length >= 2 (``#1``) and every subset of size >= 2 (``#uw{4|Q'|}``), in query order.

    Raises
    ------
    ValueError
        A model other than ql, sdm and fdm.
    """
    terms = list(dict.fromkeys(terms))
    k = len(terms)
    if model == "ql":
        return [(1.0, list(terms))]
    if model not in ("sdm", "fdm"):
        raise ValueError(f"query_form: ql, sdm or fdm, not {model!r}")
    lt, lo, lu = params.get("weights", (0.8, 0.15, 0.05) if model == "sdm" else (0.8, 0.1, 0.1))
    if model == "sdm":
        w = int(params.get("window", 8))
        pairs = [terms[i:i + 2] for i in range(k - 1)]
        ow = [f"#1({' '.join(p)})" for p in pairs]
        uw = [f"#uw{w}({' '.join(p)})" for p in pairs]
    else:
        ow = [f"#1({' '.join(terms[i:i + n])})" for n in range(2, k + 1)
              for i in range(k - n + 1)]
        uw = [f"#uw{4 * n}({' '.join(c)})" for n in range(2, k + 1)
              for c in combinations(terms, n)]
    return [(float(x), f) for x, f in ((lt, list(terms)), (lo, ow), (lu, uw)) if x > 0 and f]


def indri_query(model: str, params: dict, terms) -> str:
    """:func:`query_form` as one Indri query:
    ``#weight( 0.8 #combine(a b c) 0.1 #combine(#1(a b) #1(b c)) ... )``."""
    groups = query_form(model, params, terms)
    return "#weight( " + " ".join(f"{w:g} #combine({' '.join(f)})" for w, f in groups) + " )"
