"""No import circle anywhere in `t3tui/`, and no module over 400 lines.

Imports are read from the source (ast), not from a running interpreter, so that every tie counts:
module-level imports, imports inside functions (the usual way a circle is hidden) and typing-only
imports under `if TYPE_CHECKING:`: a loop a reader has to follow is a loop even if Python never
executes it. Modules are found by walking the package directory, so new files are covered.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "t3tui"
MAX_LINES = 400

ALLOWED_CIRCLES: list[list[str]] = []


def _modules(root: Path) -> dict[str, Path]:
    found = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _resolve(target: str, modules: dict[str, Path]) -> str | None:
    """The module a dotted import lands in: `t3tui.a.b.Name` is `t3tui.a.b`."""
    while target and target not in modules:
        target = target.rpartition(".")[0]
    return target or None


def _imported(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    anchor = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    targets: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                kept = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join(kept + ([base] if base else []))
            targets += [base] + [f"{base}.{alias.name}" for alias in node.names]
    found = set()
    for target in targets:
        module = _resolve(target, modules)
        # importing one's own package (`__init__`) is how Python loads a submodule, not a loop
        if module and module != name and not name.startswith(module + "."):
            found.add(module)
    return found


def import_graph(root: Path = PACKAGE) -> dict[str, set[str]]:
    modules = _modules(root)
    return {name: _imported(name, path, modules) for name, path in modules.items()}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    groups.append(sorted(group))
    return sorted(groups)


def test_the_circle_finder_finds_a_circle_through_a_function_and_type_checking(
    tmp_path: Path,
) -> None:
    """The check can fail: a lazy import and a typing-only import close a loop of three."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from pkg.a import A\n")
    (pkg / "a.py").write_text("from pkg import b\nA = 1\n")
    (pkg / "b.py").write_text("def f():\n    from .c import C\n")
    (pkg / "c.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import pkg.a\nC = 1\n"
    )
    (pkg / "d.py").write_text("import pkg.a\n")  # leads into the loop, is not part of it
    assert circles(import_graph(pkg)) == [["pkg.a", "pkg.b", "pkg.c"]]


def test_no_import_circle_in_the_package() -> None:
    graph = import_graph()
    assert len(graph) > 100  # the walk really read the package
    found = circles(graph)
    assert [c for c in found if c not in ALLOWED_CIRCLES] == []
    stale = [c for c in ALLOWED_CIRCLES if c not in found]
    assert stale == [], "an allowed circle changed or is gone: update ALLOWED_CIRCLES"


def test_no_module_over_400_lines() -> None:
    sizes = {
        str(path.relative_to(PACKAGE.parent)): len(path.read_text(encoding="utf-8").splitlines())
        for path in PACKAGE.rglob("*.py")
    }
    assert len(sizes) > 100
    assert {path: n for path, n in sizes.items() if n > MAX_LINES} == {}
