"""The house rules of the package, checked on its source: layers import only downward, no
import cycle, no private module imported across packages, no formatter escapes, docstrings that
cite only what ships."""

import ast
import re

import pytest
from conftest import REPO

PACKAGE = REPO / "bayesnoise"
MODULES = sorted(PACKAGE.rglob("*.py"))

#: The layers, bottom first; a module may import its own layer or any layer below, never above.
#: Estimators (frequentist, conjugate, mcmc) share one layer.
LAYERS = [
    {"_common", "_defaults", "_progress", "vocabulary"},
    {"data"},
    {"io"},
    {"frequentist", "conjugate", "mcmc"},
    {"decide"},
    {"plots"},
    {"reporting"},
    {"verbs"},
    {"cli", "__main__", "__init__"},
]


def _package_of(path):
    return path.relative_to(PACKAGE).parts[0] if len(path.relative_to(PACKAGE).parts) > 1 else ""


def _names(node, path):
    """Absolute names of the modules (and imported members) of one import statement."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if node.level == 0:
        module = node.module
    else:
        package = ["bayesnoise", *path.relative_to(PACKAGE).parts[:-1]]
        base = package[: len(package) - node.level + 1]
        module = ".".join(base + ([node.module] if node.module else []))
    return [module, *(f"{module}.{a.name}" for a in node.names)]


def _imported_modules(path):
    """Every module ``path`` imports, at the top or inside a function."""
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield from _names(node, path)


def _layer(top: str) -> int:
    return next(i for i, layer in enumerate(LAYERS) if top in layer)


def _top(path) -> str:
    parts = path.relative_to(PACKAGE).parts
    return parts[0] if len(parts) > 1 else parts[0].removesuffix(".py")


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(REPO)))
def test_imports_go_only_downward(path):
    own = _layer(_top(path))
    for module in _imported_modules(path):
        parts = module.split(".")
        if parts[0] != "bayesnoise" or len(parts) < 2 or parts[1] == "__version__":
            continue
        if (PACKAGE / parts[1]).is_dir() or (PACKAGE / f"{parts[1]}.py").exists():
            assert _layer(parts[1]) <= own, f"{path.name} imports {module} (upward)"


def _module_name(path) -> str:
    parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(["bayesnoise", *parts])


def test_no_import_cycle_between_modules():
    """Module-level imports (the ones run at import time) form no cycle; imports inside
    functions are deferred and may point sideways."""
    names = {_module_name(p): p for p in MODULES}
    graph = {}
    for name, path in names.items():
        tree = ast.parse(path.read_text())
        deps = set()
        for node in tree.body:
            if isinstance(node, ast.ImportFrom | ast.Import):
                for module in _names(node, path):
                    while module and module not in names:
                        module = module.rpartition(".")[0]
                    if module and module != name and not name.startswith(module + "."):
                        deps.add(module)
        graph[name] = deps
    state = {}

    def visit(node, trail):
        state[node] = "open"
        for dep in graph[node]:
            if state.get(dep) == "open":
                raise AssertionError("import cycle: " + " -> ".join([*trail, node, dep]))
            if dep not in state:
                visit(dep, [*trail, node])
        state[node] = "done"

    for node in graph:
        if node not in state:
            visit(node, [])


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
