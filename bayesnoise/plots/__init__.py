"""Figures of the paper and of the report, drawn from the library's own estimates (matplotlib).

Each function takes a dataset or a result table and an optional ``ax`` and returns the Axes (or
the Figure, for multi-panel plots); nothing here computes a statistic. Figures are built
without pyplot, so no window opens and no global state is touched; ``save_figure`` writes
PNG, SVG or PDF.

- :func:`plot_noise_vs_accuracy` -- paired SE of close pairs vs accuracy with the Beta theory;
  :func:`plot_noise_components` -- the same for several settings side by side;
- :func:`plot_heatmap` -- questions x models; :func:`plot_question_cdfs` -- per-question
  accuracy CDFs against fitted Betas;
- :func:`plot_forest` -- per-model intervals; :func:`plot_pair_matrix`,
  :func:`plot_accuracy_scatter` -- all pairs; :func:`plot_power` -- detectable differences;
- :func:`plot_mcmc` -- MCMC fits through arviz-plots.
"""

from ._figure import save_figure
from .arrange import (
    heatmap_matrix,
    pair_matrix,
    pooled_counts,
)
from .cdf import plot_question_cdfs
from .factors import plot_template_heatmap, plot_variance_parts
from .forest import FOREST_MAX_MODELS, FOREST_SERIES, plot_forest
from .heatmap import plot_heatmap
from .mcmc import MCMC_KINDS, plot_mcmc
from .noise import plot_noise_components, plot_noise_vs_accuracy
from .pairs import model_accuracies, plot_accuracy_scatter, plot_pair_matrix
from .power import plot_power
from .rate import plot_exact_coverage, plot_rate_posteriors, plot_threshold_sweep

# The documented API of this layer (the surface is counted over these lists,
# tests/test_surface.py); the other names stay importable for the package's own layers.
__all__ = [
    "save_figure",
]
