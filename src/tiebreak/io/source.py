"""Bytes in, for every TREC text reader: one :func:`open_bytes`, one :func:`text_lines`.

Every reader in :mod:`tiebreak.io` gets its input here, so the rules are the same for runs, qrels,
preference judgments, jg qrels and z-score files:

* a source is a path, ``"-"`` (standard input, at most once per command) or a binary file object;
* gzip is recognised by its magic bytes (``1f 8b``), never by the file name, and undone once;
* a UTF-8 byte-order mark is removed (and counted as a warning), so it never becomes part of the
  first topic id; UTF-16 text and NUL bytes are errors (a TREC file is ASCII or UTF-8 bytes);
* lines end at ``\\n``; ``\\r\\n`` is read as one line end; a lone ``\\r`` (classic Mac OS files)
  is read as a line end too and counted as a warning;
* every line is accounted for in a :class:`LineCounts`.
"""

from __future__ import annotations

import gzip
import os
import re
import sys
import zlib
from dataclasses import dataclass, field

__all__ = [
    "BOM_WARNING",
    "CR_WARNING",
    "InputError",
    "LineCounts",
    "decode_utf8",
    "gunzip",
    "iter_blocks",
    "natural_key",
    "open_bytes",
    "show",
    "text_lines",
]

BOM_WARNING = "UTF-8 byte-order mark removed"
CR_WARNING = "lone CR (\\r) line ends read as line ends"

# C ``strtod`` decimal syntax as trec_eval's ``atof`` reads a whole token: no hex, no inf/nan, no
# underscores (which Python's ``float`` and ``int`` accept), no surrounding text.
NUMBER = re.compile(rb"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
INTEGER = re.compile(rb"[+-]?\d+")


class InputError(ValueError):
    """Malformed input file. The message names the file, the line number and the field
    (``run.txt:1043: score 'abc' is not a number``); the CLI prints it and exits with status 2."""


def byte_place(data: bytes, start: int) -> tuple[int, int]:
    """``(line, column)``, both counted from 1, of byte ``start`` of ``data`` (for an error
    message that points at a bad byte)."""
    return data.count(b"\n", 0, start) + 1, start - (data.rfind(b"\n", 0, start) + 1) + 1


_GUNZIP: list = []
#: what a decoder raises on corrupt or truncated data (python-isal adds its IsalError, which is
#: no OSError: "Invalid lookback distance", "Invalid deflate block found")
GZIP_ERRORS: tuple[type[BaseException], ...] = (OSError, EOFError, ValueError, zlib.error)


def _decompress(data: bytes) -> bytes:
    """gunzip (all members of a multi-member file), with python-isal's ISA-L decoder when it is
    installed (``pip install 'tiebreak[fast]'``: same bytes, 2-3x faster), else the standard
    library's zlib. Corrupt data raises one of :data:`GZIP_ERRORS`."""
    global GZIP_ERRORS
    if not _GUNZIP:
        try:
            from isal import igzip
            from isal.igzip_lib import IsalError

            _GUNZIP.append(igzip.decompress)
            GZIP_ERRORS = (*GZIP_ERRORS, IsalError)
        except ImportError:
            _GUNZIP.append(gzip.decompress)
    return _GUNZIP[0](data)


def gunzip(data: bytes, name: str) -> bytes:
    """``data`` decompressed when it starts with the gzip magic bytes, else as it is.

    Raises
    ------
    InputError
        ``NAME: corrupt gzip data (REASON): ...`` for any decoder error (zlib's, ISA-L's,
        a missing end of stream, a CRC mismatch).
    """
    if data[:2] != b"\x1f\x8b":
        return data
    try:
        return _decompress(data)
    except Exception as e:
        if not isinstance(e, GZIP_ERRORS):
            raise
        raise InputError(f"{name}: corrupt gzip data ({e}): the file is truncated or damaged; "
                         "copy or download it again") from None


def iter_blocks(path, size: int):
    """The decompressed bytes of the file ``path`` in pieces of about ``size`` bytes (gzip
    recognised by its magic bytes and decompressed as it is read, with python-isal when
    installed), so that a reader can work on a file larger than memory piece by piece.

    Raises
    ------
    OSError
        The file cannot be read, or its gzip data is corrupt (a caller that wants the readers'
        messages reads the file whole instead).
    """
    with open(os.fspath(path), "rb") as fh:
        head = fh.read(2)
        fh.seek(0)
        if head == b"\x1f\x8b":
            try:
                from isal import igzip as gz
            except ImportError:
                gz = gzip
            fh = gz.GzipFile(fileobj=fh, mode="rb")
        while True:
            try:
                piece = fh.read(size)
            except Exception as e:  # zlib, ISA-L and gzip each raise their own errors
                if isinstance(e, OSError):
                    raise
                raise OSError(f"{path}: corrupt gzip data ({e})") from None
            if not piece:
                return
            yield piece


def decode_utf8(data: bytes, name: str, what: str = "text") -> str:
    """Strict UTF-8 decoding of normalised text (after :func:`text_lines`).

    Raises
    ------
    InputError
        ``NAME:LINE: invalid UTF-8 (byte 0xNN at column C)``.
    """
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        lno, col = byte_place(data, e.start)
        raise InputError(f"{name}:{lno}: invalid UTF-8 in the {what} (byte 0x{data[e.start]:02x} "
                         f"at column {col}); save the file as UTF-8 (e.g. iconv -f LATIN1 -t "
                         "UTF-8)") from None


def open_bytes(source) -> tuple[bytes, str]:
    """The bytes of a source, gunzipped when the content is gzip.

    Parameters
    ----------
    source : str, os.PathLike, ``"-"`` or binary file object
        ``"-"`` (or None) reads standard input; a file object is read to its end (``str``
        content is encoded as UTF-8).

    Returns
    -------
    data : bytes
        The (decompressed) content.
    name : str
        Name for messages: the path, ``<stdin>``, or the file object's ``name``.

    Raises
    ------
    InputError
        The file cannot be read, or its gzip data is corrupt or truncated.
    """
    if source is None or (isinstance(source, str) and source == "-"):
        data, name = sys.stdin.buffer.read(), "<stdin>"
    elif hasattr(source, "read"):
        data, name = source.read(), str(getattr(source, "name", "<stream>"))
        if isinstance(data, str):
            data = data.encode()
    else:
        name = os.fspath(source)
        name = name.decode("utf-8", "surrogateescape") if isinstance(name, bytes) else name
        try:
            with open(name, "rb") as fh:
                data = fh.read()
        except OSError as e:
            raise InputError(f"{name}: cannot read: {e.strerror or e}") from None
    return gunzip(data, str(name)), str(name)


def natural_key(qid: str):
    """Sort key that orders numeric qids numerically and the rest by text after them."""
    return (0, int(qid), "") if qid.isdigit() and qid.isascii() else (1, 0, qid)


def show(tok: bytes) -> str:
    """A token or line for a message: UTF-8 where it is, ``\\xNN`` escapes where it is not."""
    return tok.decode("utf-8", "backslashreplace")


@dataclass(frozen=True)
class LineCounts:
    """What became of every line of one input file.

    ``read == comment + blank + evaluated + sum(dropped.values())`` always holds.

    Attributes
    ----------
    read : int
        Lines in the (decompressed) file; a last line without a line end counts, the empty
        "line" after a final line end does not.
    comment : int
        Lines whose first field starts with ``#`` (trec_eval skips them too).
    blank : int
        Lines holding only whitespace.
    evaluated : int
        Records handed on to evaluation (run lines or judgments). Run lines of topics absent from
        the qrels are among them; the evaluator lists those topics in its warnings.
    dropped : dict[str, int]
        Lines not used, by reason (e.g. a repeated docno under ``on_duplicate="first"``).
    """

    read: int = 0
    comment: int = 0
    blank: int = 0
    evaluated: int = 0
    dropped: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict:
        """Plain dict (for JSON): read, comment, blank, evaluated, dropped."""
        return {"read": self.read, "comment": self.comment, "blank": self.blank,
                "evaluated": self.evaluated, "dropped": dict(self.dropped)}

    def skipped(self) -> str:
        """The comment and blank lines skipped, for the default warnings (``1 comment, 2
        blank``; empty when none): no line is skipped without a word."""
        parts = [f"{n} {what}" for n, what in ((self.comment, "comment"), (self.blank, "blank"))
                 if n]
        return ", ".join(parts)

    def summary(self) -> str:
        """One line for a table's warnings: ``1000 read: 2 comment, 1 blank, 997 evaluated``."""
        parts = [f"{self.comment} comment", f"{self.blank} blank", f"{self.evaluated} evaluated"]
        parts += [f"{v} dropped ({k})" for k, v in self.dropped.items()]
        return f"{self.read} read: " + ", ".join(parts)


def count_lines(data: bytes) -> int:
    """Lines in ``data`` (see :attr:`LineCounts.read`)."""
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def text_lines(data: bytes, name: str, warnings: dict[str, int]) -> bytes:
    """Apply the shared text rules (module docstring) and return the bytes to tokenise.

    Parameters
    ----------
    data : bytes
        Output of :func:`open_bytes`.
    name : str
        File name for messages.
    warnings : dict[str, int]
        Updated in place: :data:`BOM_WARNING`, :data:`CR_WARNING`.

    Raises
    ------
    InputError
        UTF-16/UTF-32 text (byte-order mark ``ff fe`` or ``fe ff``) or a NUL byte (named by line).
    """
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        raise InputError(f"{name}:1: file is UTF-16/UTF-32 text (byte-order mark "
                         f"{data[:2].hex(' ')}); TREC files are ASCII or UTF-8: convert it "
                         "(e.g. iconv -f UTF-16 -t UTF-8)")
    if data[:3] == b"\xef\xbb\xbf":
        data = data[3:]
        warnings[BOM_WARNING] = 1
    if b"\r" in data:
        lone = data.count(b"\r") - data.count(b"\r\n")
        if lone:
            data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
            warnings[CR_WARNING] = lone
    nul = data.find(b"\x00")
    if nul >= 0:
        lno = data.count(b"\n", 0, nul) + 1
        raise InputError(f"{name}:{lno}: NUL byte in the text (binary or UTF-16 file?)")
    return data


def split_lines(data: bytes) -> list[bytes]:
    """Lines of normalised text, without the empty piece after a final ``\\n``."""
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return lines
