"""Judgment pools: fixed-depth pooling, simulated shallow pools, sampled and targeted pools.

A *pool* is, per topic, the set of documents sent to the assessors. Given deep qrels, a
shallower pool is *simulated* by keeping only the judgments of pooled documents (Zobel 1998;
Lu 2018, Section 2.4.1): every other document becomes unjudged.

Methods (Lu 2018, Section 2.4.1; Table 2.3):

``depth``
    Fixed-depth ("top-d") pooling: the union of the top ``d`` documents of every contributing run.
``uniform``
    A uniform random sample (without replacement, seeded) of ``rate`` of the depth-``dmax`` pool.
``two-strata``
    Voorhees (2014): stratum 1 is the depth-``d`` pool, judged in full; stratum 2 a uniform
    sample of ``floor(rate * |C|)`` of the candidates ``C`` at ranks ``d+1..dmax`` of the
    contributing runs that are not in stratum 1. Unsampled candidates are "pooled but unjudged".
``A``, ``B``, ``C``
    Targeted judgments (Moffat, Webber & Zobel 2007, "Strategic system comparisons via targeted
    relevance judgments", SIGIR): each candidate document D of a topic gets a contribution
    score and the ``budget`` documents with the highest scores are judged, greedily one at a
    time. With the RBP weight ``W(k) = (1 - p) p^(k-1)`` and ``k_{D,i}`` the rank of D in run
    i (weight 0 when absent or deeper than ``dmax``):

    * A: ``sum_i W(k_{D,i})``;
    * B: ``sum_i W(k_{D,i}) * Delta_i``, with ``Delta_i`` the weight of run i still unjudged;
    * C: ``sum_i W(k_{D,i}) * Delta_i * (Base_i + Delta_i)^(3/2)``, with ``Base_i`` the RBP
      score of run i on the documents judged so far. C needs the assessor's answers as it goes;
      here the given qrels play the assessor (a document they do not judge counts as
      non-relevant), so C is only available as a simulation from deep qrels.

    The budget defaults to the size of the depth-``d`` pool of the same topic, so that the
    methods are compared at equal judging effort. Ties in the contribution score are broken by
    docno ascending (byte order), so the result is deterministic.
``mtf``
    Move-to-front pooling (Cormack, Palmer & Clarke, "Efficient construction of large test
    collections", SIGIR 1998, pp. 282-289): every run has a priority (initially 0); the run of
    highest priority (the first in run order among equals) sends its next not yet judged
    document (in rank order, to ``dmax``) to the assessor; a non-relevant answer lowers that run's
    priority by 1. So a run is followed while it keeps finding relevant documents and then goes
    to the back of the queue. The given qrels play the assessor (a document they do not judge
    counts as non-relevant); stops after ``budget`` documents per topic or when every run is
    exhausted.
``isj-sim``
    A simulation of interactive searching and judging (Cormack et al. 1998; Lu 2018 Section
    2.4.1) from deep qrels, in which the runs stand in for the searcher's queries: documents are
    judged in batches of ``step``; each batch is the ``step`` unjudged candidates with the largest
    ``sum_i q_i W(k_{D,i})``, where ``W`` is the RBP weight and ``q_i = (1 + rel_i) / (2 +
    judged_i)`` is the current estimate of run i's precision (its relevant and judged documents
    so far, a Beta(1, 1) posterior mean). The qrels play the assessor; equal scores go by docno
    ascending. A simulation, not the human process: the searcher's own queries are not modelled.

The pool depth that bounds the RBP residual (Moffat & Zobel 2008; Lu 2018 Section 2.5):
:func:`residual_depth`.

Ties in the run order. Which documents are "the top d" of a run depends on how tied scores are
ordered. ``order="trec_eval"`` (default) uses trec_eval's order (score descending, then docno
descending); ``order="file"`` keeps the run-file line order (NTCIR tools; Lu 2018 Section 5.3.3);
``order="include"`` uses trec_eval's order but, when a tied group of scores straddles rank d,
pools the whole group. Pooling and evaluation must break ties the same way; every straddling
group is counted in :attr:`Pool.boundary_ties` so that it is reported, never silent.

Size: one module because every pooling method (depth, simulated shallow, sampled, targeted) writes
the same pool structure and shares the run-ordering helpers.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..io import Qrels, Run, natural_key

__all__ = [
    "ORDERS",
    "METHODS",
    "RunLists",
    "Pool",
    "run_lists",
    "pool_depth",
    "pool_uniform",
    "pool_two_strata",
    "pool_targeted",
    "pool_mtf",
    "pool_isj_sim",
    "residual_depth",
    "make_pool",
    "pool_relevant_counts",
    "restrict_qrels",
    "topics_only_qrels",
    "infer_contributing",
    "write_qrels",
    "subset_topics",
    "parse_topics",
    "condense_run",
]

ORDERS = ("trec_eval", "file", "include")
METHODS = ("depth", "uniform", "two-strata", "A", "B", "C", "mtf", "isj-sim")


@dataclass
class RunLists:
    """The ranked lists of several runs on the qrels topics, in one flat table.

    All per-position arrays have shape (n,) and are sorted by (run, topic, rank).

    Attributes
    ----------
    names : list[str]
        Run names, shape (n_runs,).
    topics : list[str]
        Topic ids (those of the qrels the lists were built against), shape (n_topics,).
    docnos : ndarray, str, shape (n_docs,)
        Every docno of the runs and of the qrels, sorted (byte order).
    run, topic, rank, doc : ndarray int64
        Run index, topic index, 1-based rank in the chosen order, index into ``docnos``.
    score : ndarray float64
        Retrieval score.
    group : ndarray int64
        Tied-score group id (equal run, topic and score share an id).
    order : str
        The tie order the ranks follow (``trec_eval`` or ``file``; ``include`` ranks like
        ``trec_eval`` and pools whole tied groups at the boundary).
    """

    names: list[str]
    topics: list[str]
    docnos: np.ndarray
    run: np.ndarray
    topic: np.ndarray
    rank: np.ndarray
    doc: np.ndarray
    score: np.ndarray
    group: np.ndarray
    order: str

    @property
    def n_runs(self) -> int:
        return len(self.names)

    def key(self) -> np.ndarray:
        """``topic << 32 | doc`` per position, int64 shape (n,)."""
        return (self.topic << 32) | self.doc


def topics_only_qrels(runs: list[Run]) -> Qrels:
    """An empty :class:`~tiebreak.io.Qrels` whose topics are those of the runs (natural order);
    used to pool runs when no judgments exist yet."""
    ts = sorted({t for r in runs for t in r.topics}, key=natural_key)
    z = np.zeros(0, np.int64)
    return Qrels("<none>", ts, z, z.copy(), z.copy(), z.copy(), np.zeros(0, dtype="U1"))


def run_lists(runs: list[Run], qrels: Qrels, order: str = "trec_eval") -> RunLists:
    """Put runs in ranked order on the qrels topics (lines of other topics are left out).

    Parameters
    ----------
    runs : list of Run
    qrels : Qrels
        Only its topics are used (an empty qrels from :func:`topics_only_qrels` works).
    order : {"trec_eval", "file", "include"}
        ``include`` ranks like ``trec_eval``.

    Raises
    ------
    ValueError
        Unknown order or no runs.
    """
    from ..ranking import judge, orderings

    if order not in ORDERS:
        raise ValueError(f"unknown tie order {order!r}; choose from {', '.join(ORDERS)}")
    if not runs:
        raise ValueError("no runs")
    regime = "file" if order == "file" else "trec_eval"
    vocab = np.unique(np.concatenate([r.docnos for r in runs] + [qrels.docnos]))
    cols: dict[str, list] = {k: [] for k in ("run", "topic", "rank", "doc", "score", "group")}
    gbase = 0
    for i, r in enumerate(runs):
        J = judge(r, qrels)
        O = orderings(J)
        o = O.order(regime)
        gmap = np.searchsorted(vocab, r.docnos)
        n = len(o)
        cols["run"].append(np.full(n, i, np.int64))
        cols["topic"].append(O.topic)
        cols["rank"].append(O.rank)
        cols["doc"].append(gmap[J.docrank[o]])
        cols["score"].append(J.score[o])
        # group id of each line (O.group is indexed by score_order position)
        g_line = np.empty(n, np.int64)
        g_line[O.score_order] = O.group
        cols["group"].append(g_line[o] + gbase)
        gbase += int(O.group.max()) + 1 if n else 0
    cat = {k: (np.concatenate(v) if v else np.zeros(0)) for k, v in cols.items()}
    return RunLists([r.name for r in runs], list(qrels.topics), vocab, cat["run"].astype(np.int64),
                    cat["topic"].astype(np.int64), cat["rank"].astype(np.int64),
                    cat["doc"].astype(np.int64), cat["score"].astype(np.float64),
                    cat["group"].astype(np.int64), order)


@dataclass
class Pool:
    """A judgment pool.

    Attributes
    ----------
    topics : list[str]
        Topic ids, shape (n_topics,).
    docnos : ndarray, str
        Docno vocabulary (that of the :class:`RunLists`).
    keys : ndarray int64, shape (m,)
        Sorted ``topic << 32 | doc`` of the documents to judge.
    method, depth : str, int
        How the pool was built.
    contributing : list[str]
        Runs whose lists formed the pool.
    pooled_unjudged : ndarray int64
        Sorted keys of candidates that were pooled but not sampled (two-strata, uniform).
    boundary_ties : dict[str, int]
        ``groups``: (run, topic) pairs whose tied group straddles rank ``depth``; ``inside`` /
        ``outside``: documents of those groups at ranks ``<= depth`` / ``> depth``;
        ``added``: documents pooled only because ``order="include"`` took the whole group.
    """

    topics: list[str]
    docnos: np.ndarray
    keys: np.ndarray
    method: str
    depth: int
    contributing: list[str]
    pooled_unjudged: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    boundary_ties: dict = field(default_factory=dict)

    def per_topic(self) -> np.ndarray:
        """Pooled documents per topic, int64 shape (n_topics,)."""
        return np.bincount(self.keys >> 32, minlength=len(self.topics))

    def __len__(self) -> int:
        return len(self.keys)


def _select_runs(L: RunLists, contributing) -> np.ndarray:
    """Boolean (n,) mask of positions that belong to contributing runs."""
    if contributing is None:
        return np.ones(len(L.run), bool)
    idx = [L.names.index(c) if isinstance(c, str) else int(c) for c in contributing]
    m = np.zeros(L.n_runs, bool)
    m[idx] = True
    return m[L.run]


def _contrib_names(L: RunLists, contributing) -> list[str]:
    if contributing is None:
        return list(L.names)
    return [c if isinstance(c, str) else L.names[int(c)] for c in contributing]


def boundary_ties(L: RunLists, depth: int, mask: np.ndarray | None = None) -> dict:
    """Tied groups that straddle rank ``depth`` (see :attr:`Pool.boundary_ties`)."""
    m = np.ones(len(L.run), bool) if mask is None else mask
    g, top = L.group[m], L.rank[m] <= depth
    if not len(g):
        return {"groups": 0, "inside": 0, "outside": 0}
    ng = int(g.max()) + 1
    ins = np.bincount(g, weights=top, minlength=ng)
    out = np.bincount(g, weights=~top, minlength=ng)
    s = (ins > 0) & (out > 0)
    return {"groups": int(s.sum()), "inside": int(ins[s].sum()), "outside": int(out[s].sum())}


def _depth_mask(L: RunLists, depth: int, order: str, mask: np.ndarray) -> np.ndarray:
    top = (L.rank <= depth) & mask
    if order == "include":
        hit = np.zeros(int(L.group.max()) + 1 if len(L.group) else 0, bool)
        hit[L.group[top]] = True
        top = hit[L.group] & mask
    return top


def pool_depth(L: RunLists, depth: int, contributing=None, order: str | None = None) -> Pool:
    """Fixed-depth pool: union over contributing runs of their top ``depth`` documents.

    Parameters
    ----------
    L : RunLists
    depth : int
        Pool depth d >= 1.
    contributing : list of str or int, optional
        Run names (or indices) that contribute; default all.
    order : {"trec_eval", "file", "include"}, optional
        Default: the order ``L`` was built with. ``include`` pools whole tied groups that
        straddle rank d.

    Raises
    ------
    ValueError
        depth < 1, unknown run name.
    """
    if depth < 1:
        raise ValueError(f"pool depth must be >= 1, got {depth}")
    order = order or L.order
    m = _select_runs(L, contributing)
    top = _depth_mask(L, depth, order, m)
    keys = np.unique(L.key()[top])
    bt = boundary_ties(L, depth, m)
    bt["added"] = int((top & (L.rank > depth)).sum())
    return Pool(L.topics, L.docnos, keys, "depth", depth, _contrib_names(L, contributing),
                boundary_ties=bt)


def pool_uniform(L: RunLists, rate: float, dmax: int = 100, contributing=None,
                 seed: int = 0) -> Pool:
    """Uniform sample of ``floor(rate * |P_t|)`` documents of each topic's depth-``dmax`` pool
    ``P_t`` (without replacement, ``numpy.random.default_rng(seed)``); the rest of the pool is
    pooled but unjudged. Raises ValueError for rate outside (0, 1]."""
    if not 0 < rate <= 1:
        raise ValueError(f"sampling rate must be in (0, 1], got {rate}")
    full = pool_depth(L, dmax, contributing)
    rng = np.random.default_rng(seed)
    keep = []
    for t in range(len(L.topics)):
        cand = full.keys[(full.keys >> 32) == t]
        k = int(np.floor(rate * len(cand)))
        keep.append(np.sort(rng.choice(cand, size=k, replace=False)) if k else cand[:0])
    keys = np.unique(np.concatenate(keep)) if keep else np.zeros(0, np.int64)
    return Pool(L.topics, L.docnos, keys, "uniform", dmax, full.contributing,
                np.setdiff1d(full.keys, keys), full.boundary_ties)


def pool_two_strata(L: RunLists, depth: int, rate: float = 0.1, dmax: int = 100,
                    contributing=None, seed: int = 0) -> Pool:
    """Two-strata pool (Voorhees 2014; Lu 2018 Section 2.4.1): the depth-``depth`` pool plus a
    uniform sample of ``floor(rate * |C_t|)`` of the candidates ``C_t`` at ranks
    ``depth+1..dmax`` not in stratum 1 (per topic, seeded). Raises ValueError on bad rates or
    ``dmax <= depth``."""
    if not 0 < rate <= 1:
        raise ValueError(f"sampling rate must be in (0, 1], got {rate}")
    if dmax <= depth:
        raise ValueError(f"the sampling depth ({dmax}) must exceed the pool depth ({depth})")
    s1 = pool_depth(L, depth, contributing)
    full = pool_depth(L, dmax, contributing)
    cand_all = np.setdiff1d(full.keys, s1.keys)
    rng = np.random.default_rng(seed)
    keep = [s1.keys]
    for t in range(len(L.topics)):
        cand = cand_all[(cand_all >> 32) == t]
        k = int(np.floor(rate * len(cand)))
        if k:
            keep.append(rng.choice(cand, size=k, replace=False))
    keys = np.unique(np.concatenate(keep))
    return Pool(L.topics, L.docnos, keys, "two-strata", depth, s1.contributing,
                np.setdiff1d(cand_all, keys), s1.boundary_ties)


def _budgeted_lines(L: RunLists, contributing, dmax: int, depth: int, budget):
    """The lines the judged-as-you-go pools (targeted A/B/C, move-to-front, ISJ simulation)
    draw from: the contributing runs' lines to rank ``dmax`` (bool (n,)); and the judgments
    per topic (int64 (n_topics,)): ``budget``, by default each topic's depth-``depth`` pool."""
    m = _select_runs(L, contributing) & (L.rank <= dmax)
    if budget is None:
        budget = pool_depth(L, depth, contributing).per_topic()
    return m, np.broadcast_to(np.asarray(budget, dtype=np.int64), (len(L.topics),))


def pool_targeted(L: RunLists, method: str, budget=None, depth: int = 10, p: float = 0.8,
                  dmax: int = 1000, contributing=None, qrels: Qrels | None = None) -> Pool:
    """Targeted judgments, method ``A``, ``B`` or ``C`` (see the module docstring).

    Parameters
    ----------
    budget : int or ndarray (n_topics,), optional
        Documents to judge per topic; default the size of the depth-``depth`` pool per topic.
    p : float
        RBP persistence of the weights.
    dmax : int
        Ranks deeper than ``dmax`` carry no weight.
    qrels : Qrels
        The assessor for method C (required for C; documents it does not judge count 0).

    Raises
    ------
    ValueError
        Unknown method, p outside (0, 1), or method C without qrels.
    """
    from scipy import sparse

    if method not in ("A", "B", "C"):
        raise ValueError(f"targeted method must be A, B or C, got {method!r}")
    if not 0 < p < 1:
        raise ValueError(f"p must be in (0, 1), got {p}")
    if method == "C" and qrels is None:
        raise ValueError("method C needs qrels to play the assessor")
    m, budget = _budgeted_lines(L, contributing, dmax, depth, budget)
    names = _contrib_names(L, contributing)
    gain = _binary_gains(qrels, L) if method == "C" else None
    run_ids = np.unique(L.run[m])
    chosen = []
    for t, docs, col, rows, w in _rbp_lines(L, m, run_ids, p):
        W = sparse.csr_matrix((w, (col, rows)), shape=(len(docs), len(run_ids)))
        delta = np.asarray(W.sum(axis=0)).ravel()  # unjudged weight of each run
        base = np.zeros(len(run_ids))
        taken = np.zeros(len(docs), bool)
        g = gain[t][docs] if gain is not None else None
        k = min(int(budget[t]), len(docs))
        if method == "A":  # static contributions: the k largest, docno ascending among equals
            score = np.asarray(W.sum(axis=1)).ravel()
            taken[np.lexsort((docs, -score))[:k]] = True
        for _ in range(k if method != "A" else 0):
            factor = delta if method == "B" else delta * np.power(np.maximum(base + delta, 0),
                                                                   1.5)
            score = W @ factor
            score[taken] = -np.inf
            j = int(np.argmax(score))  # first maximum = smallest docno among equals
            taken[j] = True
            row = W.getrow(j)
            delta[row.indices] -= row.data
            if g is not None:
                base[row.indices] += row.data * g[j]
        chosen.append((t << 32) | docs[taken])
    keys = np.unique(np.concatenate(chosen)) if chosen else np.zeros(0, np.int64)
    return Pool(L.topics, L.docnos, keys, method, depth, names)


def contributing_runs(names, contributing=None) -> list[str]:
    """The contributing run names of a pooling study: ``contributing`` (default: every name in
    ``names``), each among ``names`` and at least two. Raises ValueError otherwise."""
    contributing = list(names) if contributing is None else list(contributing)
    unknown = [c for c in contributing if c not in names]
    if unknown:
        raise ValueError(f"contributing runs not among the runs: {', '.join(unknown[:5])}")
    if len(contributing) < 2:
        raise ValueError("the study needs at least 2 contributing runs")
    return contributing


def _rbp_lines(L: RunLists, m: np.ndarray, run_ids: np.ndarray, p: float):
    """Per topic with lines selected by ``m``: ``(t, docs, col, rows, w)`` -- the topic's
    distinct documents (sorted), each line's column in ``docs`` and row in ``run_ids``, and its
    rank-biased weight ``(1 - p) p^(rank - 1)`` (Moffat & Zobel, ACM TOIS 27(1), 2008)."""
    for t in range(len(L.topics)):
        sel = m & (L.topic == t)
        if not sel.any():
            continue
        docs, col = np.unique(L.doc[sel], return_inverse=True)
        yield (t, docs, col, np.searchsorted(run_ids, L.run[sel]),
               (1 - p) * p ** (L.rank[sel] - 1.0))


def _binary_gains(qrels: Qrels, L: RunLists) -> list[np.ndarray]:
    """Per topic, a float array over L.docnos: 1 for judged relevant (value >= 1), else 0."""
    out = [np.zeros(len(L.docnos)) for _ in L.topics]
    tix = {q: i for i, q in enumerate(L.topics)}
    rel = qrels.value >= 1
    pos = np.searchsorted(L.docnos, qrels.docnos[qrels.docid[rel]])
    for q, d in zip(qrels.topic[rel], pos):
        t = tix.get(qrels.topics[q])
        if t is not None and d < len(L.docnos):
            out[t][d] = 1.0
    return out


def residual_depth(eps: float, p: float) -> int:
    """The smallest pool depth d whose RBP(p) residual ``p^d`` (binary gain, every contributing
    run judged to d) is below ``eps``: ``d = floor(ln eps / ln p) + 1`` (Moffat & Zobel, "Rank-
    biased precision for measurement of retrieval effectiveness", ACM TOIS 27(1), 2008; Lu 2018
    Section 2.5, whose ``d ~ 9.21 / (1 - p)`` for eps = 1e-4 uses ``ln p ~ -(1 - p)``).

    Raises ValueError for eps outside (0, 1) or p outside (0, 1)."""
    import math

    if not 0 < eps < 1:
        raise ValueError(f"the residual bound must be in (0, 1), got {eps}")
    if not 0 < p < 1:
        raise ValueError(f"p must be in (0, 1), got {p}")
    return int(math.floor(math.log(eps) / math.log(p))) + 1


def _topic_matrix(L: RunLists, t: int, m: np.ndarray):
    """(docs, run order, lists): the sorted doc ids of topic t and, per contributing run (in
    run-index order), its doc-position indices in rank order."""
    sel = m & (L.topic == t)
    docs, col = np.unique(L.doc[sel], return_inverse=True)
    runs = L.run[sel]
    order = np.lexsort((L.rank[sel], runs))
    lists = [col[order][runs[order] == r] for r in np.unique(runs)]
    return docs, lists


def pool_mtf(L: RunLists, qrels: Qrels, budget=None, depth: int = 10, dmax: int = 100,
             contributing=None) -> Pool:
    """Move-to-front pool (Cormack, Palmer & Clarke 1998; see the module docstring).

    Parameters
    ----------
    qrels : Qrels
        The assessor (documents it does not judge, or judges < 1, count as non-relevant).
    budget : int or ndarray (n_topics,), optional
        Judgments per topic; default the size of the depth-``depth`` pool of the topic.
    dmax : int
        Deepest rank of a run that is ever sent to the assessor.

    Raises
    ------
    ValueError
        Negative budget.
    """
    m, budget = _budgeted_lines(L, contributing, dmax, depth, budget)
    if (budget < 0).any():
        raise ValueError("the judging budget must be >= 0")
    gain = _binary_gains(qrels, L)
    chosen = []
    for t in range(len(L.topics)):
        docs, lists = _topic_matrix(L, t, m)
        if not len(docs):
            continue
        rel = gain[t][docs] > 0
        judged = np.zeros(len(docs), bool)
        prio = np.zeros(len(lists), np.int64)
        nxt = np.zeros(len(lists), np.int64)
        left = min(int(budget[t]), len(docs))
        while left > 0:
            live = np.array([nxt[i] < len(lst) for i, lst in enumerate(lists)])
            if not live.any():
                break
            i = int(np.argmax(np.where(live, prio, np.iinfo(np.int64).min)))
            lst = lists[i]
            while nxt[i] < len(lst) and judged[lst[nxt[i]]]:
                nxt[i] += 1  # already judged: costs nothing
            if nxt[i] >= len(lst):
                continue
            j = lst[nxt[i]]
            nxt[i] += 1
            judged[j] = True
            left -= 1
            if not rel[j]:
                prio[i] -= 1
        chosen.append((t << 32) | docs[judged])
    keys = np.unique(np.concatenate(chosen)) if chosen else np.zeros(0, np.int64)
    return Pool(L.topics, L.docnos, keys, "mtf", depth, _contrib_names(L, contributing))


def pool_isj_sim(L: RunLists, qrels: Qrels, budget=None, depth: int = 10, dmax: int = 100,
                 p: float = 0.8, step: int = 10, contributing=None) -> Pool:
    """Simulated interactive searching and judging (see the module docstring).

    Parameters
    ----------
    qrels : Qrels
        The assessor (deep judgments).
    budget : int or ndarray (n_topics,), optional
        Judgments per topic; default the size of the depth-``depth`` pool of the topic.
    p : float
        RBP persistence of the rank weights.
    step : int
        Documents judged between two updates of the run estimates.

    Raises
    ------
    ValueError
        step < 1 or p outside (0, 1).
    """
    if step < 1:
        raise ValueError(f"step must be >= 1, got {step}")
    if not 0 < p < 1:
        raise ValueError(f"p must be in (0, 1), got {p}")
    m, budget = _budgeted_lines(L, contributing, dmax, depth, budget)
    gain = _binary_gains(qrels, L)
    run_ids = np.unique(L.run[m])
    chosen = []
    for t, docs, col, rows, w in _rbp_lines(L, m, run_ids, p):
        W = np.zeros((len(docs), len(run_ids)))
        W[col, rows] = w
        inrun = W > 0
        rel = gain[t][docs] > 0
        judged = np.zeros(len(docs), bool)
        left = min(int(budget[t]), len(docs))
        while left > 0:
            nj = inrun[judged].sum(axis=0)
            nr = inrun[judged & rel].sum(axis=0)
            q = (1.0 + nr) / (2.0 + nj)
            score = np.where(judged, -np.inf, W @ q)
            take = np.lexsort((docs, -score))[: min(step, left)]
            judged[take] = True
            left -= len(take)
        chosen.append((t << 32) | docs[judged])
    keys = np.unique(np.concatenate(chosen)) if chosen else np.zeros(0, np.int64)
    return Pool(L.topics, L.docnos, keys, "isj-sim", depth, _contrib_names(L, contributing))


def make_pool(L: RunLists, method: str = "depth", depth: int = 10, contributing=None,
              rate: float = 0.1, dmax: int = 100, seed: int = 0, budget=None, p: float = 0.8,
              qrels: Qrels | None = None) -> Pool:
    """Dispatch to the pool builders by ``method`` (one of :data:`METHODS`); ``mtf`` and
    ``isj-sim`` need ``qrels`` (the simulated assessor)."""
    if method in ("mtf", "isj-sim"):
        if qrels is None:
            raise ValueError(f"method {method} needs qrels to play the assessor")
        if method == "mtf":
            return pool_mtf(L, qrels, budget, depth, dmax, contributing)
        return pool_isj_sim(L, qrels, budget, depth, dmax, p, contributing=contributing)
    if method == "depth":
        return pool_depth(L, depth, contributing)
    if method == "uniform":
        return pool_uniform(L, rate, dmax, contributing, seed)
    if method == "two-strata":
        return pool_two_strata(L, depth, rate, dmax, contributing, seed)
    if method in ("A", "B", "C"):
        return pool_targeted(L, method, budget, depth, p, max(dmax, depth), contributing, qrels)
    raise ValueError(f"unknown pool method {method!r}; choose from {', '.join(METHODS)}")


def pool_relevant_counts(L: RunLists, qrels: Qrels, k: int, contributing=None) -> np.ndarray:
    """``R_k`` per topic: the relevant documents (value >= 1 in ``qrels``) in the depth-k pool of
    the contributing runs, int64 (n_topics,) over ``L.topics`` (Lu 2018 Eq. 2.33, the normaliser
    of AP_c@k)."""
    P = pool_depth(L, k, contributing)
    keys, ok = _qrels_keys_in(qrels, L.docnos)
    rel = keys[ok & (qrels.value >= 1)]
    hit = P.keys[np.isin(P.keys, rel)]
    return np.bincount(hit >> 32, minlength=len(L.topics)).astype(np.int64)


def _qrels_keys_in(qrels: Qrels, docnos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Map each qrels line to a pool key over ``docnos``; returns (keys, found) with key -1
    where the docno is absent from ``docnos``."""
    d = qrels.docnos[qrels.docid]
    if not len(docnos):
        return np.full(len(d), -1, np.int64), np.zeros(len(d), bool)
    pos = np.searchsorted(docnos, d)
    pos[pos == len(docnos)] = 0
    ok = docnos[pos] == d
    return np.where(ok, (qrels.topic << 32) | pos, -1), ok


def restrict_qrels(qrels: Qrels, pool: Pool, name: str | None = None,
                   with_unjudged: bool = False) -> Qrels:
    """The qrels restricted to the pooled documents: the simulated shallow judgments J'.

    The pool's topics must be the qrels topics (build the :class:`RunLists` against the same
    qrels). Topics keep their place even when nothing of them is left. With ``with_unjudged``
    the pooled documents the qrels do not judge, and the pool's ``pooled_unjudged`` documents,
    are written with value -1 (trec_eval's "pooled but unjudged"); without it they are left out
    (unjudged either way for every measure).

    Raises
    ------
    ValueError
        The pool was built on other topics.
    """
    if list(pool.topics) != list(qrels.topics):
        raise ValueError("the pool and the qrels have different topics")
    keys, ok = _qrels_keys_in(qrels, pool.docnos)
    in_pool = np.isin(keys, pool.keys) & ok
    in_unj = np.isin(keys, pool.pooled_unjudged) & ok
    keep = in_pool | (in_unj if with_unjudged else False)
    topic, docid, value = qrels.topic[keep], qrels.docid[keep], qrels.value[keep]
    value = np.where(in_unj[keep], -1, value)
    docnos = qrels.docnos
    if with_unjudged:
        extra = np.setdiff1d(np.union1d(pool.keys, pool.pooled_unjudged), keys[ok])
        if len(extra):
            ed = pool.docnos[extra & 0xFFFFFFFF]
            docnos = np.union1d(qrels.docnos, ed)
            docid = np.searchsorted(docnos, qrels.docnos[docid])
            topic = np.concatenate([topic, extra >> 32])
            docid = np.concatenate([docid, np.searchsorted(docnos, ed)])
            value = np.concatenate([value, np.full(len(extra), -1, np.int64)])
    k = (topic << 32) | docid
    o = np.argsort(k, kind="stable")
    return Qrels(name or f"{qrels.name}[{pool.method}@{pool.depth}]", list(qrels.topics),
                 topic[o], docid[o], value[o], k[o], docnos)


def infer_contributing(L: RunLists, qrels: Qrels, depth: int) -> list[str]:
    """Runs whose top ``depth`` documents are all judged in ``qrels`` on every topic they
    answer: the runs that most probably formed a depth-``depth`` pool when the official list of
    contributing runs is not published. An inference, not a record: runs that copy a pooled
    run's top documents are found too."""
    keys, ok = _qrels_keys_in(qrels, L.docnos)
    judged = np.isin(L.key(), keys[ok & (qrels.value >= 0)])
    top = L.rank <= depth
    bad = np.bincount(L.run[top & ~judged], minlength=L.n_runs)
    return [n for n, b in zip(L.names, bad) if b == 0]


def write_qrels(qrels: Qrels, fh, iteration: str = "0") -> int:
    """Write TREC qrels (``qid iter docno rel``) in (topic, docno) order; returns the line
    count."""
    n = 0
    for t, d, v in zip(qrels.topic, qrels.docid, qrels.value):
        fh.write(f"{qrels.topics[t]} {iteration} {qrels.docnos[d]} {int(v)}\n")
        n += 1
    return n


def parse_topics(spec: str, available: list[str]) -> list[str]:
    """Topics named by ``spec``: comma-separated ids and numeric ranges ``a-b`` (inclusive),
    e.g. ``601-650`` or ``1,3,10-12``; kept in the order of ``available``. Raises ValueError
    for a malformed spec or when nothing of ``available`` matches."""
    want: set[str] = set()
    lo_hi: list[tuple[int, int]] = []
    for part in (x.strip() for x in spec.split(",")):
        if not part:
            continue
        a, sep, b = part.partition("-")
        if sep and a.isdigit() and b.isdigit():
            lo_hi.append((int(a), int(b)))
        elif sep and a.isdigit():
            raise ValueError(f"bad topic range {part!r}")
        else:
            want.add(part)
    out = [t for t in available
           if t in want or (t.isdigit() and any(lo <= int(t) <= hi for lo, hi in lo_hi))]
    if not out:
        raise ValueError(f"no topic matches {spec!r}")
    return out


def subset_topics(qrels: Qrels, topics: list[str]) -> Qrels:
    """The qrels of the given topics only (in the given order). Raises ValueError for a topic
    the qrels lack."""
    missing = [t for t in topics if t not in qrels.topic_index]
    if missing:
        raise ValueError(f"{qrels.name}: no judgments for topic(s) {', '.join(missing[:5])}")
    old = np.array([qrels.topic_index[t] for t in topics], dtype=np.int64)
    new_of_old = np.full(len(qrels.topics), -1, np.int64)
    new_of_old[old] = np.arange(len(old))
    t = new_of_old[qrels.topic]
    keep = t >= 0
    topic, docid = t[keep], qrels.docid[keep]
    k = (topic << 32) | docid
    o = np.argsort(k, kind="stable")
    return Qrels(qrels.name, list(topics), topic[o], docid[o], qrels.value[keep][o], k[o],
                 qrels.docnos)


def condense_run(run: Run, qrels: Qrels) -> Run:
    """The condensed run of Sakai (2007): the run without the documents ``qrels`` does not
    judge (value < 0 or absent), the judged lines kept in file order with their scores, so
    that ranks close up. Metrics on condensed runs are the primed metrics of Lu (2018)
    Section 2.4.4 (induced AP = AP on the condensed run). Lines of topics the qrels lack are
    dropped too. Returns a new :class:`~tiebreak.io.Run`."""
    from dataclasses import replace

    tix = qrels.topic_index
    tmap = np.array([tix.get(t, -1) for t in run.topics], dtype=np.int64)
    qt = tmap[run.topic] if len(run.topic) else np.zeros(0, np.int64)
    keep = np.zeros(len(run.topic), bool)
    if len(qrels.docnos) and len(run.docnos):
        pos = np.searchsorted(qrels.docnos, run.docnos)
        pos[pos == len(qrels.docnos)] = 0
        qd = np.where(qrels.docnos[pos] == run.docnos, pos, -1)[run.docid]
        keys = np.where((qd >= 0) & (qt >= 0), (qt << 32) | np.maximum(qd, 0), -1)
        judged = qrels.keys[qrels.value >= 0]
        keep = np.isin(keys, judged) & (keys >= 0)
    return replace(run, topic=run.topic[keep], docid=run.docid[keep], score=run.score[keep],
                   rank=run.rank[keep], lineno=run.lineno[keep], warnings=dict(run.warnings))
