import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = (ROOT / ".." / "shared" / "data").resolve()
sys.path.insert(0, str(Path(__file__).parent))

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("MPLBACKEND", "Agg")  # as the CLI runs its kernels
os.environ.setdefault("COP_LOCAL_THREADS", "1")  # llama.cpp beside the other worker: spinning threads (backends.local)
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as the CLI runs its kernels (set before numpy loads OpenBLAS)
# tests write their sets under temporary directories (the refusal's tests unset it)
os.environ.setdefault("COP_WRITE_ANYWHERE", "1")

STUB_KEY = "sk-" + "test-DO-NOT-LEAK-0123456789abcdef"  # built at run time: no key-shaped literal in the repo


# Tests that run on one pytest-xdist worker, in file order (`make test` runs a worker per core and one more): the
# README's commands write results/ of this checkout and the tests after them read it; the session's small simulated
# set is built once for the tests that read it. Every other file is a unit of its own (its module-scoped sets built
# once), run beside the others.
# `make all` (the longest README command: the sim set's validity study) and what reads its two sets (local, sim): a
# group beside the other README commands, which write other folders of results/ (the index page is written under a
# lock and a report whole: `publish` sees each set complete or not at all)
COMMAND = "test_readme.py::test_readme_command_works_as_written"
MAKE_ALL = (f"{COMMAND}[make all]", f"{COMMAND}[.venv/bin/cost-of-pass quarto params/sim.yaml]",
            f"{COMMAND}[.venv/bin/cost-of-pass publish /tmp/site]",
            "test_readme.py::test_the_sim_docs_quote_its_results",
            "test_readme.py::test_the_local_docs_quote_its_results",
            "test_report_html.py::test_the_reports_on_disk_pass_the_browser_check[local]",
            "test_report_html.py::test_the_reports_on_disk_pass_the_browser_check[sim]")
CHECKOUT = ("test_readme.py", "test_report_html.py::test_the_reports_on_disk",
            "test_report_html.py::test_the_readme_reprice",
            "test_pipeline.py::test_paper_without_keys")  # results/ of the checkout (paper: its folder must stay empty)
SMALL_SIM = ("test_invariants.py", "test_report_html.py")  # conftest.small_sim_set
# `make humaneval` (a third of the suite's CPU) and the check of its report: beside the checkout group, not in it (the
# two write other folders of results/; the index page is written under a lock and a report whole, so the site's
# commands see a set complete or not at all)
# (the sandbox's tests count the sandbox user's processes machine-wide: they run after that grading, never beside it)
HUMANEVAL = (f"{COMMAND}[make humaneval]",
             "test_readme.py::test_the_humaneval_docs_quote_its_results",
             "test_report_html.py::test_the_reports_on_disk_pass_the_browser_check[humaneval_agents]",
             "test_sandbox.py")


def xdist_group(name: str) -> str | None:
    """The worker group of a test (``<file>::<test>[<parameters>]``), or None: its file is its unit."""
    if name.startswith(HUMANEVAL):
        return "humaneval"
    if name.startswith(MAKE_ALL):
        return "make_all"
    if name.startswith(CHECKOUT):
        return "checkout"
    return "small_sim_set" if name.startswith(SMALL_SIM) else None


def pytest_xdist_make_scheduler(config, log):
    """Units of work as ``xdist_group`` says, each sent whole to one worker, which runs it in collection order.
    (xdist's own ``--dist loadgroup`` does not group under pytest 9: it renames ``Node._nodeid``, which pytest 9 no
    longer reads.)"""
    from xdist.scheduler import LoadScopeScheduling

    class ByGroup(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            path, _, test = nodeid.partition("::")
            return xdist_group(f"{path.rsplit('/', 1)[-1]}::{test}") or path

        def _assign_work_unit(self, node) -> None:
            if not getattr(self, "_longest_first", False):  # once, before the first unit goes out
                self._longest_first = True
                for unit in reversed([u for u in LONGEST if u in self.workqueue]):
                    self.workqueue.move_to_end(unit, last=False)
            super()._assign_work_unit(node)

    return ByGroup(config, log)


# The units that take longest, started first (a worker is sent its next unit while it still runs the last two tests of
# one, so a long unit sent late keeps the other worker idle at the end): measured with `--durations` on 2 cores.
LONGEST = ("make_all", "humaneval", "checkout", "small_sim_set", "tests/test_benchmarks.py", "tests/test_local.py",
           "tests/reliability/test_signals.py", "tests/test_ledger.py",
           "tests/test_collect_e2e.py", "tests/test_faults.py")


def run_in_session(command, *, timeout_s: float, **kw) -> subprocess.CompletedProcess:
    """``command`` (``subprocess.Popen``'s arguments and ``kw``; output captured as text) run to its end in a session
    of its own. Past ``timeout_s`` its whole session is killed (the command and all it started: a make, a runner, its
    kernels; not the test runner's group, which it is not in) and the test fails with the end of its output. A test
    that calls this gives itself a longer pytest timeout (``pytest.mark.timeout``; test_timeouts checks): pytest-timeout
    ends the whole worker, and with it every later test of that worker."""
    from helpers.core.sessions import signal_session

    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                            **kw)
    try:
        out, err = proc.communicate(timeout=timeout_s)
    except BaseException as stop:
        signal_session(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        if isinstance(stop, subprocess.TimeoutExpired):
            pytest.fail(f"`{command}` did not end within {timeout_s} s (killed with its session):\n{out[-2000:]}\n"
                        f"{err[-3000:]}")
        raise
    return subprocess.CompletedProcess(command, proc.returncode, out, err)


@pytest.fixture
def shared_data() -> Path:
    data = Path(os.environ.get("COP_DATA_DIR") or SHARED_DATA)
    if not (data / "gsm8k").is_dir():
        pytest.skip("benchmark data directory (../shared/data) not present")
    return data


# A simulated test set's validity study (07_validity): its machinery at a small size. The study at its default size
# is the sim set's, run by `make all` (test_readme.py); its statistics are checked in test_validity.py.
SMALL_VALIDITY = {"repetitions": 2, "replicates": 10, "effect_repetitions": 2, "generator_repetitions": 2,
                  "policy_repetitions": 2, "halving_series": 50}


@pytest.fixture
def write_set(tmp_path):
    """Write a parameter set (and, if given, a model registry and price snapshot) under tmp_path."""

    def _write(params: dict, models: dict | None = None, prices: dict | None = None) -> Path:
        p = dict(params)
        p.setdefault("output_dir", str(tmp_path / "results" / p.get("name", "t")))
        p.setdefault("validity", SMALL_VALIDITY)
        if models is not None:
            (tmp_path / "models.yaml").write_text(yaml.safe_dump({"models": models}))
            p["models_file"] = str(tmp_path / "models.yaml")
        if prices is not None:
            (tmp_path / "prices.yaml").write_text(yaml.safe_dump(prices))
            p["price_snapshot"] = str(tmp_path / "prices.yaml")
        path = tmp_path / f"{p.get('name', 't')}.yaml"
        path.write_text(yaml.safe_dump(p, sort_keys=False))
        return path

    return _write


def stub_models(base_url: str) -> dict:
    entry = {"family": "lightweight", "release_date": "2024-01-01", "api_base": base_url,
             "api_key_env": "STUB_API_KEY", "typical_completion_tokens": 20}
    return {
        "stub-a": {**entry, "label": "Stub A", "litellm_id": "openai/stub-a"},
        "stub-b": {**entry, "label": "Stub B", "litellm_id": "openai/stub-b", "family": "large"},
        "broken": {**entry, "label": "Broken", "litellm_id": "openai/always-500"},
    }


STUB_PRICES = {
    "date": "2025-01-01", "source": "test prices",
    "prices": {m: {"input_usd_per_mtok": 1.0, "output_usd_per_mtok": 2.0} for m in ("stub-a", "stub-b", "broken")},
}


def stub_set_params(**over) -> dict:
    """A small parameter set of the stub models on generated Two Digit Addition problems (``over`` replaces keys)."""
    p = {
        "name": "stubrun", "tasks": ["two_digit_addition"], "models": ["stub-a", "stub-b"],
        "methods": ["vanilla", "self_refine"], "n_problems": 6, "n_runs": 2, "seed": 3,
        "price_snapshot": "unused", "budget_usd": 1.0, "concurrency": 3, "max_retries": 3,
        "retry_backoff_s": 0.01, "timeout_s": 20,
        "task_options": {"two_digit_addition": {"source": "generated", "n": 40, "seed": 1}},
    }
    p.update(over)
    return p


def chromium() -> str | None:
    """Debian's headless browser, where installed (``make chromium``)."""
    import shutil

    return shutil.which("chromium") or shutil.which("chromium-browser")


def sim_set(write_set, name: str, out, **over):
    """Two simulated models on generated Two Digit Addition (``over`` replaces keys), loaded as a parameter set."""
    from helpers.core.params import load_params

    p = {"name": name, "tasks": ["two_digit_addition"], "models": ["sim-lightweight", "sim-reasoning"],
         "methods": ["vanilla", "majority_vote_k3"], "n_problems": 12, "n_runs": 4, "seed": 0,
         "price_snapshot": "sim_tiny_2025-04", "budget_usd": 5.0, "concurrency": 1, "output_dir": str(out),
         "task_options": {"two_digit_addition": {"source": "generated"}}}
    p.update(over)
    return load_params(write_set(p))


SYNTHETIC_METHODS = ["vanilla", "self_refine", "majority_vote_k3", "best_of_k2"]


def synthetic_attempts(seed=0, problems=12, runs=5):
    """Graded attempts of three models x (vanilla, self_refine) on two datasets, a few cells missing a run (a
    DataFrame)."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    rows = []
    for task in ("gsm8k", "bbq"):
        for p in range(problems):
            for model in ("a", "b", "c"):
                for method in ("vanilla", "self_refine"):
                    n = runs - int(rng.random() < 0.2)  # a few cells with a missing run
                    skill = rng.random()
                    for r in range(n):
                        answer = str(rng.choice(3, p=[skill, (1 - skill) / 2,
                                                      (1 - skill) / 2])) if rng.random() > 0.1 else None
                        rows.append({"task": task, "problem_id": f"{task}-{p}", "model": model,
                                     "method": method, "run": r,
                                     "correct": answer == "0", "answer_key": answer, "complete": True,
                                     "usd": float(rng.gamma(2.0, 0.001 * (1 + "abc".index(model))))})
    return pd.DataFrame(rows)


@pytest.fixture(scope="session")
def small_sim_set(tmp_path_factory):
    """A small SIMULATED set of the paper's ten twins (Two Digit Addition, every method, 12 problems x 4 runs), run
    through every stage and the report once per test session and shared by the tests that only read it
    (``test_invariants``, ``test_report_html``). Its params (``load_params``)."""
    import subprocess

    from helpers.core.params import load_params

    tmp = tmp_path_factory.mktemp("small_sim_set")
    models = yaml.safe_load((ROOT / "params/registry/sim_paper.yaml").read_text())["models"]
    params = {
        "name": "htmlcheck", "tasks": ["two_digit_addition"], "models": list(models),
        "models_file": "params/registry/sim_paper.yaml", "methods": ["vanilla", "self_refine", "majority_vote_k3"],
        "n_problems": 12, "n_runs": 4, "price_snapshot": "sim_paper_table4_2025-04", "budget_usd": 10.0,
        "concurrency": 1, "output_dir": str(tmp / "results"),
        "task_options": {"two_digit_addition": {"source": "generated"}},
        "validity": {"repetitions": 4, "replicates": 20, "effect_repetitions": 3,  # the study's machinery, small
                     "generator_repetitions": 2, "policy_repetitions": 3, "halving_series": 100},
    }
    path = tmp / "htmlcheck.yaml"
    path.write_text(yaml.safe_dump(params))
    out = subprocess.run([sys.executable, "-m", "helpers.cli.runner", "run", str(path)], cwd=ROOT,
                         capture_output=True, text=True, timeout=1200)
    assert out.returncode == 0, out.stderr[-3000:]
    return load_params(path)


def repriced_only_costs(before: Path, after: Path, changed: str) -> None:
    """A reprice (``after``, of the set in ``before``) left accuracy as it was and moved the cost of ``changed`` alone,
    its report opens with what it changed, and it read the set's records where they are."""
    import numpy as np
    import pandas as pd

    pd.testing.assert_frame_equal(pd.read_csv(before / "tables/table5_accuracy.csv"),
                                  pd.read_csv(after / "tables/table5_accuracy.csv"))
    cost0 = pd.read_csv(before / "tables/table6_cost.csv").set_index("model")
    cost1 = pd.read_csv(after / "tables/table6_cost.csv").set_index("model")
    moved = ~np.isclose(cost0.iloc[:, -1], cost1.iloc[:, -1], rtol=1e-12)
    assert list(cost0.index[moved]) == [changed]  # only the model whose price differs on that date
    page = (after / "report/index.html").read_text()
    assert "Repriced." in page and "at its own prices (USD)" in page  # what the reprice changed, before and after
    assert not (after / "records").exists()  # the set's records are read in place


def pytest_collection_finish(session):
    """Every object collection left (the modules, the tests) moves out of the collector's sight, so each worker's
    collections walk only what the tests make (``COP_TEST_GC_FREEZE=0`` keeps them in: benchmarks/suite_gc.py)."""
    import gc

    if os.environ.get("COP_TEST_GC_FREEZE") != "0":
        gc.collect()
        gc.freeze()
