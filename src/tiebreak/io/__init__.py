"""Readers for every TREC text format: runs, qrels, preference judgments, jg qrels, z-scores.

One layer, one set of rules (see :mod:`tiebreak.io.source`): a source is a path, ``-`` or a
binary file object; gzip is recognised by content; a UTF-8 byte-order mark is removed, ``\\r\\n``
and lone ``\\r`` end lines; every problem is an :class:`InputError` naming file, line and field
(``run.txt:1043: score 'abc' is not a number``); nothing is dropped or reordered silently and
every line is accounted for (:class:`LineCounts`).

Formats
-------
* runs (:func:`read_run`): ``qid Q0 docno rank score [tag] [extra ...]``;
* qrels (:func:`read_qrels`): ``qid iter docno rel``;
* sampled qrels with strata (:func:`read_sampled_qrels`, NIST sample_eval's):
  ``qid iter docno stratum rel``;
* preference judgments (:func:`read_prefs`): ``qid ujg ujsubg docno rel_level``;
* jg qrels (:func:`read_qrels_jg`): ``qid jg docno rel``;
* z-scores (:func:`read_zscores`): ``qid measure mean stddev``.

Docnos are kept as the exact bytes of the file, held as latin-1 text (one code point per byte, so
sorting them gives trec_eval's ``strcmp`` byte order); they are never parsed as numbers.
"""

from __future__ import annotations

from .qrels import Qrels, read_qrels
from .runs import Run, read_run, run_paths
from .sampled import SampledQrels, read_sampled_qrels
from .source import InputError, LineCounts, natural_key, open_bytes, show

# old private names, kept for callers not yet moved to the public ones
_read_bytes = open_bytes
_show = show

# the readers of the rarer formats are imported on first use (a one-run command reads qrels and
# runs only)
_LAZY = {"read_qrels_jg": ".jg", "TopicPrefs": ".prefs", "read_prefs": ".prefs",
         "read_zscores": ".zscores"}


def __getattr__(name: str):
    mod = _LAZY.get(name)
    if mod is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(mod, __name__), name)
    globals()[name] = value
    return value

__all__ = [
    "InputError",
    "LineCounts",
    "Qrels",
    "Run",
    "SampledQrels",
    "TopicPrefs",
    "natural_key",
    "open_bytes",
    "read_prefs",
    "read_qrels",
    "read_qrels_jg",
    "read_run",
    "read_sampled_qrels",
    "read_zscores",
    "run_paths",
]
