"""Topic-chunked evaluation: a run evaluated a few topics at a time, with memory bounded by the
chunk, not by the run.

Every tiebreak measure is a per-topic quantity (and the sampled ``expected`` values are seeded
per topic: :func:`tiebreak.ranking.topic_generators`), so a topic's values do not depend on
which other topics are evaluated with it. :meth:`tiebreak.Evaluator.evaluate_run` with
``chunk_topics=k`` (``tiebreak eval --chunk-topics K``) evaluates a run ``k`` topics at a time,
each chunk on its own topics only (the qrels topics no chunk holds are evaluated after the last,
a chunk at a time), so memory does not grow with the qrels' topics either; a run file larger
than :data:`STREAM_BYTES` is read piece by piece (:func:`run_blocks`: decompressed as it is
read, cut at topic boundaries), so neither the file's text nor its arrays are ever whole in
memory; with a second core, the next piece is decompressed in a thread while this one is parsed
and evaluated.

A file that cannot be read that way is read whole, as before: a topic whose lines are not
contiguous, lone CR line ends, more than one run tag, no result line, or any input error (the
whole read then names the file, line and field).
"""

from __future__ import annotations

import io
import os

import numpy as np

from ..io import Run, read_run
from ..io.runs import (
    WARN_DUPLICATE,
    WARN_EMPTY,
    WARN_EXTRA,
    WARN_NO_TAG,
    WARN_RANK,
    WARN_TAGDIFF,
)
from ..io.source import (
    BOM_WARNING,
    CR_WARNING,
    LineCounts,
    iter_blocks,
)

__all__ = ["BLOCK_BYTES", "STREAM_BYTES", "Fallback", "merge_line_counts", "run_blocks",
           "topic_chunks"]

#: a run file (on disk, compressed or not) at least this large is read piece by piece
STREAM_BYTES = 16 << 20
#: decompressed bytes read at a time
BLOCK_BYTES = 4 << 20


class Fallback(Exception):
    """The input cannot be read chunk by chunk: read it whole."""


def topic_chunks(run: Run, k: int):
    """Sub-runs of ``run`` holding ``k`` consecutive topics each (the last fewer), sharing its
    docno table; line numbers kept. Raises :class:`Fallback` when a topic's lines are not
    contiguous."""
    t = run.topic
    if len(t) > 1 and (np.diff(t) < 0).any():
        raise Fallback("topics not contiguous")
    starts = np.searchsorted(t, np.arange(len(run.topics) + 1))
    for a in range(0, len(run.topics), max(int(k), 1)):
        b = min(a + int(k), len(run.topics))
        i, j = int(starts[a]), int(starts[b])
        yield Run(run.name, run.source, run.topics[a:b], t[i:j] - a, run.docnos,
                  run.docid[i:j], run.score[i:j], run.rank[i:j], run.lineno[i:j],
                  list(run.tags), {}, None,
                  None if run.exponent is None else run.exponent[i:j])


def _trailing_topic(buf: bytes, end: int) -> int:
    """Byte offset in ``buf[:end]`` (which ends with a line end) of the first line of the last
    topic's block of consecutive lines."""
    ls = buf.rfind(b"\n", 0, end - 1) + 1
    f = buf[ls:end].split(None, 1)
    if not f:
        return end
    q = f[0]
    pos = ls
    while pos > 0:
        ps = buf.rfind(b"\n", 0, pos - 1) + 1
        g = buf[ps:pos].split(None, 1)
        if not g or g[0] != q:
            break
        pos = ps
    return pos


def run_blocks(path, name: str | None, on_duplicate: str, block: int | None = None):
    """The run file ``path`` as a sequence of Runs of whole topics, read ``block`` decompressed
    bytes (default :data:`BLOCK_BYTES`) at a time; line numbers are the file's. The first
    Run's name (its tag, or ``name``) names every one. Raises :class:`Fallback` when the file
    cannot be read that way."""
    src = os.fspath(path)
    carry = b""
    offset = 0
    seen: set[str] = set()
    tags: set[str] = set()
    first = True
    pieces = iter_blocks(src, block or BLOCK_BYTES)
    if _second_core():
        pieces = _read_ahead(pieces)
    while True:
        piece = next(pieces, None)
        buf = carry + piece if piece is not None else carry
        if piece is not None:
            end = buf.rfind(b"\n") + 1
            cut = _trailing_topic(buf, end) if end else 0
            if cut == 0:  # one topic so far: read more
                carry = buf
                continue
        else:
            cut = len(buf)
        text, carry = buf[:cut], buf[cut:]
        if not text:
            return
        if b"\r" in text or (not first and text[:3] == b"\xef\xbb\xbf"):
            raise Fallback("CR line ends")
        fh = io.BytesIO(text)
        fh.name = src
        run = read_run(fh, name=name, on_duplicate=on_duplicate)
        if not len(run) and piece is not None:  # comments or blank lines only: read on
            carry = buf
            continue
        first = False
        if name is None:
            name = run.name
        run.lineno += offset
        offset += run.line_counts.read
        tags.update(run.tags)
        if len(tags) > 1 or (np.diff(run.topic) < 0).any() or seen.intersection(run.topics):
            raise Fallback("topics not contiguous or several run tags")
        seen.update(run.topics)
        yield run
        if piece is None:
            return


def _second_core() -> bool:
    return hasattr(os, "sched_getaffinity") and len(os.sched_getaffinity(0)) > 1


def _read_ahead(pieces):
    """The items of ``pieces`` produced one ahead in a daemon thread (gzip decompression
    releases the GIL, so the next piece is decompressed while this one is parsed and
    evaluated); its exceptions are raised here, in order. Closing this generator stops the
    thread."""
    import queue
    import threading

    q: queue.Queue = queue.Queue(maxsize=1)
    stop = threading.Event()
    end = object()

    def work():
        try:
            yield_to_reader(pieces)
        finally:
            pieces.close()

    def yield_to_reader(pieces):
        try:
            for p in pieces:
                while not stop.is_set():
                    try:
                        q.put((p, None), timeout=0.1)
                        break
                    except queue.Full:
                        continue
                if stop.is_set():
                    return
            item = (end, None)
        except BaseException as e:  # handed to the reader
            item = (end, e)
        while not stop.is_set():
            try:
                q.put(item, timeout=0.1)
                return
            except queue.Full:
                continue

    t = threading.Thread(target=work, name="tiebreak-gunzip", daemon=True)
    t.start()
    try:
        while True:
            p, err = q.get()
            if err is not None:
                raise err
            if p is end:
                return
            yield p
    finally:
        stop.set()
        t.join()


def merge_line_counts(counts: list[LineCounts]) -> LineCounts:
    """The :class:`LineCounts` of a file read in pieces: every count summed."""
    dropped: dict[str, int] = {}
    for c in counts:
        for k, v in c.dropped.items():
            dropped[k] = dropped.get(k, 0) + v
    return LineCounts(sum(c.read for c in counts), sum(c.comment for c in counts),
                      sum(c.blank for c in counts), sum(c.evaluated for c in counts), dropped)


#: the order in which a whole read lists its reader warnings
READER_ORDER = [BOM_WARNING, CR_WARNING, WARN_EXTRA, WARN_TAGDIFF, WARN_NO_TAG, WARN_RANK,
                WARN_EMPTY, WARN_DUPLICATE]
