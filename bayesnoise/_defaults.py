"""Constants the command line needs to build its parser, in a module that imports nothing.

``bayesnoise --version`` and ``bayesnoise noise --help`` build the parser of every command;
its defaults and choices live here, so building it imports neither numpy nor pandas.
:mod:`bayesnoise._common` and :mod:`bayesnoise.reporting` re-export them.
"""

#: The package's one set of PyMC defaults: draws and tuning steps per chain, chains (every verb
#: and command that samples with MCMC: ``posterior``, ``noises``, ``compare``).
MCMC_DRAWS, MCMC_TUNE, MCMC_CHAINS = 1000, 1000, 2

#: The formats a table is written in (``--format``).
FORMATS = ("table", "csv", "tsv", "json")

#: ``alternative=``: the sidedness of a test or an interval, scipy's spelling and order (every
#: verb, command and lower function; checked by :func:`bayesnoise._common.check_alternative`).
ALTERNATIVES = ("two-sided", "greater", "less")

#: ``by=``: one row per model, or one per pair of models.
BY = ("model", "pair")

#: Retired values of ``alternative=`` -> the new spelling an error names (no silent alias).
RETIRED_ALTERNATIVES = {"one-sided": ("greater", "less")}
