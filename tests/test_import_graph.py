"""The house's import graph, read from the source (every ``import`` and ``from ... import``,
lazy ones inside functions included: a reader follows them too).

* Rooms stand on floors, data flowing one way: ``_native`` -> ``io`` -> ``ranking`` ->
  ``measures`` -> ``evaluation`` -> ``stats``/``runs``/``trec_eval``/``index`` -> ``judgments``/
  ``retrieval`` -> ``studies``/``compat`` -> ``report`` -> ``cli``. A module may import its own
  room or a lower floor, never a higher one (or its own floor's other rooms).
* No import circle between modules (imports under ``if TYPE_CHECKING:`` are annotations, never
  run, and do not count).
* At most three modules stand loose beside ``__init__``/``__main__`` at the top of the package.
"""

from __future__ import annotations

import ast
import collections
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "src" / "tiebreak"

FLOORS = {
    "_native": 0, "data": 0,
    "io": 1,
    "ranking": 2,
    "measures": 3,
    "evaluation": 4,
    "stats": 5, "runs": 5, "trec_eval": 5, "index": 5,
    "judgments": 6, "retrieval": 6,
    "studies": 7, "compat": 7,
    "report": 8,
    "cli": 9,
    "__init__": 10, "__main__": 10,
}

# Upward imports still to be removed (each a known debt, named; the list only shrinks; none left).
KNOWN_UPWARD: set[tuple[str, str]] = set()

# Circles still to be broken (the list only shrinks; none left).
KNOWN_CIRCLES: list[list[str]] = []


def modules() -> dict[str, tuple[Path, bool]]:
    out = {}
    for p in PKG.rglob("*.py"):
        parts = list(p.relative_to(PKG.parent).with_suffix("").parts)
        ispkg = parts[-1] == "__init__"
        out[".".join(parts[:-1] if ispkg else parts)] = (p, ispkg)
    return out


def edges(mods) -> dict[str, set[str]]:
    out = collections.defaultdict(set)
    for m, (p, ispkg) in mods.items():
        pkg = m if ispkg else m.rsplit(".", 1)[0]
        tree = ast.parse(p.read_text(encoding="utf-8"))
        typing_only = {id(n) for b in ast.walk(tree) if isinstance(b, ast.If)
                       and ast.unparse(b.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING")
                       for s in b.body for n in ast.walk(s)}
        for node in ast.walk(tree):
            if id(node) in typing_only:   # annotations only: never imported at run time
                continue
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = pkg.split(".")[: len(pkg.split(".")) - (node.level - 1)]
                    tgt = ".".join(base + ([node.module] if node.module else []))
                else:
                    tgt = node.module or ""
                if tgt.split(".")[0] != "tiebreak":
                    continue
                for a in node.names:
                    sub = f"{tgt}.{a.name}"
                    out[m].add(sub if sub in mods else tgt)
            elif isinstance(node, ast.Import):
                out[m].update(a.name for a in node.names if a.name.split(".")[0] == "tiebreak")
    for m in out:   # a name that is no module (e.g. the compiled extension): its package
        fixed = set()
        for t in out[m]:
            while t not in mods and "." in t:
                t = t.rsplit(".", 1)[0]
            if t != m:
                fixed.add(t)
        out[m] = fixed
    return out


def room(m: str) -> str:
    parts = m.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


@pytest.fixture(scope="module")
def graph():
    mods = modules()
    return mods, edges(mods)


def test_every_room_has_a_floor(graph):
    mods, _ = graph
    assert {room(m) for m in mods} <= set(FLOORS)


def test_no_upward_import(graph):
    _, E = graph
    up = {(a, t) for a, ts in E.items() for t in ts
          if room(a) != room(t) and FLOORS[room(t)] >= FLOORS[room(a)]}
    assert up - KNOWN_UPWARD == set(), "imports that run up the floors"
    assert KNOWN_UPWARD - up == set(), "a known debt is paid: remove it from KNOWN_UPWARD"


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected component of ``graph`` with more than one node, sorted
    (Tarjan's algorithm)."""
    index, low, stack, on, sccs, n = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                sccs.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sccs


def test_no_import_circle(graph):
    _, E = graph
    sccs = cycles(E)
    # a package's __init__ that re-exports its own submodules is no circle of the house
    circles = [c for c in sccs
               if not all(x == c[0] or x.startswith(c[0] + ".") for x in c)]
    assert [c for c in circles if c not in KNOWN_CIRCLES] == []
    assert [c for c in KNOWN_CIRCLES if c not in circles] == [], "remove a broken circle"


def test_few_loose_modules():
    loose = sorted(p.name for p in PKG.glob("*.py") if p.name not in ("__init__.py",
                                                                        "__main__.py"))
    assert len(loose) <= 3, loose


def test_large_modules_say_why():
    """A module over 600 lines says in its docstring why it is one module (a ``Size:``
    paragraph); anything else is split into a room's smaller modules."""
    unexplained = []
    for p in PKG.rglob("*.py"):
        text = p.read_text(encoding="utf-8")
        if text.count("\n") > 600:
            doc = ast.get_docstring(ast.parse(text)) or ""
            if "\nSize: " not in "\n" + doc:
                unexplained.append(str(p.relative_to(PKG)))
    assert unexplained == []
