"""Measures of multidimensional relevance: a second qrels (understandability, trustworthiness,
...) scales each relevant document's contribution, as trectools 0.0.50 computes them.

* uRBP (Zuccon 2016): ``sum_{i<=d, d_i relevant} (1-p) p^(i-1) u_i s`` (times the grade with
  ``graded``), ``u_i`` the document's value in the second qrels, ``s`` a scale factor (trectools'
  ``normalization_factor``); a document the second qrels lack contributes nothing.
* uBpref: bpref over the run with its unjudged documents and the documents the second qrels
  lack left out (trectools merges the run with both qrels before ranking), each relevant
  document adding ``(1 - min(n, R) / min(R, N)) u_i s / R``, n the judged non-relevant documents
  above it, R and N the relevant and judged non-relevant documents of the (first) qrels. With
  N = 0 the penalty is 0 (trectools divides by zero there and its sum drops the NaN terms, so it
  prints 0).

Both read the second qrels from the path given as the measure's ``other`` parameter and look each
ranked document up through :attr:`tiebreak.ranking.Ranking.line`.

References
----------
G. Zuccon. Understandability biased evaluation for information retrieval. ECIR 2016.
J. Palotti, H. Scells, G. Zuccon. TrecTools: an open-source Python library for information
retrieval practitioners involved in TREC-like campaigns. SIGIR 2019.
"""

from __future__ import annotations

import os
from functools import lru_cache

import numpy as np

from ..ranking._flat import div, seg_cumsum, tsum

CITATION = ("G. Zuccon. Understandability biased evaluation for information retrieval. ECIR "
            "2016; J. Palotti, H. Scells, G. Zuccon. TrecTools: an open-source Python library "
            "for information retrieval practitioners involved in TREC-like campaigns. SIGIR "
            "2019 (trectools 0.0.50 get_urbp, get_ubpref).")


@lru_cache(maxsize=8)
def _read(path: str, stamp: tuple):
    from ..io import read_qrels
    return read_qrels(path)


def other_values(R, path: str) -> tuple[np.ndarray, np.ndarray]:
    """The second qrels' value of every position of ``R``: (has, value) float64 (n,) each,
    ``has`` 1 where the second qrels judge the position's (topic, docno).

    Raises
    ------
    MeasureError
        The ranking has no line index (the fractional ``expected`` ranking), or the file
        cannot be read (the message names it).
    """
    from ..io import InputError
    from ..ranking import lookup
    from .errors import MeasureError

    P = R.prepared
    if R.line is None or P is None or P.run_docnos is None:
        raise MeasureError("this measure looks documents up in a second qrels and needs a "
                           "ranking of a prepared run")
    key = ("other_qrels", path)
    per_line = P.shared.get(key)
    if per_line is None:
        try:
            st = os.stat(path)
            q2 = _read(path, (st.st_mtime_ns, st.st_size))
        except OSError as e:
            raise MeasureError(f"cannot read the second qrels {path!r}: {e.strerror}") from None
        except InputError as e:
            raise MeasureError(str(e)) from None
        names = P.qrels.topics
        idx = q2.topic_index
        tmap = np.array([idx.get(t, -1) for t in names], np.int64)
        qt = tmap[P.J.qtopic] if len(P.J.qtopic) else np.zeros(0, np.int64)
        found, pos = lookup(q2, qt, P.run_docnos, P.J.docrank)
        val = np.where(found, q2.value[pos] if len(q2.value) else 0, 0).astype(np.float64)
        per_line = P.shared[key] = (found.astype(np.float64), val)
    has, val = per_line
    line = R.line
    ok = line >= 0
    h = np.zeros(len(line))
    v = np.zeros(len(line))
    h[ok], v[ok] = has[line[ok]], val[line[ok]]
    return h, v


def urbp(topic, rank, rel, grade, has, u, n_topics, p, k=None, scale=1.0, graded=False):
    """uRBP@k per topic, float64 (T,).

    Parameters
    ----------
    topic, rank : int64 (n,)
        Positions sorted by (topic, rank), ranks 1-based.
    rel : bool (n,)
        Relevant in the first qrels (value >= the relevance level).
    grade : float64 (n,)
        Grade in the first qrels (used with ``graded``).
    has, u : float64 (n,)
        In the second qrels, and its value there.
    p : float
        Persistence in (0, 1).
    k : int or None
        Evaluation depth.
    """
    w = (1.0 - p) * p ** (rank - 1.0) * u * scale * (grade if graded else 1.0)
    m = rel & (has > 0) & (rank <= (k if k is not None else np.iinfo(np.int64).max))
    return tsum(topic, np.where(m, w, 0.0), n_topics)


def ubpref(topic, judged, rel, nonrel, has, u, n_topics, R, N, k=None, scale=1.0):
    """uBpref@k per topic as trectools computes it, float64 (T,) (see the module docstring).

    Parameters
    ----------
    judged, rel, nonrel : bool (n,)
        Judged (value >= 0), relevant (value >= level), judged non-relevant, first qrels.
    R, N : float (T,)
        Relevant and judged non-relevant documents per topic in the first qrels.
    """
    keep = judged & (has > 0)
    t = topic[keep]
    r2 = seg_cumsum(np.ones(len(t)), t, n_topics)  # rank among the kept documents
    inside = r2 <= (k if k is not None else np.inf)
    nr = seg_cumsum(nonrel[keep].astype(np.float64), t, n_topics)
    Rt, Nt = np.asarray(R, np.float64)[t], np.asarray(N, np.float64)[t]
    pen = div(np.minimum(nr, Rt), np.minimum(Rt, Nt))
    term = (1.0 - pen) * u[keep] * scale
    m = rel[keep] & inside
    return div(tsum(t, np.where(m, term, 0.0), n_topics), R)
