"""Display names (issue 27 item 4): one mapping from identifiers to words, applied to every Markdown table."""

import pandas as pd

from helpers.publish import names

LABELS = {"two_digit_addition": "Two Digit Addition", "gsm8k": "GSM8K"}


def test_methods_columns_datasets_and_booleans_read_as_words():
    assert names.method("majority_vote_k3") == "majority vote of 3" and names.method("self_refine") == "self-refine"
    assert names.method("best_of_k4") == "best-of-4 (oracle)" and names.method("retry_k5") == "retry (up to 5 calls)"
    assert names.method("ldb_seed_gpt4") == "LDB on a GPT-4 attempt"  # the seeding model as models are named
    assert names.method("escalation_llama3") == "escalation from Llama 3"
    df = pd.DataFrame({"task": ["two_digit_addition"], "technique": ["majority_vote_k3"], "models_start": [1],
                       "ours_sign": ["+"], "same sign": [True], "strategy": ["GPT-4o+self_refine"]})
    shown = names.frame(df, LABELS)
    assert list(shown.columns) == ["dataset", "technique", "models at start", "sign, this run", "same sign", "strategy"]
    assert shown.iloc[0].tolist() == ["Two Digit Addition", "majority vote of 3", 1, "+",
                                      "yes", "GPT-4o + self-refine"]
    assert df["task"].tolist() == ["two_digit_addition"]  # a copy: the CSV keeps its ids
    assert names.value("technique gain:self_refine (%)", LABELS) == "technique gain: self-refine (%)"
    assert names.value("frontier:all models (USD)", LABELS) == "frontier:all models (USD)"
    assert names.value("technique gain: majority_vote_k3 (%)", LABELS) == "technique gain: majority vote of 3 (%)"


def test_the_internal_names_list_holds_what_a_page_must_not_show():
    internal = names.internal(LABELS)
    assert "two_digit_addition" in internal and "models_start" in internal
    assert {"gsm8k", "math500", "aime24", "bbq"} <= set(internal)  # raw ids without underscores too (issue 38)
    assert names.column("math500", {}) == "MATH-500" and names.value("aime24", {}) == "AIME 2024"  # any registered one


def test_methods_that_share_a_marker_are_named_once():
    from helpers.publish import names

    assert names.merged(["majority vote of 3", "majority vote of 4"]) == "majority vote of 3, 4"
    assert names.merged(["retry (5 tries)", "retry (8 tries)"]) == "retry (5, 8 tries)"
    assert names.merged(["single attempt"]) == "single attempt"
    assert names.merged(["self-refine", "single attempt"]) == "self-refine / single attempt"


def test_what_each_cell_of_a_table_by_method_holds():
    """Review 8: SWE-bench's Table S5 read "each cell gives single attempt, in that order" for its one method."""
    assert names.methods_in_order(["vanilla"]) == "the single attempt"
    assert names.methods_in_order(["vanilla", "self_refine"]) == "single attempt / self-refine, in that order"


def test_a_method_names_the_model_its_records_say_it_starts_from():
    """Review 8: "ldb_seed_gpt4" of GPT-3.5 Turbo (0125) starts from GPT-4 Turbo's attempt, not GPT-4's."""
    assert names.method("ldb_seed_gpt4") == "LDB on a GPT-4 attempt"
    assert names.method("ldb_seed_gpt4", "GPT-4 Turbo (2024-04-09)") == "LDB on a GPT-4 Turbo (2024-04-09) attempt"
    assert names.method("retry_k5", "GPT-4") == "retry (up to 5 calls)"  # a count is never replaced by a model
