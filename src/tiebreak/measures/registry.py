"""The measure registry: every measure family is declared once, here.

A :class:`Family` declares a measure: its canonical (ir_measures-style) name, one-line
definition, typed parameters with defaults and checks, whether it takes a cutoff, its *kind*
(which decides what the YMT bounds do with unjudged documents), its per-topic kernel over one
:class:`~tiebreak.ranking.Ranking`, how the ``expected`` regime is computed (``linear``: the
kernel on the fractional ranking; ``closed``: a closed form over tied groups; ``sampled``:
seeded random orderings with a reported standard error), its summary over topics (mean, sum,
geometric mean) and its source.

A :class:`Measure` is a family with parameter values and a display name. ir_measures syntax
(``AP(rel=2)@10``) is parsed by :func:`tiebreak.measures.parse.parse_measure`; trec_eval names
(``map``, ``P.5,10``, ``ndcg_cut.10``) are an alias table onto the same families
(:mod:`tiebreak.measures.trec_names`).

Adding a measure: write its kernel (``kernel(R, m) -> float64 (T,)``, plus a closed form
``closed(G, m, cutoff) -> (T,)`` when it is not linear), then one ``register(Family(...))``
call in :mod:`tiebreak.measures.builtin` (or a module it imports); add a trec_eval alias in
:mod:`tiebreak.measures.trec_names` if trec_eval has the measure.

Kinds
-----
``monotone``
    Only grows when a gain grows, with a fixed normaliser (P, RR, Success, RBP, ERR, DCG).
    Its ``upper`` bound counts unjudged documents as maximally relevant.
``normalised``
    Normalised by a quantity of the qrels (AP, nDCG, R, Rprec, bpref): unjudged documents stay
    non-relevant in both bounds.
``judged``, ``residual``
    Judged fractions and RBP residuals: bounds order tied groups by judged-ness.
``count``, ``set``, ``other``
    Order-free counts, set measures and the rest: bounds are the best and worst tie orders.
"""

from __future__ import annotations

from collections.abc import Callable

from .errors import MeasureError

__all__ = ["Param", "Family", "Measure", "MeasureError", "REGISTRY", "register", "family",
           "JUDGED_ONLY"]

KINDS = ("monotone", "normalised", "judged", "residual", "count", "set", "other")
EXPECTED = ("linear", "closed", "sampled", "linear_uncut", "trec_order")
SUMMARIES = ("mean", "sum", "gmean", "none", "num_rel", "first")


class _Frozen:
    """Immutable records with the behaviour of a frozen dataclass (``__init__`` over the fields
    in order, ``repr``, ``==`` and ``hash`` over the compared fields, assignment raising
    :class:`dataclasses.FrozenInstanceError`), written out: these classes are defined at every
    start of a command, where Python 3.11 compiles each generated method of a dataclass (about
    0.6 ms per class). A subclass lists ``_fields`` (all, in order) and gives ``_key()``, the
    tuple of the fields compared and hashed."""

    _fields: tuple[str, ...] = ()

    def _key(self) -> tuple:  # the compared fields, written out in each class
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__qualname__}(" + ", ".join(
            f"{f}={getattr(self, f)!r}" for f in self._fields) + ")"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return self._key() == other._key()
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._key())

    def __setattr__(self, name, value):
        from dataclasses import FrozenInstanceError

        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name):
        from dataclasses import FrozenInstanceError

        raise FrozenInstanceError(f"cannot delete field {name!r}")


_set = object.__setattr__


class Param(_Frozen):
    """A typed measure parameter.

    ``kind`` is ``int``, ``float``, ``gains`` (a ``{grade: gain}`` map), ``str`` or
    ``floats`` (a tuple of numbers) or ``bool``; ``check(value)`` returns an error text or None.
    """

    _fields = __match_args__ = ("name", "kind", "default", "doc", "check")
    name: str
    kind: str
    default: object
    doc: str
    check: Callable[[object], str | None] | None

    def __init__(self, name: str, kind: str, default: object, doc: str,
                 check: Callable[[object], str | None] | None = None):
        _set(self, "name", name)
        _set(self, "kind", kind)
        _set(self, "default", default)
        _set(self, "doc", doc)
        _set(self, "check", check)

    def _key(self) -> tuple:
        return (self.name, self.kind, self.default, self.doc, self.check)

    def coerce(self, value, where: str):
        """Convert a parsed value to this parameter's type, raising MeasureError."""
        k = self.kind
        try:
            if k == "int":
                if isinstance(value, bool) or not float(value).is_integer():
                    raise TypeError
                value = int(value)
            elif k == "float":
                if isinstance(value, bool):
                    raise TypeError
                value = float(value)
                if value != value or value in (float("inf"), float("-inf")):
                    raise TypeError
            elif k == "str":
                if not isinstance(value, str):
                    raise TypeError
            elif k == "bool":
                if not isinstance(value, bool):
                    raise TypeError
            elif k == "floats":
                value = tuple(float(x) for x in value)
            elif k == "gains":
                if not isinstance(value, dict) or not value:
                    raise TypeError
                items = []
                for g, v in value.items():
                    if isinstance(g, bool) or isinstance(v, bool):
                        raise TypeError
                    gv = float(v)
                    if not float(g).is_integer() or gv != gv or abs(gv) == float("inf"):
                        raise TypeError
                    items.append((int(g), gv))
                value = tuple(sorted(items))
        except (TypeError, ValueError, OverflowError):
            hint = {"gains": "a dict of integer grades to finite numbers, e.g. {0:0,1:1,2:3}",
                    "int": "an integer", "float": "a finite number", "str": "a string",
                    "floats": "a list of numbers", "bool": "True or False"}[k]
            raise MeasureError(f"{where}: parameter {self.name} must be {hint}") from None
        if self.check is not None:
            msg = self.check(value)
            if msg:
                raise MeasureError(f"{where}: {self.name} {msg}")
        return value


class Family(_Frozen):
    """One measure family, declared once (see the module docstring)."""

    _fields = __match_args__ = (
        "name", "doc", "kind", "kernel", "params", "cutoff", "expected", "closed", "summary",
        "fmt", "source", "bogus", "aliases", "rel_format")
    name: str
    doc: str
    kind: str
    kernel: Callable
    params: tuple[Param, ...]
    cutoff: str          # optional | required | none
    expected: str        # linear | closed | sampled | linear_uncut | trec_order
    closed: Callable | None
    summary: str
    fmt: str             # float | long | str
    source: str
    bogus: float | str | None  # value on a -c topic without results (None: computed)
    aliases: tuple[str, ...]   # other ir_measures-style names of the family
    rel_format: str      # qrels | prefs | qrels_jg | subtopics

    def __init__(self, name: str, doc: str, kind: str, kernel: Callable,
                 params: tuple[Param, ...] = (), cutoff: str = "optional",
                 expected: str = "linear", closed: Callable | None = None,
                 summary: str = "mean", fmt: str = "float", source: str = "",
                 bogus: float | str | None = None, aliases: tuple[str, ...] = (),
                 rel_format: str = "qrels"):
        _set(self, "name", name)
        _set(self, "doc", doc)
        _set(self, "kind", kind)
        _set(self, "kernel", kernel)
        _set(self, "params", params)
        _set(self, "cutoff", cutoff)
        _set(self, "expected", expected)
        _set(self, "closed", closed)
        _set(self, "summary", summary)
        _set(self, "fmt", fmt)
        _set(self, "source", source)
        _set(self, "bogus", bogus)
        _set(self, "aliases", aliases)
        _set(self, "rel_format", rel_format)
        self.__post_init__()

    def _key(self) -> tuple:
        return (self.name, self.doc, self.kind, self.kernel, self.params, self.cutoff,
                self.expected, self.closed, self.summary, self.fmt, self.source, self.bogus,
                self.aliases, self.rel_format)

    def __post_init__(self):
        assert self.kind in KINDS, self.kind
        assert self.expected in EXPECTED, self.expected
        assert self.summary in SUMMARIES, self.summary
        assert self.expected != "closed" or self.closed is not None, self.name

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)


class Measure(_Frozen):
    """A family with parameter values: what a kernel is called with.

    Attributes
    ----------
    family : Family
    cutoff : int or None
        Evaluation depth k; None means the whole ranking.
    values : tuple of (name, value)
        Every parameter of the family, defaults filled in, in declaration order.
    name : str
        Name shown in output (as typed, or trec_eval's printed name).
    summary : str
        How per-topic values are summarised (the family's, unless an alias such as
        ``gm_map`` overrides it).

    Equality and hash ignore ``name``.
    """

    _fields = __match_args__ = ("family", "cutoff", "values", "name", "summary")
    family: Family
    cutoff: int | None
    values: tuple
    name: str
    summary: str

    def __init__(self, family: Family, cutoff: int | None = None, values: tuple = (),
                 name: str = "", summary: str = ""):
        _set(self, "family", family)
        _set(self, "cutoff", cutoff)
        _set(self, "values", values)
        _set(self, "name", name)
        _set(self, "summary", summary)

    def _key(self) -> tuple:  # not the name
        return (self.family, self.cutoff, self.values, self.summary)

    def __getitem__(self, key: str):
        for k, v in self.values:
            if k == key:
                return v
        raise KeyError(f"{self.family.name} has no parameter {key!r}")

    @property
    def kind(self) -> str:
        return self.family.kind

    @property
    def agg(self) -> str:
        return self.summary or self.family.summary

    @property
    def canonical(self) -> str:
        """ir_measures-style name with the parameters that differ from their defaults,
        e.g. ``AP(rel=2)@10``."""
        ps = []
        for p in self.family.params:
            v = self[p.name]
            if v == p.default:
                continue
            if p.kind == "gains":
                ps.append(p.name + "={" + ",".join(f"{g}:{x:g}" for g, x in v) + "}")
            elif p.kind == "str":
                ps.append(f"{p.name}='{v}'")
            elif p.kind == "floats":
                ps.append(f"{p.name}=(" + ",".join(f"{x:g}" for x in v) + ")")
            elif p.kind == "float":
                ps.append(f"{p.name}={v:g}")
            else:
                ps.append(f"{p.name}={v}")
        s = self.family.name + (f"({','.join(ps)})" if ps else "")
        s += f"@{self.cutoff}" if self.cutoff is not None else ""
        return ("GM:" + s) if self.summary == "gmean" and self.family.summary != "gmean" else s

    def __str__(self) -> str:
        return self.name or self.canonical

    def with_(self, **kw) -> Measure:
        """A copy with some parameter values (or ``cutoff``/``name``) replaced."""
        cutoff = kw.pop("cutoff", self.cutoff)
        name = kw.pop("name", "")
        vals = tuple((k, kw.pop(k, v)) for k, v in self.values)
        if kw:
            raise MeasureError(f"{self.family.name}: unknown parameter(s) {sorted(kw)}")
        return Measure(self.family, cutoff, vals, name, self.summary)


JUDGED_ONLY = Param("judged_only", "bool", False, "drop unjudged documents before evaluating "
                    "(ir_measures judged_only=, trec_eval -J), for this measure only")

REGISTRY: dict[str, Family] = {}
_ALIASES: dict[str, str] = {}


def register(f: Family) -> Family:
    """Add a family; a name (or alias, case-insensitively) may be registered once only."""
    for n in (f.name, *f.aliases):
        key = n.lower()
        if key in _ALIASES:
            raise ValueError(f"measure name {n!r} is registered twice")
        _ALIASES[key] = f.name
    REGISTRY[f.name] = f
    return f


def family(name: str) -> Family | None:
    """The family registered under ``name`` or one of its aliases (case-insensitive)."""

    key = _ALIASES.get(name.lower())
    return REGISTRY[key] if key else None


def make(fam: Family, where: str, cutoff=None, name: str = "", summary: str = "",
         **kw) -> Measure:
    """Build a :class:`Measure`: check the cutoff and every parameter (MeasureError)."""
    unknown = set(kw) - {p.name for p in fam.params}
    if unknown:
        allowed = ", ".join(p.name for p in fam.params) or "none"
        raise MeasureError(f"{where}: unknown parameter(s) {sorted(unknown)}; "
                           f"{fam.name} takes: {allowed}")
    if cutoff is not None:
        if isinstance(cutoff, bool) or not isinstance(cutoff, int) or cutoff < 1:
            raise MeasureError(f"{where}: the cutoff must be a positive integer")
        if cutoff >= 1 << 63:
            raise MeasureError(f"{where}: the cutoff must be below 2**63 (a rank is a 64-bit "
                               f"integer), got {cutoff}")
        if fam.cutoff == "none":
            raise MeasureError(f"{where}: {fam.name} takes no cutoff")
    elif fam.cutoff == "required":
        raise MeasureError(f"{where}: {fam.name} needs a cutoff, e.g. {fam.name}@10")
    vals = []
    for p in fam.params:
        v = p.coerce(kw[p.name], where) if p.name in kw else p.default
        vals.append((p.name, v))
    return Measure(fam, cutoff, tuple(vals), name, summary)
