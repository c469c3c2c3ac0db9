"""cost-of-pass helpers: the library the pipeline notebooks call, one subpackage per stage.

Imports point down the pipeline only — a module may import ``core`` and the stages before its own, never a later
one (``tests/test_layout.py`` fails on an upward import or a cycle):

  core      parameters, paths, errors, redaction, the run context; registries of tasks (one module per dataset),
            models, prices and the dated ledger, experts, prompts, methods (one module per technique); the one
            generative model of simulated records (simulation); numbers and progress bars
  collect   collection (retries, budget, event loop, workers), the record store, preflight, backends (simulated,
            llama.cpp, HTTP providers), importers of published records
  grade     answer extraction and grading (math-verify, letters, a sandbox for code), attempts and estimates
  analyze   cost-of-pass math, the analysis of a set, bootstrap and model-based intervals, trends, checks of the
            model, validity on known truth
  publish   the artifact catalog and the report's order, tables, figures, display names, the report, the site,
            the browser check
  cli       the runner (``cost-of-pass run|all|report|quarto|quarto-site|publish|reprice``), stage skipping,
            calibration, reprice
  api       the library's public surface (``helpers.api``): the headline and the paper's estimates of a DataFrame
"""

__version__ = "0.1.0"

# Importing the package changes nothing in the caller's process (no environment variable, no matplotlib backend or
# setting): the CLI (``cli.runner.main``) and the Makefile set the offline defaults for the runs they start.
