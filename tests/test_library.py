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

    from helpers.publish import figures

    before = {k: str(v) for k, v in matplotlib.rcParams.items()}
    split = pd.DataFrame({"task": ["gsm8k"], "new_models_pct": [-40.0], "prices_pct": [-4.0], "change_pct": [-44.0],
                          "start": ["2024-01-01"], "end": ["2025-01-01"]})
    fig = figures.price_change(split, {"gsm8k": "GSM8K"}, False, ["gsm8k"])
    assert fig.axes[0].get_facecolor()[:3] == matplotlib.colors.to_rgb(figures.STYLE["axes.facecolor"])
    assert {k: str(v) for k, v in matplotlib.rcParams.items()} == before
    matplotlib.pyplot.close(fig)
