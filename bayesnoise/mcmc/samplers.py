"""Which NUTS implementation :func:`~bayesnoise.mcmc.fit` uses, and the checks it makes
before PyMC is imported or anything is compiled."""

from __future__ import annotations

import importlib.util

from bayesnoise._common import require

from .inputs import BuiltModel

__all__ = ["SAMPLERS", "check_arguments", "resolve_sampler"]

#: Samplers accepted by :func:`~bayesnoise.mcmc.fit` ("auto": see :func:`resolve_sampler`).
SAMPLERS = ("auto", "pymc", "nutpie", "numpyro")

#: Optional packages each sampler needs, with the extra that installs them.
_SAMPLER_PACKAGES = {"nutpie": ("nutpie",), "numpyro": ("numpyro", "jax")}


def resolve_sampler(sampler: str, kind: str) -> str:
    """The NUTS implementation ``sampler`` stands for when fitting a model of ``kind``.

    ``"auto"`` is nutpie for the joint model when nutpie is installed (its hand-written numba
    density samples the 50 x 500 benchmark several times faster than PyMC's NUTS) and PyMC's
    NUTS otherwise; any other name is returned as it is.

    Examples
    --------
    >>> resolve_sampler("pymc", "joint"), resolve_sampler("auto", "marginal")
    ('pymc', 'pymc')
    """
    if sampler != "auto":
        return sampler
    if kind == "joint" and importlib.util.find_spec("nutpie") is not None:
        return "nutpie"
    return "pymc"


def check_arguments(built, sampler: str, draws, tune, chains) -> None:
    """Everything that can be refused before PyMC is imported or anything is compiled."""
    if not isinstance(built, BuiltModel):
        raise TypeError(
            "fit() takes a model built by bayesnoise.mcmc (marginal_model, latent_model, "
            f"fixed_hyper_model or joint_model), got {type(built).__name__}"
        )
    if sampler not in SAMPLERS:
        raise ValueError(f"sampler must be one of {SAMPLERS}, got {sampler!r}")
    for name, value in (("draws", draws), ("tune", tune), ("chains", chains)):
        if int(value) != value or value < (0 if name == "tune" else 1):
            raise ValueError(f"{name} must be a positive integer, got {value!r}")
    for module in _SAMPLER_PACKAGES.get(sampler, ()):
        require(module, sampler, f"sampler={sampler!r}")
