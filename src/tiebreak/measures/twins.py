"""The one declaration of the measures with a compiled twin, from which both sides are built.

:data:`TWINS` lists, per measure kernel of :mod:`tiebreak.measures.kernels` with a twin in the
C extension (``src/tiebreak/_native/_ext_eval.c``): the kernel, the twin's C family name, the
``expected`` form the twin implements (None: the deterministic orderings only) and the ordered
float parameters with how each packs into the :data:`NFP` float slots of a measure. The same
table

* drives the Python side: :func:`pack` turns a measure into the twin's spec (family code, cutoff,
  rel) and float parameters, generically, for :mod:`tiebreak.measures.fastpath`;
* generates the C side: :func:`header` writes ``src/tiebreak/_native/_ev_specs.h`` -- the enum of
  family codes (``EV_AP``, ...), the orderings (``EV_TREC``, ...), the columns of a spec, and one
  ``#define`` per float slot (``EV_FP_UTILITY_NUM_DOCS``, ...) that the ``case`` bodies of
  ``_ext_eval.c`` read. The header is committed (a build needs no Python import); after changing
  the table, regenerate it with ``python -m tiebreak.measures.twins --header``
  (``tests/test_measure_twins.py`` fails until the committed header is the generated one).

Adding a compiled twin to a registered measure whose numpy kernel exists (the kernel stays the
definition): one :class:`Twin` row here (families with an ``expected`` form before the others),
``python -m tiebreak.measures.twins --header``, one ``case EV_<NAME>:`` in ``ev_det`` of
``_ext_eval.c`` (and in ``ev_expected`` when the row names an expected form) computing the
kernel's floating-point operations in the kernel's order, and the measure in ``MEASURES`` of
``tests/test_eval_fastpath.py``, which checks the twin bit for bit against the kernel.
"""

from __future__ import annotations

import os
import sys

from . import kernels as K

#: Float parameters per measure (``EV_NFP``).
NFP = 16
#: Relevance code of an unjudged document promoted to relevant (``upper_mono``); also the
#: bound on ``rel`` (``EV_PROMOTED``).
PROMOTED = 1 << 40
#: The orderings of ``_ext_eval.c`` in code order: (regime's ordering, C name); None is the
#: ``expected`` regime (group means and closed forms over the tied groups).
ORDERINGS = (("trec_eval", "TREC"), ("realistic", "REAL"), ("optimistic", "OPT"),
             ("upper_mono", "UPMONO"), (None, "EXP"))
#: The columns of a measure's int64 spec row.
SPEC_COLUMNS = ("FAM", "CUTOFF", "REL")


class Slot:
    """How one measure parameter packs into float slots.

    A scalar (``parts`` and ``counted`` unset) takes one slot; a tuple of fixed length takes one
    slot per name of ``parts``; a ``counted`` tuple (of any length) takes one slot with its
    length and then its values, up to the last slot (it must be the last parameter), and a
    measure whose tuple does not fit is left to the general path. (Plain classes, not
    NamedTuple: this module is imported at every evaluation's start.)"""

    __slots__ = ("param", "parts", "counted")

    def __init__(self, param: str, parts: tuple[str, ...] = (), counted: bool = False):
        self.param, self.parts, self.counted = param, parts, counted


class Twin:
    """One measure kernel with a compiled twin: the kernel (of :mod:`tiebreak.measures.kernels`),
    the C family name (``EV_<name>``), the expected form the twin implements (None: the
    deterministic orderings only) and its float parameters (:class:`Slot`) in slot order.

    ``only``: (parameter, value) pairs the twin needs (other values take the general path);
    ``with_rel``: the C family (another row's) computing this kernel when its ``rel`` parameter
    is set (NumRet with ``rel=`` counts the relevant documents retrieved)."""

    __slots__ = ("kernel", "name", "expected", "slots", "only", "with_rel")

    def __init__(self, kernel, name: str, expected: str | None = None,
                 slots: tuple[Slot, ...] = (), only: tuple[tuple[str, object], ...] = (),
                 with_rel: str | None = None):
        self.kernel, self.name, self.expected = kernel, name, expected
        self.slots, self.only, self.with_rel = slots, only, with_rel

    def replace(self, **kw) -> Twin:
        """A copy with the fields of ``kw`` changed."""
        return Twin(**{k: kw.get(k, getattr(self, k)) for k in self.__slots__})


#: Every compiled twin, in family-code order (the twins with an expected form first).
TWINS: tuple[Twin, ...] = (
    Twin(K.average_precision, "AP", "closed"),
    Twin(K.precision, "P", "linear"),
    Twin(K.recall, "R", "linear"),
    Twin(K.reciprocal_rank, "RR", "closed"),
    Twin(K.ndcg, "NDCG", "linear",  # trec_eval's gains only
         only=(("gains", None), ("dcg", "log2"), ("unjudged", None))),
    Twin(K.bpref, "BPREF", "closed"),
    Twin(K.relative_precision, "RELP"),
    Twin(K.rprec, "RPREC"),
    Twin(K.rprec_mult, "RPREC_MULT", slots=(Slot("mult"),)),
    Twin(K.success, "SUCCESS"),
    Twin(K.unjudged, "UNJ"),
    Twin(K.num_ret, "NUMRET", with_rel="NUMRELRET"),
    Twin(K.num_rel, "NUMREL"),
    Twin(K.num_rel_ret, "NUMRELRET"),
    Twin(K.num_nonrel_judged_ret, "NONREL_RET"),
    Twin(K.set_P, "SETP"),
    Twin(K.set_relative_P, "SETRELP"),
    Twin(K.set_recall, "SETR"),
    Twin(K.set_map, "SETAP"),
    Twin(K.set_F, "SETF", slots=(Slot("beta"),)),
    Twin(K.utility, "UTILITY", slots=(Slot("coef", ("a", "b", "c", "d")), Slot("num_docs"))),
    Twin(K.iprec_at_recall, "IPREC", slots=(Slot("recall"),)),
    Twin(K.eleven_pt_avg, "11PT", slots=(Slot("levels", counted=True),)),
)

#: C family name -> family code.
CODES = {t.name: i for i, t in enumerate(TWINS)}


def layout(t: Twin) -> list[tuple[str, int, Slot]]:
    """The float slots of twin ``t``: (C name, first slot, slot) per slot, in order. A counted
    slot gives two names: ``<NAME>_N`` (its length) and ``<NAME>`` (its first value)."""
    out, at = [], 0
    for s in t.slots:
        base = f"EV_FP_{t.name}_{s.param.upper()}"
        if s.counted:
            out += [(base + "_N", at, s), (base, at + 1, s)]
            at = NFP
        elif s.parts:
            out += [(f"{base}_{p.upper()}", at + i, s) for i, p in enumerate(s.parts)]
            at += len(s.parts)
        else:
            out.append((base, at, s))
            at += 1
    return out


def pack(t: Twin, m) -> tuple[tuple[int, int, int], list[float]] | None:
    """The spec (family code, cutoff or -1, rel) and the :data:`NFP` float parameters of measure
    ``m`` (a :class:`~tiebreak.measures.registry.Measure` of ``t``'s kernel) for its twin, or
    None when the twin does not cover the measure's parameter values (``judged_only``, a value
    outside ``t.only``, a ``rel`` beyond the codes, a counted tuple that does not fit)."""
    v = dict(m.values)
    if v.get("judged_only") or any(v.get(p) != x for p, x in t.only):
        return None
    code = CODES[t.name]
    rel = v.get("rel", 1)
    if t.with_rel is not None and rel is not None:
        code = CODES[t.with_rel]
    rel = 1 if rel is None else rel
    if not isinstance(rel, int) or isinstance(rel, bool) or not -PROMOTED < rel < PROMOTED:
        return None
    fp = [0.0] * NFP
    at = 0
    for s in t.slots:
        x = v[s.param]
        if s.counted:
            if not 0 < len(x) < NFP - at:
                return None
            fp[at:at + 1 + len(x)] = [float(len(x)), *map(float, x)]
            at = NFP
        elif s.parts:
            if len(x) != len(s.parts):
                return None
            fp[at:at + len(x)] = map(float, x)
            at += len(x)
        else:
            fp[at] = float(x)
            at += 1
    return (code, -1 if m.cutoff is None else int(m.cutoff), rel), fp


def _check() -> None:
    """Raise ValueError when the table cannot be laid out (codes, slots, names)."""
    seen_plain = False
    for t in TWINS:
        if t.expected is None:
            seen_plain = True
        elif seen_plain:
            raise ValueError(f"twin {t.name}: the twins with an expected form come first")
        if not t.name.replace("_", "").isalnum() or t.name != t.name.upper():
            raise ValueError(f"twin {t.name}: the C name must be upper-case letters and digits")
        if t.with_rel is not None and t.with_rel not in CODES:
            raise ValueError(f"twin {t.name}: with_rel names no twin: {t.with_rel}")
        for i, s in enumerate(t.slots):
            if s.counted and i != len(t.slots) - 1:
                raise ValueError(f"twin {t.name}: the counted slot {s.param} must come last")
        used = sum(1 if not s.parts else len(s.parts) for s in t.slots if not s.counted)
        if used > NFP - (2 if any(s.counted for s in t.slots) else 0):
            raise ValueError(f"twin {t.name}: more than {NFP} float slots")
    if len(CODES) != len(TWINS):
        raise ValueError("two twins share a C name")
    if len({t.kernel for t in TWINS}) != len(TWINS):
        raise ValueError("two twins share a kernel")


def header() -> str:
    """The text of ``_ev_specs.h``, generated from :data:`TWINS` (see the module docstring)."""
    from .registry import REGISTRY

    _check()
    fams = {f.kernel: f for f in REGISTRY.values()}
    nexp = sum(t.expected is not None for t in TWINS)
    w = ["/* _ev_specs.h: the measure specs of the compiled evaluation (_ext_eval.c).",
         " *",
         " * GENERATED from the table TWINS of src/tiebreak/measures/twins.py by",
         " *     python -m tiebreak.measures.twins --header",
         " * Do not edit: change the table and rerun the command (tests/test_measure_twins.py",
         " * checks that this file is the generated text). */",
         "#ifndef TIEBREAK_EV_SPECS_H",
         "#define TIEBREAK_EV_SPECS_H",
         "",
         f"#define EV_NFP {NFP} /* float parameters per measure */",
         f"#define EV_PROMOTED ((int64_t)1 << {PROMOTED.bit_length() - 1})"
         " /* code of a promoted unjudged document */",
         "",
         "/* the columns of a measure's spec row (specs int64 (M, EV_NSPEC)) */",
         "enum { " + ", ".join(f"EV_S_{c}" for c in SPEC_COLUMNS) + ", EV_NSPEC };",
         "",
         "/* the orderings of a measure under a regime (ords) */",
         "enum {",
         *(f"    EV_{c}, /* {r if r else 'the expected regime'} */" for r, c in ORDERINGS),
         "    EV_NORD",
         "};",
         "",
         f"/* the families with a compiled twin; the first EV_NEXP ({nexp}) have an expected"
         " form */",
         "enum {"]
    for t in TWINS:
        f = fams.get(t.kernel)
        what = f.name if f is not None else t.kernel.__name__
        form = f", expected: {t.expected}" if t.expected else ""
        w.append(f"    EV_{t.name}, /* {what} ({t.kernel.__name__}){form} */")
    w += ["    EV_NFAM", "};", f"#define EV_NEXP {nexp}", "",
          "/* the float parameter slots of each family (fparams[j * EV_NFP + slot]) */"]
    bad = []
    for t in TWINS:
        for name, at, s in layout(t):
            note = ""
            if s.counted and name.endswith("_N"):
                note = f" /* number of {s.param} values: 1 to {name[:-2]}_MAX */"
            w.append(f"#define {name} {at}{note}")
            if s.counted and not name.endswith("_N"):
                w.append(f"#define {name}_MAX {NFP - at}")
                bad.append(f"((f) == EV_{t.name} && \\\n    !((fp)[{name}_N] >= 1 && "
                           f"(fp)[{name}_N] <= {name}_MAX))")
    need = [f"(f) == EV_{t.name}" for t in TWINS
            if t.kernel in fams and fams[t.kernel].cutoff == "required"]
    w += ["", "/* the families that need a cutoff k > 0 (registered with cutoff required) */",
          "#define EV_NEEDS_CUTOFF(f) " + _any(need),
          "/* float parameters out of range for family f (fp: the measure's EV_NFP values) */",
          "#define EV_FP_BAD(f, fp) " + _any(bad),
          "",
          "#endif", ""]
    return "\n".join(w)


def _any(terms: list[str]) -> str:
    """A C expression true when any of ``terms`` is, a term per line (0 for none)."""
    return "(" + " || \\\n    ".join(terms) + ")" if terms else "0"


#: The generated header (in the source tree).
HEADER = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "_native",
                      "_ev_specs.h")


def _read(path: str) -> str:
    with open(path, encoding="utf-8", newline="") as f:
        return f.read()


def main(argv: list[str] | None = None) -> int:
    """``--header``: write :data:`HEADER`; ``--check``: exit 1 when it differs from the
    generated text. Exit 2 with a message (no traceback) outside a source checkout (no
    ``_ext_eval.c`` beside the header: an installed package) or when the header cannot be
    written."""
    args = sys.argv[1:] if argv is None else argv
    text = header()
    # an installed package has no C sources: the header lives in a source checkout only
    if args in (["--header"], ["--check"]) and not os.path.exists(
            os.path.join(os.path.dirname(HEADER), "_ext_eval.c")):
        print(f"python -m tiebreak.measures.twins {args[0]}: {os.path.dirname(HEADER)} holds "
              "no C sources (an installed package?); run it in a source checkout",
              file=sys.stderr)
        return 2
    if args == ["--header"]:
        try:
            with open(HEADER, "w", encoding="utf-8", newline="\n") as f:
                f.write(text)
        except OSError as e:
            print(f"python -m tiebreak.measures.twins --header: {HEADER}: {e.strerror or e}",
                  file=sys.stderr)
            return 2
        print(f"wrote {HEADER}")
        return 0
    if args == ["--check"]:
        same = os.path.exists(HEADER) and _read(HEADER) == text
        if not same:
            print(f"{HEADER} is stale: run python -m tiebreak.measures.twins --header",
                  file=sys.stderr)
        return 0 if same else 1
    print("usage: python -m tiebreak.measures.twins --header | --check", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
