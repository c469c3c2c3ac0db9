"""The package as a library (issue 39 item 2): importing it changes nothing in the caller's process."""

import subprocess
import sys

from conftest import ROOT

PROBE = """
import importlib, os, pkgutil
import matplotlib
env, rc = dict(os.environ), {k: str(v) for k, v in matplotlib.rcParams.items()}
backend = matplotlib.rcParams._get("backend")
import helpers
names = [m.name for m in pkgutil.walk_packages(helpers.__path__, "helpers.")]
for name in names:
    importlib.import_module(name)
changed = sorted(k for k in set(env) | set(os.environ) if env.get(k) != os.environ.get(k))
changed += sorted(k for k, v in matplotlib.rcParams.items() if rc.get(k) != str(v))
changed += ["backend"] if matplotlib.rcParams._get("backend") != backend else []
print(len(names), changed)
"""


def test_importing_every_module_changes_no_environment_variable_backend_or_rcparam():
    env = {k: v for k, v in __import__("os").environ.items()
           if k not in ("MPLBACKEND", "LITELLM_LOCAL_MODEL_COST_MAP", "HF_HUB_OFFLINE")}
    out = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    count, changed = out.stdout.strip().split(" ", 1)
    assert int(count) > 90 and changed == "[]", out.stdout


def test_a_figure_is_drawn_in_the_projects_style_and_the_callers_settings_come_back():
    import matplotlib
    import pandas as pd

    from helpers.publish.figures import over_time, style

    before = {k: str(v) for k, v in matplotlib.rcParams.items()}
    split = pd.DataFrame({"task": ["gsm8k"], "new_models_pct": [-40.0], "prices_pct": [-4.0], "change_pct": [-44.0],
                          "start": ["2024-01-01"], "end": ["2025-01-01"]})
    fig = over_time.price_change(split, {"gsm8k": "GSM8K"}, False, ["gsm8k"])
    assert fig.axes[0].get_facecolor()[:3] == matplotlib.colors.to_rgb(style.STYLE["axes.facecolor"])
    assert {k: str(v) for k, v in matplotlib.rcParams.items()} == before
    matplotlib.pyplot.close(fig)


def _attempts(seed: int = 0):
    """Two tasks x 30 problems x 3 options x 4 runs, built by hand: 'sure' always passes at $0.01, 'cheap' passes
    a problem's runs with its own rate at $0.001, 'never' never passes at $0.0001."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    rows = []
    for task in ("a", "b"):
        for p in range(30):
            rate = rng.uniform(0, 1)
            for run in range(4):
                rows += [(task, f"p{p}", "sure", 0.01, True, run),
                         (task, f"p{p}", "cheap", 0.001, rng.random() < rate, run),
                         (task, f"p{p}", "never", 0.0001, False, run)]
    return pd.DataFrame(rows, columns=["task", "problem", "option", "usd", "correct", "run"])


def test_the_public_api_gives_table1_and_the_frontier_with_intervals_from_a_hand_built_dataframe():
    """Issue 39 item 2: the math on a researcher's own DataFrame, through ``helpers.api``."""
    import numpy as np

    import helpers.api as api
    from helpers.analyze import policy

    assert set(api.__all__) == {"headline", "differences", "paper_estimates", "FRONTIER", "PAPER_FRONTIER"}
    assert api.FRONTIER == str(policy.FRONTIER)  # one name for one quantity: a library result is the pipeline's
    attempts = _attempts()
    rows = api.headline(attempts, expert_usd={"a": 1.0, "b": 2.0}).set_index(["statistic", "task"])
    assert set(rows.index.get_level_values(0)) == {"table1:sure", "table1:cheap", "table1:never", api.FRONTIER}
    sure, never = rows.loc[("table1:sure", "a")], rows.loc[("table1:never", "b")]
    assert np.isclose(sure["value"], 0.01) and sure["low"] - 1e-12 <= 0.01 <= sure["high"] + 1e-12
    assert sure["expert_share_pct"] == 0
    assert np.isclose(never["value"], 2 * 0.0001 + 2.0) and never["k"] == 2  # two failed tries (half the 4 runs),
    # then the expert
    assert (rows.loc[api.FRONTIER, ["kind", "item"]] == ["policy frontier", "all models"]).all().all()  # its parts
    front = rows.loc[(api.FRONTIER, "a")]
    assert front["low"] <= front["value"] <= front["high"] and front["value"] <= 0.011  # never worse than 'sure'
    paper = api.paper_estimates(attempts, expert_usd=1.0).set_index(["statistic", "task"])["value"]
    assert np.isclose(paper[("table1:sure", "a")], 0.01) and np.isclose(paper[("table1:never", "a")], 1.0)
    assert paper[(api.PAPER_FRONTIER, "a")] <= 0.01 and api.FRONTIER not in paper.index.get_level_values(0)


def test_the_public_api_compares_every_two_options_paired_on_the_same_problems():
    """Issue 61 item 3: ``differences`` takes ``headline``'s arguments and gives every pair's difference (USD per
    problem) with its interval; 'never' pays the fee on every problem, 'sure' never does: a finding, the right sign;
    the intervals hold all of a task's pairs at once unless asked one by one."""
    import numpy as np

    import helpers.api as api

    attempts = _attempts()
    rows = api.differences(attempts, expert_usd={"a": 1.0, "b": 2.0})
    assert list(rows.columns) == ["task", "a", "b", "value", "low", "high", "k", "level"]
    assert len(rows) == 2 * 3 and set(zip(rows["a"], rows["b"])) == {("cheap", "never"),
                                                                     ("cheap", "sure"), ("never", "sure")}
    pair = rows[(rows["task"] == "b") & (rows["a"] == "never") & (rows["b"] == "sure")].iloc[0]
    assert np.isclose(pair["value"], 2 * 0.0001 + 2.0 - 0.01) and 0 < pair["low"] <= pair["value"] <= pair["high"]
    alone = api.headline(attempts, expert_usd={"a": 1.0, "b": 2.0}).set_index(["statistic", "task"])["value"]
    for r in rows.itertuples():  # the mean of the paired differences is the difference of the two headline values
        assert np.isclose(r.value, alone[(f"table1:{r.a}", r.task)] - alone[(f"table1:{r.b}", r.task)])
    assert (rows["level"] == 1 - 0.05 / 3).all()
    one = api.differences(attempts, expert_usd={"a": 1.0, "b": 2.0}, simultaneous=False)
    assert (one["level"] == 0.95).all() and ((one["high"] - one["low"]) <= (rows["high"] - rows["low"]) + 1e-12).all()


def test_the_public_api_refuses_a_bad_frame_in_one_line():
    import pytest

    import helpers.api as api
    from helpers.core.errors import CostOfPassError

    attempts = _attempts()
    with pytest.raises(CostOfPassError, match="columns correct are missing"):
        api.headline(attempts.drop(columns="correct"), 1.0)
    with pytest.raises(CostOfPassError, match="'usd' must be a number"):
        api.headline(attempts.assign(usd=-1.0), 1.0)
    with pytest.raises(CostOfPassError, match=r"expert_usd: no USD for task\(s\) b \(the mapping has a\)"):
        api.headline(attempts, {"a": 1.0})
    with pytest.raises(CostOfPassError, match="a positive USD is needed"):
        api.headline(attempts, {"a": 1.0, "b": -2.0})


def test_the_public_api_reads_no_verdict_it_cannot_and_no_k_a_single_cell_would_set():
    """Issue 62 item 5: 'yes'/'no' or 'True'/'False' as text are refused (each would read as a pass), 1/0 read as
    True/False; a cell with fewer runs than its task's others is named (it would set k for the whole task)."""
    import numpy as np
    import pytest

    import helpers.api as api
    from helpers.core.errors import CostOfPassError

    attempts = _attempts()
    as_text = attempts.assign(correct=attempts["correct"].map({True: "yes", False: "no"}))
    with pytest.raises(CostOfPassError, match=r"'correct' must be True/False or 1/0 on every row; row 0 has 'yes'"):
        api.headline(as_text, 1.0)
    with pytest.raises(CostOfPassError, match="'correct' must be True/False or 1/0"):
        api.paper_estimates(attempts.assign(correct=attempts["correct"].astype(str)), 1.0)
    with pytest.raises(CostOfPassError, match="'correct' must be True/False or 1/0"):
        api.headline(attempts.assign(correct=attempts["correct"].astype(float).where(attempts.index != 5)), 1.0)
    ones = api.headline(attempts.assign(correct=attempts["correct"].astype(int)), 1.0)
    assert np.allclose(ones["value"], api.headline(attempts, 1.0)["value"])
    short = attempts.drop(index=attempts[(attempts.task == "a") & (attempts.problem == "p3")
                                         & (attempts.option == "cheap")].index[-1])
    with pytest.raises(CostOfPassError,
                       match=r"same number of runs; a: option 'cheap' on problem 'p3' has 3 of 4 runs"):
        api.headline(short, 1.0)


CLI_PROBE = """
import os, sys
from helpers.cli.runner import main
try:
    main(["--version"])
except SystemExit:
    pass
import jsonschema  # noqa: F401  (the locked release imports no IRI checker)
print(os.environ.get("OPENBLAS_NUM_THREADS"), os.environ.get("MPLBACKEND"), sys.modules.get("rfc3987_syntax", "absent"))
"""


def test_the_command_sets_its_kernels_defaults_and_keeps_jsonschemas_iri_parsers_out():
    env = {k: v for k, v in __import__("os").environ.items() if k not in ("OPENBLAS_NUM_THREADS", "MPLBACKEND")}
    out = subprocess.run([sys.executable, "-c", CLI_PROBE], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split("\n")[-2] == "1 Agg absent"
    out = subprocess.run([sys.executable, "-c", CLI_PROBE], cwd=ROOT, env={**env, "OPENBLAS_NUM_THREADS": "4"},
                         capture_output=True, text=True, timeout=300)
    assert out.stdout.split("\n")[-2].startswith("4 ")  # a user's own setting wins


def test_a_number_one_problem_carries_says_so():
    """Issue 62 item 1: where one problem carries more than half of a headline number (here the one problem 'sure'
    fails, whose fee is most of its cost), the rows name it and its share, and the findings' words say it; a number
    spread over many problems says nothing."""
    import pytest

    import helpers.api as api
    from helpers.publish.findings import carried

    attempts = _attempts()
    attempts.loc[(attempts["task"] == "a") & (attempts["problem"] == "p7")
                 & (attempts["option"] == "sure"), "correct"] = False
    # 'sure': one try of $0.01 where it passes; on p7 k = 2 tries (half its 4 runs), then the fee
    rows = api.headline(attempts, expert_usd={"a": 10.0, "b": 2.0}).set_index(["statistic", "task"])
    sure = rows.loc[("table1:sure", "a")]
    assert sure["top_problem"] == "p7" and sure["top_share_pct"] == pytest.approx(100 * 10.02 / (10.02 + 29 * 0.01))
    assert carried(sure) == f"; {sure['top_share_pct']:.3g}% of it from one problem, p7"
    spread = rows.loc[("table1:never", "b")]  # the fee on every problem alike: no problem decides it
    assert spread["top_share_pct"] == pytest.approx(100 / 30) and carried(spread) == ""
