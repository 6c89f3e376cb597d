"""Declared dependencies equal imports.

Every third-party module the package imports (at module level or inside a function, read from
the source with ``ast``) is declared in ``pyproject.toml``: a core dependency, or an extra when
it is optional. Optional modules are imported only inside functions, behind a
``require(module, extra, ...)`` whose extra exists and declares them, so a missing one fails
with a message naming the extra to install. Every core dependency and every distribution of an
extra is used; the few used by name rather than by import are listed with the reason. The
``test`` extra installs everything the tests import.
"""

import ast
import re
import sys
import tomllib
from functools import cache
from importlib import metadata

import pytest
from conftest import REPO

PACKAGE = REPO / "bayesnoise"
TESTS = REPO / "tests"
PROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]

#: Import name -> distribution name, where they differ by more than '_' and '-'.
DISTRIBUTION = {
    "yaml": "pyyaml",
    "PIL": "pillow",
    "sklearn": "scikit-learn",
    "attr": "attrs",
    "ppi_py": "ppi-python",
}

#: Modules only some users need: imported inside functions, behind a require(), in an extra.
OPTIONAL = {"nutpie", "dask", "pyarrow", "zstandard", "arviz_plots"}

#: Distributions the package uses by name rather than by import: (string that must appear as a
#: constant in the package's source, reason).
USED_BY_NAME = {
    "h5netcdf": (
        "h5netcdf",
        "xarray's engine='h5netcdf' writes and reads NetCDF (io.save, mcmc.fit.save_fit); "
        "declared with its h5py extra, since h5netcdf >= 1.7 no longer pulls h5py itself",
    ),
    "numpyro": (
        "numpyro",
        "sampler='numpyro' hands the model to pymc.sample(nuts_sampler='numpyro'), which "
        "imports it; mcmc.samplers checks it with require() first",
    ),
    "jax": ("jax", "numpyro's backend, checked by mcmc.samplers with require() as well"),
}

#: Extras that are not meant to be imported: the test / development tools and the docs build.
TOOL_EXTRAS = {"docs", "test"}


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _requirement(spec: str) -> tuple[str, set[str]]:
    """(canonical distribution name, its extras) of a PEP 508 requirement string."""
    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[([^\]]*)\])?", spec)
    assert match, spec
    extras = {_canonical(e) for e in (match.group(2) or "").split(",") if e.strip()}
    return _canonical(match.group(1)), extras


def _distribution(module: str) -> str:
    return _canonical(DISTRIBUTION.get(module, module))


CORE = {_requirement(spec)[0] for spec in PROJECT["dependencies"]}
EXTRAS = {
    extra: [_requirement(spec) for spec in specs]
    for extra, specs in PROJECT["optional-dependencies"].items()
}
OWN_NAME = _canonical(PROJECT["name"])


def _extra(extra: str) -> set[str]:
    """Distributions an extra installs, its references to this project's extras expanded."""
    out = set()
    for name, extras in EXTRAS[extra]:
        if name == OWN_NAME:
            for inner in extras:
                out |= _extra(inner)
        else:
            out.add(name)
    return out


OPTIONAL_DISTS = set().union(*(_extra(e) for e in EXTRAS if e not in TOOL_EXTRAS))


def _is_type_checking(test) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(path):
    """(top-level module, where) of every absolute import in a file, where is 'module',
    'function' (inside a function) or 'typing' (under ``if TYPE_CHECKING``); also the constant
    arguments of ``importlib.import_module`` / ``pytest.importorskip``."""
    tree = ast.parse(path.read_text(), filename=str(path))

    def visit(node, where):
        for child in ast.iter_child_nodes(node):
            inner = where
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                inner = "function" if where == "module" else where
            elif isinstance(child, ast.If) and _is_type_checking(child.test):
                inner = "typing"
            if isinstance(child, ast.Import):
                for alias in child.names:
                    yield alias.name.split(".")[0], inner
            elif isinstance(child, ast.ImportFrom) and child.level == 0 and child.module:
                yield child.module.split(".")[0], inner
            elif (
                isinstance(child, ast.Call)
                and isinstance(child.func, ast.Attribute | ast.Name)
                and getattr(child.func, "attr", getattr(child.func, "id", None))
                in ("import_module", "importorskip")
                and child.args
                and isinstance(child.args[0], ast.Constant)
                and isinstance(child.args[0].value, str)
            ):
                yield child.args[0].value.split(".")[0], "function"
            yield from visit(child, inner)

    yield from visit(tree, "module")


def _third_party(module: str, local: set[str]) -> bool:
    return (
        module not in sys.stdlib_module_names
        and module != "__future__"
        and module != "bayesnoise"
        and module not in local
    )


@cache
def package_imports() -> dict[str, list[tuple[str, str]]]:
    """Third-party module -> [(file, where)] over every module of the package."""
    found: dict[str, list[tuple[str, str]]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        for module, where in _imports(path):
            if _third_party(module, set()):
                found.setdefault(module, []).append((str(path.relative_to(REPO)), where))
    return found


@cache
def package_constants() -> set[str]:
    return {
        node.value
        for path in PACKAGE.rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    }


@cache
def require_calls() -> set[tuple[str, str]]:
    """(module, extra) of every ``require(module, extra, ...)``: literal calls, plus the
    sampler table mcmc.samplers loops over (``require(module, sampler, ...)``)."""
    pairs = set()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Call)
                and getattr(node.func, "id", getattr(node.func, "attr", None)) == "require"
                and len(node.args) >= 2
                and all(isinstance(a, ast.Constant) for a in node.args[:2])
            ):
                pairs.add((node.args[0].value, node.args[1].value))
    from bayesnoise.mcmc.samplers import _SAMPLER_PACKAGES

    for sampler, modules in _SAMPLER_PACKAGES.items():
        pairs |= {(module, sampler) for module in modules}
    return pairs


def test_the_import_scan_sees_lazy_and_module_level_imports():
    found = package_imports()
    assert ("bayesnoise/io/save.py", "module") in found["xarray"]
    assert any(where == "function" for _, where in found["arviz_stats"])
    assert any(where == "typing" for _, where in found["pymc"])
    assert "numpy" not in OPTIONAL and "numpy" in CORE


def test_every_imported_module_is_declared():
    undeclared = {
        module: sites
        for module, sites in package_imports().items()
        if _distribution(module) not in CORE | OPTIONAL_DISTS
    }
    assert not undeclared, f"imported but not in pyproject.toml: {undeclared}"


def test_optional_modules_are_the_imported_modules_outside_core():
    outside = {m for m in package_imports() if _distribution(m) not in CORE}
    assert outside == OPTIONAL


@pytest.mark.parametrize("module", sorted(OPTIONAL))
def test_optional_module_is_lazy_guarded_and_in_its_extra(module):
    sites = package_imports().get(module, [])
    assert sites, f"{module} is listed as optional but never imported"
    eager = [path for path, where in sites if where == "module"]
    assert not eager, f"{module} must be imported inside functions only: {eager}"
    dist = _distribution(module)
    assert dist not in CORE
    guards = [extra for mod, extra in require_calls() if mod == module]
    assert guards, f"no require({module!r}, extra, ...) names the extra that installs {module}"
    for extra in guards:
        assert extra in EXTRAS and dist in _extra(extra), (module, extra)


def test_every_require_names_an_extra_declaring_the_module():
    for module, extra in require_calls():
        assert extra in EXTRAS, f"require({module!r}, {extra!r}): no extra {extra!r}"
        assert _distribution(module) in _extra(extra) | CORE, (module, extra)


def test_every_core_dependency_is_used():
    imported = {_distribution(m) for m in package_imports()}
    unused = CORE - imported - set(USED_BY_NAME)
    assert not unused, f"declared but never imported: {sorted(unused)}"


def test_every_optional_distribution_is_used():
    imported = {_distribution(m) for m in package_imports()}
    unused = OPTIONAL_DISTS - imported - set(USED_BY_NAME)
    assert not unused, f"extras declare what nothing imports: {sorted(unused)}"


@pytest.mark.parametrize("dist", sorted(USED_BY_NAME))
def test_used_by_name_is_still_referenced_and_declared(dist):
    string, reason = USED_BY_NAME[dist]
    assert reason
    assert string in package_constants(), f"{dist}: {string!r} no longer appears in the source"
    assert dist in CORE | OPTIONAL_DISTS
    assert dist not in {_distribution(m) for m in package_imports()}, "imported: not by name"


def test_netcdf_writer_is_declared():
    """h5netcdf >= 1.7 makes h5py an extra; NetCDF writing needs it, so it is declared."""
    (h5netcdf,) = [r for r in map(_requirement, PROJECT["dependencies"]) if r[0] == "h5netcdf"]
    assert "h5py" in h5netcdf[1] or "h5py" in CORE


def test_no_extra_repeats_a_core_dependency():
    for extra in EXTRAS:
        assert not _extra(extra) & CORE, (extra, sorted(_extra(extra) & CORE))


def test_test_extra_installs_what_the_tests_import():
    local = {p.stem for p in TESTS.glob("*.py")} | {
        p.name for p in REPO.iterdir() if p.is_dir() or p.suffix == ".py"
    }
    local |= {p.stem for p in (REPO / "docs" / "_ext").glob("*.py")}  # the docs' own extensions
    installed = CORE | _extra("test")
    missing = {}
    for path in sorted(TESTS.glob("*.py")):
        for module, _ in _imports(path):
            if _third_party(module, local) and _distribution(module) not in installed:
                missing.setdefault(module, []).append(path.name)
    assert not missing, f"tests import what bayesnoise[test] does not install: {missing}"


def test_distribution_names_match_the_installed_metadata():
    """The import -> distribution mapping agrees with what provides each installed module."""
    provided = metadata.packages_distributions()
    for module in package_imports():
        if module in provided:
            names = {_canonical(d) for d in provided[module]}
            assert _distribution(module) in names, (module, sorted(names))
