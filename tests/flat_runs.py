"""Test support for the flat-array measure kernels: a real run in trec_eval order (score
descending, docno descending) as the kernels' flat arrays, and the same ranking handed to
reference implementations with strictly decreasing scores so that every peer sees one order."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tiebreak.io import Qrels, read_qrels, read_run
from tiebreak.ranking import judge, orderings


@dataclass
class Flat:
    n_topics: int
    topics: list[str]
    topic: np.ndarray
    rank: np.ndarray
    grade: np.ndarray
    judged: np.ndarray
    docnos: list[str]
    qrels: Qrels

    @property
    def qrels_dict(self) -> dict[str, dict[str, int]]:
        q: dict[str, dict[str, int]] = {}
        for t, d, v in zip(self.qrels.topic, self.qrels.docid, self.qrels.value):
            q.setdefault(self.qrels.topics[t], {})[str(self.qrels.docnos[d])] = int(v)
        return q

    def lists(self) -> dict[str, list[str]]:
        """Ranked docnos per topic (topics with at least one retrieved document)."""
        out: dict[str, list[str]] = {}
        for t, d in zip(self.topic, self.docnos):
            out.setdefault(self.topics[t], []).append(d)
        return out

    def ir_run(self):
        """ir_measures ScoredDocs with score = 100000 - rank: one order for every provider,
        and positive, as Compat assumes."""
        import ir_measures
        return [ir_measures.ScoredDoc(self.topics[t], d, 100000.0 - float(r))
                for t, r, d in zip(self.topic, self.rank, self.docnos)]

    def ir_qrels(self):
        import ir_measures
        return [ir_measures.Qrel(self.qrels.topics[t], str(self.qrels.docnos[d]), int(v))
                for t, d, v in zip(self.qrels.topic, self.qrels.docid, self.qrels.value)]

    def head(self, depth: int) -> Flat:
        """The same run cut at ``depth`` ranks (for slow reference implementations)."""
        m = self.rank <= depth
        return Flat(self.n_topics, self.topics, self.topic[m], self.rank[m], self.grade[m],
                    self.judged[m], [d for d, k in zip(self.docnos, m) if k], self.qrels)

    def index(self, qid: str) -> int:
        return self.qrels.topic_index[qid]


def load(qrels_path: Path, run_path: Path) -> Flat:
    qrels = read_qrels(str(qrels_path))
    run = read_run(str(run_path))
    J = judge(run, qrels)
    O = orderings(J)
    o = O.order("trec_eval")  # topic-major, so O.topic and O.rank describe it
    docnos = [str(x) for x in run.docnos[J.docrank[o]]]
    return Flat(J.n_topics, list(qrels.topics), O.topic, O.rank, J.grade[o], J.judged[o], docnos,
                qrels)


def per_topic(metrics, flat: Flat) -> dict[str, np.ndarray]:
    """ir_measures Metric iterator -> {str(measure): array (T,) NaN where not reported}."""
    out: dict[str, np.ndarray] = {}
    for m in metrics:
        a = out.setdefault(str(m.measure), np.full(flat.n_topics, np.nan))
        a[flat.index(m.query_id)] = m.value
    return out


DL20 = ("trec_dl2020_bitua/qrels.dl20-doc.txt", "trec_dl2020_bitua/runs/BIT.UA-run1.txt.gz")
COVID = ("trec_covid/round5/qrels.covid-round5.txt", "trec_covid/round5/runs/BRPHJ_bert.gz")
ROBUST = ("robust03_trectools/qrels/robust03_qrels.txt.gz",
          "robust03_trectools/runs/input.MU03rob01.gz")
