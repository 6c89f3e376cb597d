"""numpydoc validation of the public docstrings (issue 29): every parameter of every public
name is documented, and the docstring documents no parameter the signature lacks."""

from __future__ import annotations

import importlib
import inspect

import pytest

import bayesnoise as bn

#: numpydoc's checks run here: PR01 a parameter is not documented, PR02 a documented
#: parameter is not in the signature.
CHECKS = {"PR01", "PR02"}


def _public_names():
    """``bayesnoise.<name>`` for the top-level ``__all__``, every figure of ``bn.plot`` and
    the ``__all__`` of each lower layer (the counted surface, tests/test_surface.py)."""
    names = [f"bayesnoise.{n}" for n in bn.__all__ if not n.startswith("_") and n != "plot"]
    names += [f"bayesnoise.verbs.plot.{k}" for k in bn.plot.__all__]
    for sub in bn._SUBPACKAGES:
        if sub == "mcmc":  # imports PyMC (seconds): its four names are checked by path below
            names += [f"bayesnoise.mcmc.{n}" for n in ("check_convergence", "fit", "load_fit")]
            names += ["bayesnoise.mcmc.posterior_table_mcmc"]
            continue
        module = importlib.import_module(f"bayesnoise.{sub}")
        names += [f"bayesnoise.{sub}.{n}" for n in module.__all__]
    return names


def _object(path):
    module, _, name = path.rpartition(".")
    return getattr(importlib.import_module(module), name)


@pytest.mark.parametrize("path", _public_names())
def test_parameters_match_the_signature(path):
    from numpydoc.validate import validate

    obj = _object(path)
    if not (inspect.isfunction(obj) or inspect.isclass(obj)):
        pytest.skip(f"{path} is not a function or class")
    errors = [f"{code}: {msg}" for code, msg in validate(path)["errors"] if code in CHECKS]
    assert not errors, errors
