"""The package's structure: the command line is a layer on top, and no
modules import each other in a circle (imports inside functions count)."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "pdbsearch"


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path, modules: set[str]) -> set[str]:
    """The package modules ``path`` imports anywhere in its body."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            targets = [base] + [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def import_graph() -> dict[str, set[str]]:
    paths = sorted(PACKAGE.rglob("*.py"))
    modules = {module_name(p) for p in paths}
    return {module_name(p): imports_of(p, modules) for p in paths}


def test_nothing_outside_the_command_line_imports_it():
    entry_points = ("pdbsearch.cli", "pdbsearch.__main__")
    offenders = {m: sorted(i for i in deps if i.startswith("pdbsearch.cli"))
                 for m, deps in import_graph().items() if not m.startswith(entry_points)}
    assert {m: d for m, d in offenders.items() if d} == {}


def test_no_import_cycles():
    graph = import_graph()
    # A package's __init__ re-exporting its modules is not a cycle of code:
    # leave the edges from a package to its own submodules out.
    edges = {m: {d for d in deps if not d.startswith(m + ".")} for m, deps in graph.items()}
    state: dict[str, int] = {}
    stack: list[str] = []
    cycles = []

    def visit(m: str) -> None:
        state[m] = 1
        stack.append(m)
        for d in sorted(edges.get(m, ())):
            if state.get(d) == 1:
                cycles.append(stack[stack.index(d):] + [d])
            elif d not in state:
                visit(d)
        stack.pop()
        state[m] = 2

    for m in sorted(edges):
        if m not in state:
            visit(m)
    assert cycles == []


def test_every_source_compiles_without_warnings():
    """No file of the package, its scripts or its tests draws a compile
    warning: an escape such as ``\\*`` in a docstring that is not raw is a
    SyntaxWarning from Python 3.12 and is meant to become an error."""
    import warnings

    root = PACKAGE.parent
    files = [p for folder in ("pdbsearch", "scripts", "tests")
             for p in sorted((root / folder).rglob("*.py"))]
    assert len(files) > 100
    for path in files:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            compile(path.read_text(), str(path), "exec")
