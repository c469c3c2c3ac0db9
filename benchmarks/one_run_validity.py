"""Do the headline's intervals hold with one run per cell, as on SWE-bench bash-only? (issue 61, items 2 and 7)

SWE-bench bash-only has one run of every model on every issue, so its frontier is chosen by each model's unbiased
cost on the other issues (``policy.loo_criterion``'s one-run branch) and every value is read with one try. The
validity study of ``make all`` and ``benchmarks/comparison_power.py`` draws 8 runs per cell; this script draws sets
of the `sim` set's shape (six datasets: five of 128 problems and one of 30, ten SIMULATED models) with **one** run
per cell from every generator of the validity study (``validity.study_generators``), and measures against each set's
own truth, with ``policy_study.study``:

- the frontier of all models: its interval's coverage, its width over the oracle's (3.92 × the sd of the estimate's
  error over the sets) and its truth over the best single model's at the same k (one try);
- each model alone: coverage and width over the oracle's;
- every pair of models paired on the same problems: coverage, power where one costs at most half the other, and
  findings on the wrong side;
- the gains the report tests together (review 11, M3: SWE-bench names release gains "shown" at one run per cell):
  each release's gain (Figure 4), each family's and each single model's (Figures 3 and 5), and the frontier over
  releases (Figure 2): coverage and width over the oracle's, and, for the families, how often one is named the most
  essential while another's true gain is larger, and for the releases, how often one is said to have a gain shown
  while its true gain is not above 0.

SIMULATED: the shape is `sim`'s, not SWE-bench's (500 issues, 24 models, a fee of its own per issue).

    COP_DATA_DIR=../shared/data .venv/bin/python benchmarks/one_run_validity.py [sets per generator, default 100]
        [generators, default all] [parameter file, default params/sim.yaml]
"""

from __future__ import annotations

import os
import sys
import time

import pandas as pd

from helpers.analyze import policy_study, statistic

sys.path.insert(0, os.path.dirname(__file__))
from comparison_power import spread, studied  # noqa: E402  (one study, one way to say a spread over the generators)

DOC = "docs/swebench.md#one-run"  # the block of docs/swebench.md this output writes (``readme_figures``)


def docs_table(table: pd.DataFrame, sets: int, shape: str) -> list[str]:
    """The markdown table of docs/swebench.md's one-run section, every number from this run."""
    def col(label, c):
        return table[table["statistic"] == label].set_index("generator")[c]
    t1, front, pairs = statistic.FAMILY_LABELS["table1"], statistic.POLICY_FRONTIER.label, policy_study.PAIRS
    rows = [
        ("the frontier: coverage", spread(col(front, "coverage_pct"), 1, "%"),
         "its interval holds what the models it chose truly cost on the set's problems"),
        ("the frontier: width ÷ oracle", spread(col(front, "width_vs_oracle"), 2),
         "above 1: wider than the estimate's own spread over the sets needs"),
        ("the frontier's truth ÷ the best single model's (one try)", spread(col(front, "vs_best_single"), 2),
         "above 1: what choosing on the other problems' single runs costs"),
        ("each model alone: coverage", spread(col(t1, "coverage_pct"), 1, "%"), ""),
        ("each model alone: width ÷ oracle", spread(col(t1, "width_vs_oracle"), 2), ""),
        ("two models paired on the same problems: coverage", spread(col(pairs, "coverage_pct"), 1, "%"), ""),
        ("paired: power where one costs at most half the other", spread(col(pairs, "power_pct"), 0, "%"), ""),
        ("paired: found on the wrong side", spread(col(pairs, "false_findings_pct"), 3, "%"), ""),
        *_gain_rows(col),
    ]
    return [f"Measured on {sets} SIMULATED sets per generator of the `{shape}` set's shape with one run per cell "
            f"(`benchmarks/one_run_validity.py {sets}`, {table['generator'].nunique()} generators):", "",
            "| measured | over the generators | what it says |", "|---|---|---|",
            *[f"| {a} | {b} | {c} |" for a, b, c in rows]]


GAINS = (("release gain", "a release's gain (Figure 4)"), ("family", "a family's gain (Figure 3)"),
         ("essential", "a single model's gain (Figure 5)"),
         ("release frontier", "the frontier over releases (Figure 2)"))  # kind name, the docs' words


def _gain_rows(col) -> list[tuple[str, str, str]]:
    """The docs table's rows of the gains (``GAINS``): coverage and width over the oracle's of each, and the families'
    false "most essential" claims (``col(label, column)``: one statistic's column by generator)."""
    rows = []
    for kind, words in GAINS:
        label = statistic.FAMILY_LABELS[kind]
        rows += [(f"{words}: coverage", spread(col(label, "coverage_pct"), 1, "%"),
                  "its interval holds the true gain" if kind != "release frontier" else ""),
                 (f"{words}: width ÷ oracle", spread(col(label, "width_vs_oracle"), 2), "")]
    rows += [("a release's gain shown while its true gain is not above 0",
              spread(col(statistic.FAMILY_LABELS["release gain"], "false_findings_pct"), 2, "%"),
              "% of the (set, dataset) pairs: the claim the first screen makes"),
             ("a family named the most essential while another's true gain is larger",
              spread(col(statistic.FAMILY_LABELS["family"], "false_findings_pct"), 2, "%"), "")]
    return rows


def main(sets: int = 100, generators: int | None = None, params: str = "params/sim.yaml") -> None:
    start = time.perf_counter()
    ctx, _, table, pick = studied(params, sets, generators, seed=5, n_runs=1)
    print(f"{sets} simulated sets of the `{ctx.params.name}` set's shape per generator with ONE run per cell "
          "(SIMULATED), each judged against its own truth\n")
    print("Frontier of all models (one model per dataset, chosen for each problem on the other problems' runs):")
    print(pick(statistic.POLICY_FRONTIER.label, ["coverage_pct", "width_vs_oracle", "vs_best_single",
                                                       "vs_best_single_worst"]).round(3).to_string())
    print("\nEach model alone (one try):")
    print(pick(statistic.FAMILY_LABELS["table1"], ["coverage_pct", "width_vs_oracle"]).round(3).to_string())
    print("\nEvery pair of models alone, paired on the same problems:")
    print(pick(policy_study.PAIRS, ["coverage_pct", "width_vs_oracle", "power_pct", "false_findings_pct"]).round(3)
          .to_string())
    for kind, words in GAINS:
        print(f"\n{words[0].upper()}{words[1:]}, each with its own interval:")
        print(pick(statistic.FAMILY_LABELS[kind], ["coverage_pct", "width_vs_oracle", "false_findings_pct"]).round(3)
              .to_string())
    print(f"\n<!-- {DOC}: start -->", *docs_table(table, sets, ctx.params.name), f"<!-- {DOC}: end -->", sep="\n")
    print(f"\nwall {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]), *sys.argv[3:4])
