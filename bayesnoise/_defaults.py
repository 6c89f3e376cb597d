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
