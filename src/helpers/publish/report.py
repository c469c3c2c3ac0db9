"""The HTML report of a parameter set.

For users with Quarto: ``quarto render report/index.ipynb -P params_file:params/<set>.yaml``.
Offline (no Quarto): ``python -m helpers.publish.report params/<set>.yaml`` executes the same notebook
with papermill and converts it with nbconvert to one self-contained HTML file (images embedded as
data URIs, no code cells, no network needed to view) at ``results/<set>/report/index.html``.
"""

from __future__ import annotations

import argparse
import html
import os
import re
from pathlib import Path

from helpers.core.errors import CostOfPassError, run_command
from helpers.core.params import Params, load_params
from helpers.core.paths import repo_root
from helpers.publish.about import context_path
from helpers.publish.catalog import Artifact, caption_path
from helpers.publish.dictionary import write_dictionary
from helpers.publish.formats import markdown
from helpers.publish.interactive import add_charts, placeholder
from helpers.publish.navigation import finish_page

REPORT_NOTEBOOK = "report/index.ipynb"
QUARTO_PAGE_DIR = "report/_site"  # where `quarto render report` writes the page (report/_quarto.yml's output-dir)
REMOTE_ASSET = re.compile(r'<script[^>]+src="https?://[^"]*"[^>]*>\s*</script>|<link[^>]+href="https?://[^"]*"[^>]*>')


COLLAPSE_ROWS = 12  # a table with more rows is shown folded (<details>), its caption in view
# a figure shown at 70% of its PNG (150 dpi): 8-pt text at ~12 px; a full-width grid (11.2 in) fills the page
SHOWN_PER_PIXEL = 0.7


class ReportParts:
    """What the report notebook shows: the catalogued tables and figures the pipeline wrote for a set, and the
    run's context (``about.write_context``), read from ``results/<set>/``: the report reloads no data.

    Numbering follows the paper: an artifact with a paper number (``Artifact.paper``) is "Table 1", "Figure 2", …
    as in the paper; the rest are "Table S1", "Figure S1", … in order of appearance. ``renderer``: ``"quarto"``
    gives each a fenced float with its label (``fig-``/``tbl-``, numbered by Quarto in the paper's order, and the
    custom kinds ``sfig-``/``stbl-`` of ``_quarto.yml``); ``"offline"`` (nbconvert, which does not number)
    writes the numbers itself."""

    def __init__(self, params: Params, renderer: str = "quarto", page_dir: str = QUARTO_PAGE_DIR):
        if renderer not in ("quarto", "offline"):
            raise CostOfPassError(f"renderer must be 'quarto' or 'offline', not '{renderer}'")
        self.params, self.renderer, self._page_dir = params, renderer, page_dir
        self.numbers = {"figure": 0, "table": 0}  # supplementary ones shown so far
        self.shown: dict[str, str] = {}  # offline: artifact name -> "Table 1" / "Table S3"

    def ref(self, name: str) -> str:
        """A cross-reference to an artifact shown earlier: Quarto's ``@tbl-…`` / ``@fig-…``, or offline its number."""
        from helpers.publish.catalog import entry

        return f"@{entry(name).label}" if self.renderer == "quarto" else self.shown.get(name, f"'{name}'")

    def _read(self, path: Path) -> str:
        if not path.is_file():
            raise CostOfPassError(f"{path.name} is missing: run the pipeline for {self.params.name} first ({path})")
        return path.read_text(encoding="utf-8").strip()

    def context(self) -> dict:
        """The run's context the report states once (``about.write_context``): about box, prices, expert, extraction."""
        import json

        return json.loads(self._read(context_path(self.params)))

    def caption(self, artifact: Artifact) -> str:
        """The caption saved beside an artifact when its notebook published it."""
        folder = self.params.figures_path if artifact.kind == "figure" else self.params.tables_path
        return self._read(caption_path(folder, artifact.name))

    def markdown(self, name: str) -> str:
        """A saved table's Markdown (``results/<set>/tables/<name>.md``)."""
        return self._read(self.params.tables_path / f"{name}.md")

    def csv(self, name: str):
        import pandas as pd

        return pd.read_csv(self.params.tables_path / f"{name}.csv")

    def figure_uri(self, name: str) -> str:
        """The PNG of a saved figure as a data URI (embedded in either HTML)."""
        import base64

        path = self.params.figures_path / f"{name}.png"
        if not path.is_file():
            raise CostOfPassError(f"figure {name} is missing: run the pipeline for {self.params.name} first ({path})")
        return "data:image/png;base64," + base64.b64encode(path.read_bytes()).decode("ascii")

    def figure_style(self, name: str) -> str:
        """The figure's width on the page: its PNG's pixels × ``SHOWN_PER_PIXEL`` (at most the page's), so every
        figure's text reads at one size — a lone panel (6.4 in) no longer fills the page at twice a grid's letters."""
        import struct

        with (self.params.figures_path / f"{name}.png").open("rb") as f:
            head = f.read(24)
        width = struct.unpack(">I", head[16:20])[0] if head[12:16] == b"IHDR" else 0
        return f'style="width: min(100%, {round(width * SHOWN_PER_PIXEL)}px)"' if width else 'style="max-width: 100%"'

    def empty(self, artifact: Artifact) -> bool:
        """A table the pipeline wrote without rows (Table 2 of a set without techniques): not shown. A missing
        artifact is not empty: showing it says which stage to run."""
        path = self.params.tables_path / f"{artifact.name}.csv"
        if artifact.kind != "table" or not path.is_file():
            return False
        with path.open(encoding="utf-8") as fh:
            return sum(1 for line in fh if line.strip()) <= 1

    def block(self, artifact: Artifact) -> str:
        """An artifact as Markdown: its float (``_float``) after the lead paragraph its notebook wrote, if any."""
        from helpers.publish.catalog import lead_path, note_path

        note = note_path(self.params.figures_path, artifact.name)
        if artifact.kind == "figure" and note.is_file():  # its data are degenerate: one sentence, no figure
            return self._read(note)
        lead = lead_path(self.params.tables_path, artifact.name)
        body = (f'![]({self.figure_uri(artifact.name)}){{fig-alt="{html.escape(self.caption(artifact))}"}}'
                if artifact.kind == "figure" else folded(self.markdown(artifact.name)))
        text = self._float(artifact, body, self.caption(artifact)) + self.data_links(artifact)
        if self.renderer == "offline" and artifact.kind == "figure":  # its interactive version, if it has one
            text += f"\n\n{placeholder(artifact.name)}" if placeholder(artifact.name) else ""
        return f"{self._read(lead)}\n\n{text}" if lead.is_file() else text

    @property
    def page_dir(self) -> Path:
        """The folder the page is written to: offline ``results/<set>/report/``, Quarto ``page_dir``."""
        return self.params.output_path / "report" if self.renderer == "offline" else repo_root() / self._page_dir

    def tables_href(self) -> str:
        """The set's ``tables/`` folder relative to the page being rendered (``page_dir``: offline
        ``results/<set>/report/``; Quarto ``report/_site/``, or ``report/site/_site/`` for the website's pages)."""
        return Path(os.path.relpath(self.params.tables_path, self.page_dir)).as_posix()

    def data_links(self, artifact: Artifact) -> str:
        """A line under an artifact: the CSV it was drawn from and its columns in the set's data dictionary
        (``dictionary.write_dictionary``); empty when the pipeline wrote no CSV for it."""
        if not (self.params.tables_path / f"{artifact.name}.csv").is_file():
            return ""
        href = self.tables_href()
        return (f"\n\n<small>Data: [{artifact.name}.csv]({href}/{artifact.name}.csv) · "
                f"[its columns]({href}/index.html#{artifact.name})</small>")

    def site_link(self) -> str:
        """Quarto's page: a line linking back to the site index of the results (offline, ``navigation.finish_page``
        puts that link in the page's bar)."""
        if self.renderer == "offline":
            return ""
        href = Path(os.path.relpath(self.params.output_path.parent / "index.html", self.page_dir))
        return f"[← All sets]({href.as_posix()}) · [The data of this set]({self.tables_href()}/index.html)"

    def placeholder(self, artifact: Artifact, why: str) -> str:
        """A paper artifact this set has no data for: its number kept (so the paper's numbering holds), one sentence."""
        return self._float(artifact, f"*{why}*", f"{artifact.title()}: not in this set.")

    def _float(self, artifact: Artifact, body: str, caption: str) -> str:
        if self.renderer == "quarto":  # a fenced float: the last paragraph is the caption
            return f"::: {{#{artifact.label}}}\n\n{body}\n\n{caption}\n\n:::"
        number = self.number(artifact)
        if artifact.kind == "figure":
            # the caption's text holds entities (&#39;): escaped once, not twice
            alt = html.escape(html.unescape(caption))
            body = (f'<img id="{artifact.label}" src="{self.figure_uri(artifact.name)}" alt="{alt}" '
                    f'{self.figure_style(artifact.name)}>')
            return f"{body}\n\n**{number}.** {caption}"
        return f"**{number}.** {caption}\n\n{body}"

    def number(self, artifact: Artifact) -> str:
        """Offline: the artifact's number, the paper's (``Table 1``) or the next supplementary one (``Figure S2``)."""
        if artifact.name not in self.shown:
            if artifact.paper:
                self.shown[artifact.name] = artifact.paper
            else:
                self.numbers[artifact.float_kind] += 1
                self.shown[artifact.name] = f"{artifact.float_kind.capitalize()} S{self.numbers[artifact.float_kind]}"
        return self.shown[artifact.name]

    def context_table(self, artifact: Artifact, text: str) -> str:
        """A table of the run's context (the expert's costs, the prices: Markdown whose first table line starts the
        table) as a numbered float, the text before the table its caption."""
        head, sep, table = text.partition("\n|")
        return self._float(artifact, folded("|" + table) if sep else "", head.strip())

    def applies(self, artifact: Artifact, run: dict) -> bool:
        """Whether the set's kind calls for the artifact (known truth, imported records, agent runs, grading here)."""
        return ((run["known_truth"] or not artifact.simulated_only)
                and (run.get("imported") or not artifact.imported_only)
                and (run.get("agent_runs") or not artifact.agent_only)
                and (run.get("regraded", True) or not artifact.graded_only)
                and (run.get("replay") or not artifact.replay_only))

    def outline(self, run: dict):
        """The report's body as Markdown blocks, in order (``catalog.PARTS``): each part's heading, its numbered
        sections (the appendix's lettered) with their artifacts and notes; a paper artifact without rows keeps its
        number with one sentence; the appendix opens with the paper's Tables 3 and 4 (expert, prices)."""
        from helpers.publish.catalog import PARTS, entry
        from helpers.publish.text import section_notes

        notes = section_notes(list(self.params.methods))  # a note on a method the set lacks is not shown

        number = 0
        for part, sections in PARTS.items():
            yield f"## {part}"
            letters = iter("ABCDEFGHIJ")
            if part == "Appendix":
                yield f"### {next(letters)}. The inputs: the human expert's cost and the prices"
                yield self.context_table(CONTEXT_TABLES["expert"], run["expert"])
                yield self.context_table(CONTEXT_TABLES["prices"], run["prices"])
            for title, names in sections.items():
                artifacts = [entry(n) for n in names if self.applies(entry(n), run)]
                shown = [a for a in artifacts if a.paper or not self.empty(a)]
                if not shown:
                    continue
                number += part != "Appendix"
                yield f"### {next(letters) if part == 'Appendix' else number}. {title}"
                for a in shown:
                    yield self.placeholder(a, "No rows for this set.") if self.empty(a) else self.block(a)
                if title in notes:
                    yield notes[title]

    def first_screen(self, run: dict, description: str) -> str:
        """What the reader sees first: the set and its description; what kind of records it holds, their source and,
        for imported records, the source's caveats (``_kind``); a repriced set's before and after (``repriced``); "In
        short", the sentences of ``findings.in_short`` on the dataset where a correct answer costs most (from the
        ``policy_cost`` table, with the simulator's truth from ``policy_truth`` on a simulated set, several numbers
        each) and the verdicts in doubt (``_in_doubt``); one figure (``first_figure``); and for a real set "What it
        shows", a sentence per dataset (``story.set_found``)."""
        from helpers.publish.findings import in_short
        from helpers.publish.safe import md

        kind = self._kind(run)
        path = self.params.tables_path / "policy_cost.csv"
        truth = self.params.tables_path / "policy_truth.csv"  # a simulated set's: the page says where it misses
        found = in_short(self.csv("policy_cost"), run["task_labels"],
                         self.csv("policy_truth") if truth.is_file() else None,
                         run.get("model_labels"), bool(run.get("agent_runs")), run.get("expert_fees"),
                         run.get("expert_alone_usd")) if path.is_file() else []
        said = f": {md(description)}" if description else ""
        short = ("**In short.** " + " ".join(md(t) for t in found) + self._in_doubt()
                 + " Every dataset's numbers, with their intervals, are in *Findings at a glance* below."
                 if found else "")
        shows = f"**What it shows, dataset by dataset.** {md(run['shows'])}" if run.get("shows") else ""  # real sets
        return "\n\n".join(p for p in (f"**Set `{md(self.params.name)}`**{said}", kind, self.repriced(run), short,
                                         self.first_figure(), shows) if p)

    def _in_doubt(self) -> str:
        """Review 5, N10: where the headline's fee falls on problems whose verdicts a check flags (the reading under
        ``policy_cost``, ``tables.doubtful_fee``, already escaped there), that reading on the first screen too."""
        lead = self.params.tables_path / "policy_cost.lead.md"
        text = lead.read_text(encoding="utf-8").strip() if lead.is_file() else ""
        mark = "**Reading.** Verdicts in doubt: "
        return f" {text.removeprefix(mark)[:1].upper()}{text.removeprefix(mark)[1:]}" if text.startswith(mark) else ""

    def repriced(self, run: dict) -> str:
        """A repriced set (``cli.reprice``: another set's records, read in place): its headline before and after, from
        both sets' ``policy_cost`` tables; empty for any other set."""
        from helpers.publish.findings import reprice_changes
        from helpers.publish.safe import md, md_frame

        own = self.params.output_path.resolve()
        origin = self.params.records_path.resolve().parent
        before, after = origin / "tables" / "policy_cost.csv", self.params.tables_path / "policy_cost.csv"
        if (self.params.records_dir is None or self.params.prices is None or origin == own
                or not (before.is_file() and after.is_file())):
            return ""
        import pandas as pd

        table = reprice_changes(pd.read_csv(before), pd.read_csv(after), run["task_labels"])
        return (f"**Repriced.** The records of set `{md(origin.name)}`, priced as of {md(self.params.prices.as_of)} "
                "(the dated price ledger); no call was made. What that changed, under \"up to k tries, then the "
                "expert\" (USD per problem):\n\n" + folded(markdown(md_frame(table))))

    def _kind(self, run: dict) -> str:
        """What kind of records the set holds, where they come from, and what to know before reading a number."""
        from helpers.publish.safe import md

        if run["simulated"]:
            kind = ("**Simulated set.** Every number, table and figure here comes from simulated models "
                    "(`helpers.collect.backends.sim`), not from real language models.")
        elif run.get("imported"):
            graded = ("and re-graded here" if run.get("regraded", True) else
                      "with their source's own verdicts (its harness ran the tests; this "
                      "project does not re-grade them)")
            kind = (f"**Imported records.** Real models' responses, recorded and published by others {graded}; no "
                    "model was called." + (f" Source: {md(run['source'])}." if run.get("source") else ""))
        else:
            kind = "**Real models**, called by this project; every number is computed from their recorded calls."
        if run.get("unisolated"):
            kind += (f"\n\n**Graded without isolation.** {run['unisolated']:,} verdicts on model-written code were "
                     "taken with no kernel boundary (`--unisolated-grading`): those programs could read and change the "
                     "machine that graded them, and could forge their verdicts.")
        if run.get("design"):  # a racing set: which numbers come from every problem, which from the Table-1 sample
            kind += f"\n\n**Design: racing.** {md(run['design'])}"
        if run.get("source_caveats"):  # what the imported source itself gets wrong, before any number is read
            kind += "\n\n**Caveats of the source.**\n\n" + "\n".join(f"- {md(c)}" for c in run["source_caveats"])
        return kind

    # the first drawn
    FIRST_FIGURES = ("headline_costs", "figure2_frontier_over_time", "cost_accuracy", "expert_fee_curve")

    def first_figure(self) -> str:
        """The first screen's figure: the headline drawn (the numbers the sentences above give, with their intervals),
        else Figure 2 where the set drew it, else the cost-accuracy figure, else the expert's fee curve; an image with a
        line saying what it is (its caption is in its section)."""
        from helpers.publish.catalog import entry, note_path

        for name in self.FIRST_FIGURES:
            if ((self.params.figures_path / f"{name}.png").is_file()
                    and not note_path(self.params.figures_path, name).is_file()):
                a = entry(name)
                what = f"{a.paper}: {a.short_title()}" if a.paper else a.short_title()
                alt = html.escape(what.replace("'", "’").replace('"', "”"), quote=False)  # no entity to escape twice
                estimator = ("; the paper's estimator, cost per attempt over the pass rate, not the \"up to k "
                             "tries, then the expert\" cost above" if name.startswith("figure2") else
                             "; the paper's estimator is in Table 1 and Figure 2" if name == "headline_costs" else "")
                drawn = ", drawn (the numbers above, each with its 95% interval" if name == "headline_costs" else " ("
                sep = "; " if name == "headline_costs" else ""  # review 10, L7: a sentence, not a fragment
                return (f'<img id="first-screen-figure" src="{self.figure_uri(name)}" alt="{alt}" '
                        f'{self.figure_style(name)}>'
                        f"\n\n*Figure: {html.escape(what)}{drawn}{sep}its caption is in its section below"
                        f"{estimator}).*")
        return ""


CONTEXT_TABLES = {  # the paper's Tables 3 and 4: the run's context (about.write_context), not stage outputs
    "expert": Artifact("table3_expert", "table", "The human expert's cost per problem.",
                       "03_frontier", paper="Table 3"),
    "prices": Artifact("table4_prices", "table", "Prices per token with the models' release dates.", "03_frontier",
                       paper="Table 4"),
}


def folded(table: str) -> str:
    """A Markdown table, folded into ``<details>`` when it has more than ``COLLAPSE_ROWS`` rows."""
    rows = sum(1 for line in table.splitlines() if line.startswith("|")) - 2
    if rows <= COLLAPSE_ROWS:
        return table
    return f"<details><summary>Show the table ({rows} rows)</summary>\n\n{table}\n\n</details>"


def inputs_digest(params: Params) -> str:
    """sha256 over what the report reads: every file under ``results/<set>/tables`` and the figures' PNGs (paths and
    bytes). Passed to Quarto as the report's ``inputs_digest`` parameter, it keys the execution cache on the results."""
    import hashlib

    h = hashlib.sha256()
    files = [*sorted(params.tables_path.glob("*")), *sorted(params.figures_path.glob("*.png"))]
    for path in (f for f in files if f.is_file()):
        h.update(f"{path.parent.name}/{path.name}".encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def quarto_command(params_file: str, params: Params, cache: bool = True) -> list[str]:
    """``quarto render`` of the report for a set: with ``cache``, Quarto's jupyter-cache keyed on the notebook's code
    and parameters, which include ``inputs_digest``, so a render re-executes exactly when the set's results changed."""
    return ["quarto", "render", "report", "--execute", *(["--cache"] if cache else ["--no-cache"]),
            "-P", f"params_file:{params_file}", "-P", f"inputs_digest:{inputs_digest(params)}"]


def render_quarto(params_file: str, params: Params, cache: bool = True) -> Path:
    """Render the report with Quarto (``quarto_command``); one line if Quarto is not installed. Returns the HTML."""
    import shutil
    import subprocess
    import sys

    if shutil.which("quarto") is None:
        raise CostOfPassError("Quarto is not installed (conda's `quarto`, or `pip install -e \".[quarto]\"` online); "
                              f"`cost-of-pass report {params_file}` renders the same report offline")
    env = {**os.environ, "QUARTO_PYTHON": sys.executable}
    write_dictionary(params)
    command = quarto_command(params_file, params, cache)
    done = subprocess.run(command, cwd=repo_root(), env=env)
    if done.returncode != 0:
        raise CostOfPassError(f"quarto render failed (exit {done.returncode}): {' '.join(command)}")
    return repo_root() / "report" / "_site" / "index.html"


def render_offline(params_path: Path, params: Params) -> Path:
    """Execute the report notebook for a set and write ``results/<set>/report/index.html``."""
    import nbformat
    from nbconvert import HTMLExporter

    from helpers.core.notebooks import execute_notebook
    from helpers.core.params import check_confined

    check_confined(params)
    out_dir = params.output_path / "report"
    executed = out_dir / "index.ipynb"
    execute_notebook(repo_root() / REPORT_NOTEBOOK, executed, params_path,
                     extra={"renderer": "offline", "settings": params.settings.parameter()})
    nb = nbformat.read(executed, as_version=4)
    nb.cells = [c for c in nb.cells if c.cell_type != "raw"]  # Quarto's front matter is not content
    for i, cell in enumerate(nb.cells):  # papermill's injected cell has a random id: same records, same bytes
        cell.id = f"cell-{i}"
    exporter = HTMLExporter(template_name="lab")
    exporter.exclude_input = True
    exporter.exclude_input_prompt = True
    exporter.exclude_output_prompt = True
    body, _ = exporter.from_notebook_node(nb, resources={"metadata": {"name": f"Cost-of-Pass report: {params.name}"}})
    body = REMOTE_ASSET.sub("", body)  # self-contained: no script or style from the network
    write_dictionary(params)
    page = out_dir / "index.html"
    links = {"Every problem": "../explorer/index.html"} if (params.output_path / "explorer"
                                                            / "index.html").is_file() else {}
    links["The data (CSV)"] = "../tables/index.html"
    run = ReportParts(params, "offline").context()
    body = finish_page(body, "../../index.html", links)  # before the charts: their library's text is not the page's
    tmp = page.with_name(f".index.{os.getpid()}.tmp")  # whole or not at all: the site's index and `publish` read it
    tmp.write_text(add_charts(body, params.tables_path, run["task_labels"], run.get("model_labels", {}),
                              run.get("model_families", {})), encoding="utf-8")
    os.replace(tmp, page)
    return page


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m helpers.publish.report", description=__doc__.split("\n\n")[0])
    ap.add_argument("params", help="params/<set>.yaml")
    args = ap.parse_args(argv)
    return run_command(lambda: print("ok  report -> "
                                     f"{render_offline(Path(args.params).resolve(), load_params(args.params))}"))


if __name__ == "__main__":
    raise SystemExit(main())
