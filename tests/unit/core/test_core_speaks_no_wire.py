"""The core and the tools name no wire method: the processor's projection is the only translator."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import tether_server.core
import tether_server.tools
from tether_protocol.methods import CLIENT_METHODS, SERVER_NOTIFICATIONS, SERVER_REQUESTS

# A method name, declared or not yet (error messages that mention one in a sentence are fine).
METHOD_SHAPE = re.compile(r"(item|turn|thread|serverRequest|account|command)/[A-Za-z/]+")
METHOD_NAMES = {name for name in [*CLIENT_METHODS, *SERVER_NOTIFICATIONS, *SERVER_REQUESTS] if "/" in name}


def _sources() -> list[Path]:
    roots = [Path(tether_server.core.__file__).parent, Path(tether_server.tools.__file__).parent]
    return sorted(p for root in roots for p in root.rglob("*.py"))


def _code_strings(tree: ast.AST) -> list[tuple[int, str]]:
    """String literals that are not docstrings."""
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
    ]


def test_core_and_tools_contain_no_method_names() -> None:
    found = []
    for path in _sources():
        for line, text in _code_strings(ast.parse(path.read_text(encoding="utf-8"))):
            if text in METHOD_NAMES or METHOD_SHAPE.fullmatch(text):
                found.append(f"{path.name}:{line}: {text!r}")
    assert found == []


def test_the_scan_sees_the_sources() -> None:
    names = {p.name for p in _sources()}
    assert {"session.py", "turn.py", "tool_calls.py", "events.py"} <= names
