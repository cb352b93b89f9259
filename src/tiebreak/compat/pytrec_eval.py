"""pytrec_eval's API on tiebreak: ``RelevanceEvaluator(qrels, measures).evaluate(run)`` giving
``{qid: {measure: value}}``, ``supported_measures``, ``parse_qrel``, ``parse_run``.

Code written for pytrec_eval (Van Gysel & de Rijke, "Pytrec_eval: an extremely fast Python
interface to trec_eval", SIGIR 2018) runs with ``from tiebreak.compat import pytrec_eval``. The
values are those of ``tiebreak trec_eval`` (the drop-in trec_eval 10.0) with pytrec_eval's
conventions: scores read as C ``float`` (pytrec_eval wraps trec_eval 9, which sorts by float32
scores), only the topics the run has, ``gm_map`` / ``gm_bpref`` per topic as
``log(max(value, 1e-5))``. ``regime=`` (default ``trec_eval``) evaluates under another tie regime
and ``score_precision="float64"`` keeps the scores as trec_eval 10 reads them.
"""

from __future__ import annotations

import io
import math
import re

__all__ = ["RelevanceEvaluator", "parse_qrel", "parse_run", "supported_measures"]

#: trec_eval's measure names (pytrec_eval's ``supported_measures``).
supported_measures = frozenset({
    "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
    "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref", "Rprec_mult",
    "utility", "11pt_avg", "binG", "G", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut", "map_cut",
    "relative_P", "success", "set_P", "set_relative_P", "set_recall", "set_map", "set_F",
    "num_nonrel_judged_ret", "runid", "num_q",
})
_NOT_NUMBERS = ("runid", "num_q", "relstring")


def _shape(d, run: bool):
    """pytrec_eval's type checks of a ``{qid: {docno: value}}`` argument, with its TypeError
    messages (a bytes qid is refused, never read as ``"b'1'"``); booleans are read as the
    numbers 0 and 1, as pytrec_eval reads them. Returns the dict to read."""
    if not isinstance(d, dict):
        raise TypeError("Unable to extract query/object scores." if run else
                        "Expected dictionary as first argument.")
    out = {}
    for q, inner in d.items():
        if not isinstance(q, str):
            raise TypeError("Unable to extract query/object scores." if run else
                            "Expected string as key.")
        if not isinstance(inner, dict):
            raise TypeError("Unable to extract query/object scores." if run else
                            "Expected mapping of document id to query relevance or matching "
                            "score.")
        row = {}
        for doc, v in inner.items():
            if not isinstance(doc, str):
                raise TypeError("Unable to extract query/object scores." if run else
                                "Expected string as key.")
            if run and not isinstance(v, int | float):
                raise TypeError("Unable to extract query/object scores.")
            if not run and not isinstance(v, int):
                raise TypeError("Expected relevance to be integer.")
            row[doc] = int(v) if isinstance(v, bool) else v
        out[q] = row
    return out
_LOG = ("gm_map", "gm_bpref")


def parse_qrel(f) -> dict:
    """``{qid: {docno: relevance}}`` from an open text file of qrels (``qid iter docno rel``)."""
    out: dict = {}
    for line in f:
        p = line.split()
        if p:
            out.setdefault(p[0], {})[p[2]] = int(p[3])
    return out


def parse_run(f) -> dict:
    """``{qid: {docno: score}}`` from an open text file of a TREC run."""
    out: dict = {}
    for line in f:
        p = line.split()
        if p:
            out.setdefault(p[0], {})[p[2]] = float(p[4])
    return out


class RelevanceEvaluator:
    """Evaluate runs against fixed qrels with trec_eval measures.

    Parameters
    ----------
    query_relevance : dict ``{qid: {docno: int}}`` (or anything
        :func:`tiebreak.io.inputs.as_qrels` reads)
    measures : iterable of str
        trec_eval names: ``map``, ``ndcg``, ``P`` (all its cutoffs), ``P.5,10`` or ``P_5``,
        ``ndcg_cut.10``, ``recall.1000`` ... (:data:`supported_measures`).
    relevance_level : int
        Minimum relevance counted as relevant (trec_eval ``-l``).
    judged_docs_only_flag : bool
        Drop unjudged documents first (trec_eval ``-J``).
    regime : str
        Tie regime (``trec_eval``, ``expected``, ``realistic``, ...).
    score_precision : {"float32", "float64"}

    Raises
    ------
    ValueError
        An unknown measure (the message of ``tiebreak trec_eval -m``).
    TypeError
        Keys that are not strings or relevance values that are not integers (as pytrec_eval).
    tiebreak.io.InputError
        Other bad qrels.
    """

    def __init__(self, query_relevance, measures, relevance_level: int = 1,
                 judged_docs_only_flag: bool = False, *, regime: str = "trec_eval",
                 score_precision: str = "float32"):
        from ..io.inputs import as_qrels

        if isinstance(query_relevance, dict):
            _check_keys(query_relevance, "query_relevance")
            for q, docs in query_relevance.items():   # pytrec_eval: integer relevance only
                for doc, rel in docs.items():
                    if not isinstance(rel, int):
                        raise TypeError(f"query_relevance: topic {q!r}, docno {doc!r}: "
                                        f"relevance {rel!r} is not an integer")
        self.qrels = as_qrels(query_relevance) if query_relevance else None
        ms = [measures] if isinstance(measures, str) else sorted(measures)
        self.measures = _merged([_dotted(m) for m in ms])
        self.args = [a for m in self.measures for a in ("-m", m)] + [
            f"-l{int(relevance_level)}", "--score-precision", score_precision,
            "--regime", regime, "-c"]
        if judged_docs_only_flag:
            self.args.append("-J")
        if self.qrels is not None and self.measures:
            self._values({"ceci_nest_pas_un_topic": {"d": 0.0}})  # check the measures now

    def evaluate(self, scores) -> dict:
        """``{qid: {measure: value}}`` for the qrels topics ``scores`` (a run ``{qid: {docno:
        score}}``) has, a topic with an empty ranking included (scored as trec_eval ``-c``
        scores a topic without results); ``{}`` when it has none.

        Raises
        ------
        TypeError
            A query id or docno that is not a str (pytrec_eval raises TypeError too).
        """
        if isinstance(scores, dict):
            _check_keys(scores, "scores")
            if self.qrels is None:
                return {}
            qt = set(self.qrels.topics)
            wanted = [q for q in scores if q in qt]
            if not wanted or not self.measures:
                return {q: {} for q in wanted}
            run = {q: scores[q] for q in wanted if scores[q]}
            return {q: v for q, v in self._values(
                run or {"ceci_nest_pas_un_topic": {"d": 0.0}}).items() if q in wanted}
        if self.qrels is None or not self.measures:
            return {}
        return self._values(scores)

    def _values(self, scores) -> dict:
        from ..io.inputs import as_run
        from ..trec_eval.evaluate import values
        from ..trec_eval.options import TrecEvalError

        scores = _shape(scores, run=True)
        run = as_run(scores)
        try:
            tv = values(self.args + ["qrels", "run"], run=run, qrels=self.qrels,
                        err=io.StringIO())
        except TrecEvalError as e:
            raise ValueError(str(e)) from None
        out: dict = {}
        for i, q in enumerate(tv.qids):
            row = {}
            for name, v in tv.values.items():
                if name in _NOT_NUMBERS or isinstance(v, list) or not _in_trec_eval_9(name):
                    continue
                x = float(v[i])
                row[name] = math.log(max(x, 1e-5)) if name in _LOG else x
            for name in _NOT_NUMBERS:  # pytrec_eval's placeholders for what is not a number
                if name in self.measures or "all_trec" in self.measures or (
                        name != "relstring" and {"set", "official"} & set(self.measures)):
                    row[name] = 1.0 if name == "num_q" else 0.0
            out[q] = row
        return out


def _check_keys(d: dict, what: str) -> None:
    """pytrec_eval takes str query ids and docnos only (TypeError otherwise)."""
    for q, docs in d.items():
        if not isinstance(q, str):
            raise TypeError(f"{what}: query id {q!r} is a {type(q).__name__}, not a str")
        if not isinstance(docs, dict):
            raise TypeError(f"{what}[{q!r}] must be a dict {{docno: value}}, not "
                            f"{type(docs).__name__}")
        for d_ in docs:
            if not isinstance(d_, str):
                raise TypeError(f"{what}[{q!r}]: docno {d_!r} is a {type(d_).__name__}, "
                                "not a str")


def _in_trec_eval_9(name: str) -> bool:
    """A printed measure of pytrec_eval's trec_eval 9 (``all_trec`` of trec_eval 10 adds
    ``rbp``, ``rbp_resid``, ``unj_k``)."""
    return name in supported_measures or any(
        name.startswith(s + "_") and name[len(s) + 1:][:1].isdigit() for s in supported_measures)


def _merged(names: list[str]) -> list[str]:
    """pytrec_eval's reading of a measure named more than once: the union of the parameter
    lists given (``ndcg_cut.1,4`` and ``ndcg_cut.15`` -> ``ndcg_cut.1,4,15``); a bare name
    (the default list) only when no list is given."""
    lists: dict = {}
    for n in names:
        base, dot, params = n.partition(".")
        cur = lists.setdefault(base, [])
        if dot:
            cur.extend(p for p in params.split(",") if p and p not in cur)
    return [b + ("." + ",".join(ps) if ps else "") for b, ps in lists.items()]


def _dotted(name: str) -> str:
    """pytrec_eval's ``ndcg_cut_15`` / ``P_5,10`` spelling as trec_eval's ``ndcg_cut.15``."""
    m = re.fullmatch(r"(\w+?)_([0-9][0-9.,]*)", name)
    return f"{m.group(1)}.{m.group(2)}" if m and m.group(1) in supported_measures else name
