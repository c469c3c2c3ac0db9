"""Figures a reader can explore: the cost–accuracy figure and Figure 2 also as interactive Vega-Lite charts (hover for
the model, dataset, date, value and interval), drawn from the CSVs the static figures were drawn from.

The offline report (``report.render_offline``) carries, under each of those figures, a placeholder
(``placeholder``), which ``add_charts`` replaces by the chart (an altair spec, its data inlined, every string escaped
for a ``<script>``) and, once per page, the Vega, Vega-Lite and Vega-Embed libraries (vl-convert's bundle, ~0.9 MB,
no network). The static PNGs stay, for print and for Quarto. Charts are drawn as SVG.
"""

from __future__ import annotations

import json
import math
import os
import re
import tempfile
from functools import lru_cache
from pathlib import Path

import pandas as pd

from helpers.analyze import costofpass as cp
from helpers.analyze.intervals import EXPERT
from helpers.core.numbers import sig
from helpers.core.paths import user_cache
from helpers.publish import names
from helpers.publish.appearance import family_palette, marker
from helpers.publish.explorer import strategy_label  # one naming of strategies for the pages

CHARTS = ("cost_accuracy", "figure2_frontier_over_time")  # artifacts with an interactive version
PLACEHOLDER = re.compile(r'<div class="cop-chart" data-chart="([a-z0-9_]+)"></div>')


def placeholder(name: str) -> str:
    """Where the offline page gets the interactive chart of artifact ``name`` (HTML, for the report's Markdown)."""
    return f'<div class="cop-chart" data-chart="{name}"></div>' if name in CHARTS else ""


@lru_cache(maxsize=1)
def bundle() -> str:
    """The Vega, Vega-Lite and Vega-Embed libraries as one script that sets ``window.vegaEmbed`` (vl-convert), made
    once per vl-convert release (1.4 CPU-s) and then read from ``bundle_path`` (a page gets the same bytes)."""
    import vl_convert

    path = bundle_path()
    try:
        cached = _read_own(path)
        if cached is not None:
            return cached
    except (OSError, UnicodeDecodeError):
        pass  # no copy yet, a link, or one that cannot be read: make it again
    text = vl_convert.javascript_bundle(None)  # type: ignore[arg-type]  # no snippet: its stub says str, it takes None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")  # a new file: no name planted beforehand
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            os.fchmod(fh.fileno(), 0o644)
        os.replace(tmp, path)  # whole or absent: a page never gets half a bundle
    except OSError:
        pass  # a read-only cache: made again next time
    return text


def bundle_path() -> Path:
    """Where ``bundle`` keeps its copy: the user's cache (``paths.user_cache``), named by vl-convert's release."""
    from importlib.metadata import version

    return user_cache("vega") / f"vega-embed-bundle-vl-convert-{version('vl-convert-python')}.js"


def _read_own(path: Path) -> str | None:
    """The text of ``path`` if it is a regular file this user owns and nobody else may change, else None; a symbolic
    link is refused (OSError). Every report embeds the bundle: a copy another user could rewrite would put their script
    in the published pages, and a link they planted to one of this user's files (a key) would publish that file. The
    checks are of the file opened, not of its name."""
    import stat

    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fh.fileno())
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & 0o022:
            return None
        return fh.read().decode("utf-8")


SHAPES = {"o": "circle", "s": "square", "^": "triangle-up", "D": "diamond", "P": "cross", "v": "triangle-down",
          "X": "M-1,-.6L-.6,-1L0,-.4L.6,-1L1,-.6L.4,0L1,.6L.6,1L0,.4L-.6,1L-1,.6L-.4,0Z",  # a filled x
          "<": "triangle-left",
          "*": "M0,-1L.22,-.31L.95,-.31L.36,.12L.59,.81L0,.38L-.59,.81L-.36,.12L-.95,-.31L-.22,-.31Z"}  # a star: each
# method's marker (``appearance.MARKERS``)
SPARE_SHAPES = ("triangle-right", "M-1,-.35L1,-.35L1,.35L-1,.35Z")  # and a bar, for methods that share a marker


def cost_accuracy_spec(data: pd.DataFrame, task_labels: dict[str, str], labels: dict[str, str],
                       families: dict[str, str] | None = None) -> dict:
    """The cost–accuracy chart from ``cost_accuracy.csv`` (rows: statistic accuracy / cost_usd, strategy, task,
    value, low, high; accuracy 0-1, cost USD per attempt): one point per strategy and dataset, log cost against
    accuracy (%), a panel per dataset; as the static figure, the colour is the model's family (``families``: model id
    -> family, in the set's order) and the shape its method, so a legend stays short however many strategies; a click
    on a family in the legend picks out its points; the tooltip gives both values with their 95% intervals; a dashed
    line joins the Pareto frontier (``costofpass.pareto``: the points no other is cheaper and more accurate than) and
    ends at the human expert (a black star; rows of strategy ``intervals.EXPERT``, ``tradeoffs.cost_accuracy_data``)."""
    import altair as alt

    families = families or {}
    frame, method = _cost_accuracy_frame(data, task_labels, labels, families)
    shapes = _shapes([*dict.fromkeys(method)])
    colours = _present_colours(families, frame[~frame["expert"]])
    chosen = alt.selection_point(fields=["family"], bind="legend")
    base = alt.Chart(frame).encode(
        x=alt.X("USD per attempt:Q", scale=alt.Scale(type="log"),
                axis=alt.Axis(values=log_ticks(frame["USD per attempt"]))),
        y=alt.Y("accuracy (%):Q", scale=alt.Scale(domain=[-4, 104], nice=False),  # a point at 0 or 100 whole
                axis=alt.Axis(values=[0, 20, 40, 60, 80, 100])))
    line = base.transform_filter(alt.datum.Pareto).mark_line(interpolate="step-after", color="#333333", strokeWidth=1.1,
                                                             strokeDash=[5, 3])
    star = base.transform_filter(alt.datum.expert).mark_point(shape=SHAPES["*"], filled=True, size=220, color="black",
                                                              opacity=1).encode(
        tooltip=["strategy:N", "dataset:N", alt.Tooltip("USD per attempt:Q", format=".3g", title="USD per problem"),
                 alt.Tooltip("accuracy (%):Q", title="accuracy (%, assumed)")])
    points = base.transform_filter(~alt.datum.expert).mark_point(filled=True, size=60).encode(
        color=alt.Color("family:N", scale=alt.Scale(domain=list(colours), range=list(colours.values())),
                        legend=alt.Legend(symbolLimit=0, labelLimit=260, title="family (click to pick out)")),
        shape=alt.Shape("method:N", scale=alt.Scale(domain=list(shapes), range=list(shapes.values())),
                        legend=alt.Legend(symbolLimit=0, labelLimit=260)),
        opacity=alt.condition(chosen, alt.value(0.9), alt.value(0.12)),
        tooltip=["strategy:N", "method:N", "dataset:N", alt.Tooltip("accuracy (%):Q", format=".3g"),
                 "accuracy 95% interval:N",
                 alt.Tooltip("USD per attempt:Q", format=".3g"), "USD 95% interval:N"],
    ).add_params(chosen)
    chart = alt.layer(line, points.interactive(), star).properties(**_panel(frame)).facet(
        facet=alt.Facet("dataset:N", title=None, sort=_order(frame, task_labels)), columns=3)
    return _readable(chart).to_dict()


def _cost_accuracy_frame(data: pd.DataFrame, task_labels: dict[str, str], labels: dict[str, str],
                         families: dict[str, str]) -> tuple[pd.DataFrame, pd.Series]:
    """The cost–accuracy chart's rows from ``cost_accuracy.csv``'s long rows: one per strategy and dataset with a
    positive cost, and the human expert's (``expert``); ``Pareto`` marks the points no other beats on both, per dataset,
    and the expert where it is dearer than all of them (it ends the frontier, as in the static figure). Also the
    strategies' method ids (the expert's rows left out)."""
    wide = data.pivot_table(index=["task", "strategy"], columns="statistic", values=["value", "low", "high"],
                            dropna=False).reset_index()
    wide.columns = ["_".join(c for c in col if c) for col in wide.columns]
    wide = wide[wide["value_cost_usd"] > 0].reset_index(drop=True)
    expert = (wide["strategy"] == EXPERT).to_numpy()
    model, method = (wide["strategy"].str.partition("+")[0],
                     wide["strategy"].str.partition("+")[2].replace("", "vanilla"))
    frame = pd.DataFrame({
        "dataset": wide["task"].map(lambda t: task_labels.get(t, t)),
        "strategy": wide["strategy"].map(lambda s: strategy_label(s, labels)),
        "family": model.map(lambda m: families.get(m, "other")), "method": method.map(names.method),
        "accuracy (%)": 100 * wide["value_accuracy"], "accuracy 95% interval": [
            f"{sig(100 * lo)} – {sig(100 * hi)}" for lo, hi in zip(wide["low_accuracy"], wide["high_accuracy"])],
        "USD per attempt": wide["value_cost_usd"], "USD 95% interval": [
            f"{sig(lo)} – {sig(hi)}" for lo, hi in zip(wide["low_cost_usd"], wide["high_cost_usd"])], "expert": expert})
    frame.loc[expert, ["strategy", "family", "method"]] = ["human expert", "", ""]
    frame["Pareto"] = False
    for _, d in frame.groupby("dataset"):
        own = d[~d["expert"]]
        front = own.index[cp.pareto(own["USD per attempt"].to_numpy(float), own["accuracy (%)"].to_numpy(float))]
        top = own["USD per attempt"].max() if len(own) else float("-inf")
        frame.loc[[*front, *d.index[d["expert"] & (d["USD per attempt"] > top)]], "Pareto"] = True
    return frame, method[~expert]


def frontier_spec(data: pd.DataFrame, task_labels: dict[str, str], labels: dict[str, str],
                  families: dict[str, str] | None = None) -> dict:
    """Figure 2's curve from ``figure2_frontier_over_time.csv`` (task, date, released, frontier_usd, normalized_pct):
    the frontier after each release as % of the expert alone (log axis), a panel per dataset; as in the static figure,
    the line is dark and each release's point has its family's colour (``families``: model id -> family, in the set's
    order); the tooltip gives the release, its family, its date and the frontier in USD."""
    import altair as alt

    families = families or {}
    rows = data[data["date"].notna()]
    frame = pd.DataFrame({"dataset": rows["task"].map(lambda t: task_labels.get(t, t)),
                          "date": rows["date"].astype(str),
                          "released": rows["released"].astype(str).map(lambda m: labels.get(m, m)),
                          "family": rows["released"].astype(str).map(lambda m: families.get(m, "other")),
                          "frontier (USD per problem)": rows["frontier_usd"],
                          "% of the expert alone": rows["normalized_pct"]})
    frame = frame[frame["% of the expert alone"] > 0]
    colours = _present_colours(families, frame)
    base = alt.Chart(frame).encode(x=alt.X("date:T", title="release date", axis=alt.Axis(format="%b %Y",
                                                                                          tickCount=_months(frame),
                                                                                          labelOverlap="greedy")),
                                   y=alt.Y("% of the expert alone:Q", scale=alt.Scale(type="log", domain=_padded(
                                       frame["% of the expert alone"]), nice=False),  # Vega's nice: a whole decade
                                           axis=alt.Axis(values=log_ticks(frame["% of the expert alone"]))),
                                   tooltip=["dataset:N", "released:N", "family:N", "date:N",
                                            alt.Tooltip("frontier (USD per problem):Q", format=".3g"),
                                            alt.Tooltip("% of the expert alone:Q", format=".3g")])
    points = base.mark_point(filled=True, size=60, opacity=1).encode(
        color=alt.Color("family:N", scale=alt.Scale(domain=list(colours), range=list(colours.values())),
                        legend=alt.Legend(symbolLimit=0, labelLimit=260)))
    chart = (base.mark_line(interpolate="step-after", color="#333333") + points).properties(**_panel(frame)).facet(
        facet=alt.Facet("dataset:N", title=None, sort=_order(frame, task_labels)), columns=3)
    return _readable(chart).to_dict()


def _panel(frame: pd.DataFrame) -> dict[str, int]:
    """A panel's size in pixels: three a row where the set has several datasets (``frame``'s ``dataset``), one
    twice as wide and taller where it has one (a lone 260-pixel panel left most of the page blank)."""
    return {"width": 260, "height": 200} if frame["dataset"].nunique() > 1 else {"width": 560, "height": 320}


def _present_colours(families: dict[str, str], frame: pd.DataFrame) -> dict[str, str]:
    """Family -> colour of the families with a point in ``frame`` (its ``family`` column), in the set's order, each in
    the colour the static figures give it (``family_palette`` of all the set's families)."""
    colours = family_palette(list(dict.fromkeys([*families.values(), *frame["family"]])))
    present = set(frame["family"])
    return {f: c for f, c in colours.items() if f in present}


def _readable(chart):
    """``chart`` with the report's text sizes (px): panel titles 14, axis and legend titles 13, their labels 12 (Vega's
    own 10-11 px read small beside the page's 16 px text)."""
    return (chart.configure_header(labelFontSize=14, labelFontWeight="bold")
            .configure_axis(labelFontSize=12, titleFontSize=13)
            .configure_legend(labelFontSize=12, titleFontSize=13))


def _shapes(methods: list[str]) -> dict[str, str]:
    """Method in words -> its Vega shape: its marker's (``SHAPES``), or, where two methods share a marker (majority
    vote k=3 and k=4), the next shape no method has."""
    out: dict[str, str] = {}
    spare = [s for s in (*SHAPES.values(), *SPARE_SHAPES) if s not in {SHAPES[marker(m)] for m in methods}]
    for m in methods:
        shape = SHAPES[marker(m)]
        out[names.method(m)] = shape if shape not in out.values() else (spare.pop(0) if spare else shape)
    return out


def log_ticks(values: pd.Series) -> list[float]:
    """Ticks for a log axis over the positive ``values``: 1, 1.5, 2, 3, 4, 5, 6, 8 per decade where they span less
    than 0.4 of a decade (the local set's 60–100% had two ticks), 1, 2, 5 to 1.5 decades, 1 and 3 to 3 decades, else
    the decades (Vega's own put 0.2 and 0.3 on top of each other and a grid line at every minor tick)."""
    v = values[values > 0]
    if v.empty:
        return []
    lo, hi = math.floor(math.log10(v.min())), math.ceil(math.log10(v.max()))
    span = math.log10(v.max() / v.min())
    steps = (1, 1.5, 2, 3, 4, 5, 6, 8) if span < 0.4 else (1, 2, 5) if span < 1.5 else (1, 3) if span < 3 else (1,)
    ticks = [float(f"{m}e{k}") for k in range(lo, hi + 1) for m in steps]
    inside = [t for t in ticks if v.min() / 1.5 <= t <= v.max() * 1.5]
    return inside or ticks


def _padded(values: pd.Series) -> list[float]:
    """A log axis's domain over the positive ``values``: their range widened by a fifth at each end (a point at an end
    is drawn whole), not rounded out to whole decades."""
    v = values[values > 0]
    return [float(v.min()) / 1.2, float(v.max()) * 1.2] if len(v) else [1.0, 100.0]


def _months(frame: pd.DataFrame) -> dict:
    """Ticks on whole months, at most ~4 per panel (a 260 px panel holds four 12 px "Sep 2023" labels apart): Vega's
    own ticks on a span of weeks repeat a month's label."""
    dates = pd.to_datetime(frame["date"])
    span = (dates.max().year - dates.min().year) * 12 + dates.max().month - dates.min().month if len(dates) else 0
    return {"interval": "month", "step": max(1, -(-span // 4))}


def _order(frame: pd.DataFrame, task_labels: dict[str, str]) -> list[str]:
    """The panels' order: the set's datasets as the report orders them (``task_labels``' order), then any other."""
    labels = [v for v in task_labels.values() if v in set(frame["dataset"])]
    return labels + sorted(set(frame["dataset"]) - set(labels))


LINES = {"cost_accuracy": " The dashed line: the Pareto frontier (plug-in means); the black star: the human expert.",
         "figure2_frontier_over_time": " The dark line: the frontier after each release."}  # the key of each mark drawn
SPECS = {"cost_accuracy": cost_accuracy_spec,  # each (data, task labels, model labels, families) -> a spec
         "figure2_frontier_over_time": frontier_spec}


def chart_html(name: str, spec: dict) -> str:
    """The chart's element and the script that draws it; the spec's JSON cannot end the script (``<`` escaped)."""
    data = json.dumps(spec).replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return (f'<div class="cop-chart" id="cop-chart-{name}"></div><p><small>Interactive: hover a point for its '
            f"values; drag and scroll to zoom where the chart allows.{LINES.get(name, '')}</small></p>"
            f'<script>(function draw(tries) {{ if (window.vegaEmbed) {{ vegaEmbed("#cop-chart-{name}", {data}, '
            '{"actions": false, "renderer": "svg"}); } else if (tries > 0) { setTimeout(() => draw(tries - 1), '
            '50); } })(200);</script>')  # the library is a module: it may define vegaEmbed after this runs


def add_charts(page: str, tables_path: Path, task_labels: dict[str, str], labels: dict[str, str],
               families: dict[str, str] | None = None) -> str:
    """``page`` with every placeholder replaced by its chart (from ``<tables_path>/<name>.csv``; a placeholder
    without its CSV is dropped) and, where one was drawn, the libraries in the page's head. ``families``: model id ->
    family, in the set's order (the cost–accuracy chart's colours)."""
    def one(m: re.Match) -> str:
        path = tables_path / f"{m.group(1)}.csv"
        if not path.is_file():
            return ""
        return chart_html(m.group(1), SPECS[m.group(1)](pd.read_csv(path), task_labels, labels, families or {}))

    page = PLACEHOLDER.sub(one, page)
    if 'class="cop-chart"' not in page:
        return page
    library = bundle().replace("</script", "<\\/script")
    return page.replace("</head>", f'<script type="module">{library}</script>\n</head>', 1)
