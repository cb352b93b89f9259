"""Readers of the LISA, TIME and NPL native formats (tiebreak.index.readers) and their judgment
formats (tiebreak.index.testcollections): counts the collections document, round trips through
TREC files, the transmission faults of LISA and TIME handled explicitly, strict errors."""

from __future__ import annotations

import gzip
import io
import re
import warnings

import pytest

import tiebreak as tb
from tiebreak.index import build_index
from tiebreak.index.readers import CollectionQuirkWarning, iter_documents, read_topics
from tiebreak.index.testcollections import COLLECTIONS, _lisa_rel, _lisarj
from tiebreak.retrieval.search import format_run, search

NATIVE = ["lisa", "time", "npl"]


def load(name, shared_data):
    c = COLLECTIONS[name]
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        docs = list(iter_documents(c.docs_source(shared_data)))
    topics = read_topics(c.topics_source(shared_data))
    qrels = c.qrels(shared_data).decode().splitlines()
    return c, docs, topics, qrels, [x for x in w if x.category is CollectionQuirkWarning]


@pytest.mark.parametrize("name", NATIVE)
def test_documented_counts(name, shared_data):
    c, docs, topics, qrels, _ = load(name, shared_data)
    n_docs, n_topics, n_judged, n_judgments = c.counts
    assert len(docs) == n_docs
    assert len({d for d, _ in docs}) == n_docs
    assert len(topics) == n_topics
    assert len(qrels) == n_judgments
    assert len({x.split()[0] for x in qrels}) == n_judged
    # every judgment names a document and a topic that exist
    docnos, qids = {d for d, _ in docs}, {q for q, _ in topics}
    assert {x.split()[2] for x in qrels} <= docnos
    assert {x.split()[0] for x in qrels} <= qids
    assert all(t.strip() for _, t in docs) and all(t for _, t in topics)


@pytest.mark.slow
@pytest.mark.parametrize("name", NATIVE)
def test_round_trip_through_trec_files(name, shared_data, tmp_path):
    _, docs, topics, qrels, _ = load(name, shared_data)
    p = tmp_path / "docs.trec.gz"
    with gzip.open(p, "wt") as fh:
        for d, t in docs:
            fh.write(f"<DOC>\n<DOCNO>{d}</DOCNO>\n{t}\n</DOC>\n")
    again = list(iter_documents(p))
    assert [d for d, _ in again] == [d for d, _ in docs]
    assert [t.split() for _, t in again] == [t.split() for _, t in docs]
    tp = tmp_path / "topics.tsv"
    tp.write_text("".join(f"{q}\t{t}\n" for q, t in topics))
    assert read_topics(tp) == topics
    q = tb.read_qrels(io.BytesIO(("\n".join(qrels) + "\n").encode()))
    assert not q.warnings
    assert int(q.num_rel().sum()) == len(qrels)          # all binary, all relevant
    assert sorted(q.topics) == sorted({x.split()[0] for x in qrels})


def test_npl_equals_vaswani(shared_data):
    """NPL's native files and Terrier's TREC conversion (vaswani/) hold the same collection."""
    _, docs, topics, qrels, _ = load("npl", shared_data)
    trec = list(iter_documents(shared_data / "vaswani" / "doc-text.trec.gz"))
    assert [d for d, _ in trec] == [d for d, _ in docs]
    assert [t.split() for _, t in trec] == [t.split() for _, t in docs]
    vq = read_topics(shared_data / "vaswani" / "query-text.trec")
    assert [(q, t.lower()) for q, t in vq] == [(q, t.lower()) for q, t in topics]
    ref = {" ".join(x.split()) for x in (shared_data / "vaswani" / "qrels").read_text()
           .splitlines() if x.strip()}
    assert set(qrels) == ref


def test_lisa_transmission_fault_is_explicit(shared_data):
    _, docs, _, _, quirks = load("lisa", shared_data)
    msgs = [str(w.message) for w in quirks]
    # the 4 documents sent twice and the headerless tail of document 1997, each named
    assert len(msgs) == 5
    assert sorted(re.search(r"document (\d+) sent again", m).group(1)
                  for m in msgs if "sent again" in m) == ["1998", "1999", "2000", "2001"]
    assert sum("without a 'Document N' line" in m for m in msgs) == 1
    docnos = {d for d, _ in docs}
    assert docnos == {str(i) for i in range(1, 6005)} - {str(i) for i in range(1993, 1998)}


def test_lisa_rel_is_damaged_and_lisarj_agrees(shared_data):
    d = shared_data / "lisa"
    rel_text = (d / "LISA.REL").read_text()
    with pytest.raises(ValueError, match=r"LISA.REL:90: docid: expected a number, got "
                                         r"'Relevant'"):
        _lisa_rel(rel_text, "LISA.REL")
    rj: dict[str, list[str]] = {}
    for q, doc, _ in _lisarj((d / "LISARJ.NUM").read_text(), "LISARJ.NUM"):
        rj.setdefault(q, []).append(doc)
    assert len(rj) == 35 and sum(map(len, rj.values())) == 379
    intact = 0
    for m in re.finditer(r"Query (\d+)\s+(\d+) Relevant Refs:\s+([\d\s]+?)-1", rel_text):
        if m.group(1) in ("21", "35") and len(m.group(3).split()) != int(m.group(2)):
            continue
        ids = m.group(3).split()
        assert len(ids) == int(m.group(2))
        assert ids == rj[m.group(1)], m.group(1)
        intact += 1
    assert intact >= 31


def test_time_judgments_point_at_their_topics(shared_data):
    """TIME.REL's positions, mapped past the two lost articles, name documents that share terms
    with their topic; unmapped (plain file positions), the last ones do not."""
    from tiebreak.index.analysis import Analyzer

    _, docs, topics, qrels, _ = load("time", shared_data)
    an = Analyzer()
    dt = {d: set(an.analyze(t)) for d, t in docs}
    tt = {q: set(an.analyze(t)) for q, t in topics}
    overlap = [len(tt[q] & dt[d]) / len(tt[q]) for q, _, d, _ in map(str.split, qrels)]
    assert min(overlap) > 0
    assert sum(overlap) / len(overlap) > 0.55
    # the shifted tail: plain positions would give documents unrelated to the topics
    order = [d for d, _ in docs]
    raw = [(x.split()[0], int(p)) for x in (shared_data / "time" / "TIME.REL").read_text()
           .splitlines() if x.split() for p in x.split()[1:]]
    tail = [len(tt[q] & dt[order[p - 1]]) / len(tt[q]) for q, p in raw if 390 <= p <= 423]
    assert sum(tail) / len(tail) < 0.3


@pytest.mark.slow
@pytest.mark.parametrize("name,lo,hi", [("lisa", 0.28, 0.42), ("time", 0.60, 0.75),
                                        ("npl", 0.27, 0.31)])
def test_index_and_evaluate(name, lo, hi, shared_data, tmp_path):
    c = COLLECTIONS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CollectionQuirkWarning)
        idx = build_index(c.docs_source(shared_data), tmp_path / name, progress=False)
    assert idx.num_docs == c.counts[0]
    topics = read_topics(c.topics_source(shared_data))
    run = format_run(idx, search(idx, topics, "bm25", 1000), "bm25")
    q = tb.read_qrels(io.BytesIO(c.qrels(shared_data)))
    m = float(tb.evaluate(q, [tb.read_run(io.BytesIO(run.encode()))], ["AP"],
                          ["trec_eval"]).mean[0, 0, 0])
    assert lo <= m <= hi, m


# ---------------------------------------------------------------- strict errors (synthetic)
STAR = "*" * 44


@pytest.mark.parametrize("name,text,needle", [
    ("a.lisa", f"Document 1\nA\n{STAR}\nDocument 1\nB\n{STAR}\n",
     r"a.lisa:4: docno '1' repeats .*a.lisa:1 with different text"),
    ("b.lisa", f"Document 1\nA\n{STAR}\nDocument 2\nB\n",
     r"b.lisa:4: LISA record not ended by a line of asterisks"),
    ("c.time", "*TEXT 017 01/04/63 PAGE 020\nA\n*STOP\nmore\n", r"c.time:4: text after \*STOP"),
    ("d.time", "*TEXT 017 x\nA\n*TEXT 017 y\nB\n", r"d.time:3: \*TEXT 017 repeats line 1"),
    ("e.npl", "1\nsome text\n   /\n2\nmore text\n", r"e.npl:4: document 2 is not terminated"),
    ("f.npl", "1\nsome text\n   /\nx2\nmore\n   /\n", r"f.npl:4: expected a document id line"),
])
def test_native_format_errors(tmp_path, name, text, needle):
    p = tmp_path / name
    p.write_text(text)
    with pytest.raises(ValueError, match=needle):
        list(iter_documents(p))


def test_lisa_identical_repeat_warns_once(tmp_path):
    p = tmp_path / "x.lisa"
    p.write_text(f"Document 1\nA B\n{STAR}\nDocument 2\nC\n{STAR}\nDocument 1\nA  B\n{STAR}\n"
                 f"ORPHAN TAIL\n{STAR}\n")
    with pytest.warns(CollectionQuirkWarning) as w:
        docs = list(iter_documents(p))
    assert docs == [("1", "A B"), ("2", "C")]
    msgs = [str(x.message) for x in w]
    assert len(msgs) == 2
    assert "x.lisa:7: LISA document 1 sent again with the same text as at" in msgs[0]
    assert "x.lisa:10: LISA record without a 'Document N' line skipped" in msgs[1]


def test_native_topics(tmp_path):
    (tmp_path / "q.lisa").write_text("1\nFIRST QUERY\nLINE TWO. #\n2\nSECOND #\n")
    assert read_topics(tmp_path / "q.lisa") == [("1", "FIRST QUERY LINE TWO."), ("2", "SECOND")]
    (tmp_path / "q.time").write_text("*FIND 1\n\n A B\n\n*FIND 2\n\n C\n*STOP\n")
    assert read_topics(tmp_path / "q.time") == [("1", "A B"), ("2", "C")]
    (tmp_path / "q.npl").write_text("1\nA B\n/\n2\nC\n/\n")
    assert read_topics(tmp_path / "q.npl") == [("1", "A B"), ("2", "C")]
