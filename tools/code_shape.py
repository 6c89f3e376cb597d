"""Measure the shape of the package's code: cyclomatic complexity (radon), lines of code per
function, private names imported across modules. ``tests/test_code_shape.py`` holds the limits
and the allow-lists these numbers are checked against.

Run: ``.venv/bin/python tools/code_shape.py`` prints the counts; ``--write`` rewrites
``tests/data/code_shape_allowlist.json`` (after a function is fixed: the lists only shrink, and
the test fails on an entry that is no longer needed).
"""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

from radon.complexity import cc_visit

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "bayesnoise"
MAX_COMPLEXITY = 15
MAX_LINES = 60


def modules():
    return sorted(PACKAGE.rglob("*.py"))


def _key(path: Path, name: str) -> str:
    return f"{path.relative_to(ROOT).as_posix()}::{name}"


def complexity() -> dict[str, int]:
    """``file::[Class.]function`` -> radon's cyclomatic complexity, for every block over the limit."""
    out = {}
    for path in modules():
        for block in cc_visit(path.read_text()):
            blocks = [block, *getattr(block, "closures", [])]
            for b in blocks:
                name = f"{b.classname}.{b.name}" if getattr(b, "classname", None) else b.name
                if b.complexity > MAX_COMPLEXITY:
                    out[_key(path, name)] = b.complexity
    return out


def _code_lines(fn: ast.AST, lines: list[str]) -> int:
    """Non-blank, non-comment lines of a function, its docstring excluded."""
    skip = set()
    body = getattr(fn, "body", [])
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        if isinstance(body[0].value.value, str):
            skip = set(range(body[0].lineno, body[0].end_lineno + 1))
    start = min([fn.lineno, *(d.lineno for d in fn.decorator_list)])
    n = 0
    for i in range(start, fn.end_lineno + 1):
        text = lines[i - 1].strip()
        if i in skip or not text or text.startswith("#"):
            continue
        n += 1
    return n


def long_functions() -> dict[str, int]:
    """``file::function`` -> lines of code, for every function over the limit."""
    out = {}
    for path in modules():
        text = path.read_text()
        lines = text.splitlines()
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                n = _code_lines(node, lines)
                if n > MAX_LINES:
                    out[_key(path, node.name)] = n
    return out


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def private_imports() -> dict[str, int]:
    """``importing file::module.name`` -> sites, for private names imported from another module."""
    out: dict[str, int] = {}
    for path in modules():
        me = _module_name(path)
        package = me if path.name == "__init__.py" else me.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.ImportFrom):
                continue
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            if not source.startswith("bayesnoise") or source == me:
                continue
            for alias in node.names:
                last = source.rsplit(".", 1)[-1]
                if alias.name.startswith("_") and not alias.name.startswith("__"):
                    key = _key(path, f"{source}.{alias.name}")
                    out[key] = out.get(key, 0) + 1
                elif last.startswith("_") and last != "__init__" and not path.name.startswith("_"):
                    pass  # a private module's public name, imported by its own package: allowed
    return out


ALLOWLIST = ROOT / "tests" / "data" / "code_shape_allowlist.json"


def measure() -> dict[str, dict[str, int]]:
    """The three measurements, keyed as in the allow-list."""
    return {
        "complexity": complexity(),
        "long_functions": long_functions(),
        "private_imports": private_imports(),
    }


def main() -> None:
    data = measure()
    for title, entries in data.items():
        print(f"{title}: {len(entries)} over the limit, {sum(entries.values())} in all")
    if "--write" in sys.argv[1:]:
        sorted_data = {k: dict(sorted(v.items())) for k, v in data.items()}
        ALLOWLIST.write_text(json.dumps(sorted_data, indent=1) + "\n")
        print(f"wrote {ALLOWLIST.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
