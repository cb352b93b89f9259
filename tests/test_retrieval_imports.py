"""The retrieval package has no import circle, counting imports inside functions too."""

from __future__ import annotations

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parents[1] / "src" / "tiebreak" / "retrieval"


def import_graph(pkg: Path = PKG) -> dict[str, set[str]]:
    """module -> the sibling modules it imports (module level or inside a function)."""
    mods = {p.stem for p in pkg.glob("*.py")}
    graph: dict[str, set[str]] = {}
    for p in pkg.glob("*.py"):
        out = set()
        for node in ast.walk(ast.parse(p.read_text())):
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level == 1:
                    if base:
                        out.add(base.split(".")[0])
                    else:
                        out.update(a.name for a in node.names)
                elif base.startswith("tiebreak.retrieval."):
                    out.add(base.split(".")[2])
            elif isinstance(node, ast.Import):
                for a in node.names:
                    if a.name.startswith("tiebreak.retrieval."):
                        out.add(a.name.split(".")[2])
            elif isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "import_module":
                if node.args and isinstance(node.args[0], ast.Constant):
                    name = str(node.args[0].value)
                    if name.startswith("tiebreak.retrieval."):
                        out.add(name.split(".")[2])
        graph[p.stem] = {m for m in out if m in mods and m != p.stem}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected component with more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
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
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_cycle_finder_finds_a_planted_circle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_retrieval_package_has_no_import_circle():
    assert cycles(import_graph()) == []


if __name__ == "__main__":
    g = import_graph()
    for m in sorted(g):
        print(m, "->", ", ".join(sorted(g[m])))
    print("cycles:", cycles(g))
