"""Measures: one registry of families (:mod:`.registry`, declared in :mod:`.builtin`), kernels
over one
ranking structure (:mod:`.kernels`), ir_measures syntax (:mod:`.parse`) and trec_eval's names as
an alias table (:mod:`.trec_names`).

Each family belongs to a *kind* that decides its YMT bounds: ``monotone`` (only grows when a gain
grows: P, RR, Success, RBP, ERR, DCG; its upper bound counts unjudged documents as maximally
relevant), ``normalised`` (AP, nDCG, R, Rprec, bpref: unjudged stay non-relevant in both
bounds), ``judged``/``residual`` (Judged@k, RBP residual: ordered by judged-ness), and
``count``/``set``/``other``.
"""

from __future__ import annotations

from . import builtin  # noqa: E402, F401, I001  (registers the built-in families)
from .parse import DEFAULT_MEASURES, parse_measure, parse_measure_list, parse_measures
from .registry import REGISTRY, Family, Measure, MeasureError, Param, family

__all__ = ["Measure", "Family", "Param", "MeasureError", "REGISTRY", "family", "parse_measure",
           "parse_measure_list", "parse_measures", "DEFAULT_MEASURES"]
