"""Topic-chunked evaluation (tiebreak.evaluation.chunks): every per-topic value, mean and warning
is the
whole evaluation's, for chunks of 1, 7 and all topics, from memory and from files read piece by
piece; sampled ``expected`` values are seeded per topic."""

from __future__ import annotations

import gzip

import numpy as np
import pytest

import tiebreak as tb
import tiebreak.evaluation.chunks as chunks

MEASURES = ["AP", "nDCG@10", "P@5", "RR", "bpref", "infAP", "Rndcg", "RBP(p=0.8)"]


def _write(tmp_path, n_topics=23, seed=3, gz=False, extra="", tail=""):
    """Qrels and a run with many ties (scores on a coarse grid), some unjudged documents, a
    qrels topic the run lacks and a run topic the qrels lack."""
    rng = np.random.default_rng(seed)
    run, qrels = [], []
    for t in range(n_topics):
        n = int(rng.integers(5, 40))
        docs = rng.choice(200, n, replace=False)
        score = np.sort(rng.integers(0, 6, n))[::-1] / 2
        run += [f"{t} Q0 d{d} {r} {s} tagA\n" for r, (d, s) in enumerate(zip(docs, score), 1)]
        for d in rng.choice(200, 30, replace=False):
            qrels.append(f"{t} 0 d{d} {int(rng.integers(0, 3))}\n")
    qrels.append("999 0 d1 1\n")  # a qrels topic without results
    run += [f"777 Q0 d{d} {r} 1.0 tagA\n" for r, d in enumerate(range(3), 1)]  # not in qrels
    text = extra + "".join(run) + tail
    rp = tmp_path / ("run.gz" if gz else "run")
    rp.write_bytes(gzip.compress(text.encode()) if gz else text.encode())
    qp = tmp_path / "qrels"
    qp.write_text("".join(qrels))
    return qp, rp


def _same(a, b):
    assert a.runs == b.runs
    assert np.array_equal(a.per_topic, b.per_topic, equal_nan=True)
    assert np.array_equal(a.mean, b.mean, equal_nan=True)
    assert a.warnings == b.warnings
    for n in a.warnings:  # same warnings in the same order
        assert list(a.warnings[n]) == list(b.warnings[n])


@pytest.mark.parametrize("average", ["qrels", "run-topics"])
def test_chunks_of_1_7_and_all_topics_give_identical_values(tmp_path, average):
    qp, rp = _write(tmp_path)
    q = tb.read_qrels(qp)
    run = tb.read_run(rp)
    kw = dict(regimes="all", average=average, samples=40, max_docs=25)
    whole = tb.Evaluator(q, MEASURES, **kw).evaluate([run])
    assert any("estimated from 40" in n for n in whole.notes)  # sampled measures were used
    assert whole.warnings[run.name]["documents in tied groups"] > 100
    for k in (1, 7, len(run.topics)):
        _same(whole, tb.Evaluator(q, MEASURES, chunk_topics=k, **kw).evaluate([run]))
        v, _ = tb.Evaluator(q, MEASURES, **kw).evaluate_run(run, chunk_topics=k)
        assert np.array_equal(v, whole.per_topic[0], equal_nan=True)


@pytest.mark.parametrize("gz", [False, True])
def test_file_read_piece_by_piece_gives_identical_values(tmp_path, monkeypatch, gz):
    qp, rp = _write(tmp_path, gz=gz, extra="# a comment\n\n", tail="# the end\n" * 100 + "\n")
    q = tb.read_qrels(qp)
    whole = tb.Evaluator(q, MEASURES, regimes="all", samples=20).evaluate([rp])
    assert whole.warnings["tagA"]["lines"].comment == 101
    monkeypatch.setattr(chunks, "BLOCK_BYTES", 700)  # many pieces, topics cut across them
    monkeypatch.setattr(chunks, "STREAM_BYTES", 1)
    streamed = []
    real = chunks.run_blocks

    def spy(*a, **k):
        for r in real(*a, **k):
            streamed.append(len(r))
            yield r

    monkeypatch.setattr(chunks, "run_blocks", spy)
    for k in (None, 1, 7):
        streamed.clear()
        got = tb.Evaluator(q, MEASURES, regimes="all", samples=20, chunk_topics=k).evaluate([rp])
        assert len(streamed) > 3 and sum(streamed) == len(tb.read_run(rp))
        assert streamed[-1] == 0  # the trailing comments, read as a piece of their own
        _same(whole, got)


def test_topics_not_contiguous_are_evaluated_whole(tmp_path, monkeypatch):
    qp, rp = _write(tmp_path, n_topics=4)
    lines = rp.read_text().splitlines(keepends=True)
    rp.write_text("".join(lines[-1:] + lines[:-1]))  # topic 777 first and last
    q = tb.read_qrels(qp)
    whole = tb.Evaluator(q, MEASURES, samples=20).evaluate([rp])
    monkeypatch.setattr(chunks, "BLOCK_BYTES", 300)
    _same(whole, tb.Evaluator(q, MEASURES, samples=20, chunk_topics=1).evaluate([rp]))


def test_bad_input_in_a_piece_is_named_with_the_file_line(tmp_path, monkeypatch):
    qp, rp = _write(tmp_path)
    lines = rp.read_text().splitlines(keepends=True)
    lines[200] = "5 Q0 dX 1 abc tagA\n"
    rp.write_text("".join(lines))
    monkeypatch.setattr(chunks, "BLOCK_BYTES", 700)
    with pytest.raises(tb.io.InputError, match=r"run:201: score 'abc' is not a number"):
        tb.Evaluator(tb.read_qrels(qp), ["AP"], chunk_topics=3).evaluate([rp])


def test_sampled_values_do_not_depend_on_the_other_topics(tmp_path):
    """A topic's sampled expected value is the same evaluated with every topic or with one
    other topic only."""
    qp, rp = _write(tmp_path)
    q = tb.read_qrels(qp)
    run = tb.read_run(rp)
    ev = tb.Evaluator(q, ["infAP", "Rndcg"], regimes="expected", samples=30)
    full, _ = ev.evaluate_run(run)
    keep = np.isin(run.topic, [3, 11])
    sub = tb.io.Run(run.name, run.source, run.topics, run.topic[keep], run.docnos,
                    run.docid[keep], run.score[keep], run.rank[keep], run.lineno[keep])
    part, _ = ev.evaluate_run(sub)
    cols = [q.topic_index[run.topics[t]] for t in (3, 11)]
    assert np.array_equal(part[:, :, cols], full[:, :, cols])
    assert not np.array_equal(full[:, :, cols[0]], full[:, :, cols[1]])


def test_generators_are_per_topic_and_seeded(tmp_path):
    from tiebreak.ranking import prepare, topic_generators

    qp, rp = _write(tmp_path)
    P = prepare(tb.read_run(rp), tb.read_qrels(qp))
    a, b, c = topic_generators(P, 0), topic_generators(P, 0), topic_generators(P, 1)
    tied = [i for i, g in enumerate(a) if g is not None]
    assert 0 < len(tied) < len(a)  # the bogus topic 999 has no tie
    draws = [a[i].random() for i in tied]
    assert draws == [b[i].random() for i in tied]
    assert len(set(draws)) == len(draws)  # one stream per topic
    assert all(x != c[i].random() for x, i in zip(draws, tied))
    with pytest.raises(ValueError):
        topic_generators(P, -1)


def test_reading_ahead_in_a_thread_changes_nothing(tmp_path, monkeypatch):
    """Several run files read one ahead in a thread: same values, names, warnings and order;
    a bad file stops the evaluation after the files before it, with the reader's message."""
    paths = []
    for i in range(3):
        d = tmp_path / f"r{i}"
        d.mkdir()
        qp, rp = _write(d, n_topics=6, seed=i, gz=i == 1)
        paths.append(rp)
    q = tb.read_qrels(qp)
    monkeypatch.setattr(tb.Evaluator, "_can_prefetch", lambda self, runs: False)
    one = tb.Evaluator(q, MEASURES, samples=10).evaluate(paths, name_by="file")
    monkeypatch.setattr(tb.Evaluator, "_can_prefetch", lambda self, runs: True)
    ahead = tb.Evaluator(q, MEASURES, samples=10).evaluate(paths, name_by="file")
    _same(one, ahead)
    assert ahead.runs == ["run", "run.gz", "run#2"]
    bad = tmp_path / "bad"
    bad.write_text("1 Q0 d1 1 abc t\n")
    seen = []
    with pytest.raises(tb.io.InputError, match="bad:1: score 'abc'"):
        tb.Evaluator(q, ["AP"]).evaluate([paths[0], bad, paths[2]], progress=seen.append)
    assert len(seen) == 1


@pytest.mark.parametrize("ahead", [False, True])
def test_pieces_decompressed_ahead_in_a_thread(tmp_path, monkeypatch, ahead):
    """The pieces of a gzip file decompressed one ahead in a thread or not: the same values;
    corrupt data stops the piecewise read and the whole read names the problem."""
    qp, rp = _write(tmp_path, gz=True)
    q = tb.read_qrels(qp)
    whole = tb.Evaluator(q, MEASURES, samples=10).evaluate([rp])
    monkeypatch.setattr(chunks, "_second_core", lambda: ahead)
    monkeypatch.setattr(chunks, "BLOCK_BYTES", 500)
    _same(whole, tb.Evaluator(q, MEASURES, samples=10, chunk_topics=5).evaluate([rp]))
    data = rp.read_bytes()
    rp.write_bytes(data[: len(data) // 2] + bytes(200) + data[len(data) // 2:])
    with pytest.raises(tb.io.InputError, match="corrupt gzip data"):
        tb.Evaluator(q, ["AP"], chunk_topics=5).evaluate([rp])
