"""RM3 against Anserini's ``Rm3Reranker`` as an oracle, on a Vaswani subset.

Both engines see the same tokens: every document and query is analysed by tiebreak's own
analyser and handed to Anserini pretokenized (``JsonCollection`` documents whose ``contents`` are
the tokens joined by spaces, indexed and searched with ``-pretokenized``: whitespace analysis),
with document vectors stored (RM3 reads them). BM25 has the same k1 and b on both sides and
tiebreak scores with Lucene's one-byte document lengths (``-p doclen=lucene``), so the
first-stage scores agree up to Lucene's float32 arithmetic and its constant factor 1 / (k1 + 1).

Skips (with the reason) unless Java 11+ is on PATH and an Anserini fat jar is found:
``TIEBREAK_ANSERINI_JAR=/path/anserini-X-fatjar.jar``, or an installed pyserini package
(``pip install --no-deps pyserini==0.21.0`` bundles ``anserini-0.21.0-fatjar.jar``; the command
line options used are those of Anserini 0.21). CI installs neither: the test skips there.

The helpers are shared with ``benchmarks/bench_rm3.py``.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
from collections import defaultdict
from pathlib import Path

import pytest

K1, B = 0.9, 0.4                      # Anserini's BM25 defaults, also tiebreak's
FB_DOCS, FB_TERMS, ORIG_WEIGHT = 10, 10, 0.5
SUBSET_DOCS = 2000                    # the first Vaswani documents: indexed in a few seconds
TOPIC_IDS = ("1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "13", "80")
SKIP_HOW = ("set TIEBREAK_ANSERINI_JAR to an anserini-*-fatjar.jar or `pip install --no-deps "
            "pyserini==0.21.0`, and put Java 11+ on PATH")


# ------------------------------------------------------------------ oracle helpers
def find_anserini_jar() -> Path | None:
    """The Anserini fat jar: ``$TIEBREAK_ANSERINI_JAR``, else the one an installed pyserini
    package bundles (found without importing pyserini, which would start a JVM)."""
    env = os.environ.get("TIEBREAK_ANSERINI_JAR")
    if env:
        return Path(env) if Path(env).is_file() else None
    spec = importlib.util.find_spec("pyserini")
    for loc in (spec.submodule_search_locations or []) if spec else []:
        jars = sorted(Path(loc, "resources", "jars").glob("anserini-*-fatjar.jar"))
        if jars:
            return jars[-1]
    return None


def java_major() -> int | None:
    """The major version of the ``java`` on PATH, None when there is none."""
    java = shutil.which("java")
    if java is None:
        return None
    out = subprocess.run([java, "-version"], capture_output=True, text=True).stderr
    m = re.search(r'version "(\d+)(?:\.(\d+))?', out)
    if not m:
        return None
    major = int(m.group(1))
    return int(m.group(2)) if major == 1 and m.group(2) else major


def oracle_or_reason() -> tuple[Path | None, str]:
    """(jar, "") when the oracle can run, else (None, why not)."""
    jar = find_anserini_jar()
    if jar is None:
        env = os.environ.get("TIEBREAK_ANSERINI_JAR")
        what = f"TIEBREAK_ANSERINI_JAR={env} is not a file" if env else "no Anserini fat jar"
        return None, f"Anserini oracle unavailable ({what}): {SKIP_HOW}"
    v = java_major()
    if v is None or v < 11:
        return None, (f"Anserini oracle unavailable (java {'not on PATH' if v is None else v}, "
                      f"need 11+): {SKIP_HOW}")
    return jar, ""


def export_pretokenized(docs, directory: Path) -> int:
    """Write ``(docno, tokens)`` pairs as one Anserini ``JsonCollection`` file in
    ``directory``; returns the number of tokens written."""
    directory.mkdir(parents=True, exist_ok=True)
    n = 0
    with open(directory / "docs.jsonl", "w", encoding="utf-8") as f:
        for docno, toks in docs:
            f.write(json.dumps({"id": docno, "contents": " ".join(toks)}) + "\n")
            n += len(toks)
    return n


def write_topics_tsv(topics, path: Path) -> None:
    """``(qid, tokens)`` pairs as Anserini's ``TsvString`` topics."""
    with open(path, "w", encoding="utf-8") as f:
        for qid, toks in topics:
            f.write(f"{qid}\t{' '.join(toks)}\n")


#: JVM options for a short run: the client compiler only and the serial collector start faster
#: (about a third less CPU on this test); the benchmark runs the JVM with its defaults
QUICK_JVM = ("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC")


def _java(jar: Path, cls: str, args: list[str], jvm=QUICK_JVM) -> subprocess.CompletedProcess:
    r = subprocess.run(["java", *jvm, "-cp", str(jar), cls, *args], capture_output=True,
                       text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{cls} failed ({r.returncode}):\n{(r.stdout + r.stderr)[-3000:]}")
    return r


def anserini_index(jar: Path, json_dir: Path, index_dir: Path, jvm=QUICK_JVM) -> None:
    """Index a pretokenized JsonCollection (whitespace analysis, doc vectors stored)."""
    _java(jar, "io.anserini.index.IndexCollection",
          ["-collection", "JsonCollection", "-input", str(json_dir), "-index", str(index_dir),
           "-generator", "DefaultLuceneDocumentGenerator", "-threads", "1",
           "-storeDocvectors", "-pretokenized"], jvm)


def anserini_search_args(index_dir: Path, topics_tsv: Path, run: Path, k1: float = K1,
                         b: float = B, rm3: tuple | None = None, hits: int = 1000,
                         output_query: bool = False) -> list[str]:
    """SearchCollection arguments: BM25 (k1, b), optionally ``rm3 = (fb_docs, fb_terms,
    orig_weight)``, pretokenized queries, one thread."""
    a = ["-index", str(index_dir), "-topics", str(topics_tsv), "-topicreader", "TsvString",
         "-output", str(run), "-bm25", "-bm25.k1", str(k1), "-bm25.b", str(b),
         "-hits", str(hits), "-pretokenized", "-threads", "1", "-parallelism", "1"]
    if rm3 is not None:
        a += ["-rm3", "-rm3.fbDocs", str(rm3[0]), "-rm3.fbTerms", str(rm3[1]),
              "-rm3.originalQueryWeight", str(rm3[2])]
        if output_query:
            a.append("-rm3.outputQuery")
    return a


def anserini_search(jar: Path, *args, jvm=QUICK_JVM, **kw) -> str:
    """Run SearchCollection (see :func:`anserini_search_args`); returns its log."""
    r = _java(jar, "io.anserini.search.SearchCollection", anserini_search_args(*args, **kw),
              jvm)
    return r.stdout + r.stderr


def parse_feedback(log: str) -> dict[str, dict[str, float]]:
    """qid -> {term: weight} of the expanded queries ``-rm3.outputQuery`` logs."""
    out: dict[str, dict[str, float]] = defaultdict(dict)
    qid = None
    for line in log.splitlines():
        m = re.search(r"QID: (\S+)\s*$", line)
        if m:
            qid = m.group(1)
            continue
        m = re.search(r"Feedback term: (\S+) -> (\S+)\s*$", line)
        if m and qid is not None:
            out[qid][m.group(1)] = float(m.group(2))
    return dict(out)


def read_trec_run(path_or_text) -> dict[str, list[tuple[str, float]]]:
    """qid -> [(docno, score)] in file order."""
    text = Path(path_or_text).read_text() if isinstance(path_or_text, Path) else path_or_text
    out: dict[str, list[tuple[str, float]]] = defaultdict(list)
    for line in text.splitlines():
        q, _, d, _, s, *_ = line.split()
        out[q].append((d, float(s)))
    return dict(out)


def unperturbed_tolerance(rows) -> list[float]:
    """Per row of an Anserini run, how far its score may be from the unrounded one: Anserini
    rounds final scores to 1e-4 and lowers the j-th score of a run of scores less than about
    1e-4 apart by j * 1e-6 (``ScoreTiesAdjusterReranker``; j is bounded here by counting rows
    less than 1.5e-4 apart); plus float32 arithmetic."""
    tol, dup = [], 0
    for i, (_, s) in enumerate(rows):
        dup = 0 if i == 0 or rows[i - 1][1] - s > 1.5e-4 else dup + 1
        tol.append(5e-5 + 2e-6 * abs(s) + 1e-6 * dup)
    return tol


def feedback_set_is_tie_dependent(scores, fb_docs: int) -> bool:
    """True when a group of equal scores straddles the feedback cut-off (rank ``fb_docs``):
    which of its documents feed back then depends on the tie order (tiebreak's: docno
    descending, as trec_eval reads runs; Anserini's: docno ascending)."""
    s = list(scores)
    return len(s) > fb_docs and s[fb_docs - 1] == s[fb_docs]


# ------------------------------------------------------------------ the test
@pytest.fixture(scope="module")
def oracle(shared_data, tmp_path_factory):
    jar, why = oracle_or_reason()
    if jar is None:
        pytest.skip(why)
    from tiebreak.index import build_index
    from tiebreak.index.readers import iter_documents, read_topics

    tmp = tmp_path_factory.mktemp("anserini")
    docs = []
    for docno, text in iter_documents("vaswani"):
        docs.append((docno, text))
        if len(docs) == SUBSET_DOCS:
            break
    src = tmp / "docs.jsonl"
    src.write_text("".join(json.dumps({"docno": d, "text": t}) + "\n" for d, t in docs))
    idx = build_index(str(src), tmp / "tb", progress=False)
    analyze = idx.analyzer.analyze
    ntok = export_pretokenized(((d, analyze(t)) for d, t in docs), tmp / "json")
    assert ntok == idx.collection_length        # the exported tokens are the indexed ones
    topics = [(q, t) for q, t in read_topics("vaswani") if q in TOPIC_IDS]
    assert len(topics) == len(TOPIC_IDS)
    write_topics_tsv([(q, analyze(t)) for q, t in topics], tmp / "topics.tsv")
    anserini_index(jar, tmp / "json", tmp / "ai")
    log = anserini_search(jar, tmp / "ai", tmp / "topics.tsv", tmp / "run.rm3",
                          rm3=(FB_DOCS, FB_TERMS, ORIG_WEIGHT), output_query=True)
    return idx, topics, parse_feedback(log), read_trec_run(tmp / "run.rm3")


def test_rm3_expansion_matches_anserini(oracle):
    """Same expansion terms, same weights (to float32 precision) for every query whose
    feedback documents do not depend on the tie order; an out-of-vocabulary query term keeps
    its share of the query vector, as in Anserini (topics 13 and 80 have one here)."""
    from tiebreak.retrieval.prf import expand
    from tiebreak.retrieval.search import search

    idx, topics, fb, _ = oracle
    first = search(idx, topics, "bm25", 1000, k1=K1, b=B, doclen="lucene")
    compared, oov = 0, 0
    for (qid, text), r in zip(topics, first):
        if feedback_set_is_tie_dependent(r.scores, FB_DOCS):
            continue
        terms = idx.analyzer.analyze(text)
        got = expand(idx, terms, r.docids, r.scores, "rm3", FB_DOCS, FB_TERMS, ORIG_WEIGHT)
        assert set(got) == set(fb[qid]), qid
        for t, w in fb[qid].items():
            assert got[t] == pytest.approx(w, rel=1e-6, abs=1e-7), (qid, t)
        oov += any(idx.term_id(t) < 0 for t in terms)
        compared += 1
    assert compared >= len(topics) - 2 and oov >= 2


def test_rm3_final_run_matches_anserini(oracle):
    """BM25+RM3 runs: the same top 10 documents, and every document both return scored
    alike (tiebreak's BM25 is Lucene's times k1 + 1; Anserini's scores are rounded to 1e-4
    and nudged apart when tied)."""
    from tiebreak.retrieval.prf import search_prf
    from tiebreak.retrieval.search import search

    idx, topics, _, arun = oracle
    first = search(idx, topics, "bm25", 1000, k1=K1, b=B, doclen="lucene")
    res = search_prf(idx, topics, "bm25", 1000, "rm3", FB_DOCS, FB_TERMS, ORIG_WEIGHT,
                     k1=K1, b=B, doclen="lucene")
    checked = 0
    for (qid, _), r0, r in zip(topics, first, res):
        if feedback_set_is_tie_dependent(r0.scores, FB_DOCS):
            continue
        rows = arun[qid]
        tb = {idx.docno(int(d)): float(s) / (K1 + 1) for d, s in zip(r.docids, r.scores)}
        assert len(tb) == len(rows), qid
        for (d, s), tol in zip(rows, unperturbed_tolerance(rows)):
            assert abs(tb[d] - s) <= tol, (qid, d, tb[d], s)
        top = [idx.docno(int(d)) for d in r.docids[:10]]
        # equal sets unless a tie straddles rank 10
        if len(r.scores) <= 10 or r.scores[9] != r.scores[10]:
            assert set(top) == {d for d, _ in rows[:10]}, qid
        checked += 1
    assert checked >= len(topics) - 2
