import json
import shutil
import subprocess

import pytest

from helpers.core.errors import CostOfPassError
from helpers.core.tasks import (
    PAPER_TASKS,
    TASKS,
    bbq,
    get_task,
    gpqa_diamond,
    load_problems,
    sample_problems,
    two_digit_addition,
)


def write_jsonl(path, rows):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


@pytest.fixture
def fixture_dir(tmp_path):
    d = tmp_path / "data"
    write_jsonl(d / "gsm8k/test.jsonl", [
        {"question": f"Q{i}: how many?", "answer": f"work\n#### {1000 + i:,}"} for i in range(20)])
    write_jsonl(d / "math500/test.jsonl", [
        {"problem": "Compute 1/2 + 1/4.", "solution": "...", "answer": "\\frac{3}{4}", "subject": "Algebra",
         "level": 1, "unique_id": "test/algebra/1.json"}])
    write_jsonl(d / "aime24/test.jsonl", [{"id": 60, "problem": "p", "solution": "s", "answer": "025", "url": "u"}])
    write_jsonl(d / "two_digit_addition/test.jsonl", [{"input": "What is 64 + 66?", "target": "130"}])
    write_jsonl(d / "bbq/Age.jsonl", [
        {"example_id": i, "context": "Ctx.", "question": "Who?", "ans0": "a", "ans1": "b", "ans2": "c",
         "label": i % 3, "context_condition": "ambig"} for i in range(5)])
    return d


def test_registry_has_the_papers_six_tasks():
    assert set(PAPER_TASKS) <= set(TASKS)
    assert {get_task(t).metric for t in ("bbq", "gpqa_diamond")} == {"choice"}
    assert {get_task(t).metric for t in ("two_digit_addition", "gsm8k", "aime24")} == {"number"}
    assert get_task("math500").metric == "math"
    with pytest.raises(CostOfPassError, match="unknown task 'nope'"):
        get_task("nope")


def test_loaders_on_fixtures(fixture_dir):
    gsm = load_problems("gsm8k", fixture_dir, 100, 0)
    assert len(gsm) == 20 and {p.target for p in gsm} >= {"1000", "1019"}  # thousands separators dropped
    assert load_problems("math500", fixture_dir, 5, 0)[0].problem_id == "test/algebra/1.json"
    assert load_problems("aime24", fixture_dir, 5, 0)[0].target == "025"
    tda = load_problems("two_digit_addition", fixture_dir, 5, 0)
    assert tda[0].question == "What is 64 + 66?" and tda[0].target == "130"
    b = load_problems("bbq", fixture_dir, 5, 0)
    assert {p.target for p in b} == {"A", "B", "C"} and "(C) c" in b[0].question and b[0].n_choices == 3
    assert bbq.caveat(fixture_dir, {}).startswith("BBQ: 1 of 11 categories used; not available: Disability_status")
    assert bbq.caveat(fixture_dir, {"categories": list(bbq.CATEGORIES)}) == ""


def test_missing_data_is_one_line(tmp_path):
    for task in PAPER_TASKS:
        with pytest.raises(CostOfPassError) as err:
            load_problems(task, tmp_path, 3, 0)
        assert "no data at" in str(err.value) and str(tmp_path) in str(err.value) and "\n" not in str(err.value)


def test_sampling_is_seeded_stable_and_prefix_stable(fixture_dir):
    problems = get_task("gsm8k").load(fixture_dir, {})
    a = sample_problems(problems, 10, seed=7)
    assert [p.problem_id for p in a] == [p.problem_id for p in sample_problems(list(reversed(problems)), 10, 7)]
    assert [p.problem_id for p in sample_problems(problems, 5, 7)] == [p.problem_id for p in a[:5]]
    assert [p.problem_id for p in sample_problems(problems, 10, 8)] != [p.problem_id for p in a]


def test_generated_two_digit_addition():
    ps = two_digit_addition.generate(50, seed=3)
    assert len({p.problem_id for p in ps}) == 50 and ps == two_digit_addition.generate(50, seed=3)
    assert all(int(p.target) == p.metadata["a"] + p.metadata["b"] for p in ps)
    assert all(10 <= p.metadata["a"] <= 99 for p in ps)


def test_gpqa_shuffle_is_fixed_and_balanced():
    letters = [gpqa_diamond.shuffled_choices("right", ["w1", "w2", "w3"], f"rec{i}", 0)[1] for i in range(400)]
    assert set(letters) == set("ABCD") and max(letters.count(x) for x in "ABCD") < 140
    choices, letter = gpqa_diamond.shuffled_choices("right", ["w1", "w2", "w3"], "rec1", 0)
    assert choices["ABCD".index(letter)] == "right"
    assert (choices, letter) == gpqa_diamond.shuffled_choices("right", ["w1", "w2", "w3"], "rec1", 0)


@pytest.mark.skipif(shutil.which("zip") is None, reason="needs the zip command to make an encrypted fixture")
def test_gpqa_reads_an_encrypted_zip(tmp_path):
    header = ["Question", "Correct Answer", "Incorrect Answer 1", "Incorrect Answer 2", "Incorrect Answer 3",
              "Record ID", "High-level domain"]
    csv_path = tmp_path / "gpqa_diamond.csv"
    csv_path.write_text(",".join(header) + "\nWhat is X?,right,w1,w2,w3,recA,Physics\n")
    (tmp_path / "data" / "gpqa_diamond").mkdir(parents=True)
    subprocess.run(["zip", "-q", "-j", "-P", "deserted-untie-orchid",
                    str(tmp_path / "data/gpqa_diamond/gpqa_diamond.zip"), str(csv_path)], check=True)
    (p,) = load_problems("gpqa_diamond", tmp_path / "data", 5, 0)
    assert p.problem_id == "recA" and p.n_choices == 4 and f"({p.target}) right" in p.question


def test_real_data_directory(shared_data):
    counts = {"two_digit_addition": 250, "gsm8k": 1319, "math500": 500, "aime24": 30, "gpqa_diamond": 198}
    for task, n in counts.items():
        problems = get_task(task).load(shared_data, {})
        assert len(problems) == n and len({p.problem_id for p in problems}) == n
    gpqa = get_task("gpqa_diamond").load(shared_data, {})
    assert {p.target for p in gpqa} == set("ABCD")
    assert len(load_problems("bbq", shared_data, 128, 0)) == 128
    assert "Gender_identity" in bbq.caveat(shared_data, {})


def test_download_through_a_mirror(fixture_dir, tmp_path):
    """The downloader fetches the same layout the loaders read (from a local HTTP mirror here)."""
    import functools
    import threading
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    from helpers.core.tasks import download

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, *a):
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(fixture_dir)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        mirror = f"http://127.0.0.1:{httpd.server_address[1]}"
        dest = tmp_path / "fetched"
        files = download.download(dest, ["gsm8k", "aime24"], mirror=mirror)
        assert len(files) == 2 and len(load_problems("gsm8k", dest, 100, 0)) == 20
        assert download.download(dest, ["gsm8k"], mirror=mirror) == []  # present files are kept
        with pytest.raises(CostOfPassError, match="bbq: could not download"):
            download.download(dest, ["bbq"], mirror=mirror)  # the mirror lacks most categories
        with pytest.raises(CostOfPassError, match="no public file source"):
            download.download(dest, ["two_digit_addition"], mirror=mirror)
    finally:
        httpd.shutdown()


def test_data_dir_is_found_without_the_makefile(tmp_path, monkeypatch):
    from helpers.core.paths import default_data_dir

    monkeypatch.delenv("COP_DATA_DIR", raising=False)
    root = tmp_path / "checkout"
    root.mkdir()
    assert default_data_dir(root) == root / "data"  # nothing anywhere: the default, named in the error
    (tmp_path / "shared" / "data").mkdir(parents=True)
    assert default_data_dir(root) == tmp_path / "shared" / "data"  # ../shared/data beside the checkout
    (root / "data").mkdir()
    assert default_data_dir(root) == root / "data"  # the checkout's own data first
    monkeypatch.setenv("COP_DATA_DIR", str(tmp_path / "elsewhere"))
    assert default_data_dir(root) == tmp_path / "elsewhere"  # the environment above both
