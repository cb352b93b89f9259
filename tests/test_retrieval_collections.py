"""End to end on real collections (../shared/data): index, search BM25 and QL, evaluate.

MAP ranges are wide "sane" bands around published bag-of-words results for these small
collections (and what this engine measures: see docs/retrieval.md). The CACM test reproduces
Anserini's regression (BM25 k1 0.9 b 0.4, Porter, Lucene stopwords: MAP 0.3123, P@30 0.1942).
"""

from __future__ import annotations

import io
import shutil
from collections import defaultdict

import pytest

import tiebreak as tb
from tiebreak.index import build_index
from tiebreak.index.readers import read_topics
from tiebreak.index.testcollections import COLLECTIONS
from tiebreak.retrieval.search import format_run, search

# (collection, model) -> (low, high) MAP
RANGES = {
    "cranfield": {"bm25": (0.25, 0.35), "ql": (0.22, 0.33)},
    "vaswani": {"bm25": (0.25, 0.33), "ql": (0.16, 0.30)},
    "cacm": {"bm25": (0.28, 0.40), "ql": (0.28, 0.40)},
    "cisi": {"bm25": (0.17, 0.26), "ql": (0.17, 0.26)},
    "medline": {"bm25": (0.45, 0.58), "ql": (0.42, 0.56)},
}


@pytest.fixture(scope="module")
def irds_home(shared_data, tmp_path_factory):
    dst = tmp_path_factory.mktemp("irds") / "home"
    shutil.copytree(shared_data / "ir_datasets_home", dst)
    for p in [dst, *dst.rglob("*")]:
        p.chmod(p.stat().st_mode | 0o200)
    mp = pytest.MonkeyPatch()
    mp.setenv("IR_DATASETS_HOME", str(dst))
    yield dst
    mp.undo()


def evaluate(qrels_bytes, run_text, measures):
    q = tb.read_qrels(io.BytesIO(qrels_bytes))
    r = tb.evaluate(q, [tb.read_run(io.BytesIO(run_text.encode()))], measures, ["trec_eval"])
    return r


@pytest.mark.slow
@pytest.mark.parametrize("name", list(RANGES))
def test_collection_map(name, shared_data, irds_home, tmp_path):
    c = COLLECTIONS[name]
    idx = build_index(c.docs_source(shared_data), tmp_path / name, fields=c.fields,
                      progress=False)
    topics = read_topics(c.topics_source(shared_data))
    qrels = c.qrels(shared_data)
    for model, (lo, hi) in RANGES[name].items():
        run = format_run(idx, search(idx, topics, model, 1000), model)
        m = float(evaluate(qrels, run, ["AP"]).mean[0, 0, 0])
        assert lo <= m <= hi, f"{name} {model} MAP {m:.4f} outside [{lo}, {hi}]"


@pytest.mark.slow
def test_cacm_matches_anserini(shared_data, tmp_path):
    d = shared_data / "cacm"
    # Anserini indexes the HTML version of CACM (every field, citations included)
    idx = build_index(d / "anserini_cacm_html.tar.gz", tmp_path / "cacm", progress=False)
    assert idx.num_docs == 3204
    assert abs(idx.collection_length - 320_968) / 320_968 < 0.005   # Anserini: 320,968 tokens
    assert abs(idx.vocab_size - 14_363) / 14_363 < 0.005             # Anserini: 14,363 terms
    topics = read_topics(d / "anserini_topics.cacm.txt")
    qrels = (d / "anserini_qrels.cacm.txt").read_bytes()
    res = search(idx, topics, "bm25", 1000, k1=0.9, b=0.4, idf="lucene", doclen="lucene")
    run = format_run(idx, res, "tb")
    r = evaluate(qrels, run, ["AP", "P@30"])
    ap, p30 = (float(x) for x in r.mean[0, :, 0])
    assert abs(ap - 0.3123) < 0.01, ap
    assert abs(p30 - 0.1942) < 0.01, p30
    # per query against Anserini's top-30 run: same documents, scores within 0.5 %
    ref = defaultdict(list)
    for line in (d / "anserini_run.cacm-bm25.top30.txt").read_text().splitlines():
        q, _, doc, _, s, _ = line.split()
        ref[q].append((doc, float(s)))
    ours = {x.qid: dict(zip(idx.docnos[x.docids[:30]].tolist(), x.scores[:30].tolist()))
            for x in res}
    overlaps, rel_err = [], []
    for q, lst in ref.items():
        mine = ours[q]
        overlaps.append(len(set(mine) & {doc for doc, _ in lst}) / len(lst))
        for doc, s in lst:
            if doc in mine:
                # Lucene >= 8 drops BM25's constant (k1 + 1) factor
                rel_err.append(abs(mine[doc] / 1.9 - s) / s)
    assert sum(overlaps) / len(overlaps) > 0.97
    rel_err.sort()
    assert rel_err[len(rel_err) // 2] < 0.005      # median relative score difference
