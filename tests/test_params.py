from pathlib import Path

import pytest
import yaml

from conftest import ROOT
from helpers.core.errors import CostOfPassError
from helpers.core.params import load_params, params_in_notebook

VALID = {"name": "x", "tasks": ["gsm8k"], "models": ["sim-lightweight"], "n_problems": 2, "n_runs": 1,
         "price_snapshot": "sim_tiny_2025-04", "budget_usd": 1.0}


def write(tmp_path, data, name="set.yaml"):
    p = tmp_path / name
    p.write_text(yaml.safe_dump(data) if isinstance(data, dict) else data)
    return p


@pytest.mark.parametrize("name", ["tiny", "paper"])
def test_committed_sets_validate(name):
    p = load_params(ROOT / "params" / f"{name}.yaml")
    assert p.name == name and p.price_path.is_file() and p.models_path.is_file()


@pytest.mark.parametrize(
    "change, field, words",
    [
        ({"n_runs": 0}, "n_runs", "greater than 0"),
        ({"n_runs": "many"}, "n_runs", "integer"),
        ({"budget_usd": -1}, "budget_usd", "greater than 0"),
        ({"methods": ["vanilla", "beam_search"]}, "methods", "unknown method 'beam_search'"),
        ({"sampling": {"temperature": 3}}, "sampling.temperature", "less than or equal to 2"),
        ({"sampling": {"top_k": 3}}, "sampling.top_k", "unknown field"),
        ({"modles": ["x"]}, "modles", "unknown field"),
        ({"extraction": "fuzzy"}, "extraction", "strict"),
        ({"tasks": []}, "tasks", "at least 1"),
    ],
)
def test_errors_name_file_and_field(tmp_path, change, field, words):
    path = write(tmp_path, {**VALID, **change})
    with pytest.raises(CostOfPassError) as err:
        load_params(path)
    msg = str(err.value)
    assert "\n" not in msg and str(path) in msg and f"field '{field}'" in msg and words in msg


def test_missing_field_and_bad_yaml(tmp_path):
    data = dict(VALID)
    del data["budget_usd"]
    with pytest.raises(CostOfPassError, match="field 'budget_usd': required field is missing"):
        load_params(write(tmp_path, data))
    with pytest.raises(CostOfPassError, match="is not valid YAML"):
        load_params(write(tmp_path, "name: [unclosed", "bad.yaml"))
    with pytest.raises(CostOfPassError, match="must be a YAML mapping"):
        load_params(write(tmp_path, "- a\n- b\n", "list.yaml"))
    with pytest.raises(CostOfPassError, match="parameter set not found"):
        load_params(tmp_path / "nope.yaml")


def test_notebook_parameters_prefer_injected_keys(tmp_path):
    path = write(tmp_path, VALID)
    injected = {**VALID, "n_runs": 3, "params_file": str(path), "unrelated": 1}
    assert params_in_notebook(injected, str(path)).n_runs == 3
    assert params_in_notebook({}, str(path)).n_runs == 1
    with pytest.raises(CostOfPassError, match="field 'n_runs'"):
        params_in_notebook({**VALID, "n_runs": -2}, str(path))


def test_every_problem_is_listed_on_one_line(tmp_path):
    path = write(tmp_path, {**VALID, "n_runs": 0, "budget_usd": -1, "modles": ["x"]})
    with pytest.raises(CostOfPassError) as err:
        load_params(path)
    msg = str(err.value)
    assert "\n" not in msg and "more)" not in msg
    assert msg.index("field 'modles': unknown field") < msg.index("field 'n_runs'") < msg.index("field 'budget_usd'")


@pytest.mark.parametrize("text, line", [
    ("name: x\ntasks [a]\nn_runs: 2\n", "line 2 (the parser stopped on line 3)"),  # a key without its colon
    ("name: x\ntasks: [a, b\nn_runs: 2\n", "line 2 (the parser stopped on line 3)"),  # an unclosed bracket
    ("name: x\nsampling:\n  temperature: 0.7\n top_p: 1\n", "line 4 is"),  # indentation: where it goes wrong
    ("name: x\n\tn_runs: 2\n", "line 2 is"),
])
def test_a_yaml_error_points_at_the_line_to_fix(tmp_path, text, line):
    with pytest.raises(CostOfPassError, match=r"is not valid YAML") as err:
        load_params(write(tmp_path, text))
    assert line in str(err.value)


def test_a_bare_set_name_is_the_checkouts_file_or_gets_the_nearest():
    assert load_params("tiny").name == "tiny"
    with pytest.raises(CostOfPassError, match=r"parameter set not found: tinny \(did you mean 'tiny'\?\)"):
        load_params("tinny")


def test_what_the_command_line_decides_is_a_setting_no_parameter_file_gives(tmp_path):
    """Issue 64 item 2: offline, writing outside results/ and grading without a boundary reach the stages as the
    ``settings`` parameter (``core.settings``), never through an environment variable the runner sets; a parameter
    file cannot give them."""
    import re

    from helpers.core.settings import RunSettings

    path = write(tmp_path, {**VALID, "settings": {"write_anywhere": True}})
    with pytest.raises(CostOfPassError, match="field 'settings': the command line sets it") as err:
        load_params(path)
    assert "\n" not in str(err.value)
    path = write(tmp_path, VALID)
    given = RunSettings(offline=True, write_anywhere=True, unisolated_grading=True)
    assert params_in_notebook({**VALID, "settings": given.parameter()}, str(path)).settings == given
    assert params_in_notebook({"settings": given.parameter()}, str(path)).settings == given
    assert load_params(path, given).settings == given and "settings" not in load_params(path).model_dump()
    with pytest.raises(CostOfPassError, match="the run's settings must be a mapping"):
        params_in_notebook({**VALID, "settings": {"offline": "yes"}}, str(path))
    assert RunSettings().allowing(offline=True) == RunSettings(offline=True)
    src = Path(__file__).resolve().parents[1] / "src" / "helpers"
    setters = [f"{f.relative_to(src)}: {m.group(0)}" for f in src.rglob("*.py")
               for m in re.finditer(r"os\.environ\[[^\]]*\]\s*=|os\.environ\.setdefault\(\s*[\"']COP_", f.read_text())]
    assert setters == ["core/progress.py: os.environ[PROGRESS_ENV] ="] * 2, setters  # the runner sets no setting for
    # the stages to inherit (only where the stage's progress bar is mirrored: a display channel, not a setting)


def test_consent_to_grade_without_a_boundary_is_never_read_from_the_environment(monkeypatch):
    from helpers.core.settings import RunSettings

    monkeypatch.setenv("COP_UNISOLATED_GRADING", "1")
    monkeypatch.setenv("COP_OFFLINE", "1")
    assert RunSettings.from_environment() == RunSettings(offline=True, write_anywhere=True)  # conftest's switch
