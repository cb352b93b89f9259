"""Tie prevalence and run hygiene: ``tiebreak ties RUN... [--qrels Q]``.

Statistics of tied scores and of other oddities in TREC runs, after Yang, Moffat & Turpin
(2016, Table 1) and Cabanac et al. (2010, Table 1 and §6). Everything is vectorised over the
arrays of :class:`tiebreak.io.Run`: lines are sorted once by (topic, score descending, file
order) with :func:`numpy.lexsort` and per-topic counts are taken with :func:`numpy.bincount`.

Definitions (per result list = one topic of one run)
----------------------------------------------------
tied document (Yang et al.: successors)
    A line whose score equals its predecessor's after sorting by score descending (so a group
    of ``s`` equal scores contributes ``s - 1`` tied documents). ``tie_frac`` = tied docs /
    docs. This is Yang, Moffat & Turpin's (2016, Table 1) reading, and the one behind
    ``tie_stats_per_run.tsv`` of the reference data (checked by recomputation: input.InexpC2
    gives 0.0177 under it, 0.0329 under the group-members reading). The default; on Cabanac et
    al.'s Fig. 2 list (scores 0.9, 0.7, 0.7, 0.7, 0.6) it is 2/5 = 40 %.
tied document (Cabanac et al.: group members)
    A line that belongs to a group of ``s >= 2`` equal scores (the group contributes ``s``).
    ``tie_frac_members`` = such lines / docs. Cabanac et al. (2010, §5.1) count this way: their
    Fig. 2 list has "3/5 = 60 % of tied documents".
tied group
    Maximal run of equal scores in a topic; ``max_tie_group`` is the largest group size (1 when
    there are no ties, as in the TSV).
docs per score
    Documents / distinct scores: Cabanac et al.'s "average number of tied documents per sim"
    (Table 1; Fig. 2's list: (1 + 3 + 1) / 3 = 1.7); 1.0 means no ties.
rank/score contradiction
    Lines of a topic are ordered by their rank column (ascending, file order among equal ranks;
    lines whose rank is not a number are left out); a contradiction is an adjacent pair where
    the score strictly increases: the rank says the later line is worse, the score says it is
    better. Counted once per pair. This is the definition behind ``rank_score_contradictions``
    in ``tie_stats_per_run.tsv`` (reproduced on all its runs). The simpler file-order variant
    ("adjacent lines in file order where rank and score both increase") gives the same counts
    when the file is sorted by rank or by score, but not for files in neither order
    (RUIR-doc2vec: 14903 instead of 14891; sheikh_bm25_all, with tied ranks: 30 instead of 260).
increasing score
    Adjacent lines in file order within a topic with ``score[i+1] > score[i]`` (the file is not
    sorted by decreasing score; trec_eval re-sorts it, so this is harmless but a hygiene sign).
rank tie
    A line whose (numeric) rank column equals the rank of another line of the same topic
    (counted like tied documents: group size - 1).
exponent score
    A line whose score token (column 5) contains ``e`` or ``E`` (``1.2e-05``). :class:`Run`
    keeps no score text, so the raw (decompressed) file bytes are re-scanned with one regular
    expression; matches are mapped to lines by their byte offset. Not available for stdin.
tie in top k / straddling k
    ``tie_top_k``: some document among the first ``k`` (after sorting) is tied with its
    predecessor, also inside the first ``k``. ``straddle_k``: the document at sorted position
    ``k + 1`` has the same score as the one at position ``k``, i.e. a tied group crosses the
    cutoff and P@k (and every @k measure) depends on the tie rule. For k = 10, 20, 100, 1000.
stuffing (Cabanac et al. §6)
    ``tail`` = size of the last (lowest-score) tied group, ``tail_score`` its score. A topic is
    *stuffed* when ``tail >= 2`` and (``tail >= 10%`` of the list or ``tail >= 50``); the
    ``zero_stuffed`` flag additionally requires the tail score to be exactly 0.

Summaries
---------
* :func:`yang_table` (Yang et al. Table 1): for each property, the percentage of systems
  (runs with at least one occurrence), of system-topics (result lists with one) and of
  documents (lines counted as above).
* :func:`cabanac_table` (Cabanac et al. Table 1): min / avg / max / SD (population) over all
  result lists of the percentage of tied documents, under both definitions (rows
  ``% tied documents`` = Yang et al.'s successors, ``% tied documents (group members, Cabanac)``),
  and of the documents per distinct score.
* :func:`topk_table`: share of result lists with a tie inside the top k and with a group
  straddling k.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from ..io import Qrels, Run, read_run
from ..ranking import run_hygiene

__all__ = [
    "KS",
    "run_stats",
    "runs_stats",
    "yang_table",
    "cabanac_table",
    "CABANAC_ROWS",
    "topk_table",
    "exponent_lines",
]

KS = (10, 20, 100, 1000)
STUFF_FRAC = 0.10
STUFF_MIN = 50

# Column 5 (score) of a line when it contains an exponent marker. Matches anchor at line starts.
_EXP_RE = re.compile(rb"^[ \t]*\S+[ \t]+\S+[ \t]+\S+[ \t]+\S+[ \t]+([^\s]*[eE][^\s]*)", re.M)


def exponent_lines(data: bytes) -> np.ndarray:
    """1-based line numbers of the lines whose 5th field contains 'e' or 'E'."""
    starts = [m.start(1) for m in _EXP_RE.finditer(data)]
    if not starts:
        return np.zeros(0, np.int64)
    nl = np.flatnonzero(np.frombuffer(data, np.uint8) == 10)
    return np.searchsorted(nl, np.asarray(starts, np.int64)) + 1


def run_stats(run: Run, qrels: Qrels | None = None, exp_lines: np.ndarray | None = None,
              ks=KS) -> tuple[dict, pd.DataFrame]:
    """Statistics of one run: a dict (one row per run) and a per-topic DataFrame.

    ``exp_lines``: line numbers with exponent-format scores (see :func:`exponent_lines`); None
    means unknown (reported as NaN).
    """
    nt = len(run.topics)
    t, s = run.topic, run.score
    n = len(s)
    docs = np.bincount(t, minlength=nt)

    # sorted by topic, score desc, file order
    o = np.lexsort((np.arange(n), -s, t))
    ts, ss = t[o], s[o]
    same_t = np.r_[False, ts[1:] == ts[:-1]][:n]     # (an empty run: no lines, no groups)
    tied = same_t & np.r_[False, ss[1:] == ss[:-1]][:n]
    tied_docs = np.bincount(ts[tied], minlength=nt)
    gstart = ~tied
    gid = np.cumsum(gstart) - 1
    gsize = np.bincount(gid)
    gtopic = ts[gstart]
    distinct = np.bincount(gtopic, minlength=nt)
    max_group = np.zeros(nt, np.int64)
    if n:
        np.maximum.at(max_group, gtopic, gsize)
    tie_groups = np.bincount(gtopic[gsize > 1], minlength=nt)
    # Cabanac et al.: every member of a group of size >= 2 is a tied document
    tied_members = np.bincount(gtopic, weights=np.where(gsize > 1, gsize, 0),
                               minlength=nt).astype(np.int64)
    # position within topic (0-based)
    first = np.r_[0, np.cumsum(docs)[:-1]]
    pos = np.arange(n) - first[ts]

    topk = {}
    for k in ks:
        topk[f"tie_top{k}"] = np.bincount(ts[tied & (pos < k)], minlength=nt) > 0
        topk[f"straddle{k}"] = np.bincount(ts[tied & (pos == k)], minlength=nt) > 0

    # stuffing: last group of each topic
    last_gid = np.zeros(nt, np.int64)
    tail = np.zeros(nt, np.int64)
    tail_score = np.full(nt, np.nan)
    has = docs > 0
    if n:
        last_line = (first + docs - 1)[has]
        last_gid[has] = gid[last_line]
        tail[has] = gsize[last_gid[has]]
        tail_score[has] = ss[last_line]
    stuffed = (tail >= 2) & ((tail >= STUFF_FRAC * docs) | (tail >= STUFF_MIN))
    zero_stuffed = stuffed & (tail_score == 0)

    hyg = run_hygiene(run)
    increasing, rank_ties, contradictions = (
        hyg["increasing"], hyg["rank_ties"], hyg["contradictions"])

    if exp_lines is None:
        exp = np.full(nt, np.nan)
    else:
        isexp = np.isin(run.lineno, exp_lines)
        exp = np.bincount(t[isexp], minlength=nt).astype(float)

    per_topic = pd.DataFrame({
        "run": run.name, "topic": run.topics, "docs": docs, "tied_docs": tied_docs,
        "tie_frac": np.divide(tied_docs, docs, out=np.zeros(nt), where=docs > 0),
        "tied_members": tied_members,
        "tie_frac_members": np.divide(tied_members, docs, out=np.zeros(nt), where=docs > 0),
        "distinct_scores": distinct,
        "docs_per_score": np.divide(docs, distinct, out=np.full(nt, np.nan), where=distinct > 0),
        "tie_groups": tie_groups, "max_tie_group": max_group,
        "rank_score_contradictions": contradictions, "increasing_scores": increasing,
        "rank_ties": rank_ties, "exp_scores": exp,
        **topk,
        "tail": tail, "tail_score": tail_score, "stuffed": stuffed, "zero_stuffed": zero_stuffed,
    })

    if qrels is not None:
        qt = np.array([qrels.topic_index.get(q, -1) for q in run.topics], np.int64)
        qd = np.searchsorted(qrels.docnos, run.docnos)
        qd[qd >= len(qrels.docnos)] = 0
        known = len(qrels.docnos) > 0
        dmatch = (qrels.docnos[qd] == run.docnos) if known else np.zeros(len(run.docnos), bool)
        tq, dq = qt[ts], qd[run.docid[o]]
        valid = (tq >= 0) & dmatch[run.docid[o]]
        key = (tq << 32) | dq
        j = np.searchsorted(qrels.keys, key)
        j[j >= len(qrels.keys)] = 0
        found = valid & (len(qrels.keys) > 0)
        if len(qrels.keys):
            found &= qrels.keys[j] == key
        val = np.where(found, qrels.value[j] if len(qrels.keys) else 0, -1)
        g_judged = np.bincount(gid, weights=(val >= 0)) > 0
        g_rel = np.bincount(gid, weights=(val >= 1)) > 0
        multi = gsize > 1
        per_topic["tie_groups_judged"] = np.bincount(gtopic[multi & g_judged], minlength=nt)
        per_topic["tie_groups_relevant"] = np.bincount(gtopic[multi & g_rel], minlength=nt)

    row = {
        "run": run.name, "source": run.source, "topics": nt, "docs": int(n),
        "tied_docs": int(tied_docs.sum()), "tie_frac": float(tied_docs.sum() / n) if n else 0.0,
        "tied_members": int(tied_members.sum()),
        "tie_frac_members": float(tied_members.sum() / n) if n else 0.0,
        "topics_with_ties": int((tied_docs > 0).sum()),
        "max_tie_group": int(max_group.max()) if nt else 0,
        "docs_per_score": float(n / distinct.sum()) if n else float("nan"),
        "rank_score_contradictions": int(contradictions.sum()),
        "topics_with_contradictions": int((contradictions > 0).sum()),
        "increasing_scores": int(increasing.sum()),
        "topics_with_increasing": int((increasing > 0).sum()),
        "rank_ties": int(rank_ties.sum()), "topics_with_rank_ties": int((rank_ties > 0).sum()),
        "exp_scores": float(np.nansum(exp)) if exp_lines is not None else float("nan"),
        "topics_with_exp": float((exp > 0).sum()) if exp_lines is not None else float("nan"),
        **{f"topics_{c}": int(v.sum()) for c, v in topk.items()},
        "stuffed_topics": int(stuffed.sum()), "zero_stuffed_topics": int(zero_stuffed.sum()),
        "max_tail": int(tail.max()) if nt else 0,
    }
    if qrels is not None:
        row["tie_groups"] = int(tie_groups.sum())
        row["tie_groups_judged"] = int(per_topic["tie_groups_judged"].sum())
        row["tie_groups_relevant"] = int(per_topic["tie_groups_relevant"].sum())
    return row, per_topic


def stats_for_path(path: str, qrels: Qrels | None = None, name: str | None = None
                   ) -> tuple[dict, pd.DataFrame]:
    """Read one run file (named ``name``, default its run tag) and compute its statistics
    (exponent scores from ``Run.exponent``)."""
    run = read_run(path, name=name)
    exp = run.lineno[run.exponent] if run.exponent is not None else None
    return run_stats(run, qrels, exp)


def runs_stats(paths, qrels: Qrels | None = None, progress=None, name_by: str = "tag"
               ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per-run DataFrame and concatenated per-topic DataFrame for many run files; runs named by
    their run tag (``name_by="tag"``) or file name (``"file"``)."""
    import os

    rows, tops = [], []
    it = paths if progress is None else progress
    for p in it:
        name = os.path.basename(p) if name_by == "file" and p != "-" else None
        r, t = stats_for_path(p, qrels, name)
        rows.append(r)
        tops.append(t)
    return pd.DataFrame(rows), pd.concat(tops, ignore_index=True)


# Yang et al. Table 1: property -> (per-run count column, per-topic count column)
_YANG = [
    ("tied scores", "tied_docs"),
    ("rank/score contradictions", "rank_score_contradictions"),
    ("scores increasing in file order", "increasing_scores"),
    ("ties on rank", "rank_ties"),
    ("exponent-format scores", "exp_scores"),
]


def yang_table(per_run: pd.DataFrame, per_topic: pd.DataFrame) -> pd.DataFrame:
    """Percent of systems / system-topics / documents showing each property."""
    out = []
    ndocs = per_topic["docs"].sum()
    for label, col in _YANG:
        c = per_topic[col]
        if c.isna().all():
            out.append({"property": label, "systems_%": np.nan, "system_topics_%": np.nan,
                        "documents_%": np.nan})
            continue
        out.append({
            "property": label,
            "systems_%": 100.0 * (per_run[col] > 0).mean(),
            "system_topics_%": 100.0 * (c > 0).mean(),
            "documents_%": 100.0 * c.sum() / ndocs if ndocs else np.nan,
        })
    return pd.DataFrame(out)


#: Row labels of :func:`cabanac_table`: Yang et al.'s share, Cabanac et al.'s share, docs/score.
CABANAC_ROWS = ("% tied documents", "% tied documents (group members, Cabanac)",
                "docs per distinct score")


def cabanac_table(per_topic: pd.DataFrame) -> pd.DataFrame:
    """min / avg / max / SD (population) over result lists (Cabanac et al. 2010, Table 1).

    Rows (:data:`CABANAC_ROWS`): ``% tied documents`` (Yang et al.'s definition, a group of
    ``s`` contributes ``s - 1``; the default kept from earlier versions), ``% tied documents
    (group members, Cabanac)`` (Cabanac et al.'s, a group contributes ``s``) and ``docs per
    distinct score`` (Cabanac et al.'s "tied documents per sim"). Columns: statistic, lists,
    min, avg, max, sd."""
    pt = per_topic[per_topic["docs"] > 0]
    out = []
    for label, v in zip(CABANAC_ROWS, (100.0 * pt["tie_frac"], 100.0 * pt["tie_frac_members"],
                                       pt["docs_per_score"])):
        v = v.to_numpy(float)
        out.append({"statistic": label, "lists": len(v),
                    "min": v.min() if len(v) else np.nan, "avg": v.mean() if len(v) else np.nan,
                    "max": v.max() if len(v) else np.nan, "sd": v.std() if len(v) else np.nan})
    return pd.DataFrame(out)


def topk_table(per_topic: pd.DataFrame, ks=KS) -> pd.DataFrame:
    """Share (%) of result lists with a tie inside the top k / a tied group straddling k, and
    the share of lists long enough to have a rank k + 1."""
    out = []
    for k in ks:
        out.append({"k": k,
                    "tie_in_top_k_%": 100.0 * per_topic[f"tie_top{k}"].mean(),
                    "straddles_k_%": 100.0 * per_topic[f"straddle{k}"].mean(),
                    "lists_longer_than_k_%": 100.0 * (per_topic["docs"] > k).mean()})
    return pd.DataFrame(out)


def _pct(part, whole) -> float:
    """100 part / whole; NaN (shown '-') when there is nothing (runs without lines)."""
    return 100.0 * float(part) / float(whole) if whole else float("nan")


def stuffing_table(per_run: pd.DataFrame, per_topic: pd.DataFrame) -> pd.DataFrame:
    """Runs with stuffed result lists (Cabanac §6): counts of stuffed and zero-score tails."""
    out = []
    for label, col in (("constant-score tail", "stuffed"), ("score-0 tail", "zero_stuffed")):
        c = per_topic[col]
        runs = c.groupby(per_topic["run"].to_numpy()).any()
        out.append({"tail": label, "systems_%": 100.0 * runs.mean(),
                    "system_topics_%": 100.0 * c.mean(),
                    "documents_%": _pct(per_topic["tail"][c].sum(), per_topic["docs"].sum())})
    return pd.DataFrame(out)
