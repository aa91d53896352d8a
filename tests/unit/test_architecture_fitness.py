"""The rules that keep the house in shape, as tests: each failure names the file that broke a rule.

`docs/architecture.md` draws the rules; the layer contracts themselves are import-linter's
(`pyproject.toml`), and "no wire method names in the core" is `core/test_core_speaks_no_wire.py`.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PACKAGE_ROOTS = [REPO / "server", REPO / "protocol", REPO / "clients"]
MAX_MODULE_LINES = 400
CORE = REPO / "server" / "tether_server" / "core"
PROCESSOR = REPO / "server" / "tether_server" / "processor"


def _sources(*roots: Path) -> Iterator[Path]:
    for root in roots:
        yield from sorted(p for p in root.rglob("*.py") if "__pycache__" not in p.parts)


def _rel(path: Path, base: Path) -> str:
    return str(path.relative_to(base))


# ---- module size -----------------------------------------------------------------------------


def oversized_modules(roots: list[Path], base: Path = REPO, limit: int = MAX_MODULE_LINES) -> list[str]:
    found = []
    for path in _sources(*roots):
        lines = path.read_text(encoding="utf-8").count("\n")
        if lines > limit:
            found.append(f"{_rel(path, base)}: {lines} lines (limit {limit})")
    return found


def test_no_module_is_over_400_lines() -> None:
    assert oversized_modules(PACKAGE_ROOTS) == []


# ---- handler parameters ----------------------------------------------------------------------


def _names_any(annotation: ast.expr | None) -> bool:
    if annotation is None:
        return False
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        return _names_any(ast.parse(annotation.value, mode="eval").body)
    return any(
        (isinstance(node, ast.Name) and node.id == "Any")
        or (isinstance(node, ast.Attribute) and node.attr == "Any")
        for node in ast.walk(annotation)
    )


def _is_request_handler(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """A processor function the router binds: it takes the `RequestContext` of the request."""
    for arg in fn.args.args:
        ann = arg.annotation
        text = ast.unparse(ann) if ann is not None else ""
        if text.strip("'\"") == "RequestContext":
            return True
    return False


def untyped_handler_params(roots: list[Path], base: Path = REPO) -> list[str]:
    found: list[str] = []
    for path in _sources(*roots):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and _is_request_handler(node):
                found.extend(
                    f"{_rel(path, base)}:{node.lineno}: {node.name}({arg.arg}: {ast.unparse(arg.annotation)})"
                    for arg in node.args.args
                    if arg.annotation is not None and _names_any(arg.annotation)
                )
    return found


def test_no_handler_parameter_is_typed_any() -> None:
    assert untyped_handler_params([PROCESSOR]) == []


# ---- import cycles in the core ---------------------------------------------------------------


def _module_name(path: Path, src: Path) -> str:
    parts = list(path.relative_to(src).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def import_graph(package_dir: Path, src: Path) -> dict[str, set[str]]:
    """Module → the modules of the same package it imports, `TYPE_CHECKING` imports included."""
    modules = {_module_name(p, src): p for p in _sources(package_dir)}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        deps: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*anchor, *([node.module] if node.module else [])])
                for alias in node.names:
                    if f"{base}.{alias.name}" in modules:
                        deps.add(f"{base}.{alias.name}")
                    elif base in modules:
                        deps.add(base)
            elif isinstance(node, ast.Import):
                deps.update(alias.name for alias in node.names if alias.name in modules)
        graph[name] = deps - {name}
    return graph


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
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
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    cycles.append(sorted(component))
    return cycles


def test_the_core_has_no_import_cycle() -> None:
    graph = import_graph(CORE, REPO / "server")
    assert "tether_server.core.session" in graph
    described = [
        " ↔ ".join(f"{m} (imports {sorted(graph[m] & set(c))})" for m in c) for c in import_cycles(graph)
    ]
    assert described == []


# ---- the rules fail when broken --------------------------------------------------------------


def test_each_rule_names_the_file_that_breaks_it(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "big.py").write_text("x = 1\n" * 401)
    (pkg / "handler.py").write_text(
        "from typing import Any\n"
        "async def reload(state: object, ctx: 'RequestContext', params: Any) -> None: ...\n"
        "async def fine(state: object, ctx: 'RequestContext', params: int) -> None: ...\n"
    )
    (pkg / "a.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.b import B\n"
    )
    (pkg / "b.py").write_text("from . import c\n")
    (pkg / "c.py").write_text("from .a import A\n")
    assert oversized_modules([pkg], tmp_path) == ["pkg/big.py: 401 lines (limit 400)"]
    assert untyped_handler_params([pkg], tmp_path) == ["pkg/handler.py:2: reload(params: Any)"]
    assert import_cycles(import_graph(pkg, tmp_path)) == [["pkg.a", "pkg.b", "pkg.c"]]


@pytest.mark.parametrize("root", PACKAGE_ROOTS, ids=lambda p: p.name)
def test_the_scans_see_the_sources(root: Path) -> None:
    assert sum(1 for _ in _sources(root)) > 5
