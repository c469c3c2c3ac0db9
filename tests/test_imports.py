"""Imported records: RouteLLM's GSM8K responses, FEval-TTC's zip (built here in its format) and generic tables go
into the record store with their provenance, idempotently, and through every stage; bad rows are one line."""

import csv
import json
import subprocess
import sys
import zipfile

import pandas as pd
import pytest
import yaml

from conftest import ROOT
from helpers.collect.imports import import_records
from helpers.collect.imports.feval_ttc import split_evenly
from helpers.collect.plan import plan_for
from helpers.collect.records import RecordStore
from helpers.core.context import prepare
from helpers.core.errors import CostOfPassError
from helpers.core.params import load_params
from helpers.grade.agreement import grader_agreement
from helpers.grade.answers import as_label, is_correct

REGISTRY = str(ROOT / "params/registry/imported.yaml")
ROUTELLM = "routellm/gsm8k_responses.csv"


def routellm_set(write_set, data, n=20, path=ROUTELLM, **more):
    return load_params(write_set({
        "name": "rl", "tasks": ["gsm8k"], "models": ["mixtral-8x7b", "gpt-4-1106-preview"], "models_file": REGISTRY,
        "methods": ["vanilla"], "n_problems": n, "n_runs": 1, "price_snapshot": "litellm_1.106.2", "budget_usd": 1,
        "extraction": "lenient", "data_dir": str(data), "import_from": {"format": "routellm", "path": path}, **more}))


def do_import(params):
    ctx = prepare(params)
    with RecordStore(params.records_path) as store:
        return import_records(params, plan_for(params, ctx.problems, ctx.models), store)


def test_routellm_import_keeps_provenance_and_is_idempotent(write_set, shared_data):
    params = routellm_set(write_set, shared_data)
    first = do_import(params)
    assert (first.read, first.imported, first.present, first.outside, first.missing) == (2638, 40, 0, 2598, 0)
    assert first.describe().startswith("imported 40 responses (gpt-4-1106-preview 20, mixtral-8x7b 20) of 2638 read")
    again = do_import(params)
    assert (again.imported, again.present) == (0, 40)  # importing twice adds nothing
    records = RecordStore(params.records_path).load()
    assert len(records) == 40 and records["status"].eq("ok").all()
    assert records["source"].str.contains("RouteLLM").all() and records["source_correct"].notna().all()
    gpt = records[records["model"] == "gpt-4-1106-preview"]
    mixtral = records[records["model"] == "mixtral-8x7b"]
    assert gpt["token_counts"].str.startswith("counted: cl100k_base").all()
    assert mixtral["token_counts"].str.startswith("estimated").all()  # no offline tokenizer of its own: labelled
    assert (records["completion_tokens"] > 0).all() and (records["prompt_tokens"] > 0).all()


def test_routellm_bad_label_is_one_line_naming_file_and_row(write_set, shared_data, tmp_path):
    with (shared_data / ROUTELLM).open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))[:5]
    rows[2]["gpt-4-1106-preview"] = "Maybe"
    bad = tmp_path / "bad.csv"
    with bad.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    params = routellm_set(write_set, shared_data, path=str(bad))
    with pytest.raises(CostOfPassError) as err:
        do_import(params)
    assert str(err.value) == f"{bad}: row 4: column gpt-4-1106-preview: expected True or False, got 'Maybe'"
    assert not RecordStore(params.records_path).shards()  # nothing written before the file is checked


def test_a_set_mixing_imported_and_called_models_or_techniques_fails_before_anything(write_set, shared_data):
    with pytest.raises(CostOfPassError, match="self_refine make"):
        prepare(routellm_set(write_set, shared_data, methods=["vanilla", "self_refine"]))
    with pytest.raises(CostOfPassError, match="needs 'import_from'"):
        prepare(routellm_set(write_set, shared_data, import_from=None))


def test_generic_jsonl_by_question_text_and_csv_by_id(write_set, shared_data, tmp_path):
    questions = [json.loads(line)["question"] for line in (shared_data / "gsm8k/test.jsonl").open()][:3]
    jl = tmp_path / "mine.jsonl"
    jl.write_text("".join(json.dumps({"q": q, "who": "gpt-3.5-turbo", "text": f"<answer>{i}</answer>", "ok": "no",
                                      "pt": 50, "ct": 7}) + "\n" for i, q in enumerate(questions) for _ in range(2)))
    base = {"name": "g", "tasks": ["gsm8k"], "models": ["gpt-3.5-turbo"],
            "models_file": REGISTRY, "methods": ["vanilla"],
            "n_problems": 1319, "n_runs": 2, "price_snapshot": "feval_ttc_2025-06-02", "budget_usd": 1,
            "data_dir": str(shared_data)}
    params = load_params(write_set({**base, "import_from": {
        "format": "generic", "path": str(jl), "task": "gsm8k", "source": "my lab's runs", "licence": "CC-BY-4.0",
        "columns": {"question": "q", "model": "who", "response": "text", "correct": "ok", "prompt_tokens": "pt",
                    "completion_tokens": "ct"}}}))
    result = do_import(params)
    assert (result.imported, result.missing) == (6, 1319 * 2 - 6)
    records = RecordStore(params.records_path).load().sort_values(["problem_id", "run"])
    assert sorted(records["run"].tolist()) == [0, 0, 0, 1, 1, 1]  # runs numbered in order of appearance
    assert (records["source"].eq("my lab's runs; licence: CC-BY-4.0").all()
            and records["token_counts"].eq("the source's counts").all())
    assert records["prompt_tokens"].eq(50).all() and not records["source_correct"].any()

    ids = tmp_path / "mine.csv"
    ids.write_text("pid,model,reply\ngsm8k-test-0000,gpt-3.5-turbo,The answer is 18.\nnot-an-id,gpt-3.5-turbo,x\n")
    params = load_params(write_set({**base, "name": "g2", "import_from": {
        "format": "generic", "path": str(ids), "task": "gsm8k",
        "columns": {"problem_id": "pid", "model": "model", "response": "reply"}}}))
    with pytest.raises(CostOfPassError, match=r"mine.csv: row 3: problem id 'not-an-id' is not a problem of gsm8k"):
        do_import(params)


@pytest.mark.parametrize("content, says", [
    (b"", "no responses to import"),
    (b"pid,model,reply\n", "no responses to import"),
    (b"pid,model,reply\ngsm8k-test-0000,some-unregistered-llm,x\n", "rows of model(s) no registry entry imports: "
                                                                     "'some-unregistered-llm' (1 rows)"),
    (b"pid,model,reply,pt,ct\ngsm8k-test-0000,gpt-3.5-turbo,x,inf,3\n", "row 2: expected a token count"),
    (b"pid,model,reply\ngsm8k-test-0000,gpt-3.5-turbo,caf\xe9\n", "not UTF-8 text"),
    (b"pid,model,reply\ngsm8k-test-0000,gpt-3.5-turbo,\"" + b"x" * ((1 << 26) + 16) + b"\"\n",
     "field larger than field limit"),
])
def test_every_bad_generic_file_is_one_line_naming_it(write_set, shared_data, tmp_path, content, says):
    path = tmp_path / "bad.csv"
    path.write_bytes(content)
    columns = {"problem_id": "pid", "model": "model", "response": "reply"}
    if b",pt,ct" in content:
        columns.update(prompt_tokens="pt", completion_tokens="ct")
    params = load_params(write_set({
        "name": "bad", "tasks": ["gsm8k"], "models": ["gpt-3.5-turbo"], "models_file": REGISTRY, "methods": ["vanilla"],
        "n_problems": 4, "n_runs": 1, "price_snapshot": "feval_ttc_2025-06-02", "budget_usd": 1,
        "data_dir": str(shared_data),
        "import_from": {"format": "generic", "path": str(path), "task": "gsm8k", "columns": columns}}))
    with pytest.raises(CostOfPassError) as err:
        do_import(params)
    message = str(err.value)
    assert says in message and "bad.csv" in message and "\n" not in message


# ---- FEval-TTC: a zip in its format (shared/formats/feval_ttc.md), made up here ------------------------------
MODELS = {"gpt-3.5-turbo": "gpt-3.5-turbo", "mistralai/Mixtral-8x7B-Instruct-v0.1": "mixtral-8x7b"}
PRICES = {"gpt-3.5-turbo": (0.50, 1.50), "mistralai/Mixtral-8x7B-Instruct-v0.1": (0.08, 0.24)}  # their table


def feval_dataset(d: str, n: int):
    if d == "GSM8K":
        return [{"question": f"Ann has {i + 2} apples and buys {i + 3} more. How many apples has she?",
                 "answer": str(2 * i + 5)}
                for i in range(n)]
    if d == "Bigbench_Date":
        return [{"question": f"Which day follows day {i}?\nOptions:\n(A) day {i + 1}\n(B) day {i + 2}\n(C) day {i}",
                 "answer": "(A)"} for i in range(n)]
    return [{"question": f"Is sentence {i} plausible?", "answer": "yes" if i % 2 else "no"} for i in range(n)]


def cot(text, answer, tokens, price_out, finish="stop"):
    return {"raw_text": text, "answer": answer,
            "metadata": {"dollar_cost": tokens * price_out / 1e6, "token_cost": float(tokens), "finish_reason": finish}}


def feval_zip(path, n=6, k=3, fewer=None):
    """A FEval-TTC-format zip: three datasets, two models, k CoTs per question (one failed, one truncated); the model
    ``fewer`` has two (as o3-mini has 3 where the others have 40)."""
    with zipfile.ZipFile(path, "w") as zf:
        for d in ("GSM8K", "Bigbench_Date", "Bigbench_Sports"):
            data = feval_dataset(d, n)
            zf.writestr(f"api_responses/dataset_{d}.txt",
                        json.dumps({"data": data, "datatype": d, "system_prompt": None}))
            zf.writestr(f"api_responses/dataset_{d}_models.txt", json.dumps({"llms": list(MODELS)}))
            for m, (p_in, p_out) in PRICES.items():
                responses = []
                for i, item in enumerate(data):
                    good = item["answer"].strip("()")
                    cots = [cot(f"Let me think. So the answer is {good}.", good, 20 + i, p_out),
                            cot(f"Hmm. So the answer is {'Z' if d != 'GSM8K' else '0'}.", "0", 30, p_out, "max_tokens"),
                            cot("", None, 0, p_out, "run_failed")][:k if m != fewer else 2]
                    request = 100 + i
                    responses.append({"request": {"raw_text": "few-shot prompt", "dollar_cost": request * p_in / 1e6,
                                                  "token_cost": float(request)}, "cots": cots, "num_cots": len(cots)})
                zf.writestr(f"api_responses/LLM_{m}_dataset_{d}.txt",
                            json.dumps({"config": {"name": m, "temperature": 0.7, "max_tokens": 2048},
                                        "responses": responses}))


def test_split_evenly_sums_to_the_request():
    assert split_evenly(101, 3) == [34, 34, 33] and sum(split_evenly(7, 40)) == 7


def test_label_answers_and_agreement_by_hand():
    assert as_label("**Yes.**") == "yes" and is_correct("no", "No", "label") and not is_correct("no", None, "label")
    calls = pd.DataFrame({"task": ["t"] * 4, "model": ["m"] * 4, "correct": [True, True, False, False],
                          "source_correct": pd.array([True, False, True, None], dtype="boolean")})
    row = grader_agreement(calls).iloc[0]
    assert (row.responses, row.project_only, row.source_only) == (3, 1, 1)
    assert row.agree_pct == pytest.approx(100 / 3) and row.source_pct == pytest.approx(200 / 3)
    assert row.near_limit == 0  # no CPU seconds: not a code task
    cpu = calls.assign(grade_cpu_s=pd.array([19.0, 13.3, 13.4, None], dtype="Float64"))
    row = grader_agreement(cpu).iloc[0]
    assert (row.near_limit, row.near_limit_passed) == (2, 1)  # 13.3 s is below two thirds of 20 s


@pytest.mark.slow  # every stage of an imported set
def test_feval_zip_goes_through_import_grade_and_every_analysis(tmp_path):
    data = tmp_path / "data"
    (data / "feval_ttc").mkdir(parents=True)
    feval_zip(data / "feval_ttc/api_responses.zip", fewer="mistralai/Mixtral-8x7B-Instruct-v0.1")
    params = {"name": "fevalcheck", "tasks": ["feval_gsm8k", "feval_bigbench_date", "feval_bigbench_sports"],
              "models": list(MODELS.values()), "models_file": REGISTRY, "methods": ["vanilla", "majority_vote_k3"],
              "n_problems": 6, "n_runs": 3, "price_snapshot": "feval_ttc_2025-06-02", "budget_usd": 1,
              "extraction": "lenient", "data_dir": str(data), "output_dir": str(tmp_path / "results"),
              "import_from": {"format": "feval_ttc", "path": "feval_ttc/api_responses.zip"}}
    path = tmp_path / "fevalcheck.yaml"
    path.write_text(yaml.safe_dump(params))
    out = subprocess.run([sys.executable, "-m", "helpers.cli.runner", "run", str(path)], cwd=ROOT,
                         capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr[-3000:]
    results = tmp_path / "results"
    calls = pd.read_parquet(results / "graded/calls.parquet")
    assert len(calls) == 3 * 6 * (3 + 2) and calls["status"].eq("error").sum() == 3 * 6  # run_failed: failed calls
    ok = calls[calls["status"].eq("ok")]
    assert ok[ok["run"].eq(0)]["correct"].all() and not ok[ok["run"].eq(1)]["correct"].any()
    assert set(ok[ok["run"].eq(1)]["finish_reason"]) == {"length"}
    # prices: the request billed once per question, split over its CoTs; the sum is FEval-TTC's own dollar cost
    attempts = pd.read_parquet(results / "graded/attempts.parquet")
    theirs = sum((100 + i) * PRICES[m][0] / 1e6 + ((20 + i) + 30) * PRICES[m][1] / 1e6
                 for m in PRICES for i in range(6)) * 3
    assert attempts["model"].value_counts().to_dict() == {"gpt-3.5-turbo": 54, "mixtral-8x7b": 36}
    assert attempts["usd"].sum() == pytest.approx(theirs, rel=1e-12)
    agreement = pd.read_csv(results / "tables/grader_agreement.csv")
    assert len(agreement) == 6 and agreement["agree_pct"].eq(100).all()
    for name in ("table1_frontier_cop", "table5_accuracy", "table6_cost", "figure4_relative_gain_per_release",
                 "figure5_model_counterfactual", "table2_technique_gain", "findings"):
        assert (results / "tables" / f"{name}.csv").is_file(), name
    html = (results / "report/index.html").read_text()
    assert "IMPORTED" in html and "Imported records" in html and "FEval-TTC" in html


def test_malformed_feval_zip_names_file_and_row(tmp_path, write_set):
    data = tmp_path / "data"
    (data / "feval_ttc").mkdir(parents=True)
    feval_zip(data / "feval_ttc/api_responses.zip")
    with zipfile.ZipFile(data / "feval_ttc/api_responses.zip", "a") as zf:  # a later copy of one file wins on read
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            bad = json.loads(zf.read("api_responses/LLM_gpt-3.5-turbo_dataset_GSM8K.txt"))
            bad["responses"][2]["request"] = {"raw_text": "x"}
            zf.writestr("api_responses/LLM_gpt-3.5-turbo_dataset_GSM8K.txt", json.dumps(bad))
    params = load_params(write_set({
        "name": "fv", "tasks": ["feval_gsm8k"], "models": ["gpt-3.5-turbo"], "models_file": REGISTRY,
        "n_problems": 6, "n_runs": 3, "price_snapshot": "feval_ttc_2025-06-02", "budget_usd": 1, "data_dir": str(data),
        "import_from": {"format": "feval_ttc", "path": "feval_ttc/api_responses.zip"}}))
    with pytest.raises(CostOfPassError, match=r"api_responses.zip: row LLM_gpt-3.5-turbo_dataset_GSM8K.txt response 2: "
                                              r"malformed \(KeyError: 'token_cost'\)"):
        do_import(params)


def test_feval_set_without_its_zip_says_where_to_get_it(write_set, tmp_path):
    params = load_params(write_set({
        "name": "fv", "tasks": ["feval_gsm8k"], "models": ["gpt-3.5-turbo"], "models_file": REGISTRY,
        "n_problems": 6, "n_runs": 3, "price_snapshot": "feval_ttc_2025-06-02", "budget_usd": 1,
        "data_dir": str(tmp_path), "import_from": {"format": "feval_ttc", "path": "feval_ttc/api_responses.zip"}}))
    with pytest.raises(CostOfPassError, match="FEval-TTC: no zip at .* download api_responses.zip by hand"):
        prepare(params)


def test_a_missing_source_file_fails_in_preflight(write_set, shared_data):
    from helpers.collect.preflight import preflight

    params = routellm_set(write_set, shared_data, path="routellm/absent.csv")
    with pytest.raises(CostOfPassError, match=r"field 'import_from.path': no file at .*routellm/absent.csv"):
        preflight(params)


def test_a_corrupt_member_of_the_feval_zip_is_one_line(tmp_path):
    import struct

    from helpers.core.tasks.feval_ttc import read_member

    path = tmp_path / "api_responses.zip"
    feval_zip(path)
    with zipfile.ZipFile(path) as zf:
        info = zf.getinfo("api_responses/dataset_GSM8K.txt")
    data = bytearray(path.read_bytes())
    name_len, extra_len = struct.unpack("<HH", data[info.header_offset + 26:info.header_offset + 30])
    data[info.header_offset + 30 + name_len + extra_len + 10] ^= 0xFF  # a byte of the member's data: its CRC fails
    path.write_bytes(bytes(data))
    with pytest.raises(CostOfPassError) as err:
        read_member(path, "dataset_GSM8K.txt")
    assert "dataset_GSM8K.txt: a corrupt member of the zip" in str(err.value) and "\n" not in str(err.value)


def test_an_unwritable_output_directory_is_one_line_whatever_the_stage(capsys):
    from helpers.core.errors import run_command

    def stage():
        raise PermissionError(13, "Permission denied", "results/x/stages.json")

    assert run_command(stage) == 2
    err = capsys.readouterr().err.strip()
    assert err == ("error: results/x/stages.json: Permission denied (is the output directory read-only, full or "
                   "gone?)")


def test_a_gzip_bomb_is_refused_with_bounded_memory(tmp_path):
    """Issue 34 item 6: a 1 GiB gzip of one endless line (1 MB on disk) is one line naming the file, read with
    memory bounded by the longest line a source may have, not by the bomb."""
    import gzip
    import resource

    from helpers.core.tasks.humaneval import MAX_LINE, SourceLineError, lines

    bomb = tmp_path / "probs.jsonl.gz"
    with gzip.open(bomb, "wb", compresslevel=9) as fh:
        block = b"\0" * (1 << 24)
        for _ in range(64):
            fh.write(block)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(SourceLineError, match=r"probs\.jsonl\.gz: line 1: a line longer than 16 MiB"):
        list(lines(bomb))
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert bomb.stat().st_size < 2 << 20 and grown_mb < 8 * MAX_LINE / (1 << 20)


def test_the_agreement_table_of_a_set_without_source_labels_is_empty(monkeypatch):
    """An import with no correctness column of its own: no row to agree on, an empty table (was a KeyError)."""
    from types import SimpleNamespace

    from helpers.grade import stage
    from helpers.publish import tables

    calls = pd.DataFrame({"task": ["gsm8k"], "model": ["m"], "correct": [True]})
    monkeypatch.setattr(stage, "read_graded", lambda ctx, name: calls)
    numbers, shown = tables.grader_agreement(SimpleNamespace(ctx=None, task_labels={}, set_labels={}))
    assert numbers.empty and shown.empty and "dataset" in shown.columns
