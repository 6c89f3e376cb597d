"""The public surface (issue 29): the documented API is small, exports no constants, and no
verb shares its name with a module (importing the module would replace the verb)."""

from __future__ import annotations

import importlib
import pkgutil
import re

import bayesnoise as bn

#: The limit over bayesnoise.__all__ plus every public subpackage's __all__ (duplicates count).
LIMIT = 80


def _public_subpackages():
    """The lower layers reachable as ``bn.<name>``: every top-level module or package of
    bayesnoise that is not underscore-private, except ``verbs`` (the implementation of the
    top-level verbs, which ``bayesnoise.__all__`` already counts) and ``cli``."""
    names = [m.name for m in pkgutil.iter_modules(bn.__path__) if not m.name.startswith("_")]
    return sorted(set(names) - {"verbs", "cli"})


def test_every_lower_layer_is_reachable_as_an_attribute():
    assert set(_public_subpackages()) == set(bn._SUBPACKAGES)


def test_the_surface_is_at_most_80_names():
    counts = {"bayesnoise": len(bn.__all__)}
    for sub in _public_subpackages():
        module = importlib.import_module(f"bayesnoise.{sub}")
        assert all(hasattr(module, n) for n in module.__all__), sub
        counts[sub] = len(module.__all__)
    assert sum(counts.values()) <= LIMIT, counts


def test_no_constant_in_any_all():
    """UPPER_CASE names (column lists, defaults, choices) are not API: none is in the
    ``__all__`` of any module of the package (read from the source: mcmc imports PyMC)."""
    import ast
    from pathlib import Path

    constant = re.compile(r"[A-Z][A-Z0-9_]*")
    found = {}
    for path in sorted(Path(bn.__path__[0]).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
            ):
                names = [e.value for e in node.value.elts if isinstance(e, ast.Constant)]
                bad = [n for n in names if constant.fullmatch(n)]
                if bad:
                    found[str(path)] = bad
    assert not found, found


def test_a_verb_is_not_replaced_by_a_module_of_its_name():
    import bayesnoise.cli  # noqa: F401  (imports every layer)

    for info in pkgutil.walk_packages(bn.__path__, "bayesnoise."):
        # mcmc: PyMC, slow to import, no verb's name; __main__ runs the command line
        if info.name.split(".")[1] not in ("mcmc", "__main__"):
            importlib.import_module(info.name)
    for name in bn.__all__:
        if name.startswith("_") or name in ("plot",):  # bn.plot: the figures' namespace
            continue
        assert callable(getattr(bn, name)), f"bn.{name} is {getattr(bn, name)!r}"
    assert bn.report.__module__ == "bayesnoise.verbs.outputs"
