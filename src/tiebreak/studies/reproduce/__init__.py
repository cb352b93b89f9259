"""Reproduction items: every table and figure of the three seed papers beside our numbers.

An item (:class:`Item`) names one table or figure of a paper (``SEED:table N`` or ``SEED:fig N``,
SEED one of :data:`SEEDS`), the paper's cells as printed there, the command and data that
reproduce it, and a function that computes our cells. Each cell gets a verdict from the fixed
vocabulary :data:`VERDICTS`; an item's verdict rolls its cells up by :func:`verdict_of`.

Items are declared in the modules ``items_*.py`` of this package (one or more per paper), each
calling :func:`register` at import; :func:`items` imports them all. ``tiebreak reproduce``
(:mod:`.cli`) lists and computes them.

Papers
------
* ``ymt2016``: F. Yang, A. Moffat and A. Turpin, "How precise does document scoring need to
  be?", AIRS 2016, LNCS 9994, pp. 279-291.
* ``cabanac2010``: G. Cabanac, G. Hubert, M. Boughanem and C. Chrisment, "Tie-breaking bias:
  effect of an uncontrolled parameter on information retrieval evaluation", CLEF 2010, LNCS
  6360, pp. 112-123.
* ``lu2018``: X. Lu, *Efficient and Effective Retrieval Using Higher-Order Proximity Models*,
  PhD thesis, RMIT University, 2018.
"""

from __future__ import annotations

import importlib
import math
import os
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

SEEDS = ("ymt2016", "cabanac2010", "lu2018")

#: The verdicts. ``exact``, ``within-tolerance`` and ``differs`` compare our number with the
#: paper's on the paper's own data (:data:`COMPARED`; ``differs`` needs a reason: a definition
#: the paper leaves open, a paper error, our defect). ``substitute-holds`` /
#: ``substitute-differs`` test the paper's own claim (quoted with where it stands) on substitute
#: data. ``by-definition`` restates a definition or the paper's own arithmetic: shown, never
#: counted as reproduced. ``descriptive``: a diagram or illustration with no number or claim.
#: ``not-reproducible-here`` names exactly what is missing.
VERDICTS = ("exact", "within-tolerance", "differs", "substitute-holds", "substitute-differs",
            "by-definition", "descriptive", "not-reproducible-here")
#: The verdicts that compare one of the paper's numbers (or stated values) on its own data.
COMPARED = ("exact", "within-tolerance", "differs")


class ReproduceError(ValueError):
    """An unknown item id, a missing data folder, or an item that could not run."""


@dataclass
class Cell:
    """One number (or shape) of a paper's table or figure beside ours.

    ``name``: where the cell is (``"row=BM25 col=MAP"``); ``paper``: the value as the paper
    prints it (text, e.g. ``"0.2760"`` or ``"60 %"``), or ``""`` where the paper gives no number
    (then ``ours`` is checked for the shape the ``note`` states); ``ours``: our value at full
    precision (float) or a text; ``verdict``: one of :data:`VERDICTS`; ``note``: the reason for a
    ``differs`` or ``not-reproducible-here``, or what a shape check tested.
    """

    name: str
    paper: str
    ours: float | str | None
    verdict: str
    note: str = ""

    def __post_init__(self):
        if self.verdict not in VERDICTS:
            raise ReproduceError(f"cell {self.name!r}: verdict {self.verdict!r} is not one of "
                                 f"{', '.join(VERDICTS)}")


@dataclass
class Context:
    """What an item's function receives: the folder of the shared reference data (``data``,
    holding ``trec_covid/``, ``robust03_trectools/``, ...; None when absent) and scratch space."""

    data: Path | None
    workdir: Path | None = None
    jobs: int = 1

    def need(self, *parts: str) -> Path:
        """The path ``data/parts...``; ReproduceError naming it when it is absent."""
        if self.data is None:
            raise ReproduceError("the reference data folder is not available: pass --data DIR "
                                 "(the shared/data folder with the TREC runs and qrels)")
        p = self.data.joinpath(*parts)
        if not p.exists():
            raise ReproduceError(f"{p}: not found (needed by this item)")
        return p


@dataclass
class Item:
    """One table or figure of a paper.

    ``id``: ``SEED:tableN`` / ``SEED:figN`` (e.g. ``lu2018:table6.9``); ``title``: the caption in
    a few words; ``where``: page or section of the paper; ``command``: the tiebreak command (or
    API call) that reproduces it, as a user would type it; ``compute``: ``f(ctx) -> list[Cell]``;
    ``quick``: True when it runs in seconds (the ``--quick`` set, run in CI); ``kind``:
    ``"table"`` or ``"figure"``; ``figure``: for a figure, ``f(ctx, path)`` that draws ours to
    ``path`` (PNG), and ``description`` says what the paper's figure shows (its axes and the
    direction of differences). ``timed``: the cells are timings, so their values (and a shape
    verdict close to its threshold) vary from run to run on a shared machine.
    """

    id: str
    title: str
    where: str
    command: str
    compute: Callable[[Context], list[Cell]]
    quick: bool = False
    kind: str = "table"
    description: str = ""
    figure: Callable | None = None
    data: tuple[str, ...] = field(default_factory=tuple)
    timed: bool = False  # cells are timings: values (and shape verdicts) vary between runs

    @property
    def seed(self) -> str:
        return self.id.split(":", 1)[0]


_ITEMS: dict[str, Item] = {}


def register(item: Item) -> Item:
    """Add ``item`` to the registry; ValueError for a duplicate id or an unknown seed."""
    if item.seed not in SEEDS or ":" not in item.id:
        raise ValueError(f"item id {item.id!r} must be SEED:tableN or SEED:figN, SEED one of "
                         f"{', '.join(SEEDS)}")
    if item.id in _ITEMS:
        raise ValueError(f"reproduction item {item.id!r} is registered twice")
    _ITEMS[item.id] = item
    return item


def _load() -> None:
    for m in pkgutil.iter_modules([os.path.dirname(__file__)]):
        if m.name.startswith("items_"):
            importlib.import_module(f"{__name__}.{m.name}")


def items() -> dict[str, Item]:
    """Every registered item by id, in paper then id order (imports the ``items_*`` modules)."""
    _load()  # every items_* module, even when one was imported (and registered) first
    order = {s: i for i, s in enumerate(SEEDS)}

    def key(i: str):
        seed, rest = i.split(":", 1)
        num = [int(x) if x.isdigit() else x for x in _split_num(rest)]
        return order[seed], num

    return {k: _ITEMS[k] for k in sorted(_ITEMS, key=key)}


def _split_num(s: str) -> list[str]:
    import re

    return [p for p in re.split(r"(\d+)", s) if p]


def verdict_of(cells: list[Cell]) -> str:
    """An item's verdict from its cells.

    When some cell compares a paper's number on its own data (:data:`COMPARED`), the worst of
    those (``exact`` < ``within-tolerance`` < ``differs``). Otherwise nothing of the paper was
    reproduced: ``descriptive`` when every cell is, ``by-definition`` when every cell is that or
    descriptive, else ``not-reproducible-here`` -- whatever the ``substitute-*`` cells say (they
    test the paper's claims on other data, not its numbers). No cells: ValueError.
    """
    if not cells:
        raise ValueError("an item without cells has no verdict")
    got = [c.verdict for c in cells]
    compared = [v for v in got if v in COMPARED]
    if compared:
        return max(compared, key=COMPARED.index)
    if all(v == "descriptive" for v in got):
        return "descriptive"
    if all(v in ("by-definition", "descriptive") for v in got):
        return "by-definition"
    return "not-reproducible-here"


def count_verdicts(results) -> dict[str, dict[str, dict[str, int]]]:
    """``{seed: {"items": {verdict: n}, "cells": {verdict: n}}}`` over ``results``, a sequence
    of ``(Item, cells)``: the summary of docs/reproduction.md (every verdict present as a key,
    zero when absent)."""
    out = {s: {"items": dict.fromkeys(VERDICTS, 0), "cells": dict.fromkeys(VERDICTS, 0)}
           for s in SEEDS}
    for item, cells in results:
        out[item.seed]["items"][verdict_of(cells)] += 1
        for c in cells:
            out[item.seed]["cells"][c.verdict] += 1
    return out


def check(name: str, paper: str, ours, holds: bool, claim: str, data: str,
          tolerance: str = "") -> Cell:
    """A cell testing the paper's own ``claim`` (quoted, with where the paper makes it) on
    substitute ``data``: ``substitute-holds`` when ``holds``, else ``substitute-differs``.
    ``tolerance`` says why the threshold is what it is (printed precision, sampling error)."""
    note = f"claim: {claim}; {data}" + (f"; tolerance: {tolerance}" if tolerance else "")
    return Cell(name, paper, ours, "substitute-holds" if holds else "substitute-differs",
                note + ("" if holds else " (the claim does not hold here)"))


def missing(name: str, paper: str, what: str, ours=None) -> Cell:
    """A paper cell that cannot be compared here: ``not-reproducible-here`` naming ``what`` is
    missing; ``ours`` may hold the substitute's value, shown beside it, never compared."""
    return Cell(name, paper, ours, "not-reproducible-here", what)


def decimals(text: str) -> int:
    """Decimal places of a number as printed (``"0.2760"`` -> 4, ``"60"`` -> 0)."""
    t = text.strip().rstrip("%").strip()
    return len(t.split(".", 1)[1]) if "." in t else 0


def compare_number(name: str, paper: str, ours: float, tol: float | None = None,
                   scale: float = 1.0, note: str = "") -> Cell:
    """A numeric cell: ``exact`` when ours, times ``scale`` and rounded to the paper's printed
    decimals, prints as the paper does; ``within-tolerance`` when ``|ours*scale - paper| <= tol``
    (default: one unit in the paper's last printed place); else ``differs`` (``note`` should say
    why). ``paper`` is the printed text (``"0.276"``, ``"60 %"``, ``"-0.0038"``)."""
    p = float(paper.strip().rstrip("%").replace("\u2212", "-"))
    d = decimals(paper)
    v = ours * scale
    if ours is None or (isinstance(v, float) and math.isnan(v)):
        return Cell(name, paper, ours, "differs", note or "no value computed")
    if f"{v:.{d}f}" == f"{p:.{d}f}" or (d == 0 and round(v) == p):
        return Cell(name, paper, ours, "exact", note)
    tol = 10.0 ** -d if tol is None else tol
    if abs(v - p) <= tol + 1e-12:
        return Cell(name, paper, ours, "within-tolerance", note)
    return Cell(name, paper, ours, "differs", note)


def default_data() -> Path | None:
    """The reference data folder: ``$TIEBREAK_DATA``, else ``../shared/data`` or
    ``shared/data`` from the working directory; None when none exists."""
    env = os.environ.get("TIEBREAK_DATA")
    cands = [Path(env)] if env else []
    cands += [Path("../shared/data"), Path("shared/data")]
    for c in cands:
        if c.is_dir():
            return c.resolve()
    return None


def run_item(item: Item, ctx: Context) -> list[Cell]:
    """Compute one item's cells. A missing input gives one ``not-reproducible-here`` cell naming
    it instead of an exception."""
    try:
        return item.compute(ctx)
    except ReproduceError as e:
        return [Cell("(item)", "", None, "not-reproducible-here", str(e))]
