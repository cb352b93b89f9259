"""The retrieval package has no import circle, counting imports inside functions too."""

from __future__ import annotations

import ast
from pathlib import Path

from test_import_graph import cycles

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


def test_cycle_finder_finds_a_planted_circle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_retrieval_package_has_no_import_circle():
    assert cycles(import_graph()) == []


if __name__ == "__main__":
    g = import_graph()
    for m in sorted(g):
        print(m, "->", ", ".join(sorted(g[m])))
    print("cycles:", cycles(g))
