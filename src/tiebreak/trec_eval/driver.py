"""``tiebreak trec_eval``: trec_eval 10.0's command line and output, plus tie regimes.

:func:`main` takes trec_eval's arguments and writes exactly what trec_eval 10.0 writes for them
(``measure<pad>\\tqid\\tvalue``, measures in trec_eval's order, topics in byte order, the
``all`` summary). Deliberate differences, each documented in ``docs/trec_eval.md``:

* a qrels topic with no results, without ``-c``, is skipped with a warning on stderr (trec_eval
  9 behaviour; trec_eval 10.0 stops with a misleading message). ``--strict`` makes it an error;
* a non-numeric score or a malformed line stops with ``file:line`` (trec_eval reads it as 0);
* ``rbp`` uses the defined per-topic minimum and maximum gain for its rescaling (trec_eval 10.0
  reads uninitialised memory there);
* ``--regime`` evaluates every measure under another tie regime (see :mod:`.ranks`);
* several results files may follow the qrels file: each gets its own block of output.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass

import numpy as np

from ..io import InputError, read_qrels, read_qrels_jg, read_run, read_zscores
from .measures import MIN_GEO_MEAN, Context, Requested, TrecEvalError, mark
from .options import USAGE, Options, parse_args
from .ranks import (
    Prepared,
    deterministic_ranked,
    expected_ranked,
    groups_for_core,
    qrels_levels,
    sampled_ranked,
)

VERSION = "10.0 (tiebreak trec_eval)"
REGIMES = ("trec_eval", "file", "realistic", "optimistic", "lower", "upper", "expected")
MISSING_ZSCORE = -1000000.0
BOGUS_RESET = ("num_ret", "utility", "rbp_resid")  # trec_eval's clean-up of -c topics


@dataclass
class TopicValues:
    """Per-topic values of one run: ``values[name]`` is an array (T,) or a list of str."""

    qids: list[str]
    values: dict
    notes: list[str]


# ---------------------------------------------------------------------------------------------
# evaluation of standard qrels
# ---------------------------------------------------------------------------------------------


def _prepare(run, qrels, opts: Options, qids_wanted: list[str]) -> Prepared:
    from ..ranking import judge, orderings

    J = judge(run, qrels, opts.score_precision)
    O = orderings(J)
    tindex = qrels.topic_index
    has = np.bincount(J.qtopic, minlength=J.n_topics) > 0
    ids = np.array([tindex[q] for q in qids_wanted], np.int64)
    bogus = ~has[ids] if len(ids) else np.zeros(0, bool)
    return Prepared(J, O, ids, bogus, qrels_levels(qrels, ids), opts.level, opts.max_docs,
                    opts.judged_only)


def _assign(out: dict, req: Requested, vals) -> None:
    if not isinstance(vals, list):
        vals = [vals]
    for name, v in zip(req.names, vals):
        out[name] = v


def compute(P: Prepared, reqs: list[Requested], opts: Options, ctx: Context):
    """Values of the requested measures for every topic of ``P`` under ``opts.regime``.

    Returns ``(values, notes)``: ``values[name]`` is a float64 array (T,) (a list of str for
    relstring); ``notes`` lists what was estimated by sampling."""
    regime = opts.regime
    out: dict = {}
    notes: list[str] = []
    std = [r for r in reqs if not (r.m.prefs or r.m.jg) and r.m.name not in ("runid", "num_q")]
    if regime != "expected":
        order = {"lower": "realistic", "upper": "optimistic"}.get(regime, regime)
        R = deterministic_ranked(P, order)
        memo: dict = {}  # gm_map / gm_bpref share map / bpref's kernel
        for r in std:
            key = (r.m.compute, r.values)
            if key not in memo:
                memo[key] = r.m.compute(R, r.values, ctx)
            _assign(out, r, memo[key])
        return out, notes
    Rf = expected_ranked(P)
    cut = opts.max_docs
    sampled = []
    G = None
    for r in std:
        m = r.m
        set_based = m.name in ("set_map", "set_F", "rbp_resid")
        if m.linear or (set_based and cut is None):
            _assign(out, r, m.compute(Rf, r.values, ctx))
        elif m.closed and not (m.name in ("bpref", "gm_bpref") and cut is not None):
            if G is None:
                G = groups_for_core(P)
            _assign(out, r, _closed(m.name, r.values, G, Rf, cut))
        elif m.name == "relstring":
            _assign(out, r, m.compute(deterministic_ranked(P, "trec_eval"), r.values, ctx))
        else:
            sampled.append(r)
    if sampled:
        S = opts.samples
        Rs = sampled_ranked(P, S, opts.seed)
        T = len(P.topic_ids)
        worst = 0.0
        for r in sampled:
            vals = r.m.compute(Rs, r.values, ctx)
            vals = vals if isinstance(vals, list) else [vals]
            for name, v in zip(r.names, vals):
                v = np.asarray(v).reshape(S, T)
                out[name] = v.mean(axis=0)
                if S > 1:
                    worst = max(worst, float((v.std(axis=0, ddof=1) / math.sqrt(S)).max()))
        names = ", ".join(dict.fromkeys(r.m.name for r in sampled))
        notes.append(f"expected values of {names} estimated from {S} seeded random orderings "
                     f"of each tied group (seed {opts.seed}); largest standard error "
                     f"{worst:.2g}")
    return out, notes


def _closed(name: str, params, G, Rf, cut):
    """Closed-form expectations of the eval core (McSherry & Najork 2008; spec §2)."""
    from ..measures import kernels as K

    nrel = Rf.num_rel
    lvl = Rf.level
    if name in ("map", "gm_map"):
        return K.e_average_precision(G, cut, lvl, nrel)
    if name == "map_cut":
        return [K.e_average_precision(G, k if cut is None else min(k, cut), lvl, nrel)
                for k in params]
    if name == "recip_rank":
        return K.e_reciprocal_rank(G, cut, lvl)
    if name == "success":
        return [K.e_success(G, k if cut is None else min(k, cut), lvl) for k in params]
    if name in ("bpref", "gm_bpref"):
        return K.e_bpref(G, lvl, nrel, Rf.num_judged_nonrel)
    raise AssertionError(name)  # pragma: no cover


def _jg_values(run, path, opts, reqs, ctx, qids_wanted):
    """map_avgjg, P_avgjg, Rprec_mult_avgjg: each measure per judgment group, averaged."""
    from .measures import BY_NAME, resolve

    groups = read_qrels_jg(path)
    T = len(qids_wanted)
    sums: dict = {}
    njg = np.zeros(T)
    base = {"map_avgjg": "map", "P_avgjg": "P", "Rprec_mult_avgjg": "Rprec_mult"}
    jg_reqs = [r for r in reqs if r.m.jg]
    for _g, q in groups:
        present = [k for k, qid in enumerate(qids_wanted) if qid in q.topic_index]
        if not present:
            continue
        P = _prepare(run, q, opts, [qids_wanted[k] for k in present])
        inner = [resolve(BY_NAME[base[r.m.name]], r.raw) for r in jg_reqs]
        vals, _ = compute(P, inner, opts, ctx)
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


# ---------------------------------------------------------------------------------------------
# z-scores and printing
# ---------------------------------------------------------------------------------------------


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


def render(reqs: list[Requested], tv: TopicValues, opts: Options, runid: str,
           zs: dict | None) -> str:
    """trec_eval's text for one run."""
    lines: list[str] = []
    qids = tv.qids
    T = len(qids)
    vals = dict(tv.values)
    zflag = zs is not None
    if zflag:
        for r in reqs:
            if r.m.fmt == "str" or r.m.name in ("runid", "num_q"):
                continue
            for name in r.names:
                v = np.asarray(vals[name], np.float64)
                vals[name] = np.array([_zscore(zs, q, name, float(x)) for q, x in zip(qids, v)])
    pz = "Z" if zflag else ""
    if opts.query:
        cols = []  # (name column, formatted values per topic)
        for r in reqs:
            if r.m.summary in ("only", "gmonly"):
                continue
            for name in r.names:
                v = vals[name]
                if r.m.fmt == "str":
                    cols.append((f"{name:<22}", [f"'{x}'" for x in v]))
                elif r.m.fmt == "long" and not zflag:
                    cols.append((f"{name:<22}", [_long(x) for x in np.asarray(v).tolist()]))
                else:
                    cols.append((f"{pz}{name:<22}",
                                 [f"{x:6.4f}" for x in np.asarray(v, np.float64).tolist()]))
        for k, q in enumerate(qids):
            lines.extend(f"{nm}\t{q}\t{fv[k]}" for nm, fv in cols)
    if opts.summary:
        for r in reqs:
            s = r.m.summary
            if s == "none":
                continue
            for name in r.names:
                if r.m.name == "runid":
                    lines.append(f"{name:<22}\tall\t{runid}")
                    continue
                if r.m.name == "num_q":
                    v = float(T)
                elif s == "sum":
                    v = float(np.sum(vals[name]))
                elif s == "gmonly":
                    x = np.maximum(np.asarray(vals[name], np.float64), MIN_GEO_MEAN)
                    v = math.exp(float(np.sum(np.log(x))) / T) if T else 0.0
                else:
                    v = float(np.sum(vals[name])) / T if T else 0.0
                if r.m.fmt == "long" and not zflag:
                    lines.append(f"{name:<22}\tall\t{_long(v)}")
                else:
                    lines.append(f"{pz}{name:<22}\tall\t{v:6.4f}")
    return "".join(x + "\n" for x in lines)


# ---------------------------------------------------------------------------------------------
# main
# ---------------------------------------------------------------------------------------------


def evaluate_file(rel_path, run_path, opts: Options, reqs, qrels=None, zs=None,
                  err=sys.stderr) -> str:
    """Evaluate one results file; returns trec_eval's output text."""
    run = read_run(run_path)
    _warn(run, err)
    runid = run.tags[0] if getattr(run, "tags", None) else run.name
    if opts.rel_format in ("prefs", "qrels_prefs"):
        return _evaluate_prefs(rel_path, run, opts, reqs, runid, zs, err)
    tv = topic_values(rel_path, run, opts, reqs, qrels, err)
    return render(reqs, tv, opts, runid, zs)


def values(argv: list[str], run=None, qrels=None, err=sys.stderr) -> TopicValues:
    """Full-precision per-topic values for trec_eval arguments ``argv`` (qrels-format
    measures only; the run may be given as a parsed :class:`~tiebreak.io.Run`)."""
    opts = parse_args([str(a) for a in argv])
    reqs = mark(opts.measures)
    _check_formats(opts, reqs)
    rel = opts.files[0]
    if qrels is None and opts.rel_format == "qrels":
        qrels = read_qrels(rel)
    return topic_values(rel, run if run is not None else read_run(opts.files[1]), opts, reqs,
                        qrels, err)


def topic_values(rel_path, run, opts: Options, reqs, qrels=None, err=sys.stderr):
    """Per-topic values of one run for qrels / qrels_jg measures (a :class:`TopicValues`)."""
    ctx = Context(num_docs_in_coll=opts.num_docs_in_coll)
    fmt = opts.rel_format
    if fmt == "qrels_jg":
        groups = read_qrels_jg(rel_path)
        all_q = sorted({q for _g, qr in groups for q in qr.topics})
    else:
        all_q = sorted(qrels.topics)  # trec_eval's strcmp order
    wanted = _wanted(all_q, set(run.topics), opts, err)
    values: dict = {}
    notes: list[str] = []
    if fmt == "qrels_jg":
        values.update(_jg_values(run, rel_path, opts, reqs, ctx, wanted))
    else:
        P = _prepare(run, qrels, opts, wanted)
        values, notes = compute(P, reqs, opts, ctx)
        if P.bogus.any():
            for r in reqs:
                for name in r.names:
                    if r.m.name in BOGUS_RESET or r.m.name == "unj":
                        values[name] = np.where(P.bogus, 0.0, values[name])
                    elif r.m.name == "relstring":
                        values[name] = ["" if b else s for s, b in zip(values[name], P.bogus)]
    for n in notes:
        print(f"tiebreak trec_eval: {n}", file=err)
    return TopicValues(wanted, values, notes)


def _wanted(all_q: list[str], run_q: set, opts: Options, err) -> list[str]:
    """Topics evaluated, in trec_eval's order: qrels topics (byte order) that have results,
    plus, with -c, those that do not."""
    if opts.debug_query is not None:
        all_q = [q for q in all_q if q == opts.debug_query]
    missing = [q for q in all_q if q not in run_q]
    if missing and not opts.complete:
        if opts.strict:
            raise TrecEvalError(
                f"tiebreak trec_eval: {len(missing)} qrels topic(s) have no results: "
                + " ".join(missing[:10]) + (" ..." if len(missing) > 10 else "")
                + " (use -c to score them 0, or drop --strict to skip them)", 4)
        shown = " ".join(missing[:10]) + (" ..." if len(missing) > 10 else "")
        print(f"tiebreak trec_eval: warning: {len(missing)} qrels topic(s) without results "
              f"skipped (trec_eval 9 behaviour; -c scores them 0): {shown}", file=err)
        all_q = [q for q in all_q if q in run_q]
    if not all_q:
        raise TrecEvalError("trec_eval: No queries with both results and relevance info", 7)
    return all_q


def _evaluate_prefs(rel_path, run, opts, reqs, runid, zs, err) -> str:
    from . import prefs as PF

    tps = PF.read_prefs(rel_path, opts.rel_format)
    wanted = _wanted(sorted(tps), set(run.topics), opts, err)
    T = len(wanted)
    names = [n for r in reqs if r.m.prefs for n in r.names]
    values = {n: np.zeros(T) for n in names}
    tix = {q: i for i, q in enumerate(run.topics)}
    for k, q in enumerate(wanted):
        if q in tix:
            sel = np.flatnonzero(run.topic == tix[q])
            docnos = [run.docno(i) for i in sel]
            scores = run.score[sel]
            if opts.score_precision == "float32":
                scores = scores.astype(np.float32).astype(np.float64)
            if opts.regime not in ("trec_eval",):
                raise TrecEvalError("tiebreak trec_eval: --regime applies to qrels measures; "
                                    "preference measures use trec_eval order only", 1)
        else:
            docnos, scores = ["ceci_nest_pas_un_docno"], np.array([1.0])
        res = PF.prefs_measures(tps[q], docnos, scores=scores, max_docs=opts.max_docs)
        for n in names:
            values[n][k] = res[n]
    return render(reqs, TopicValues(wanted, values, []), opts, runid, zs)


def _check_formats(opts: Options, reqs) -> None:
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
        m = r.m
        if m.name in ("runid", "num_q"):
            continue
        ok = (m.prefs and fmt in ("prefs", "qrels_prefs")) or (m.jg and fmt == "qrels_jg") or (
            not m.prefs and not m.jg and fmt == "qrels")
        if not ok:
            raise TrecEvalError(
                f"trec_eval: measure '{m.name}' cannot be computed from rel_info format "
                f"'{fmt}'\ntrec_eval: Can't calculate measure '{m.name}'", 4)


HELP = """tiebreak trec_eval: a drop-in replacement for trec_eval 10.0 (same options, same output)

trec_eval [-h] [-q] [-m measure[.params]] [-c] [-n] [-l <num>] [-D debug_level]
   [-N <num>] [-M <num>] [-R rel_format] [-T results_format] [-Z zscores_file]
   rel_info_file results_file [results_file ...]

 -q   per-topic values as well as the summary ('all')
 -m   measure or measure set to print (repeatable): official (default), all_trec, set,
      all_prefs, prefs, qrels_jg, or a measure name with optional parameters after a '.',
      e.g. P.5,10  ndcg_cut.10  ndcg.1=3,2=9  iprec_at_recall..1,.5  utility.2,-1,0,0
 -c   average over every qrels topic; topics without results score 0
 -n   no summary
 -l N relevance level: a document is relevant when its qrels value >= N (default 1)
 -N N number of documents in the collection (utility)
 -M N evaluate only the top N documents of each topic (after sorting)
 -J   evaluate judged documents only (not recommended)
 -R F rel_info format: qrels (default), prefs, qrels_prefs, qrels_jg
 -T F results format: trec_results
 -Z F print z-scores against the 'qid measure mean stddev' lines of F
 -D N[.qid]  debug level (only the qid part is used: evaluate that topic only)
 -v   version    -h  this help
 '-' as a file name reads standard input.

tiebreak additions:
 --regime R           tie regime: trec_eval (default: score desc, docno desc), file,
                      realistic / lower (relevant last inside ties), optimistic / upper
                      (relevant first), expected (exact mean over all orderings of tied
                      documents; sampled, with a note on stderr, for measures without a
                      closed form)
 --score-precision P  float64 (trec_eval 10) or float32 (trec_eval <= 9.0.8, pytrec_eval)
 --strict             a qrels topic without results is an error (default: skipped, warned)
 --samples N, --seed S  sampling for --regime expected (default 1000, 0)
 --jobs N             worker processes when several results files are given (default: CPUs)

Measures (trec_eval 10.0 order):
"""


def _help_text() -> str:
    from .measures import MEASURES

    return HELP + "".join(f"  {m.name:<24}{m.doc}\n" for m in MEASURES)


def _warn(obj, err) -> None:
    """Input warnings of a qrels or run (counted by the readers) on stderr, never stdout."""
    src = getattr(obj, "source", None) or getattr(obj, "name", "")
    for what, n in (getattr(obj, "warnings", None) or {}).items():
        print(f"tiebreak trec_eval: warning: {src}: {what}: {n}", file=err)


def _cpus() -> int:
    import os

    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover
        return os.cpu_count() or 1


_SHARED: tuple | None = None


def _work(path):
    import io

    rel, opts, reqs, qrels, zs = _SHARED
    e = io.StringIO()
    try:
        return evaluate_file(rel, path, opts, reqs, qrels, zs, e), e.getvalue()
    except (TrecEvalError, InputError) as ex:
        return ex, e.getvalue()


def _parallel(rel, runs, opts, reqs, qrels, zs, jobs):
    """Evaluate results files in forked worker processes; yields (text, stderr) in order."""
    import multiprocessing as mp

    global _SHARED
    if "fork" not in mp.get_all_start_methods():  # pragma: no cover
        for p in runs:
            yield _work_inline(rel, p, opts, reqs, qrels, zs)
        return
    _SHARED = (rel, opts, reqs, qrels, zs)
    try:
        with mp.get_context("fork").Pool(min(jobs, len(runs))) as pool:
            for text, msgs in pool.imap(_work, runs):
                if isinstance(text, Exception):
                    raise text
                yield text, msgs
    finally:
        _SHARED = None


def _work_inline(rel, path, opts, reqs, qrels, zs):  # pragma: no cover
    import io

    e = io.StringIO()
    return evaluate_file(rel, path, opts, reqs, qrels, zs, e), e.getvalue()


def main(argv: list[str], out=None, err=None) -> int:
    """Run trec_eval on ``argv`` (without the program name); returns the exit status."""
    out = out or sys.stdout
    err = err or sys.stderr
    try:
        opts = parse_args(argv)
        if opts.help:
            out.write(_help_text())
            return 0
        if opts.version:
            err.write(f"trec_eval version {VERSION}\n")
            return 0
        if len(opts.files) < 2:
            err.write(USAGE)
            return 1
        reqs = mark(opts.measures)
        _check_formats(opts, reqs)
        zs = read_zscores(opts.zscore_file) if opts.zscore_file else None
        rel = opts.files[0]
        qrels = read_qrels(rel) if opts.rel_format == "qrels" else None
        if qrels is not None:
            _warn(qrels, err)
        runs = opts.files[1:]
        jobs = opts.jobs if opts.jobs is not None else min(len(runs), _cpus())
        if jobs > 1 and len(runs) > 1 and "-" not in runs:
            for text, msgs in _parallel(rel, runs, opts, reqs, qrels, zs, jobs):
                err.write(msgs)
                out.write(text)
        else:
            for path in runs:
                out.write(evaluate_file(rel, path, opts, reqs, qrels, zs, err))
        return 0
    except TrecEvalError as e:
        err.write(str(e).rstrip("\n") + "\n")
        return e.status
    except InputError as e:
        err.write(f"trec_eval: {e}\n")
        return 2
