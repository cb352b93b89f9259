"""Tables of command-line options, without click: each option declared once (spellings, kind,
range or choices, default, help), and the two things built from a table -- the click
decorators of the command (:func:`click_options`, click imported only there) and a click-free
parser of the command's common form (:func:`parse`) for a process that starts without click
(:mod:`tiebreak.__main__`, ``tiebreak eval``).

:func:`parse` gives exactly the keyword arguments click would give for what it accepts:
``--opt VALUE``, ``--opt=VALUE``, ``-m VALUE``, ``-mVALUE``, flags, '-' as a file, options
anywhere among the files, ``--`` ending the options. It returns None for anything click answers
itself (``--help``, an unknown or misspelt option, a missing value, a value outside its choices
or range) and for what it does not take (clustered short options): the caller then runs click,
which prints its own message.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Option", "REGIME_HELP", "click_options", "defaults", "parse"]

REGIME_HELP = (
    "Tie regime, repeatable or comma-separated: file, trec_eval, realistic, optimistic, lower, "
    "upper, expected, or all (these seven); also score-rank (score descending, then the rank "
    "column, as Yang et al. 2016 re-sort). Default: trec_eval,expected,realistic,optimistic,"
    "lower,upper."
)

#: Kinds of option: a flag (True when given), text, repeatable text (a tuple), one of fixed
#: choices, a whole number in [lo, hi] (either bound may be None).
KINDS = ("flag", "str", "many", "choice", "int")


@dataclass(frozen=True)
class Option:
    """One option of a command.

    ``param``: the keyword argument of the command's body; ``opts``: its spellings
    (``("-m", "--measure")``); ``kind``: one of :data:`KINDS`; ``choices`` (kind "choice");
    ``lo``/``hi``: the inclusive bounds of an "int" (None: unbounded); ``default``: the value when
    the option is absent (a flag: False; "many": ``()``); ``help``, ``metavar`` and
    ``show_default`` as click's."""

    param: str
    opts: tuple[str, ...]
    kind: str
    default: object = None
    help: str | None = None
    metavar: str | None = None
    choices: tuple[str, ...] = ()
    lo: int | None = None
    hi: int | None = None
    show_default: bool | str = False

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"option {self.param}: kind {self.kind!r} is not one of {KINDS}")
        if self.kind == "choice" and self.default is not None and \
                self.default not in self.choices:
            raise ValueError(f"option {self.param}: default {self.default!r} is no choice")


def defaults(table: dict[str, Option]) -> dict[str, object]:
    """``{param: default}`` of every option of ``table``."""
    return {o.param: (False if o.kind == "flag" else () if o.kind == "many" else o.default)
            for o in table.values()}


def click_options(table: dict[str, Option]):
    """A decorator adding every option of ``table`` to a click command, in the table's order
    (the order of ``--help``)."""
    import click

    def decorate(f):
        for o in reversed(table.values()):
            kw: dict = {"help": o.help, "metavar": o.metavar}
            if o.kind == "flag":
                kw["is_flag"] = True
            elif o.kind == "many":
                kw["multiple"] = True
            else:
                kw["default"] = o.default
                if o.show_default:
                    kw["show_default"] = o.show_default
                if o.kind == "choice":
                    kw["type"] = click.Choice(o.choices)
                elif o.kind == "int":
                    kw["type"] = (click.IntRange(o.lo, o.hi) if (o.lo, o.hi) != (None, None)
                                  else click.INT)
            f = click.option(*o.opts, o.param, **kw)(f)
        return f

    return decorate


def _readable_or_absent(path: str) -> bool:
    """What click.Path(allow_dash=True) accepts without a message: '-', a path that does not
    exist (the reader names it), or one that exists and is readable."""
    import os

    if path == "-":
        return True
    try:
        os.stat(path)
    except (OSError, ValueError):
        return True  # click passes it on (ValueError: a NUL byte, which click lets through)
    return os.access(path, os.R_OK)


def parse(table: dict[str, Option], args: list[str]) -> tuple[dict, list[str]] | None:
    """``(options given, files)`` of a command line ``args`` under ``table``, as click reads it
    (the options absent from ``args`` are left out); None for anything click would answer
    itself or that this parser does not take (see the module's text). The files are checked
    as ``click.Path(allow_dash=True)`` checks them."""
    spell = {s: o for o in table.values() for s in o.opts}
    kw: dict = {}
    files: list[str] = []
    i, n = 0, len(args)
    while i < n:
        a = args[i]
        i += 1
        if a == "--":
            files.extend(args[i:])
            break
        if a[:1] != "-" or a == "-":
            files.append(a)
            continue
        value = None
        if a.startswith("--"):
            name, eq, attached = a.partition("=")
            if eq:
                value = attached
        elif len(a) > 2:  # -mVALUE (and clustered flags, which go to click)
            name, value = a[:2], a[2:]
        else:
            name = a
        o = spell.get(name)
        if o is None:
            return None
        if o.kind == "flag":
            if value is not None:
                return None
            kw[o.param] = True
            continue
        if value is None:
            if i >= n:
                return None
            value = args[i]
            i += 1
        if o.kind == "many":
            kw[o.param] = kw.get(o.param, ()) + (value,)
        elif o.kind == "choice":
            if value not in o.choices:
                return None
            kw[o.param] = value
        elif o.kind == "int":
            try:
                v = int(value)
            except ValueError:
                return None
            if (o.lo is not None and v < o.lo) or (o.hi is not None and v > o.hi):
                return None
            kw[o.param] = v
        else:
            kw[o.param] = value
    if not all(_readable_or_absent(f) for f in files):
        return None
    return kw, files
