"""The values a verb's option can take, in a module that imports nothing.

The command line offers these as ``choices`` when it builds its parser; keeping them here (the
verbs import them from here) lets ``bayesnoise noise`` build the parser of every command without
importing the estimators, figures or templates of the other commands.

Examples
--------
>>> from bayesnoise.verbs import choices
>>> choices.BY
('model', 'pair')
"""

__all__: list[str] = []  # constants only, read by the verbs and the command line

#: ``by=``: one row per model, or per pair of models (the package's one list, in ``_defaults``).
from bayesnoise._defaults import BY  # noqa: F401

#: compare's ``method``: the closed-form Bayesian side, or (factor data) the MCMC crossed twin.
COMPARE_METHODS = ("bayes", "mcmc")
#: ``pairs``' ``resampling=``: which resampling columns ``n_resamples`` adds.
RESAMPLING = ("both", "bootstrap", "permutation")
#: ``noises``' ``method=``: method-of-moments components, or the crossed MCMC model.
NOISES_METHODS = ("frequentist", "mcmc")
#: ``ranks``' ``model=``: how the models' accuracies are modelled.
RANK_MODELS = ("hierarchical", "bootstrap", "bayes")
#: ``coverage``'s ``populations=``: the populations the intervals are checked on.
POPULATIONS = ("fitted", "two-point", "empirical")
#: ``rate``'s ``prior=``: the forms a Beta prior is written in.
PRIOR_HELP = "uniform | jeffreys | A,B | mean=M,sd=S"
#: Pair statistics the matrix figure can be coloured by.
PLOT_STATISTICS = (
    "z",
    "difference",
    "p_value",
    "p_value_adjusted",
    "prob_a_better",
    "prob_a_better_population",
)
#: Figure kinds of ``bayesnoise plot KIND``, in the order of ``bn.plot.KINDS``.
PLOT_KINDS = (
    "noise",
    "components",
    "heatmap",
    "judge",
    "noises",
    "templates",
    "cdf",
    "forest",
    "matrix",
    "scatter",
    "power",
    "trace",
    "rank",
    "mcmc-forest",
    "difference-sum",
    "p-values",
    "difficulty",
    "rate",
    "threshold",
)
