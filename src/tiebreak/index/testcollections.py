"""Classic test collections as laid out in the reference folder ``../shared/data`` (read-only).

Used by the end-to-end tests and ``benchmarks/effectiveness.py``. Each :class:`Collection` names
the document source (a file or an ir_datasets id), the topics, and how to turn its judgments into
TREC qrels. Nothing is copied: files are read in place, ir_datasets works from a caller-provided
``IR_DATASETS_HOME`` (a temporary copy of ``data/ir_datasets_home``).

Relevance: binary collections get 1; Cranfield's codes 1 (complete answer) .. 4 (minimum
interest) become grades 5 - code (4 .. 1), code -1 becomes 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..io import open_bytes

__all__ = ["Collection", "COLLECTIONS", "qrels_bytes"]


@dataclass(frozen=True)
class Collection:
    name: str
    docs: str            # path relative to the data dir, or an ir_datasets id
    topics: str          # idem
    judgments: str       # idem
    qrels_format: str    # "trec", "smart" (qid docid ...), "irds", "irds-cranfield"
    fields: object = None  # SMART document fields (None = default)
    irds: bool = False

    def docs_source(self, data: Path) -> str:
        return self.docs if self.irds else str(Path(data) / self.docs)

    def topics_source(self, data: Path) -> str:
        return self.topics if self.irds else str(Path(data) / self.topics)

    def qrels(self, data: Path) -> bytes:
        """TREC qrels bytes (for :func:`tiebreak.read_qrels` via ``io.BytesIO``)."""
        return qrels_bytes(self, Path(data))


def _read(path: Path) -> str:
    raw, _ = open_bytes(path)
    return raw.decode("utf-8", errors="replace")


def qrels_bytes(c: Collection, data: Path) -> bytes:
    """TREC qrels (``qid 0 docno rel``) of collection ``c``."""
    lines = []
    if c.qrels_format.startswith("irds"):
        import ir_datasets

        for q in ir_datasets.load(c.judgments).qrels_iter():
            rel = q.relevance
            if c.qrels_format == "irds-cranfield":
                rel = 5 - rel if 1 <= rel <= 4 else 0
            lines.append(f"{q.query_id} 0 {q.doc_id} {rel}")
    else:
        text = _read(data / c.judgments)
        for line in text.splitlines():
            f = line.split()
            if not f:
                continue
            if c.qrels_format == "trec":
                lines.append(f"{f[0]} 0 {f[2]} {f[3]}")
            else:  # smart: qid docid [..]; ids may have leading zeros
                lines.append(f"{int(f[0])} 0 {int(f[1])} 1")
    return ("\n".join(lines) + "\n").encode()


COLLECTIONS: dict[str, Collection] = {
    c.name: c for c in [
        Collection("cranfield", "cranfield", "cranfield", "cranfield", "irds-cranfield",
                   irds=True),
        Collection("vaswani", "vaswani", "vaswani", "vaswani", "irds", irds=True),
        Collection("cacm", "cacm/cacm.all.gz", "cacm/query.text", "cacm/qrels.text", "smart"),
        Collection("cisi", "cisi/CISI.ALL.gz", "cisi/CISI.QRY", "cisi/CISI.REL", "smart"),
        Collection("medline", "medline/MED.ALL.gz", "medline/MED.QRY", "medline/MED.REL",
                   "trec"),
        Collection("adi", "adi/ADI.ALL", "adi/ADI.QRY", "adi/ADIREL", "smart"),
    ]
}
