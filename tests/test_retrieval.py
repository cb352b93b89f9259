"""BM25 / QL against hand arithmetic, tie order, top-k vs brute force, search CLI and run output."""

from __future__ import annotations

import io
import json
import math
import subprocess
import sys
import types

import numpy as np
import pytest
from click.testing import CliRunner

import tiebreak as tb
from tiebreak.cli import main
from tiebreak.index import Analyzer, build_index
from tiebreak.index.build import build_index_from_tokens
from tiebreak.retrieval.models import MODELS, bm25, lucene_doclen, ql
from tiebreak.retrieval.search import format_run, search

# d1 = apple banana apple (|D| 3), d2 = banana cherry (2), d3 = cherry date (2)
# N = 3, |C| = 7, avgdl = 7/3; df: apple 1, banana 2, cherry 2, date 1; cf: apple 2, banana 2
TOY = [("d1", "apple banana apple"), ("d2", "banana cherry"), ("d3", "cherry date")]


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    d = tmp_path_factory.mktemp("toy")
    with open(d / "toy.jsonl", "w") as fh:
        for n, t in TOY:
            fh.write(json.dumps({"docno": n, "text": t}) + "\n")
    return build_index(d / "toy.jsonl", d / "idx", Analyzer("none", "none"), progress=False)


# K_D = k1 ((1 - b) + b |D| / avgdl) with k1 = 0.9, b = 0.4
K1 = 0.9 * (0.6 + 0.4 * 3 / (7 / 3))   # d1: 0.9 * (0.6 + 0.5142857) = 1.0028571
K2 = 0.9 * (0.6 + 0.4 * 2 / (7 / 3))   # d2: 0.9 * (0.6 + 0.3428571) = 0.8485714
IDF = {  # (apple: df 1, banana: df 2), N = 3
    "rsj": (math.log((3 - 1 + 0.5) / (1 + 0.5)), math.log((3 - 2 + 0.5) / (2 + 0.5))),
    "rw": (math.log(3 / 1), math.log(3 / 2)),
    "lucene": (math.log(1 + (3 - 1 + 0.5) / (1 + 0.5)), math.log(1 + (3 - 2 + 0.5) / (2 + 0.5))),
}


@pytest.mark.parametrize("idf", ["rsj", "rw", "lucene"])
def test_bm25_by_hand(toy, idf):
    w_apple, w_banana = IDF[idf]
    # d1: apple tf 2, banana tf 1; d2: banana tf 1; (k1 + 1) = 1.9
    d1 = w_apple * (2 * 1.9) / (2 + K1) + w_banana * (1 * 1.9) / (1 + K1)
    d2 = w_banana * (1 * 1.9) / (1 + K2)
    docids, scores = bm25(toy, ["apple", "banana"], 10, idf=idf)
    got = dict(zip(toy.docnos[docids].tolist(), scores.tolist()))
    assert set(got) == {"d1", "d2"}
    assert got["d1"] == pytest.approx(d1, rel=1e-12)
    assert got["d2"] == pytest.approx(d2, rel=1e-12)
    assert list(scores) == sorted(scores, reverse=True)
    assert docids.dtype == np.int32 and scores.dtype == np.float64


def test_bm25_numbers(toy):
    # the same arithmetic as decimals, RSJ: w_apple = ln(5/3) = 0.5108256, w_banana = ln(0.6)
    _, s = bm25(toy, ["apple", "banana"], 10, idf="rsj")
    assert s.tolist() == pytest.approx([0.5108256 * 3.8 / 3.0028571 - 0.5108256 * 1.9 / 2.0028571,
                                        -0.5108256 * 1.9 / 1.8485714], abs=1e-6)
    # repeated query terms count as query term frequency
    d, s2 = bm25(toy, ["apple", "apple", "banana", "unknown"], 10, idf="rw", b=0.0, k1=1.2)
    d1 = 2 * math.log(3) * (2 * 2.2) / (2 + 1.2) + math.log(1.5) * 2.2 / (1 + 1.2)
    assert s2[0] == pytest.approx(d1, rel=1e-12)


def test_ql_by_hand(toy):
    mu = 10.0
    # score = |Q| ln(mu / (|D| + mu)) + sum_q ln(1 + tf |C| / (mu cf)); |C| = 7, cf 2 and 2
    d1 = 2 * math.log(10 / 13) + math.log(1 + 2 * 7 / (10 * 2)) + math.log(1 + 1 * 7 / (10 * 2))
    d2 = 2 * math.log(10 / 12) + math.log(1 + 1 * 7 / (10 * 2))
    # = 2 ln(0.76923) + ln 1.7 + ln 1.35 = -0.52473 + 0.53063 + 0.30010 = 0.30600
    assert d1 == pytest.approx(0.30600, abs=1e-5)
    docids, scores = ql(toy, ["apple", "banana"], 10, mu=mu)
    assert toy.docnos[docids].tolist() == ["d1", "d2"]
    assert scores.tolist() == pytest.approx([d1, d2], rel=1e-12)
    assert MODELS["ql"] is ql and MODELS["bm25"] is bm25


def test_empty_and_oov(toy):
    for fn in (bm25, ql):
        d, s = fn(toy, ["nothing"], 10)
        assert d.size == 0 and s.size == 0
        d, s = fn(toy, [], 10)
        assert d.size == 0


def test_ties_in_trec_eval_order(tmp_path):
    src = tmp_path / "t.jsonl"
    docs = [("b", "x y"), ("c", "y x"), ("a", "x y"), ("B", "x z"), ("aa", "q")]
    src.write_text("".join(json.dumps({"docno": d, "text": t}) + "\n" for d, t in docs))
    idx = build_index(src, tmp_path / "idx", Analyzer("none", "none"), progress=False)
    res = search(idx, [("1", "x y")], "bm25", 10, idf="rw")
    run = format_run(idx, res, "t").splitlines()
    names = [line.split()[2] for line in run]
    assert names[:3] == ["c", "b", "a"]          # tied: docno descending (byte order)
    scores = [line.split()[4] for line in run]
    assert scores[0] == scores[1] == scores[2] and float(scores[3]) < float(scores[0])
    assert [line.split()[3] for line in run] == ["1", "2", "3", "4"]
    # full precision: the text reads back to the exact float
    assert float(scores[0]) == res[0].scores[0]
    # trec_eval order (score descending, then docno descending) equals file order
    key = [(float(line.split()[4]), line.split()[2].encode()) for line in run]
    assert key == sorted(key, reverse=True)
    r = tb.read_run(io.BytesIO("\n".join(run).encode()))
    assert len(r) == len(run)


@pytest.mark.parametrize("k", [1, 7, 50, 10_000])
def test_topk_matches_brute_force(tmp_path, k):
    rng = np.random.default_rng(k)
    N, V = 400, 12
    lens = rng.integers(0, 6, N)
    tok = rng.integers(0, V, lens.sum())
    ptr = np.concatenate([[0], np.cumsum(lens)])
    docnos = [f"D{rng.integers(0, 10**6)}-{i}" for i in range(N)]
    terms = [f"t{i}" for i in range(V)]
    idx = build_index_from_tokens(tmp_path / "r", docnos, tok, ptr, terms)
    q = ["t1", "t3", "t3", "t7"]
    for model, kw in [("bm25", {}), ("bm25", {"idf": "lucene", "doclen": "lucene"}),
                      ("ql", {"mu": 50})]:
        d, s = MODELS[model](idx, q, k, **kw)
        # all matching documents (k = N), re-sorted in Python by (score, docno) descending
        dd, ss = MODELS[model](idx, q, N, **kw)
        full = dict(zip(dd.tolist(), ss.tolist()))
        cand = sorted(full, key=lambda x: (full[x], docnos[x]), reverse=True)
        assert d.tolist() == cand[:k]
        assert s.tolist() == [full[x] for x in cand[:k]]
        has = {i for i in range(N) if set(tok[ptr[i]:ptr[i + 1]]) & {1, 3, 7}}
        assert set(full) == has


@pytest.mark.parametrize("model,kw", [("bm25", {}), ("bm25", {"idf": "rsj", "b": 0.75}),
                                      ("bm25", {"doclen": "lucene", "algorithm": "maxscore"}),
                                      ("ql", {"mu": 50.0}), ("ql", {"quantize": 8})])
def test_search_batches_equal_one_call_per_topic(tmp_path, model, kw):
    """search() scores bm25/ql topic sets in compiled batches: every topic gets exactly the
    documents, scores and order of one model call, and empty topics keep their place and
    note."""
    rng = np.random.default_rng(11)
    N, V = 600, 30
    lens = rng.integers(0, 12, N)
    tok = rng.integers(0, V, lens.sum())
    ptr = np.concatenate([[0], np.cumsum(lens)])
    docnos = [f"D{x}" for x in rng.permutation(N)]
    idx = build_index_from_tokens(tmp_path / "r", docnos, tok, ptr, [f"t{i}" for i in range(V)],
                                  Analyzer("none", "none"))
    topics = [(str(i), " ".join(f"t{x}" for x in rng.integers(0, V + 3, rng.integers(0, 5))))
              for i in range(80)]
    topics += [("e1", ""), ("e2", "nothing here")]
    got = search(idx, topics, model, 25, **kw)
    assert [r.qid for r in got] == [q for q, _ in topics]
    for (_, text), r in zip(topics, got):
        d, s = MODELS[model](idx, text.split(), 25, **kw)
        assert np.array_equal(r.docids, d) and np.array_equal(r.scores, s)
        assert (r.note != "") == (len(d) == 0)
    assert got[-1].note.startswith("none of its terms") and got[-2].note.startswith("no query")


def test_bm25_brute_force_scores(tmp_path):
    rng = np.random.default_rng(3)
    N, V = 200, 9
    lens = rng.integers(1, 9, N)
    tok = rng.integers(0, V, lens.sum())
    ptr = np.concatenate([[0], np.cumsum(lens)])
    idx = build_index_from_tokens(tmp_path / "r", [str(i) for i in range(N)], tok, ptr,
                                  [f"t{i}" for i in range(V)])
    d, s = bm25(idx, ["t2", "t5"], N, idf="rw", k1=1.2, b=0.75)
    avgdl = lens.mean()
    for doc, score in zip(d.tolist(), s.tolist()):
        t = tok[ptr[doc]:ptr[doc + 1]]
        want = 0.0
        for term in (2, 5):
            tf = int((t == term).sum())
            if tf:
                df = sum(1 for i in range(N) if term in tok[ptr[i]:ptr[i + 1]])
                K = 1.2 * (0.25 + 0.75 * lens[doc] / avgdl)
                want += math.log(N / df) * tf * 2.2 / (tf + K)
        assert score == pytest.approx(want, rel=1e-12)


def test_lucene_doclen():
    # exact below 24; then 24 + 4 significant bits, rounded down
    got = lucene_doclen(np.array([0, 5, 23, 24, 31, 40, 41, 100, 1000]))
    assert got.tolist() == [0, 5, 23, 24, 31, 40, 40, 96, 984]


def test_lazy_models(toy, monkeypatch):
    monkeypatch.setitem(sys.modules, "tiebreak.retrieval.dependency", None)
    with pytest.raises(NotImplementedError, match="sdm"):
        MODELS["sdm"](toy, ["apple"], 10)
    fake = types.ModuleType("tiebreak.retrieval.dependency")
    fake.fdm = lambda index, terms, k, **p: (np.array([0], np.int32), np.array([p["lam"]]))
    monkeypatch.setitem(sys.modules, "tiebreak.retrieval.dependency", fake)
    with pytest.raises(NotImplementedError, match="no lkp"):
        MODELS["lkp"](toy, ["apple"], 10)
    assert MODELS["fdm"](toy, ["apple"], 10, lam=0.5)[1].tolist() == [0.5]
    assert set(MODELS) >= {"bm25", "ql", "sdm", "fdm", "lkp", "lkpf", "l2p"}


@pytest.mark.slow
def test_cli_index_search_eval(tmp_path):
    src = tmp_path / "c.jsonl"
    src.write_text("".join(json.dumps({"docno": d, "text": t}) + "\n" for d, t in TOY))
    (tmp_path / "topics.tsv").write_text("q1\tapple banana\nq2\tcherry\n")
    (tmp_path / "qrels").write_text("q1 0 d1 1\nq2 0 d3 1\n")
    r = CliRunner().invoke(main, ["index", str(src), "-o", str(tmp_path / "idx"),
                                  "--stemmer", "none", "--stopwords", "none", "-q"])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(main, ["search", str(tmp_path / "idx"), "--topics",
                                  str(tmp_path / "topics.tsv"), "--model", "bm25", "--idf", "rw",
                                  "--tag", "T", "-q"])
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    assert lines[0].split()[:4] == ["q1", "Q0", "d1", "1"] and lines[0].endswith(" T")
    d1 = math.log(3) * 3.8 / (2 + K1) + math.log(1.5) * 1.9 / (1 + K1)
    assert float(lines[0].split()[4]) == pytest.approx(d1, rel=1e-15)
    # ql with -p, unknown model parameter and a missing model give clear errors
    r = CliRunner().invoke(main, ["search", str(tmp_path / "idx"), "--topics",
                                  str(tmp_path / "topics.tsv"), "--model", "ql", "-p", "mu=10"])
    assert r.exit_code == 0 and r.output.split()[2] == "d1"
    r = CliRunner().invoke(main, ["search", str(tmp_path / "idx"), "--topics",
                                  str(tmp_path / "topics.tsv"), "-p", "nope=1"])
    assert r.exit_code == 2 and "nope" in r.output
    (tmp_path / "idx" / "manifest.json").write_text("{}")
    r = CliRunner().invoke(main, ["search", str(tmp_path / "idx"), "--topics",
                                  str(tmp_path / "topics.tsv")])
    assert r.exit_code == 2 and "manifest" in r.output
    # the documented pipe: tiebreak search ... | tiebreak eval QRELS -
    CliRunner().invoke(main, ["index", str(src), "-o", str(tmp_path / "idx"), "-q"])
    cmd = (f"{sys.executable} -m tiebreak search {tmp_path / 'idx'} --topics "
           f"{tmp_path / 'topics.tsv'} -q | {sys.executable} -m tiebreak eval "
           f"{tmp_path / 'qrels'} - -m AP --format tsv")
    out = subprocess.run(cmd, shell=True, capture_output=True, text=True, check=True).stdout
    assert "AP" in out and "1.0" in out
