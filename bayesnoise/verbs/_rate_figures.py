"""The success-rate figures of ``bn.plot`` / ``bayesnoise plot``: ``rate`` and ``threshold``."""

from __future__ import annotations

import numpy as np

from bayesnoise.data import DataError

from ._inputs import dataset

# Rates at which the densities are drawn (the ends excluded: a Beta density may be infinite).
_GRID = np.linspace(0.0005, 0.9995, 1999)


def rate(data, *, prior="uniform", priors=None, confidence_level=0.95, progress=True, **read):
    """Each model's posterior density of its success rate, its prior drawn faintly, the
    credible interval shaded (``bn.rate``'s posteriors; graded scores need ``threshold=``).

    Examples
    --------
    >>> import numpy as np, bayesnoise as bn
    >>> fig = bn.plot.rate(np.array([[1, 0, 1, 1, 1], [0, 0, 1, 0, 1]]), prior="jeffreys")
    >>> len(fig.axes[0].lines)
    4
    """
    from scipy import stats

    from bayesnoise import plots
    from bayesnoise.conjugate.rate_table import density
    from bayesnoise.decide.rate import model_posteriors

    from .rate import _priors

    ds = dataset(data, progress=progress, **read)
    table_priors = _priors(ds, prior, priors)
    curves = []
    for model, (post, _) in model_posteriors(ds, table_priors).items():
        low, high = post.confidence_interval(confidence_level)
        pr = table_priors[model]
        curves.append(
            {
                "model": model,
                "x": _GRID,
                "posterior": density(post, _GRID),
                "prior": stats.beta.pdf(_GRID, pr.a, pr.b),
                "low": float(low),
                "high": float(high),
            }
        )
    ax = plots.plot_rate_posteriors(curves, confidence_level=confidence_level)
    return ax.figure


def threshold(
    data,
    *,
    grid=None,
    prior="uniform",
    priors=None,
    confidence_level=0.95,
    progress=True,
    **read,
):
    """Each model's success rate against the threshold, with its credible band
    (``bn.threshold``'s numbers).

    Examples
    --------
    >>> import numpy as np, bayesnoise as bn
    >>> s = np.array([[0.9, 0.4, 0.75, 0.8], [0.5, 0.85, 0.95, 0.7]])
    >>> fig = bn.plot.threshold(s, grid="0.5:0.9:0.1")
    >>> len(fig.axes[0].lines)
    2
    """
    from bayesnoise import plots

    from ._result import tidy
    from .rate import threshold as sweep

    if grid is None:
        raise DataError("plot threshold needs grid= (--grid start:stop:step)")
    result = sweep(
        data,
        grid=grid,
        prior=prior,
        priors=priors,
        confidence_level=confidence_level,
        progress=progress,
        **read,
    )
    ax = plots.plot_threshold_sweep(tidy(result), confidence_level=confidence_level)
    ax.set_xlabel(
        f"threshold T (success: score {'>=' if result.attrs['success'] == 'above' else '<='} T)"
    )
    return ax.figure
