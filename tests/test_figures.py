"""Figures draw for any families and any number of releases (including fits that are not identifiable)."""

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from helpers.analyze import costofpass as cp
from helpers.analyze.trends import fit_decay
from helpers.publish.appearance import FAMILY_COLORS, Appearance, family_palette
from helpers.publish.figures import bars, costs, coverage, over_time, panels, style, tradeoffs


def world():
    cop = pd.DataFrame({"a": [1.0, 6.0], "b": [4.0, 2.0]},
                       index=pd.MultiIndex.from_tuples([("t", "p1"), ("t", "p2")], names=["task", "problem_id"]))
    return cop, pd.Series([5.0, 5.0], index=cop.index)


def test_figures_with_a_forks_families(tmp_path):
    cop, expert = world()
    fam = 100 * cp.family_counterfactual(cop, pd.Series({"a": "SmolLM (HF)", "b": "lightweight"}), expert)
    fig = bars.figure3_families(fam, simulated=True)
    assert "SIMULATED" in fig.axes[0].get_title()
    printed = [t.get_text() for t in fig.axes[0].texts]  # each bar's value
    x = fam.iloc[0, 0]
    # one dataset: named
    assert len(printed) == fam.size and printed[0] in {f"{x:.0f}\nSmolLM (HF)", f"{x:.1f}\nSmolLM (HF)"}
    renderer = fig.canvas.get_renderer()  # under the axis, not at a whisker's height where a 0 would read as a bar
    bottom = fig.axes[0].get_window_extent(renderer).y0
    assert all(t.get_window_extent(renderer).y1 < bottom for t in fig.axes[0].texts)
    plt.close("all")
    tasks = list(fam.index)  # with whiskers and the range's intervals, all from 0: the values stay clear of their caps
    whiskers = pd.DataFrame([{"task": t, "family": f, "low": 0.0, "high": 60.0,
                              "range_ci_low": 0.0, "range_ci_high": 90.0}
                             for t in tasks for f in fam.columns])
    fig = bars.figure3_families(fam * 0, simulated=False, whiskers=whiskers)
    assert style.layout_problems(fig) == []
    keyed = [t.get_text() for t in fig.legends[0].get_texts()]  # every mark drawn has its key, under the panel
    assert fig.axes[0].get_legend() is None
    assert "95% interval" in keyed and style.RANGE_LABEL in keyed
    png, svg = style.save_figure(fig, "f3", tmp_path)
    assert png.stat().st_size > 1000 and svg.is_file()
    plt.close("all")


def test_trend_figures_with_two_releases():
    cop, expert = world()
    trend = cp.frontier_over_time(cop, pd.Series({"a": "2024-01-01", "b": "2024-05-01"}), expert)
    fits = {"t": fit_decay([0.0, 4.0], trend.dropna(subset=["date"])["normalized_pct"])}
    assert not fits["t"].identified
    look = Appearance({"a": "A model with a long name (tokens estimated)", "b": "B"}, {"t": "Task"}, {}, [])
    fig = over_time.figure2_trends(trend, fits, look)
    # two releases a few decades apart: the first release's long label still ends inside its panel, under the title
    renderer = fig.canvas.get_renderer()
    for ax in fig.axes:
        if ax.get_visible() and ax.texts:
            top = ax.get_window_extent(renderer).y1
            assert all(t.get_window_extent(renderer).y1 <= top + 1 for t in ax.texts)
    plt.close("all")


def test_interval_bars_draw_every_item_with_its_whiskers():
    frame = pd.DataFrame({"task": ["T", "T", "U"], "item": ["A", "B", "A"], "value": [10.0, 300.0, 5.0],
                          "low": [5.0, 100.0, 5.0], "high": [20.0, np.inf, 5.0]})
    fig = bars.interval_bars(frame, "item", "Figure 5", simulated=True, colors={"A": "#123456"}, symlog=True,
                                legend={"family x": "#123456"})
    ax = fig.axes[0]
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["family x", "95% interval"]  # the whiskers keyed too
    assert [t.get_text() for t in ax.get_yticklabels()] == ["A", "B"] and "SIMULATED" in fig._suptitle.get_text()
    assert len(ax.patches) == 2 and ax.get_xscale() == "symlog"
    ticks = fig.axes[1].lines[0]  # each value as a tick: a bar of 0 is seen (the U panel's A has low = value = high)
    xs = np.asarray(ticks.get_xdata(), float)
    assert ticks.get_marker() == "|" and xs[0] == 5.0 and np.isnan(xs[1])
    plt.close("all")


def test_the_cost_accuracy_legend_draws_methods_hollow_apart_from_family_colours():
    """A method's key was a grey marker, read as SWE-bench's grey organisation (Moonshot AI): now hollow."""
    rows = [(stat, s, "gsm8k", v) for s, acc, usd in (("m1", 0.5, 0.01), ("m1+self_refine", 0.6, 0.03))
            for stat, v in (("accuracy", acc), ("cost_usd", usd))]
    points = pd.DataFrame(rows, columns=["statistic", "strategy", "task", "value"]).assign(
        low=lambda d: d.value * 0.9, high=lambda d: d.value * 1.1)
    look = Appearance({"m1": "One"}, {"gsm8k": "GSM8K"}, {"m1": "Moonshot AI"}, ["gsm8k"])
    fig = tradeoffs.cost_accuracy(points, {"gsm8k": 5.0}, look)
    keys = {t.get_text(): h for lg in fig.legends for t, h in zip(lg.get_texts(), lg.legend_handles, strict=True)}
    assert (keys["single attempt"].get_markerfacecolor() == "white"
            and keys["self-refine"].get_markerfacecolor() == "white")
    assert keys["Moonshot AI"].get_markerfacecolor() not in ("white", "#ffffff")
    plt.close("all")


def test_the_routing_figure_bands_only_the_router_the_validity_study_backs():
    """The plug-in and model-based oracles' replicate spreads are no interval (RouteLLM's model-based band ran from its
    line to 100%): no band, no '95% interval' key for them; the cross-fitted router keeps its band."""
    budgets = [1e-3, 1e-2]
    envelope = pd.DataFrame([{"task": "gsm8k", "estimator": e, "budget_usd": b, "value": 0.7, "low": 0.6, "high": 1.0}
                             for e in ("plug-in", "model-based", "cross-fitted") for b in budgets])
    points = pd.DataFrame([{"task": "gsm8k", "estimator": "plug-in", "strategy": "m1", "accuracy": 0.6, "usd": 1e-3,
                            "acc_low": 0.5, "acc_high": 0.7},
                            {"task": "gsm8k", "estimator": "expert", "strategy": "expert",
                                                               "accuracy": 1.0, "usd": 1.0, "acc_low": 1.0,
                                                               "acc_high": 1.0}])
    look = Appearance({"m1": "One"}, {"gsm8k": "GSM8K"}, {"m1": "lightweight"}, ["gsm8k"])
    fig = tradeoffs.routing_frontier(envelope, points, look)
    keys = [t.get_text() for lg in fig.legends for t in lg.get_texts()]
    assert [k for k in keys if "95% interval" in k] == ["cross-fitted router's 95% interval", "a model's 95% interval"]
    from matplotlib.collections import PolyCollection

    assert sum(isinstance(c, PolyCollection) for c in fig.axes[0].collections) == 1  # one band: the router's
    plt.close("all")


def test_figure3_names_each_family_under_its_bar_when_it_has_one_dataset():
    """SWE-bench's ten families read by colour alone: with one dataset, each value carries its family's name."""
    one = pd.DataFrame({"Moonshot AI": [0.0], "Zhipu AI": [0.82]}, index=["SWE-bench Verified"])
    texts = [t.get_text() for t in bars.figure3_families(one, False).axes[0].texts]
    assert texts == ["0\nMoonshot AI", "0.82\nZhipu AI"]
    two = pd.DataFrame({"Moonshot AI": [0.0, 1.0]}, index=["A", "B"])
    assert [t.get_text() for t in bars.figure3_families(two, False).axes[0].texts] == ["0", "1"]
    plt.close("all")


def test_a_family_keeps_its_colour_whatever_the_order():
    names = ["SmolLM (HF)", "Qwen", "lightweight", "Gemma"]
    assert family_palette(names) == family_palette(list(reversed(names)))
    assert family_palette(names)["lightweight"] == FAMILY_COLORS["lightweight"]
    assert "#0173b2" not in family_palette(names).values()  # no second blue beside the paper's lightweight one


def test_figure3_colours_its_families_as_the_set_does_whichever_it_shows():
    """Eight families take another palette than seven: a figure given a subset must still use the set's mapping."""
    from matplotlib.colors import to_hex

    look = Appearance({f"m{i}": f"M{i}" for i in range(8)}, {"t": "T"}, {f"m{i}": f"org {i}" for i in range(8)}, ["t"])
    shown = pd.DataFrame({"org 1": [10.0], "org 5": [20.0]}, index=["T"])
    fig = bars.figure3_families(shown, simulated=False, colors=look.family_colors)
    drawn = [to_hex(p.get_facecolor()) for p in fig.axes[0].patches if p.get_height() > 0]
    assert drawn == [look.family_colors["org 1"], look.family_colors["org 5"]]
    assert drawn != list(family_palette(list(shown.columns)).values())  # what the subset alone would have been given
    plt.close("all")


def test_ten_organisations_get_ten_colours_an_orange_and_a_red_apart():
    """SWE-bench's ten organisations got the colour-blind palette's orange, vermillion and tan, which read as one."""
    orgs = ["Alibaba", "Anthropic", "DeepSeek", "Google", "Meta", "MiniMax", "Mistral",
            "Moonshot AI", "OpenAI", "Zhipu AI"]
    colours = family_palette(orgs)
    assert len(set(colours.values())) == 10 and not {"#de8f05", "#d55e00", "#ca9161"} & set(colours.values())
    assert len(set(family_palette([f"org {i}" for i in range(25)]).values())) == 20  # past twenty: repeated, no error
    assert len(set(family_palette(orgs[:4]).values())) == 4 and "#d55e00" not in family_palette(orgs[:4]).values()


def test_figure2_panels_in_category_order_with_releases_coloured_and_named():
    from helpers.analyze.trends import log_linear_trend
    from helpers.core.tasks import in_category_order

    assert in_category_order(["aime24", "bbq", "gsm8k", "math500", "two_digit_addition", "gpqa_diamond"]) == [
        "gsm8k", "two_digit_addition", "bbq", "gpqa_diamond", "aime24", "math500"]  # the set's order within a category
    index = pd.MultiIndex.from_tuples([(t, p) for t in ("aime24", "gsm8k") for p in ("p1", "p2")],
                                      names=["task", "problem_id"])
    cop = pd.DataFrame({"a": [8.0, 9.0, 1.0, 6.0], "b": [4.0, 2.0, 0.5, 0.5], "c": [1.0, 1.0, 0.2, 0.2]}, index=index)
    expert = pd.Series(10.0, index=index)
    trend = cp.frontier_over_time(cop, pd.Series({"a": "2024-01-01", "b": "2024-05-01", "c": "2024-09-01"}), expert)
    t = np.array([0.0, 4.0, 8.0])
    ll = {task: log_linear_trend(t, trend[(trend.task == task) & trend.date.notna()]["normalized_pct"])
          for task in ("aime24", "gsm8k")}
    look = Appearance({"a": "Model A", "b": "Model B", "c": "Model C"}, {"aime24": "AIME", "gsm8k": "GSM8K"},
                      {"a": "lightweight", "b": "large", "c": "reasoning"}, in_category_order(["aime24", "gsm8k"]))
    fig = over_time.figure2_trends(trend, {}, look, loglinear=ll, paper_halving={"aime24": 7.1})
    first, second = fig.axes[:2]
    assert first.get_title().startswith("GSM8K") and second.get_title().startswith("AIME")  # basic before complex
    assert "paper 7.1 mo" in second.get_title()
    # three release dates, and its validity study fails: no factor (issue 61)
    assert "log-linear" not in second.get_title()
    assert first.get_yscale() == "log"
    assert {a.get_text() for a in first.texts} == {"Model A", "Model B", "Model C"}
    colours = {tuple(np.round(c.get_facecolor()[0][:3], 3)) for c in first.collections if len(c.get_offsets()) == 1}
    assert len(colours) == 3  # one colour per family
    np.testing.assert_allclose(ll["gsm8k"].values(t), np.exp(ll["gsm8k"].intercept + ll["gsm8k"].slope * t))
    plt.close("all")


def test_a_lone_trend_panel_names_every_release_that_lowered_the_frontier():
    """The HumanEval set's shape: one dataset, releases on three dates, long model names close together."""
    index = pd.MultiIndex.from_tuples([("humaneval", "p1")], names=["task", "problem_id"])
    pct = {"gpt35_0613": 22.0, "gpt4_0613": 5.5, "gpt35_1106": 3.5, "gpt4_1106": 2.4,
           "gpt35_0125": 2.4, "gpt4_0409": 1.8}
    cop = pd.DataFrame({m: [v] for m, v in pct.items()}, index=index)
    dates = pd.Series({"gpt35_0613": "2023-06-13", "gpt4_0613": "2023-06-13", "gpt35_1106": "2023-11-06",
                       "gpt4_1106": "2023-11-06", "gpt35_0125": "2024-01-25", "gpt4_0409": "2024-04-09"})
    trend = cp.frontier_over_time(cop, dates, pd.Series(100.0, index=index))
    labels = {m: f"GPT-{'3.5 Turbo' if '35' in m else '4 Turbo'} ({m.split('_')[1]} preview)" for m in pct}
    look = Appearance(labels, {"humaneval": "HumanEval"}, {m: "GPT-3.5" if "35" in m else "GPT-4" for m in pct}, [])
    fig = over_time.figure2_trends(trend, {}, look)
    named = {t.get_text() for t in fig.axes[0].texts}
    lowered = trend.dropna(subset=["date"]).released.str.split(", ").explode()
    assert {labels[m] for m in lowered if m != "gpt35_0125"} <= {n for text in named for n in text.split(", ")}
    assert not style.layout_problems(fig)
    plt.close("all")


def test_date_ticks_name_a_day_where_two_fall_in_one_month():
    """Issue 38: a span of six weeks was ticked "2023-11, 2023-12, 2023-12"."""
    import matplotlib.dates as mdates

    fmt = panels.MonthOrDay()
    months = mdates.date2num(pd.to_datetime(["2024-07-01", "2024-10-01", "2025-01-01"]))
    assert fmt.format_ticks(months) == ["2024-07", "2024-10", "2025-01"]
    weeks = mdates.date2num(pd.to_datetime(["2023-11-01", "2023-12-01", "2023-12-15"]))
    assert fmt.format_ticks(weeks) == ["2023-11-01", "2023-12-01", "2023-12-15"]


def test_the_fee_curve_colours_only_models_cheapest_at_some_fee_when_there_are_many():
    """Issue 38: 25 lines in 9 family colours could not be told apart; with more than FEE_LINES models, only those
    cheapest alone at some fee keep a colour and a legend entry, the rest are one grey key."""
    fees = np.array([0.1, 1.0, 10.0])
    lines = {f"m{i}": fees * (2 + i) for i in range(10)} | {"flat": np.full(3, 1.5), "frontier": fees}
    curve = pd.DataFrame([{"task": "t", "fee_usd": f, "line": name, "value": v}
                          for name, values in lines.items() for f, v in zip(fees, values)])
    look = Appearance({}, {"t": "T"}, {}, ["t"])
    fig = costs.fee_curve(curve, {"t": 1.0}, look, "frontier")
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert {"m0", "flat", "frontier", "every other model alone"} <= set(legend)  # m0 cheapest at 0.1, flat at 10
    assert not {"m1", "m9"} & set(legend)
    plt.close("all")


def test_the_headline_figure_draws_the_frontier_on_top_each_interval_and_the_expert_alone():
    """Issue 61 item 4: the first screen's figure draws the headline (policy cost with its validated interval), the
    frontier first, a dashed line at the expert alone; an interval reaching 0 stays on the log axis; a dataset whose
    frontier is not estimated keeps its models."""
    rows = pd.DataFrame({"task": ["t"] * 3 + ["u"] * 3, "model": ["frontier", "A", "B"] * 2,
                         "policy_usd": [0.5, 0.6, 2.0, np.nan, 0.01, 0.02],
                         "policy_low": [0.3, 0.0, 1.0, np.nan, 0.0, 0.01],
                         "policy_high": [0.9, 1.0, 3.5, np.nan, 0.05, 0.04]})
    look = Appearance({"a": "A", "b": "B"}, {"t": "T", "u": "U"}, {"a": "x", "b": "y"}, ["u", "t"], simulated=True)
    fig = costs.headline_costs(rows, {"t": 3.0, "u": 0.03}, look, "frontier")
    first, second = fig.axes[:2]
    assert first.get_title() == "U" and second.get_title() == "T"  # the set's order of datasets
    assert [t.get_text() for t in first.get_yticklabels()] == ["frontier", "A", "B"]  # shared: named once
    assert second.get_xscale() == "log" and second.get_xlim()[0] > 0
    assert len(second.collections) == 6  # an interval and a dot per value
    segments = np.concatenate([c.get_segments() for c in second.collections if hasattr(c, "get_segments")])
    assert segments[:, :, 0].min() > 0  # A's low of 0 drawn from the axis's left end
    assert any(line.get_linestyle() == "--" and line.get_xdata()[0] == 3.0 for line in second.lines)
    assert len(first.collections) == 4  # U: no frontier value, A and B drawn
    assert "SIMULATED" in fig._suptitle.get_text()
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["value and 95% interval",
                                                                  "the expert alone", "x", "y"]
    plt.close("all")


def test_every_agent_strategy_has_its_own_marker():
    """Issue 38: the single attempt, LDB and LDB on another model's attempt all drew circles."""
    methods = ["vanilla", "retry_k5", "warming_k5", "escalation_llama3", "ldb", "ldb_seed_gpt4", "self_refine"]
    from helpers.publish.appearance import marker

    assert len({marker(m) for m in methods}) == len(methods)


def test_a_shared_x_axis_is_named_once_per_column_under_its_lowest_panel():
    """Issue 38: the top row of a bar grid kept its "%" label with no ticks under it."""
    frame = pd.DataFrame({"task": list("TUVWX"), "item": ["A"] * 5, "value": [1.0] * 5, "low": [0.5] * 5,
                          "high": [2.0] * 5})
    fig = bars.interval_bars(frame, "item", "F", simulated=False, colors={})
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["95% interval"]  # keyed without a family legend too
    shown = [ax for ax in fig.axes if ax.get_visible()]
    named = [ax.get_xlabel() for ax in shown]
    assert named == ["", "", "%", "%", "%"]  # 3 columns: T, U above W, X; V has nothing below it
    fig.canvas.draw()
    assert any(lbl.get_visible() and lbl.get_text() for lbl in shown[2].get_xticklabels())  # V: ticks of its own
    assert not any(lbl.get_visible() and lbl.get_text() for lbl in shown[0].get_xticklabels())  # T: W's below it
    plt.close("all")


def test_the_coverage_heat_map_tells_conservative_passing_near_and_failing_cells_apart():
    table = pd.DataFrame({"generator": ["own", "own", "tails", "tails"], "statistic": ["Table 1", "frontier"] * 2,
                          "headline": True, "coverage_pct": [99.6, 94.5, 91.0, 60.0],
                          "range_coverage_pct": [100.0, 100.0, np.nan, 80.0]})
    fig = coverage.coverage_heatmap(table, simulated=True)
    colours = [tuple(np.round(c, 3)) for c in fig.axes[0].collections[0].get_facecolors()]
    assert len(set(colours)) == 4  # 99.6 holds but is wider than needed, 94.5 passes, 91 is near, 60 fails
    assert [t.get_text() for t in fig.axes[1].get_yticklabels()] == ["below 90", "90 to 93", "93 to 99",
                                                                     "99 or more:\nwider than needed"]
    plt.close("all")


def test_a_dollar_in_a_name_is_drawn_as_typed_never_as_mathtext(tmp_path):
    """Names come from a fork's registry: "$1 to $2" would be read as mathtext (italic "1 to ", the dollars gone), and
    "$\\frac{$" would fail to parse and stop the report. The figures parse no mathtext: every title, legend and tick
    label is drawn as typed, and a log axis writes its numbers as plain text (10⁻², 3×10⁰)."""
    import matplotlib
    import matplotlib.text
    from matplotlib.markers import MarkerStyle

    from helpers.publish import placement

    names = ["cost $1 to $2", "$\\frac{$"]
    frame = pd.DataFrame({"task": "T", "item": names, "value": [1.0, 200.0], "low": [0.5, 100.0], "high": [2.0, 300.0]})
    fig = bars.interval_bars(frame, "item", "Figure 5 $x$", simulated=False, colors={}, legend={names[0]: "#123456"},
                                symlog=True)
    style.save_figure(fig, "dollars", tmp_path)  # draws and saves: no mathtext error
    texts = [t for t in fig.findobj(matplotlib.text.Text) if t.get_text() and t.get_visible()]
    shown = [t._preprocess_math(t.get_text()) for t in texts]
    assert shown.count((names[0], False)) >= 2 and (names[1], False) in shown  # legend and tick label, as typed
    assert ("Figure 5 $x$", False) in shown and not [text for text, math in shown if math]
    assert {"0", "10¹", "10²"} <= {text for text, _ in shown}  # the symlog axis' numbers, as plain text
    plt.close("all")

    with matplotlib.rc_context({**style.STYLE, "text.parse_math": True}):
        digit = MarkerStyle("$3$").get_path().vertices
    with matplotlib.rc_context(style.STYLE):  # the numbered labels' key still draws each number as its glyph
        fig, ax = plt.subplots()
        ax.plot([0, 1], [0, 1])
        placement._number_key(fig, {"a label": 3}, "numbers", 8.0)
        drawn = fig.legends[-1].legend_handles[0]._marker.get_path().vertices
    np.testing.assert_array_equal(drawn, digit)
    plt.close("all")
