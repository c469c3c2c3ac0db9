"""Racing on records you have (issue 66, item 4): what ``design: racing`` on an imported set reports — the rule
replayed once on its records (``helpers.analyze.race_replay``, the set's own racing settings and seed: what
``03_frontier`` writes to ``tables/racing_replay_*``) — on the HumanEval agent runs and the SWE-bench bash-only
leaderboard. Prints, per set, the line the terminal shows and each figure's verdict. ``benchmarks/racing.py`` repeats
the replay over 30 seeds of the Table-1 sample and several settings.

    COP_DATA_DIR=../shared/data .venv/bin/python benchmarks/racing_replay.py [params/<set>.yaml ...]

Needs each set's graded records (``make humaneval``, ``make swebench``).
"""

from __future__ import annotations

import sys
import time

from helpers.analyze import race_replay
from helpers.analyze.estimates import load_analysis
from helpers.core.context import prepare
from helpers.core.params import load_params

SETS = ("params/humaneval_agents.yaml", "params/swebench_bash_only.yaml")


def main(paths: list[str]) -> None:
    for path in paths:
        start = time.perf_counter()
        params = load_params(path)
        params = params.model_copy(update={"design": "racing"})  # what `design: racing` in the file makes it
        replay = race_replay.replay_set(load_analysis(prepare(params)))
        print(f"{path} with design: racing ({replay.problems:,} problems; Table-1 sample {replay.sample_problems:,}; "
              f"protected: {', '.join(replay.protect)})")
        print(f"  {race_replay.cli_line(replay)}")
        for row in replay.figures.to_dict("records"):
            verdict = ("identical" if row["identical"] else f"{row['differing']} of {row['values']} values differ, by "
                       f"at most {row['largest_difference']:.3g} ({row['largest_relative_pct']:.3g}% of the value)")
            print(f"    {row['figure']:<32} from {row['from']:<24} {verdict}")
        print(f"  ({time.perf_counter() - start:.1f} s)")


if __name__ == "__main__":
    main(sys.argv[1:] or list(SETS))
