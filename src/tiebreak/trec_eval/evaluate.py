"""``tiebreak trec_eval``'s evaluation: its options become registered measures, evaluated by
the same path as ``tiebreak eval`` (:func:`tiebreak.evaluation.compute.measure_values`).

Per-topic values come back as a :class:`TopicValues`; :mod:`.render` prints them.
"""

from __future__ import annotations

import sys

import numpy as np

from ..evaluation import measure_values
from ..io import read_qrels, read_run
from ..measures.trec_names import Requested, TrecEvalError, mark, resolve
from ..ranking import prepare
from .options import Options, parse_args

REGIMES = ("trec_eval", "file", "realistic", "optimistic", "lower", "upper", "expected",
           "score-rank")


class TopicValues:
    """Per-topic values of one run: ``values[name]`` is an array (T,) or a list of str. (A
    plain class: a dataclass costs a few tenths of a ms at every start.)"""

    __slots__ = ("qids", "values", "notes")

    def __init__(self, qids: list[str], values: dict, notes: list[str]):
        self.qids, self.values, self.notes = qids, values, notes

    def __repr__(self) -> str:
        return f"TopicValues(qids={self.qids!r}, values={self.values!r}, notes={self.notes!r})"


def requested(opts: Options) -> list[Requested]:
    """The measures of ``-m`` (default ``official``) at ``-l``'s relevance level."""
    return mark(opts.measures, opts.level, opts.num_docs_in_coll)


def compute(run, qrels, opts: Options, reqs: list[Requested], qids: list[str]):
    """Values of the requested measures for topics ``qids`` under ``opts.regime``:
    ``(values, notes, bogus)``, ``values[name]`` an array (T,) (a list of str for relstring)."""
    P = prepare(run, qrels, qids, complete=True, max_docs=opts.max_docs,
                judged_only=opts.judged_only, score_precision=opts.score_precision)
    ms = [m for r in reqs for m in r.measures]
    names = [n for r in reqs for n in (r.names if r.measures else [])]
    nan_fams = ("IPrec", "11pt_avg")
    extra = []
    if opts.judged_only and any(m.family.name in nan_fams for m in ms):
        extra = [r.measures[0] for r in mark(["num_ret", "num_rel"], opts.level,
                                             opts.num_docs_in_coll)]
    vals, notes = measure_values(P, ms + extra, opts.regime, samples=opts.samples,
                                 seed=opts.seed)
    if extra:
        _nan_like_trec_eval(ms, vals, *vals[len(ms):])
    notes = list(notes) + [f"--score-precision {opts.score_precision}: {k}: {v}"
                           for k, v in (P.J.format_warnings or {}).items()]
    return dict(zip(names, vals[:len(ms)])), notes, P.bogus


def _nan_like_trec_eval(ms, vals, num_ret, num_rel) -> None:
    """trec_eval 10.0 under ``-J``: a topic whose retrieved documents are all unjudged has
    nothing retrieved, and its interpolated precision starts from 0/0: ``iprec_at_recall`` at
    every level with ``lround(level R) == 0``, and ``11pt_avg`` when any level is such, are NaN
    (printed ``-nan``; the mean over topics too). In place on ``vals``."""
    from ..measures.kernels import _lround

    empty = np.asarray(num_ret) == 0
    if not empty.any():
        return
    nrel = np.asarray(num_rel, np.float64)
    for j, m in enumerate(ms):
        fam = m.family.name
        if fam not in ("IPrec", "11pt_avg"):
            continue
        p = dict(m.values)
        levels = [p["recall"]] if fam == "IPrec" else list(p["levels"])
        hit = np.zeros(len(nrel), bool)
        for lv in levels:
            hit |= _lround(lv * nrel) == 0
        v = np.array(vals[j], np.float64)
        v[empty & hit] = np.nan
        vals[j] = v


def _jg_values(run, groups, opts, reqs, qids):
    """map_avgjg, P_avgjg, Rprec_mult_avgjg: each measure per judgment group, averaged."""
    from ..measures.trec_names import BY_NAME

    T = len(qids)
    sums: dict = {}
    njg = np.zeros(T)
    base = {"map_avgjg": "map", "P_avgjg": "P", "Rprec_mult_avgjg": "Rprec_mult"}
    jg_reqs = [r for r in reqs if r.t.special == "jg"]
    for _g, q in groups:
        present = [k for k, qid in enumerate(qids) if qid in q.topic_index]
        if not present:
            continue
        inner = [resolve(BY_NAME[base[r.t.name]], r.raw, opts.level) for r in jg_reqs]
        vals, _, _ = compute(run, q, opts, inner, [qids[k] for k in present])
        idx = np.array(present)
        njg[idx] += 1
        for r, ir in zip(jg_reqs, inner):
            for name, iname in zip(r.names, ir.names):
                sums.setdefault(name, np.zeros(T))[idx] += vals[iname]
    out = {}
    for r in jg_reqs:
        for name in r.names:
            s = sums.get(name, np.zeros(T))
            out[name] = np.where(njg > 1, s / np.maximum(njg, 1), s)
    return out


def wanted(all_q: list[str], run_q: set, opts: Options, err) -> list[str]:
    """Topics evaluated, in trec_eval's order: qrels topics (byte order) that have results,
    plus, with -c, those that do not."""
    if opts.debug_query is not None:
        all_q = [q for q in all_q if q == opts.debug_query]
    missing = [q for q in all_q if q not in run_q]
    if missing and not opts.complete:
        shown = " ".join(missing[:10]) + (" ..." if len(missing) > 10 else "")
        if opts.strict:
            raise TrecEvalError(
                f"tiebreak trec_eval: {len(missing)} qrels topic(s) have no results: {shown} "
                "(use -c to score them 0, or drop --strict to skip them)", 4)
        print(f"tiebreak trec_eval: warning: {len(missing)} qrels topic(s) without results "
              f"skipped (trec_eval 9 behaviour; -c scores them 0): {shown}", file=err)
        all_q = [q for q in all_q if q in run_q]
    if not all_q:
        raise TrecEvalError("trec_eval: No queries with both results and relevance info", 7)
    return all_q


def _byte_sorted(qids) -> list[str]:
    return sorted(qids, key=lambda q: q.encode("latin-1", "replace"))


def topic_values(rel_path, run, opts: Options, reqs, qrels=None, err=sys.stderr):
    """Per-topic values of one run for qrels / qrels_jg measures (a :class:`TopicValues`)."""
    from ..io import read_qrels_jg

    fmt = opts.rel_format
    groups = None
    if fmt == "qrels_jg":
        groups = read_qrels_jg(rel_path)
        all_q = _byte_sorted({q for _g, qr in groups for q in qr.topics})
    else:
        all_q = _byte_sorted(qrels.topics)  # trec_eval's strcmp order
    qids = wanted(all_q, set(run.topics), opts, err)
    notes: list[str] = []
    if fmt == "qrels_jg":
        values = _jg_values(run, groups, opts, reqs, qids)
    else:
        values, notes, _ = compute(run, qrels, opts, reqs, qids)
    for n in notes:
        print(f"tiebreak trec_eval: {n}", file=err)
    return TopicValues(qids, values, notes)


def prefs_values(rel_path, run, opts: Options, reqs, err) -> TopicValues:
    """Preference measures (``-R prefs`` / ``qrels_prefs``) of one run, trec_eval order."""
    from ..io import read_prefs
    from . import prefs as PF

    if opts.regime != "trec_eval":
        raise TrecEvalError("tiebreak trec_eval: --regime applies to qrels measures; "
                            "preference measures use trec_eval order only", 1)
    tps = read_prefs(rel_path, opts.rel_format)
    qids = wanted(_byte_sorted(tps), set(run.topics), opts, err)
    names = [n for r in reqs if r.t.special == "prefs" for n in r.names]
    values = {n: np.zeros(len(qids)) for n in names}
    tix = {q: i for i, q in enumerate(run.topics)}
    from ..ranking.formats import round_scores

    all_scores, _ = round_scores(run.score, opts.score_precision, run.topic, len(run.topics))
    for k, q in enumerate(qids):
        if q in tix:
            sel = np.flatnonzero(run.topic == tix[q])
            docnos = [run.docno(i) for i in sel]
            scores = all_scores[sel]
        else:
            docnos, scores = ["ceci_nest_pas_un_docno"], np.array([1.0])
        res = PF.prefs_measures(tps[q], docnos, scores=scores, max_docs=opts.max_docs)
        for n in names:
            values[n][k] = res[n]
    return TopicValues(qids, values, [])


def check_formats(opts: Options, reqs) -> None:
    """trec_eval's checks of -R/-T against the measures, and tiebreak's of --regime."""
    if opts.results_format != "trec_results":
        raise TrecEvalError(
            f"trec_eval: Illegal retrieval results format '{opts.results_format}'", 2)
    fmt = opts.rel_format
    if fmt not in ("qrels", "prefs", "qrels_prefs", "qrels_jg"):
        raise TrecEvalError(f"trec_eval: Illegal rel_format '{fmt}'", 2)
    if opts.regime not in REGIMES:
        raise TrecEvalError(f"tiebreak trec_eval: unknown regime '{opts.regime}' "
                            f"(one of {', '.join(REGIMES)})", 1)
    for r in reqs:
        sp = r.t.special
        if sp in ("runid", "num_q"):
            continue
        ok = (sp == "prefs" and fmt in ("prefs", "qrels_prefs")) or (
            sp == "jg" and fmt == "qrels_jg") or (not sp and fmt == "qrels")
        if not ok:
            raise TrecEvalError(
                f"trec_eval: measure '{r.t.name}' cannot be computed from rel_info format "
                f"'{fmt}'\ntrec_eval: Can't calculate measure '{r.t.name}'", 4)


def values(argv: list[str], run=None, qrels=None, err=sys.stderr) -> TopicValues:
    """Full-precision per-topic values for trec_eval arguments ``argv`` (qrels-format
    measures only; the run may be given as a parsed :class:`~tiebreak.io.Run`)."""
    opts = parse_args([str(a) for a in argv])
    reqs = requested(opts)
    check_formats(opts, reqs)
    rel = opts.files[0]
    if qrels is None and opts.rel_format == "qrels":
        qrels = read_qrels(rel)
    return topic_values(rel, run if run is not None else read_run(opts.files[1]), opts, reqs,
                        qrels, err)
