"""Figures a reader can explore: the cost–accuracy figure and Figure 2 also as interactive Vega-Lite charts (hover for
the model, dataset, date, value and interval), drawn from the CSVs the static figures were drawn from.

The offline report (``report.render_offline``) carries, under each of those figures, a placeholder
(``placeholder``), which ``add_charts`` replaces by the chart (an altair spec, its data inlined, every string escaped
for a ``<script>``) and, once per page, the Vega, Vega-Lite and Vega-Embed libraries (vl-convert's bundle, ~0.9 MB,
no network). The static PNGs stay, for print and for Quarto. Charts are drawn as SVG.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path

import pandas as pd

from helpers.core.numbers import sig
from helpers.publish.explorer import strategy_label  # one naming of strategies for the pages

CHARTS = ("cost_accuracy", "figure2_frontier_over_time")  # artifacts with an interactive version
PLACEHOLDER = re.compile(r'<div class="cop-chart" data-chart="([a-z0-9_]+)"></div>')


def placeholder(name: str) -> str:
    """Where the offline page gets the interactive chart of artifact ``name`` (HTML, for the report's Markdown)."""
    return f'<div class="cop-chart" data-chart="{name}"></div>' if name in CHARTS else ""


@lru_cache(maxsize=1)
def bundle() -> str:
    """The Vega, Vega-Lite and Vega-Embed libraries as one script that sets ``window.vegaEmbed`` (vl-convert)."""
    import vl_convert

    return vl_convert.javascript_bundle(None)  # type: ignore[arg-type]  # no snippet: its stub says str, it takes None


def cost_accuracy_spec(data: pd.DataFrame, task_labels: dict[str, str], labels: dict[str, str]) -> dict:
    """The cost–accuracy chart from ``cost_accuracy.csv`` (rows: statistic accuracy / cost_usd, strategy, task,
    value, low, high; accuracy 0-1, cost USD per attempt): one point per strategy and dataset, log cost against
    accuracy (%), a panel per dataset; the tooltip gives both with their 95% intervals."""
    import altair as alt

    wide = data.pivot_table(index=["task", "strategy"], columns="statistic", values=["value", "low", "high"]).reset_index()
    wide.columns = ["_".join(c for c in col if c) for col in wide.columns]
    frame = pd.DataFrame({
        "dataset": wide["task"].map(lambda t: task_labels.get(t, t)), "strategy": wide["strategy"].map(lambda s: strategy_label(s, labels)),
        "accuracy (%)": 100 * wide["value_accuracy"], "accuracy 95% interval": [
            f"{sig(100 * lo)} – {sig(100 * hi)}" for lo, hi in zip(wide["low_accuracy"], wide["high_accuracy"])],
        "USD per attempt": wide["value_cost_usd"], "USD 95% interval": [
            f"{sig(lo)} – {sig(hi)}" for lo, hi in zip(wide["low_cost_usd"], wide["high_cost_usd"])]})
    frame = frame[frame["USD per attempt"] > 0]
    chart = alt.Chart(frame).mark_point(filled=True, size=60).encode(
        x=alt.X("USD per attempt:Q", scale=alt.Scale(type="log")), y=alt.Y("accuracy (%):Q"),
        color=alt.Color("strategy:N", legend=alt.Legend(columns=2, labelLimit=260)),
        tooltip=["strategy:N", "dataset:N", alt.Tooltip("accuracy (%):Q", format=".3g"), "accuracy 95% interval:N",
                 alt.Tooltip("USD per attempt:Q", format=".3g"), "USD 95% interval:N"],
    ).properties(width=260, height=200).facet(facet=alt.Facet("dataset:N", title=None, sort=_order(frame, task_labels)),
                                              columns=3).interactive()
    return chart.to_dict()


def frontier_spec(data: pd.DataFrame, task_labels: dict[str, str], labels: dict[str, str]) -> dict:
    """Figure 2's curve from ``figure2_frontier_over_time.csv`` (task, date, released, frontier_usd, normalized_pct):
    the frontier after each release as % of the expert alone (log axis), a panel per dataset; the tooltip gives
    the release, its date and the frontier in USD."""
    import altair as alt

    rows = data[data["date"].notna()]
    frame = pd.DataFrame({"dataset": rows["task"].map(lambda t: task_labels.get(t, t)), "date": rows["date"].astype(str),
                          "released": rows["released"].astype(str).map(lambda m: labels.get(m, m)),
                          "frontier (USD per problem)": rows["frontier_usd"],
                          "% of the expert alone": rows["normalized_pct"]})
    frame = frame[frame["% of the expert alone"] > 0]
    base = alt.Chart(frame).encode(x=alt.X("date:T", title="release date", axis=alt.Axis(format="%b %Y")),
                                   y=alt.Y("% of the expert alone:Q", scale=alt.Scale(type="log")),
                                   tooltip=["dataset:N", "released:N", "date:N",
                                            alt.Tooltip("frontier (USD per problem):Q", format=".3g"),
                                            alt.Tooltip("% of the expert alone:Q", format=".3g")])
    chart = (base.mark_line(interpolate="step-after") + base.mark_point(filled=True, size=50)).properties(
        width=260, height=200).facet(facet=alt.Facet("dataset:N", title=None, sort=_order(frame, task_labels)), columns=3)
    return chart.to_dict()


def _order(frame: pd.DataFrame, task_labels: dict[str, str]) -> list[str]:
    """The panels' order: the set's datasets as the report orders them (``task_labels``' order), then any other."""
    labels = [v for v in task_labels.values() if v in set(frame["dataset"])]
    return labels + sorted(set(frame["dataset"]) - set(labels))


SPECS = {"cost_accuracy": cost_accuracy_spec, "figure2_frontier_over_time": frontier_spec}


def chart_html(name: str, spec: dict) -> str:
    """The chart's element and the script that draws it; the spec's JSON cannot end the script (``<`` escaped)."""
    data = json.dumps(spec).replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return (f'<div class="cop-chart" id="cop-chart-{name}"></div><p><small>Interactive: hover a point for its '
            f"values; drag and scroll to zoom where the chart allows.</small></p>"
            f'<script>(function draw(tries) {{ if (window.vegaEmbed) {{ vegaEmbed("#cop-chart-{name}", {data}, '
            f'{{"actions": false, "renderer": "svg"}}); }} else if (tries > 0) {{ setTimeout(() => draw(tries - 1), 50); }} '
            f'}})(200);</script>')  # the library is a module: it may define vegaEmbed after this runs


def add_charts(page: str, tables_path: Path, task_labels: dict[str, str], labels: dict[str, str]) -> str:
    """``page`` with every placeholder replaced by its chart (from ``<tables_path>/<name>.csv``; a placeholder
    without its CSV is dropped) and, where one was drawn, the libraries in the page's head."""
    def one(m: re.Match) -> str:
        path = tables_path / f"{m.group(1)}.csv"
        return chart_html(m.group(1), SPECS[m.group(1)](pd.read_csv(path), task_labels, labels)) if path.is_file() else ""

    page = PLACEHOLDER.sub(one, page)
    if 'class="cop-chart"' not in page:
        return page
    library = bundle().replace("</script", "<\\/script")
    return page.replace("</head>", f'<script type="module">{library}</script>\n</head>', 1)
