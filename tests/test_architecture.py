"""The house rules of the package, checked on its source: small modules, no private module
imported across packages, no formatter escapes, docstrings that cite only what ships."""

import ast
import re

import pytest
from conftest import REPO

PACKAGE = REPO / "bayesnoise"
MODULES = sorted(PACKAGE.rglob("*.py"))
MAX_LINES = 400


def _package_of(path):
    return path.relative_to(PACKAGE).parts[0] if len(path.relative_to(PACKAGE).parts) > 1 else ""


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(REPO)))
def test_module_is_small(path):
    assert len(path.read_text().splitlines()) <= MAX_LINES


def _imported_modules(path):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module
        elif isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(REPO)))
def test_no_private_module_imported_across_packages(path):
    """``bayesnoise.<pkg>._private`` may be imported only from inside ``<pkg>``; the root's
    ``bayesnoise._common`` is shared by design."""
    own = _package_of(path)
    for module in _imported_modules(path):
        parts = module.split(".")
        if parts[0] != "bayesnoise" or len(parts) < 3:
            continue
        private = any(p.startswith("_") for p in parts[2:])
        assert not (private and parts[1] != own), f"{path.name} imports {module}"


def test_no_formatter_escapes_or_unshipped_references():
    for path in MODULES:
        text = path.read_text()
        assert "# fmt: skip" not in text, path
        assert not re.search(r"DESIGN\.md|issue \d|seeds/", text), path
