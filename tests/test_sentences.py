"""One golden sentence per template of the report's words that no other test pins (issue 62 item 1): each template is
called on a small hand-made input and its sentence compared whole, so a change of wording is a change of this file."""

import re
from types import SimpleNamespace

import numpy as np
import pandas as pd

from conftest import ROOT
from helpers.core.notebooks import NO_TRUTH, found
from helpers.publish import findings, policy_views, sentences, story


def test_a_policy_cost_in_words():
    assert sentences.policy_said(0.5, 0.4, 0.7, 62.0) == "0.5 [0.4, 0.7]; 62% of it the assumed expert fee"
    assert sentences.policy_said(0.5, 0.4, 0.7, 62.0, unidentified=3,
                                 k=4) == "not identified (3 problems with fewer than 4 runs)"
    assert sentences.policy_said(np.nan, np.nan, np.nan, np.nan) == "not identified (fewer than 2 problems)"


def test_the_papers_value_and_its_fee_in_words():
    assert sentences.fee_said(2.0, 0.5, 75.0) == "2: mostly the assumed expert fee (75%; the records decide 0.5 USD)"
    assert sentences.fee_said(2.0, 1.5, 25.0) == "2 (expert fee 25%)"
    assert findings.expert_cell(2.0, 99.96, 1) == ("2: mostly the assumed expert fee (>99.9% of it, on the 1 "
                                                   "problem no model passed in any run of its single "
                                                   "attempt); the records decide 0.0008 USD")
    assert findings.expert_cell(2.0, 80.0,
                                None).startswith("2: mostly the assumed expert fee (80% of it, on problems no model")


def test_where_the_population_value_lies():
    said = sentences.tail_sentence(0.024, np.array([0.21, 0.47]), ["gsm8k", "aime24"],
                                   {"gsm8k": "GSM8K", "aime24": "AIME"})
    assert said.startswith("In this set's population truth the hardest 2.4% of problems (difficulty z > 2, where the "
                           "frontier is costliest) carry this share of the frontier of "
                           "all models: GSM8K 21%; AIME 47%.")


def test_the_papers_table_1_and_families_in_words():
    table1 = pd.DataFrame({"model": ["A", "B"], "family": ["f", "g"], "t": [0.4, 0.9], "u": [3.0, 2.0]})
    said = story.table1_found(table1, ["t", "u"], {"t": "T", "u": "U"}, {"t": 1.0, "u": 2.0}, {("u", "B"): 80.0})
    assert said == ("The lowest value of the paper's Table 1, per dataset (a point estimate, not a finding beyond "
                    f"doubt: {story.BEYOND_DOUBT}; the paper's cost-of-pass divides the mean cost of a try by the pass "
                    "rate, the headline counts the tries until the first pass, then the expert, so the two differ "
                    "either way): T: A at 0.4 USD; U: B at 2 USD "
                    "(no model beats the expert alone), 80% of it the "
                    "assumed expert fee on problems it never passed or passed too rarely to beat the fee (the fee "
                    "sets the level; which model is lowest rests on the problems each never passed: the expert-fee "
                    "curve shows from which fee on).")
    values = pd.DataFrame({"small": [12.0, -1.0], "big": [30.0, np.nan]}, index=["T", "U"])
    assert story.families_found(values) == ("The family the frontier could least do without, per dataset, by the "
                                            "paper's point estimates (not a finding beyond doubt: "
                                            f"{story.BEYOND_DOUBT}): T: big (30%); U: none lowers the frontier.")
    # review H11: the headline's number beside the paper's, so the two are read together
    numbers = pd.DataFrame({"task": ["t", "t", "t"], "what": ["family", "family", "model"],
                            "item": ["small", "big", "m"],
                            "value": [0.1, 0.62, 0.9], "low": [-0.2, 0.216, 0.5], "high": [0.4, 1.0, 1.0],
                            "shown": [False, True, False]})
    headline = story.family_headline(numbers, {"t": "T"})
    assert headline == {"T": {
        "big": (62.0, "under the headline's cost (cross-fitted), big: 62 [21.6, 100 (max)]%, shown with every family "
                      "tested together"),
        "small": (10.0, "under the headline's cost (cross-fitted), small: 10 [-20, 40]%, not shown with every family "
                        "tested together")}}
    assert ("T: big (30%); under the headline's cost (cross-fitted), big: 62 [21.6, 100 (max)]%, shown with every "
            "family tested together; U: none lowers the frontier." in story.families_found(values, headline))
    # review 8 (local): the same family under both, and the headline's largest where it is another one
    other = story.families_found(values.assign(small=[40.0, -1.0]), headline)
    assert ("T: small (40%); under the headline's cost (cross-fitted), small: 10 [-20, 40]%, not shown with every "
            "family tested together; the highest there by its point estimate under the headline's cost "
            "(cross-fitted), big: 62 [21.6, 100 (max)]%, shown with every family tested together;") in other, other
    # review 9, M7: a family never chosen is said in words, and is not "the largest" where the others read below 0
    never = pd.DataFrame({"task": ["t", "t", "t"], "what": ["family"] * 3, "item": ["q", "s", "g"],
                          "value": [0.0, -0.0000085, -0.00187], "low": [0.0, -0.0000514, -0.00388],
                          "high": [0.0, 0.0000214, -0.00154], "shown": [False] * 3})
    local = story.families_found(pd.DataFrame({"g": [4.99], "q": [0.0], "s": [0.0]}, index=["T"]),
                                 story.family_headline(never, {"t": "T"}))
    assert local == ("The family the frontier could least do without, per dataset, by the paper's point estimates (not "
                     f"a finding beyond doubt: {story.BEYOND_DOUBT}): T: g (4.99%); under the headline's cost "
                     "(cross-fitted), g: -0.187 [-0.388, -0.154]%, its own interval lies wholly below 0: under the "
                     "headline's cost the frontier is dearer with it; under the headline's cost no family's gain "
                     "reads above 0."), local  # review 10, M5: not a weak "not shown"
    assert "q: 0 (not chosen on any problem" in story.family_headline(never, {"t": "T"})["T"]["q"][1]


def test_one_problem_that_carries_a_number():
    from helpers.publish.formats import one_problem

    assert one_problem(97.2, "p7") == "; 97.2% of it from one problem, p7" and one_problem(50.0, "p7") == ""
    assert one_problem(250.0,
                       "p7") == "; more than all of it from one problem, p7 (the other problems together lower it)"
    assert one_problem(np.nan, "") == ""


def test_small_forms():
    assert findings.tries_said(1) == "one try" and findings.tries_said(4) == "up to 4 tries"
    assert [findings.signed_pct(x) for x in (12.3, -4.0, 0.0, np.nan, 0.004)] == ["+12.3", "-4", "0", "–", "+0.004"]
    assert story.numbered(["One.", "Two."]) == "1. One.\n2. Two."
    assert (found(NO_TRUTH) == "**What it found.** Nothing to check: this set's models are not "
            "simulated, so no truth is known.")


def test_a_model_alone_below_the_frontier_in_words():
    """The review of the SWE-bench report: the frontier's rule chose Gemini 3 Pro Preview while Claude 4.5 Opus reads
    lower; the rule is named for what it reads (with one run per problem, each model's cost on the other problems)."""
    top = pd.Series({"k": 1, "chosen": "Gemini (100%)"})
    said = findings._alone_below(pd.Series({"model": "Opus", "cheapest": False}), top)
    assert said == ("Opus alone reads cheaper than the frontier, with the same one try: the frontier's rule, which "
                    "chooses each problem's model from each model's cost on the dataset's other problems, chose Gemini "
                    "(100%); the records name no model the cheapest beyond doubt (above), and the gap between the two "
                    "is not tested on its own: these records cannot tell whether it is the choice's real cost or the "
                    "estimate's noise.")
    named = findings._alone_below(pd.Series({"model": "Opus", "cheapest": True}), pd.Series({"k": 4, "chosen": ""}))
    assert named.endswith("Opus is cheaper than every other model beyond doubt, so the rule's choice costs more than "
                          "choosing Opus would have.")


def test_a_release_frontier_above_a_model_alone_in_words():
    """Review R1 (SWE-bench): from one release on, the frontier reads above a model released by then alone; the
    releases reading above the same model are said once, with the choices that make it and whether it is tested."""
    an = SimpleNamespace(labels={"s": "Sonnet", "o": "Opus", "g": "GPT"}, task_labels={"t": "T"})
    alone = {("t", "s"): 20.3, ("t", "o"): 20.4, ("t", "g"): 20.9}
    flagged = [policy_views.Above("2025-05-22", 22.87, "s", {"s": 480, "o": 20}, 20, 20, 1, 500),
               policy_views.Above("2025-08-07", 23.62, "s", {"s": 479, "o": 20, "g": 1}, 21, 21, 1, 500)]
    assert policy_views._above_said(an, "t", flagged, alone) == [
        "On T, from the release of 2025-05-22 to 2025-08-07 the headline's frontier (up to k tries, then the expert) "
        "reads 22.9–23.6 USD per problem, above Sonnet alone (20.3) with the same one try. The rule, which chooses "
        "each problem's model on the dataset's other problems, chose another model than Sonnet on 20–21 of 500 "
        "problems (alone: Opus 20.4, GPT 20.9), and on every one of them the chosen model's own runs there cost more "
        "than Sonnet's. These records cannot tell whether the gap is the choice's real cost or the estimate's noise: "
        "where models are near-tied, a model chosen for each problem on other runs than those that value it can "
        "truly cost more than one model alone. The gap is not tested."]  # review 9, H2: no "reads high"
    some = policy_views._above_said(an, "t", [policy_views.Above("2025-05-22", 22.87, "s", {"s": 480, "o": 20}, 20, 12,
                                                                 4, 500)], alone)
    assert "with the same 4 tries" in some[0]
    assert "on 20 of 500 problems (alone: Opus 20.4), and on 12 of them" in some[0]
    assert "tips the choice" not in some[0] and "reads high" not in some[0]
    # routed on half of each problem's runs (``CrossFitted.halved``): its choice is the one most splits made
    halved = policy_views._above_said(an, "t", [policy_views.Above("2025-05-22", 22.87, "s", {"s": 480, "o": 20}, 20,
                                                                   12, 4, 500, halved=True)], alone)
    assert ("which chooses each problem's model by a difficulty the models share (curves fitted on the dataset's "
            "other problems, the problem placed on them by half of its runs, valued on the other half, every split of "
            "its runs averaged), chose another model than Sonnet on most splits of 20 of 500 problems (alone: Opus "
            "20.4), and on 12 of them") in halved[0]
    # routed, and Sonnet on most splits of every problem (`sim` AIME): not "another model on 0 problems (alone: )"
    none = policy_views._above_said(an, "t", [policy_views.Above("2025-05-22", 22.87, "s", {"s": 500}, 0, 0, 4, 500,
                                                                 halved=True)], alone)
    assert ("chose Sonnet on most splits of every one of the 500 problems: the gap is what the splits that chose "
            "another model cost (were every split's choice Sonnet, the frontier would read Sonnet's own value). "
            ) in none[0] and "(alone: )" not in none[0]
    # a simulated set: the truth of both, and which is truly cheaper (review 9, H2: `sim` AIME, 12.55 against 11.05)
    truth = pd.DataFrame({"statistic": ["release frontier:3", "table1:s"], "task": ["t", "t"], "kind":
                          ["release frontier", "table1"], "value": [60.0, 20.3], "truth": [62.0, 20.0]})
    sim = policy_views._above_said(an, "t", [policy_views.Above("2024-07-23", 22.87, "s", {"s": 480, "o": 20}, 20, 20,
                                                                8, 500, "x", "3")], alone, truth)
    assert sim[0].endswith("By the simulator's truth on these problems, that frontier costs 23.6 USD per problem "
                           "and Sonnet alone 20: the rule's choices truly cost 3.63 USD (18.2%) more than Sonnet "
                           "alone, a real cost of the rule, 141% of the 2.57 USD read here: most of the gap, not the "
                           "luck of these records.") and "cannot tell" not in sim[0]
    # review 10, M1 (`sim` GSM8K): a true gap of 6% of the gap read is not "not the luck of these records"
    small = policy_views._above_said(an, "t", [policy_views.Above("2024-07-23", 22.87, "s", {"s": 480, "o": 20}, 20,
                                                                  20, 8, 500, "x", "3")], alone,
                                     truth.assign(truth=[53.0, 20.0]))
    assert small[0].endswith("the rule's choices truly cost 0.202 USD (1.01%) more than Sonnet alone, a real cost of "
                             "the rule, but only 7.85% of the 2.57 USD read here; the rest is these records' noise."), (
        small[0])
    assert "not the luck" not in small[0]
    noise = policy_views._above_said(an, "t", [policy_views.Above("2024-07-23", 22.87, "s", {"s": 480, "o": 20}, 20,
                                                                  20, 8, 500, "x", "3")], alone,
                                     truth.assign(truth=[50.0, 20.0]))
    assert noise[0].endswith("Sonnet alone 20: Sonnet alone is truly no cheaper: the gap is the estimate's.")


def test_a_frontier_that_chose_one_model_throughout_says_why_its_interval_is_wider():
    """Review R7 (SWE-bench): the frontier chose Claude 4.5 Opus on every problem, so both print 15.8 with two
    intervals; the first screen says why the frontier's is wider, or that the two are one where the records tell the
    model from every other (its contenders: one). Nothing where the choice varies."""
    alone = pd.DataFrame({"model": ["Opus", "GPT"], "policy_usd": [15.8, 20.3], "policy_low": [12.2, 16.0],
                          "policy_high": [21.7, 25.7]})
    assert findings._one_model_chosen(alone, pd.Series({"chosen": "Opus (100%)"})) == (
        "The records chose Opus on every problem, so the frontier's cost is that model's own (Opus alone: $15.8, 95% "
        "interval $12.2 to $21.7); the frontier's interval is the wider one: it is the union of the per-problem "
        "interval and Opus's own interval at a level that holds at once for every model the records cannot tell from "
        "the cheapest, because the records also made the choice.")  # review 10, L8
    same = pd.Series({"chosen": "Opus (100%)", "policy_low": 12.2, "policy_high": 21.7})
    assert findings._one_model_chosen(alone, same).endswith(
        "$12.2 to $21.7), and so is its interval: the records tell Opus from every other model, so no luck of theirs "
        "made the choice.")
    routed = findings._one_model_chosen(alone, pd.Series({"chosen": "Opus (100%)", "halved": True}))
    assert routed.endswith("$12.2 to $21.7); the frontier's interval is its own: it reads the problems whose runs all "
                           "failed as failing at the rate the pooled runs allow rather than always, because a choice "
                           "routed problem by problem gathers the problems a model nearly always fails onto it.")
    assert findings._one_model_chosen(alone, pd.Series({"chosen": "Opus (96%)"})) == ""
    assert findings._one_model_chosen(alone, pd.Series({"chosen": ""})) == ""


def test_a_strategy_that_pays_but_leaves_its_model_above_the_frontier_says_so():
    """Review 3, M5 (HumanEval): warming pays over GPT-3.5 Turbo (0613)'s own attempt (3.96 alone, 46.1% gain), yet
    the model with it, 2.14, still costs more than the frontier's 1.24."""
    levels = {"m": 3.96, "": 1.24}
    assert findings._with_it("m", 0.461, levels) == (
        "; with it, 2.13 USD per problem, still above the frontier's 1.24: it does not lower the frontier")
    assert findings._with_it("m", 0.8, levels) == (  # review 4, N4: the USD of every strategy, the frontier beside it
        "; with it, 0.792 USD per problem (the frontier of the models' own attempts reads 1.24; the two are not "
        "compared here)")
    assert findings._with_it("x", 0.5, levels) == ""
    assert findings._with_it("t", 0.5, {"t": 1.24, "": 1.24}) == (  # review 5, N11: the frontier's own model
        "; with it, 0.62 USD per problem instead of the frontier's 1.24: its model is the one the frontier chose on "
        "every problem, so this gain is over the frontier itself")


def test_the_fee_curve_says_a_mean_where_problems_have_fees_of_their_own():
    switches = pd.DataFrame({"task": ["t", "t"], "model": ["A", "B"], "from_usd": [0.0, 2.0], "to_usd": [2.0, 50.0]})
    flat = sentences.fee_reading(switches, {"t": 16.7}, ["t"], {"t": "T"})
    assert "on T (the set assumes 16.7 USD), A for fees up to 2 USD; B for fees above 2 USD." in flat
    mean = sentences.fee_reading(switches, {"t": 38.8}, ["t"], {"t": "T"}, frozenset({"t"}))
    assert ("(the set assumes a mean fee of 38.8 USD over its problems' own fees; the curve scales them together, so "
            "each fee here is a mean)") in mean
    rows = [{"label": "T", "models": 2, "first": "a", "last": "b", "fee_usd": 16.67, "fee_varies": False}]
    assert "(16.7 USD per problem) is a project estimate" in " ".join(story._estimated_fee(rows))
    assert "(16.7 USD per problem on average)" in " ".join(story._estimated_fee([{**rows[0], "fee_varies": True}]))


def test_a_gain_the_fee_decides_says_so():
    assert findings.fee_of_change(pd.Series({"expert_share_pct": 99.5})) == "; 99.5% of it the assumed expert fee"
    assert findings.fee_of_change(pd.Series({"expert_share_pct": 40.0})) == ""
    assert findings.fee_of_change(pd.Series({"expert_share_pct": 130.0})) == (
        "; more than all of it the assumed expert fee (the attempts cost more with it)")
    assert findings.fee_of_change(pd.Series({"expert_share_pct": 100.8, "records_usd": -0.0154,
                                             "expert_usd": 2.03})) == (
        "; it saves 2.03 USD per problem of the assumed expert fee, and its attempts cost 0.0154 USD per problem "
        "more")


def test_what_a_real_set_shows_leads_with_the_headline():
    """The review: the first screen said the frontier "fell from 37.3 to 9.55" by the paper's estimator while the
    headline's own frontier reads 37.4 to 17.7; it leads with the headline now, the paper's beside it."""
    row = dict(label="SWE", models=24, first="2024-09-19", last="2025-12-01", start_usd=37.3, end_usd=9.55,
               expert_pct=99.2, unsolved=64, unsolved_pct=12.8, solved=436, cheapest=[], fee_usd=None,
               headline={"start": [37.4, 32.3, 37.9], "end": [17.7, 11.7, 24.4], "k": 1})
    assert story.set_found([row]) == (
        "Across 24 models released between 2024-09-19 and 2025-12-01, the frontier cost of a correct answer on "
        "SWE went from 37.4 [32.3, 37.9] to 17.7 [11.7, 24.4] USD per problem with one try of the model the records "
        "choose for each problem, then the expert (95% intervals); the paper's estimator (each problem's cheapest "
        "model, read on the same runs) reads 37.3 to 9.55 USD per problem; 99.2% of its last value is the expert's fee "
        "on the 64 problems no model passed in any run of its single attempt (12.8%).")
    row["headline"] = {**row["headline"], "gains": 3, "gains_shown": 0}  # review H6: a fall no release establishes
    assert ("then the expert (95% intervals; no single release after the first has a gain shown, all tested "
            "together, and the change from the first date to the last is not tested as a whole); the paper's "
            "estimator") in story.set_found([row])
    row["headline"] = {**row["headline"], "gains_shown": 1}
    assert ("(95% intervals; 1 of the 3 releases after the first has a gain shown, all tested together); the "
            "paper's") in story.set_found([row])
    row["headline"] = {**row["headline"], "gains_named": ["2025-04-16 o3, o4-mini"]}  # review S9: which one
    assert ("(95% intervals; 1 of the 3 releases after the first has a gain shown, all tested together: "
            "2025-04-16 o3, o4-mini); the paper's") in story.set_found([row])
    assert ("2025-04-16 o3, o4-mini, each over the imported models released before it, not over every model of its "
            "time (models the source gives no per-problem records of, and models kept to Table 1, named in its "
            "caveats, are in no frontier: where few came before, a release's gain says more about which models the "
            "source ran than about that release)); the paper's") in story.set_found(
        [{**row, "imported": True}])  # review 4, N1: GPT-4.1 (two days before o3) has totals only
    # review 9, M9: a release whose gain lies wholly below 0 is said; two values that print alike get more figures
    row["headline"] = {**row["headline"], "gains_shown": 0, "gains_named": [], "start": [0.166818, 0.102, 0.167],
                       "end": [0.167151, 0.0851, 0.167], "losses": [("2025-08-14 Gemma", -0.199, -0.413, -0.165)]}
    lost = story.set_found([row])
    assert "went from 0.1668 [0.102, 0.167] to 0.1672 [0.0851, 0.167] USD per problem" in lost, lost  # ends as given
    assert ("no single release after the first has a gain shown, all tested together; the release of 2025-08-14 Gemma "
            "(-0.199 [-0.413, -0.165]%) made it dearer: its gain's own interval lies wholly below 0, and the change "
            "from the first date") in lost


def test_table_1_in_words_says_what_one_run_allows():
    table1 = pd.DataFrame({"model": ["A"], "family": ["f"], "t": [9.0]})
    def said(one_run: bool) -> str:
        return story.table1_found(table1, ["t"], {"t": "T"}, {"t": 10.0}, {("t", "A"): 90.0}, one_run)

    assert "on problems it never passed or passed too rarely to beat the fee (the fee sets" in said(False)
    assert ("on problems it never passed (the fee sets the level; which model is lowest rests on the problems each "
            "never passed: the expert-fee curve shows from which fee on)") in said(True)  # one run: no rarely


def test_a_halving_time_not_shown_shows_no_spread_of_it():
    """The review: the table hid an unreliable halving time but printed its delta method's ± and refit interval."""
    from helpers.publish.tables import halving_shown

    fits = pd.DataFrame([{"task": "t", "estimator": "plug-in", "halving_months": 6.4, "halving_low": 0.0,
                          "halving_high": np.inf, "halving_se_months": 2.93, "refit_low": 5.13, "refit_high": 7.38,
                          "factor_per_year": 3.0, "factor_low": 1.0, "factor_high": 9.0, "release_dates": 18,
                          "reliable": False, "b_per_month": 0.1}])
    row = halving_shown(fits, {"t": "T"}).iloc[0]
    assert (row["halving (months)"], row["delta method ±"],
            row["bootstrap refit"]) == ("not shown (unreliable)", "–", "–")
    shown = halving_shown(fits.assign(reliable=True), {"t": "T"}).iloc[0]
    assert (shown["delta method ±"], shown["bootstrap refit"]) == ("2.93", "[5.13, 7.38]")


def test_the_human_expert_in_words_states_the_fee_it_uses():
    """The About box said "high bound of the expert's cost (printed rule)": now each dataset's fee, its range where it
    varies by problem, and the time and rate it stands for (issue 62, review of 2026-11-29: H9, S4)."""
    from types import SimpleNamespace

    from helpers.publish.about import expert_said

    index = pd.MultiIndex.from_tuples([("gsm8k", "a"), ("swebench_verified", "x"), ("swebench_verified", "y")],
                                      names=["task", "problem_id"])
    an = SimpleNamespace(tasks=["gsm8k", "swebench_verified"],
                         task_labels={"gsm8k": "GSM8K", "swebench_verified": "SWE"},
                         expert=pd.Series([3.25, 7.8225, 375.5], index=index),
                         ctx=SimpleNamespace(params=SimpleNamespace(expert_bound="high", expert_usd={},
                                                                    fidelity=SimpleNamespace(expert_cost="printed"))))
    said = expert_said(an)
    # review 9, L6: where the paper's printed fee is not what its minutes and rate give, both are said
    assert said.startswith("GSM8K: 3.25 USD per problem (the paper's Table 3 as printed; its minutes and rate below "
                           "give 3.39 USD) — ")
    assert "SWE: 7.82–376 USD per problem, mean 192 — minutes by the problem's difficulty (<15 min fix: 7.5, " in said
    assert said.endswith("the expert-fee curve shows where each finding would change.")


def test_a_seeded_strategys_gain_says_whose_answer_it_includes():
    """Review H1: "LDB on a GPT-4 attempt by GPT-3.5 Turbo (0613): 68.2% over GPT-3.5 Turbo (0613)'s own single attempt"
    read as GPT-3.5's debugging gain, but every attempt starts from GPT-4's billed answer."""
    from helpers.publish.findings import _strategies

    out = _strategies(pd.DataFrame({"name": ["gpt-3.5-turbo-0613+ldb_seed_gpt4", "gpt-4-0613+retry_k5"]}),
                      {"gpt-3.5-turbo-0613": "GPT-3.5 Turbo (0613)", "gpt-4-0613": "GPT-4 (0613)"}, {},
                      {"gpt-3.5-turbo-0613+ldb_seed_gpt4": "gpt-4-0613"})  # the seed the set's run names
    assert list(out["baseline"]) == [
        "over GPT-3.5 Turbo (0613)'s own single attempt (each attempt starts from GPT-4 (0613)'s, billed: the gain "
        "includes that answer; over GPT-4 (0613)'s own attempt it is not tested here)",
        "over GPT-4 (0613)'s own single attempt"]
    over = pd.DataFrame({"name": ["gpt-3.5-turbo-0613+ldb_seed_gpt4"], "value": [0.188], "low": [-0.3], "high": [0.85]})
    out = _strategies(pd.DataFrame({"name": ["gpt-3.5-turbo-0613+ldb_seed_gpt4"]}), {"gpt-4-0613": "GPT-4 (0613)"}, {},
                      {"gpt-3.5-turbo-0613+ldb_seed_gpt4": "gpt-4-0613"}, over)  # review H1: the gain over the seed's
    assert out["baseline"].iloc[0].endswith("(each attempt starts from GPT-4 (0613)'s, billed: the gain includes that "
                                            "answer; over GPT-4 (0613)'s own single attempt it is 18.8 [-30, 85]%, its "
                                            "interval reaching 0)")
    unnamed = _strategies(pd.DataFrame({"name": ["m+ldb_seed_gpt4"]}), {}, {})  # no run names the seed
    assert "(each attempt starts from a gpt4 model's, billed:" in unnamed["baseline"].iloc[0]


def test_the_new_models_or_prices_sentence_names_the_papers_estimator():
    """Review H5/S3: "the whole change of the frontier (HumanEval −66.6%) came from new models" is the paper's
    per-problem minimum, which more models and runs lower by themselves; the headline's own change is another number."""
    split = pd.DataFrame({"task": ["t"], "change_pct": [-66.6], "prices_pct": [0.0], "start": ["2023-06-13"],
                          "end": ["2024-04-29"]})
    said = sentences.price_change_sentence(split, {"t": "T"})
    assert said == ("No price of the models of this set changed between 2023-06-13 and 2024-04-29 in its price "
                    "ledger (a price cut the ledger does not hold, such as one after its last snapshot, is not "
                    "seen): the whole change of the paper's frontier over that time (T -66.6%; each problem's "
                    "cheapest model on its recorded runs, which reads lower the more models and runs there are; the "
                    "headline figure shows the headline's frontier) came from the models added by then (a newer "
                    "snapshot at a lower price counts as a new model here), as the table below itemises.")
    # review 11, M4: `local`'s one price date (2026-11-22) came after every release: nothing to compare, not "no change"
    dated = sentences.price_change_sentence(split.assign(start="2024-11-01", end="2026-11-22"), {"t": "T"},
                                            price_dates=["2026-11-22"])
    assert dated == ("The paper's frontier changed between 2024-11-01 and 2026-11-22 (T -66.6%; each problem's "
                     "cheapest model on its recorded runs, which reads lower the more models and runs there are; the "
                     "headline figure shows the headline's frontier), but how much of that came from new models and "
                     "how much from prices is not identifiable here: the price ledger holds one price date for the "
                     "set's models (2026-11-22), none at or before 2024-11-01, so no earlier price exists to reprice "
                     "to: every model is priced as of its first date, and no price can change.")
    assert sentences.price_change_sentence(split, {"t": "T"}, price_dates=["2023-06-13", "2024-05-01"]) == said


def test_no_cheapest_model_names_those_it_is_not_shown_cheaper_than():
    """Review 3, M8: "its difference with another model … reaches 0" named no model; now those whose paired difference
    with the lowest reaches 0 (``differences.against_lowest``), lowest first."""
    rows = pd.DataFrame({"model": ["A", "B", "C", "D", "E", "F"], "policy_usd": [1.0, 1.1, 1.3, 1.2, 1.4, 1.5],
                         "ties_lowest": [False, True, False, False, False, False]})
    assert findings.tied_with(rows, "model") == "B"
    assert findings.tied_with(rows.assign(ties_lowest=[False, True, True, False, False, False]), "model") == "B or C"
    assert findings.tied_with(rows.assign(ties_lowest=[False, True, True, True, False, False]), "model") == (
        "3 other models (B, D, C)")
    assert findings.tied_with(rows.assign(ties_lowest=[False] + [True] * 5), "model") == (
        "5 other models (among them B, D, C)")
    assert findings.tied_with(rows.drop(columns="ties_lowest"), "model") == "another model"


def test_the_models_that_tie_with_the_lowest_are_marked():
    from helpers.analyze.differences import against_lowest

    rng = np.random.default_rng(3)
    P = 200
    fee = np.full(P, 10.0)
    base = rng.uniform(0.5, 1.5, P)
    total = np.stack([base, base + 0.01 * rng.standard_normal(P), base + 1.0], axis=1)  # a tie, and a clear loser
    named, reaches = against_lowest(total, np.ones((1, P)), fee)
    low = int(np.argmin(total.mean(axis=0)))
    assert named[0] == -1 and low in (0, 1)
    assert reaches[0].tolist() == [low == 1, low == 0, False]  # the other of the tie, never the lowest nor the loser


def test_an_optimism_of_zero_by_construction_says_so():
    """Review 4, N2: where every problem's choice on the other problems is the choice on all of them, held-out equals
    in-sample exactly; a 0 there is not evidence that choosing is free."""
    from helpers.publish.tables import _optimism_said

    assert _optimism_said(0.0, 0.0).startswith("0 (by construction: the model routed to every problem on every split")
    assert _optimism_said(-0.5, -12.0) == "-0.5 (-12%)" and _optimism_said(0.25, 5.0) == "0.25 (+5%)"


def test_the_methods_box_of_a_one_run_set_names_the_study_that_checks_it():
    """Review 6, M9: SWE-bench's Methods quoted the several-run study's 93% without saying that with one run per cell
    another study checks the headline, and pointed to a validity section its report does not have."""
    from helpers.publish.text import ONE_RUN, methods, one_run_held

    said = ONE_RUN.format(held=one_run_held())
    assert said not in methods() and "(validity section)" not in methods()
    assert methods(one_run=True).count(said) == 1
    # review 7: the figure it cites is given, from the study's saved output (benchmarks/results/), never typed
    saved = (ROOT / "benchmarks" / "results" / "one_run_validity.txt").read_text(encoding="utf-8")
    frontier = re.search(r"^\| the frontier: coverage \| ([^|]+?) \|", saved, flags=re.M)[1]
    assert f"held the truth in {frontier} (the frontier)" in said


def test_the_frontiers_ratio_to_the_best_single_model_says_over_how_many_sets():
    """Review 6, L5: the report's 1.02-1.18 and the docs' 1.03-1.14 came from 40 and 100 sets, neither said."""
    from helpers.analyze.statistic import POLICY_FRONTIER
    from helpers.publish.sentences import _comparison_sentences

    d = pd.DataFrame({"statistic": [POLICY_FRONTIER.label] * 2, "vs_best_single": [1.02, 1.18],
                      "vs_best_single_worst": [1.04, 2.26], "sets": [40, 40]})
    assert _comparison_sentences(d)[-1].endswith("(1.04–2.26 on the worst dataset; 40 sets per generator)")


def test_table_1_in_words_says_when_another_models_range_reaches_below_the_lowest():
    """Review 11, M1: sim's GSM8K named Llama-3.1-405B lowest (0.00158, no fee) with no caveat, while GPT-4o mini read
    0.0276 only through the fee on problems it never passed: the records allow it 0.000242, and its truth (0.000246)
    is the lowest. The caveat fires on another model's range, and a simulated set gives the truth beside."""
    table1 = pd.DataFrame({"model": ["405B", "mini", "8B"], "family": ["f", "f", "f"], "t": [0.00158, 0.0276, 0.19]})
    lowest = {("t", "405B"): 0.00158, ("t", "mini"): 0.000242, ("t", "8B"): 0.00013}
    truth = {("t", "405B"): 0.00158, ("t", "mini"): 0.000246, ("t", "8B"): 0.164}
    said = story.table1_found(table1, ["t"], {"t": "GSM8K"}, {"t": 1.0}, {}, lowest=lowest, truth=truth)
    assert said.endswith("GSM8K: 405B at 0.00158 USD (the simulator's truth: 0.00158); mini reads 0.0276, but the "
                         "records allow it as low as 0.000242, on problems it never passed, and its truth, 0.000246, "
                         "is the lowest (1 other model the records allow below it too): which model is lowest rests "
                         "on the problems the others never passed (the expert-fee curve shows from which fee on)."), \
        said
    # a real set: no truth; the rival is the one the records allow lowest, and the fee's own caveat is not repeated
    real = story.table1_found(table1, ["t"], {"t": "T"}, {"t": 1.0}, {("t", "405B"): 80.0}, lowest=lowest)
    assert real.endswith("T: 405B at 0.00158 USD, 80% of it the assumed expert fee on problems it never passed or "
                         "passed too rarely to beat the fee (the fee sets the level); 8B reads 0.19, but the records "
                         "allow it as low as 0.00013, on problems it never passed (1 other model the records allow "
                         "below it too): which model is lowest rests on the problems the others never passed (the "
                         "expert-fee curve shows from which fee on)."), real
    # the truth confirms the one named; no other model's range reaches below it: no caveat
    alone = story.table1_found(table1, ["t"], {"t": "T"}, {"t": 1.0}, {}, lowest={("t", "mini"): 0.01},
                               truth={("t", "405B"): 0.0015, ("t", "mini"): 0.02})
    assert alone.endswith("T: 405B at 0.00158 USD (the simulator's truth: 0.0015, the lowest)."), alone
    lows = story.table1_lowest(SimpleNamespace(of=lambda kind: pd.DataFrame(
        {"statistic": ["m", "n"], "task": ["t", "t"], "estimator": ["plug-in", "model-based"],
         "range_low": [0.1, 0.2]})), {"m": "M"})
    assert lows == {("t", "M"): 0.1}
    from helpers.analyze.statistic import FRONTIER, TABLE1, Key

    truths = {Key(TABLE1, "m"): np.array([0.1, 0.2]), Key(FRONTIER, "all"): np.array([0.05, 0.1])}
    assert story.table1_truths(truths, ["t", "u"], {"m": "M"}) == {("t", "M"): 0.1, ("u", "M"): 0.2}
    assert story.table1_truths(None, ["t"], {}) == {}


def test_a_one_run_set_says_whether_its_gains_intervals_were_measured(tmp_path, monkeypatch):
    """Review 11, M3: SWE-bench (one run per cell) named two release gains "shown" while the one-run study measured
    the frontier, each model alone and paired differences only: the first screen and the gains' captions say what
    the study measured of the gains, from its saved output, or that nothing did."""
    from helpers.publish import text

    (tmp_path / "benchmarks" / "results").mkdir(parents=True)
    saved = tmp_path / "benchmarks" / "results" / "one_run_validity.txt"
    monkeypatch.setattr(text, "repo_root", lambda: tmp_path)
    saved.write_text("| the frontier: coverage | 99.8–100.0% | x |\n", encoding="utf-8")
    assert text.one_run_gains() == ("with one run per cell, as here, no study has measured these gains' intervals: the "
                                    "one-run study checks the frontier, each model alone and paired differences")
    rows = ["| a release's gain (Figure 4): coverage | 97.1–99.9% | x |",
            "| a family's gain (Figure 3): coverage | 98.0–100.0% | x |",
            "| a single model's gain (Figure 5): coverage | 91.5–99.0% | x |",
            "| a release's gain shown while its true gain is not above 0 | 0.00–0.50% | x |"]
    saved.write_text("\n".join(rows) + "\n", encoding="utf-8")
    assert text.one_run_gains() == (
        "with one run per cell, as here, the one-run study measured these gains' intervals too, on SIMULATED sets of "
        "the sim set's shape, not of this one: they held the truth in 97.1–99.9% (a release's gain), 98.0–100.0% "
        "(a family's gain), 91.5–99.0% (a single model's gain) of the sets, below the 93% the several-run study holds "
        "on some generator: read them as approximate; a release's gain was shown while its true gain was not above "
        "0 in 0.00–0.50% of the datasets")
    row = dict(label="SWE", models=24, first="2024-09-19", last="2025-12-01", start_usd=37.3, end_usd=9.55,
               expert_pct=99.2, unsolved=64, unsolved_pct=12.8, solved=436, cheapest=[], fee_usd=None, runs=1,
               headline={"start": [37.4, 32.3, 37.9], "end": [17.7, 11.7, 24.4], "k": 1, "gains": 3,
                         "gains_shown": 1, "gains_named": ["2025-04-16 o3"]})
    assert (f"1 of the 3 releases after the first has a gain shown, all tested together: 2025-04-16 o3; "
            f"{text.one_run_gains()}); the paper's") in story.set_found([row])
    assert text.one_run_gains() not in story.set_found([{**row, "runs": 8}])


def test_a_share_below_100_never_prints_as_100():
    """Review 11, L3: sim's validity summary read "told apart … in 78–100% of the pairs" where the largest power was
    99.72%: perfect power, which no generator had."""
    from helpers.analyze.policy_study import PAIRS
    from helpers.publish.sentences import _comparison_sentences, _span

    pairs = pd.DataFrame({"statistic": [PAIRS] * 2, "power_pct": [78.2, 99.72], "false_findings_pct": [0.1, 0.3],
                          "width_vs_oracle": [1.4, 2.7]})
    assert ("told apart where one truly costs at most half the other in 78–99.7% of the pairs, on the wrong side in "
            "0.1–0.3%") in _comparison_sentences(pairs)[0]
    assert _span(pd.Series([99.96, 100.0])) == "99.96–100%" and _span(pd.Series([1.04, 1.06]), 2, "") == "1.04–1.06"


def test_the_frontiers_chosen_share_counts_every_split():
    """The frontier's ``chosen`` cell: a problem counts as the share of its splits that chose the model, so "(100%)"
    only where every split of every problem chose it (`sim` GPQA read "OpenAI o1 (100%)" beside a frontier dearer than
    o1 alone: some splits chose another model); a share that rounds to 100 reads ">99"."""
    from helpers.analyze.policy import CrossFitted
    from helpers.publish.tables import frontier_choices

    def fit(chosen):
        chosen = np.asarray(chosen)
        P = chosen.shape[1]
        return CrossFitted(4, (0, 1), *(np.zeros(P),) * 3, chosen, *(np.zeros(P),) * 3)

    cube = SimpleNamespace(tasks=["t"], task_codes=np.zeros(2, int), strategies=["a", "b"])
    an = SimpleNamespace(labels={"a": "A", "b": "B"})
    said = [frontier_choices(an, SimpleNamespace(policy=SimpleNamespace(frontier=fit(c)), cube=cube))["t"]
            for c in ([[0, 0]] * 4, [[0, 0]] * 3 + [[1, 0]], [[0, 0]] * 199 + [[1, 0]], [[-1, -1]])]
    assert said == ["A (100%)", "A (88%)", "A (>99%)", "the expert alone (100%)"]


def test_the_cheapest_is_named_by_each_printed_interval_and_the_contenders_hold_at_once():
    """The cheapest claim is an intersection-union test: named where each paired interval with the lowest, at 95%,
    lies below 0 (a wrong claim needs the one against the truly cheapest to err). The set the records cannot tell from
    the cheapest (``simultaneous``, for the frontier's interval) needs the upper ends at once: Bonferroni over four."""
    from helpers.analyze.differences import against_lowest

    P = 200
    fee = np.full(P, 1e-6)  # an expert fee too small to matter: the records' paired Student's t alone
    base = np.linspace(0.5, 1.5, P)
    e = np.tile([1.0, -1.0], P // 2)  # mean 0, sd 1 exactly
    close = base + 0.1 * (2.1 / np.sqrt(P)) * np.sqrt(P / (P - 1)) + 0.1 * e  # paired t = 2.1: between 1.97 and 2.28
    total = np.stack([base, close, base + 1.0, base + 2.0, base + 3.0], axis=1)
    named, reaches = against_lowest(total, np.ones((1, P)), fee)
    assert named[0] == 0 and not reaches[0].any()
    named, reaches = against_lowest(total, np.ones((1, P)), fee, simultaneous=True)
    assert named[0] == -1 and reaches[0].tolist() == [False, True, False, False, False]
