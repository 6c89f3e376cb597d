"""Frequentist noise estimators: numpy core in ``_core``, score intervals in ``intervals``, table
wrappers in ``noise``."""

from bayesnoise.frequentist._core import bootstrap_means
from bayesnoise.frequentist._score import paired_t_pvalue, paired_t_statistic
from bayesnoise.frequentist.arena import ARENA_COLUMNS, arena_summary
from bayesnoise.frequentist.cluster import (
    CLUSTER_COLUMNS,
    CLUSTER_PAIR_COLUMNS,
    cluster_codes,
    cluster_noise,
    cluster_pair_noise,
    clustered_moments,
)
from bayesnoise.frequentist.cluster_power import (
    CLUSTER_NEEDED_COLUMNS,
    CLUSTER_POWER_COLUMNS,
    cluster_minimum_detectable_difference,
    cluster_power_table,
    clustered_components,
    required_clusters,
)
from bayesnoise.frequentist.columns import model_intervals, pair_intervals
from bayesnoise.frequentist.intervals import (
    accuracy_interval,
    difference_interval,
    here_accuracy_interval,
    here_difference_interval,
)
from bayesnoise.frequentist.multiplicity import ADJUST_METHODS, adjust_pvalues
from bayesnoise.frequentist.noise import (
    MODEL_COLUMNS,
    ONE_SAMPLE_COLUMNS,
    PAIR_COLUMNS,
    model_noise,
    pair_noise,
    pair_noise_dataset,
)
from bayesnoise.frequentist.paired import PairedTestResult, paired_test
from bayesnoise.frequentist.passk import (
    PASSK_COLUMNS,
    PASSK_PAIR_COLUMNS,
    pass_at_k,
    passk_pairs,
    passk_table,
)
from bayesnoise.frequentist.power import (
    NEEDED_COLUMNS,
    POWER_COLUMNS,
    meta_z,
    minimum_detectable_difference,
    power_table,
    required_questions,
    required_samples,
    unpaired_components,
)
from bayesnoise.frequentist.quality import (
    model_quality,
    question_quality,
    question_summary,
    question_table,
    win_rate,
)

# The documented API of this layer (the surface is counted over these lists,
# tests/test_surface.py); the other names stay importable for the package's own layers.
__all__ = [
    "accuracy_interval",
    "adjust_pvalues",
    "difference_interval",
    "meta_z",
    "model_noise",
    "pair_noise",
    "paired_test",
    "pass_at_k",
]
