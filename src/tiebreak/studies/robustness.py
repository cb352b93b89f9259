"""Which conclusions survive a change of judgments? Runs scored against two qrels of the same
topics (a second assessor, an LLM's judgments, a shallower pool or a sample of the first): the
system rankings under each, their correlation, the pairs of systems whose order flips, and the
significant differences that become non-significant or reverse, each told apart when it lies
inside a tie range.

Definitions (per measure and regime; A is the reference qrels, B the alternative):

* the rankings: systems by mean score under A and under B; Kendall's tau-b
  (:func:`tiebreak.stats.kendall_tau`), tau_AP of B's ordering against A's
  (:func:`tiebreak.stats.tau_ap`, Yilmaz, Aslam & Robertson, SIGIR 2008) and the extrapolated RBO
  of the two orderings with equal means tied (:func:`tiebreak.stats.rbo`, Webber, Moffat & Zobel,
  TOIS 2010; ``p`` = 0.9);
* a flip: a pair of systems whose means are ordered one way under A and the other way under B
  (a tie under either is not a flip); it is *inside a tie range* when, under A or under B, the
  two systems' mean tie ranges [realistic, optimistic] overlap, so that an ordering of tied
  documents alone could already give either order;
* significance: every pair tested with the chosen paired test and correction
  (:func:`tiebreak.stats.all_pairs`) under each qrels; a pair significant under A is ``lost``
  when not significant under B and ``reversed`` when significant under B in the other direction;
  ``gained``: significant under B only.

Documents judged by one qrels only (``rule``):

* ``nonrel``: each qrels as it is, so an unjudged document is non-relevant (trec_eval's rule);
* ``excluded``: both qrels cut to the documents both judge (topic by topic);
* ``condensed``: each run evaluated on its condensed list for each qrels (Sakai, "Alternatives
  to bpref", SIGIR 2007): the documents that qrels does not judge are removed from the run.

Only the topics of both qrels are evaluated (their order is A's).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..evaluation import Evaluator
from ..io import Qrels, Run
from ..judgments.pool import _qrels_keys_in, condense_run, subset_topics
from ..stats import all_pairs, kendall_tau, rbo, tau_ap

__all__ = ["RULES", "Robustness", "robustness", "common_judged"]

RULES = ("nonrel", "excluded", "condensed")
#: The regimes whose means bound a system's tie range.
RANGE = ("realistic", "optimistic")


def _keep(q: Qrels, mask: np.ndarray, name: str) -> Qrels:
    return Qrels(name, list(q.topics), q.topic[mask], q.docid[mask], q.value[mask], q.keys[mask],
                 q.docnos)


def common_judged(qa: Qrels, qb: Qrels) -> tuple[Qrels, Qrels]:
    """Both qrels (with the same topic list) cut to the (topic, docno) pairs both judge (value
    >= 0). Raises ValueError when the topic lists differ."""
    if list(qa.topics) != list(qb.topics):
        raise ValueError("the two qrels must have the same topics, in the same order")

    def judged_in(x: Qrels, y: Qrels) -> np.ndarray:
        keys, ok = _qrels_keys_in(x, y.docnos)
        return ok & (x.value >= 0) & np.isin(keys, y.keys[y.value >= 0])

    return (_keep(qa, judged_in(qa, qb), f"{qa.name}[judged in both]"),
            _keep(qb, judged_in(qb, qa), f"{qb.name}[judged in both]"))


@dataclass
class Robustness:
    """What :func:`robustness` finds.

    ``summary``: one dict per (measure, regime): systems, pairs, tau, tau_ap, rbo, flips,
    flips_outside_ties, sig_a, sig_b, lost, lost_outside_ties, reversed, gained.
    ``changes``: one dict per pair that flips or changes significance: measure, regime, run_i,
    run_j, mean_a_i, mean_a_j, mean_b_i, mean_b_j, p_a, p_b, change (``flip``, ``lost``,
    ``reversed``, ``gained``, or several joined by ``+``), inside_ties (bool).
    ``rankings``: one dict per (measure, regime, run): mean_a, rank_a, mean_b, rank_b.
    """

    summary: list[dict] = field(default_factory=list)
    changes: list[dict] = field(default_factory=list)
    rankings: list[dict] = field(default_factory=list)
    topics: list[str] = field(default_factory=list)
    rule: str = "nonrel"


def _ranks(m: np.ndarray) -> np.ndarray:
    """Competition ranks, best (largest) first, ties sharing the best rank."""
    return np.array([1 + int(np.sum(m > v)) for v in m])


def _overlap(lo: np.ndarray, hi: np.ndarray, ii: np.ndarray, jj: np.ndarray) -> np.ndarray:
    """Per pair (ii[x], jj[x]): do the two systems' ranges overlap? (``lo`` and ``hi`` are
    put in order first: for a lower-is-better measure realistic is the larger.)"""
    lo, hi = np.fmin(lo, hi), np.fmax(lo, hi)
    return (lo[ii] <= hi[jj]) & (lo[jj] <= hi[ii])


def _ordering_rbo(names, a, b, p) -> float:
    def order(m):
        o = np.argsort(-m, kind="stable")
        return [names[i] for i in o], [float(m[i]) for i in o]
    sa, ga = order(a)
    sb, gb = order(b)
    return rbo(sa, sb, p, S_groups=ga, T_groups=gb).ext


def robustness(qa: Qrels, qb: Qrels, runs: list[Run], measures=None, regimes=("trec_eval",),
               *, rule: str = "nonrel", test: str = "t", correction: str | None = "holm",
               alpha: float = 0.05, p: float = 0.9, jobs: int = 1) -> Robustness:
    """Compare the conclusions runs support under qrels ``qa`` (reference) and ``qb`` (see the
    module docstring).

    Parameters
    ----------
    qa, qb : Qrels
    runs : list of Run (at least 2; names must differ)
    measures : list of str, optional (default ``AP, nDCG@10, P@10``)
    regimes : sequence of str (those of :data:`RANGE` are computed as well)
    rule : one of :data:`RULES`
    test, correction, alpha : the paired test of :func:`tiebreak.stats.all_pairs`, its
        correction (None, ``holm``, ``bh``) and the significance level
    p : RBO persistence

    Returns :class:`Robustness`. Raises ValueError (no common topic, fewer than two runs, bad
    rule, test or correction) and the evaluator's errors.
    """
    if rule not in RULES:
        raise ValueError(f"rule must be one of {', '.join(RULES)}, not {rule!r}")
    if len(runs) < 2:
        raise ValueError("give at least two runs")
    names = [r.name for r in runs]
    if len(set(names)) != len(names):
        raise ValueError(f"two runs share a name: {', '.join(sorted(names))}")
    topics = [t for t in qa.topics if t in set(qb.topics)]
    if not topics:
        raise ValueError(f"{qa.name} and {qb.name} have no topic in common")
    qa, qb = subset_topics(qa, topics), subset_topics(qb, topics)
    if rule == "excluded":
        qa, qb = common_judged(qa, qb)
    measures = list(measures) if measures else ["AP", "nDCG@10", "P@10"]
    regs = list(dict.fromkeys([*regimes, *RANGE]))
    res = []
    for q in (qa, qb):
        rr = [condense_run(r, q) for r in runs] if rule == "condensed" else list(runs)
        res.append(Evaluator(q, measures, regs).evaluate(rr, jobs=jobs))
    ea, eb = res
    out = Robustness(topics=topics, rule=rule)
    lo, hi = regs.index(RANGE[0]), regs.index(RANGE[1])
    ii, jj = np.triu_indices(len(runs), 1)
    for m, mname in enumerate(ea.measures):
        for g in regimes:
            k = regs.index(g)
            ma, mb = ea.mean[:, m, k], eb.mean[:, m, k]
            pa, _ = all_pairs(ea.per_topic[:, m, k], test, correction)
            pb, _ = all_pairs(eb.per_topic[:, m, k], test, correction)
            da, db = np.sign(ma[ii] - ma[jj]), np.sign(mb[ii] - mb[jj])
            flip = da * db < 0
            sa, sb = pa[ii, jj] < alpha, pb[ii, jj] < alpha
            lost = sa & ~sb
            rev = sa & sb & (da * db < 0)
            gained = ~sa & sb
            inside = _overlap(ea.mean[:, m, lo], ea.mean[:, m, hi], ii, jj) | _overlap(
                eb.mean[:, m, lo], eb.mean[:, m, hi], ii, jj)
            ra, rb = _ranks(ma), _ranks(mb)
            for i, n in enumerate(names):
                out.rankings.append({"measure": mname, "regime": g, "run": n,
                                     "mean_a": float(ma[i]), "rank_a": int(ra[i]),
                                     "mean_b": float(mb[i]), "rank_b": int(rb[i])})
            for x in np.flatnonzero(flip | lost | rev | gained):
                kinds = [n for n, f in (("flip", flip), ("lost", lost), ("reversed", rev),
                                        ("gained", gained)) if f[x]]
                i, j = ii[x], jj[x]
                out.changes.append({
                    "measure": mname, "regime": g, "run_i": names[i], "run_j": names[j],
                    "mean_a_i": float(ma[i]), "mean_a_j": float(ma[j]),
                    "mean_b_i": float(mb[i]), "mean_b_j": float(mb[j]),
                    "p_a": float(pa[i, j]), "p_b": float(pb[i, j]), "change": "+".join(kinds),
                    "inside_ties": bool(inside[x])})
            out.summary.append({
                "measure": mname, "regime": g, "systems": len(names), "pairs": int(ii.size),
                "tau": kendall_tau(ma, mb), "tau_ap": tau_ap(ma, mb),
                "rbo": _ordering_rbo(names, ma, mb, p),
                "flips": int(flip.sum()), "flips_outside_ties": int((flip & ~inside).sum()),
                "sig_a": int(sa.sum()), "sig_b": int(sb.sum()), "lost": int(lost.sum()),
                "lost_outside_ties": int((lost & ~inside).sum()), "reversed": int(rev.sum()),
                "gained": int(gained.sum())})
    return out
