"""The HTML report of a parameter set.

For users with Quarto: ``quarto render report/index.ipynb -P params_file:params/<set>.yaml``.
Offline (no Quarto): ``python -m helpers.publish.report params/<set>.yaml`` executes the same notebook
with papermill and converts it with nbconvert to one self-contained HTML file (images embedded as
data URIs, no code cells, no network needed to view) at ``results/<set>/report/index.html``.
"""

from __future__ import annotations

import argparse
import html
import re
from pathlib import Path

from helpers.core.errors import CostOfPassError, run_command
from helpers.core.params import Params, load_params
from helpers.core.paths import repo_root
from helpers.publish.about import context_path
from helpers.publish.catalog import Artifact, caption_path

REPORT_NOTEBOOK = "report/index.ipynb"
REMOTE_ASSET = re.compile(r'<script[^>]+src="https?://[^"]*"[^>]*>\s*</script>|<link[^>]+href="https?://[^"]*"[^>]*>')


class ReportParts:
    """What the report notebook shows: the catalogued tables and figures the pipeline wrote for a set, and the
    run's context (``about.write_context``), read from ``results/<set>/``: the report reloads no data.

    ``renderer``: ``"quarto"`` labels each figure and table (``Artifact.label``) and leaves the numbering to
    Quarto; ``"offline"`` (nbconvert, which does not number) numbers them itself in order of appearance,
    "Figure 1." and "Table 1." as Quarto would."""

    def __init__(self, params: Params, renderer: str = "quarto"):
        if renderer not in ("quarto", "offline"):
            raise CostOfPassError(f"renderer must be 'quarto' or 'offline', not '{renderer}'")
        self.params, self.renderer = params, renderer
        self.numbers = {"figure": 0, "table": 0}
        self.shown: dict[str, str] = {}  # offline: artifact name -> "Table 3"

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

    def empty(self, artifact: Artifact) -> bool:
        """A table the pipeline wrote without rows (Table 2 of a set without techniques): not shown. A missing
        artifact is not empty: showing it says which stage to run."""
        path = self.params.tables_path / f"{artifact.name}.csv"
        if artifact.kind != "table" or not path.is_file():
            return False
        with path.open(encoding="utf-8") as fh:
            return sum(1 for line in fh if line.strip()) <= 1

    def block(self, artifact: Artifact) -> str:
        """An artifact as Markdown: a figure with its caption below, a table with its caption above (offline) or
        as Pandoc's ``: caption {#tbl-…}`` line (Quarto); after the lead paragraph its notebook wrote, if any."""
        from helpers.publish.catalog import lead_path

        lead = lead_path(self.params.tables_path, artifact.name)
        text = self._block(artifact)
        return f"{self._read(lead)}\n\n{text}" if lead.is_file() else text

    def _block(self, artifact: Artifact) -> str:
        caption = self.caption(artifact)
        if self.renderer == "quarto":
            if artifact.kind == "figure":
                alt = caption.replace("[", "\\[").replace("]", "\\]")
                return f"![{alt}]({self.figure_uri(artifact.name)}){{#{artifact.label}}}"
            return f"{self.markdown(artifact.name)}\n\n: {caption} {{#{artifact.label}}}"
        self.numbers[artifact.kind] += 1
        self.shown[artifact.name] = f"{artifact.kind.capitalize()} {self.numbers[artifact.kind]}"
        numbered = f"**{self.shown[artifact.name]}.** {caption}"
        if artifact.kind == "figure":
            return f'<img src="{self.figure_uri(artifact.name)}" alt="{html.escape(caption)}">\n\n{numbered}'
        return f"{numbered}\n\n{self.markdown(artifact.name)}"

    def show(self, artifact: Artifact) -> None:
        """Display an artifact (``block``)."""
        from IPython.display import Markdown, display

        display(Markdown(self.block(artifact)))


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
    """``quarto render`` of the report for a set: with ``cache``, Quarto's jupyter-cache keyed on the notebook's code and
    parameters, which include ``inputs_digest``, so a render re-executes exactly when the set's results changed."""
    return ["quarto", "render", "report", "--execute", *(["--cache"] if cache else ["--no-cache"]),
            "-P", f"params_file:{params_file}", "-P", f"inputs_digest:{inputs_digest(params)}"]


def render_quarto(params_file: str, params: Params, cache: bool = True) -> Path:
    """Render the report with Quarto (``quarto_command``); one line if Quarto is not installed. Returns the HTML."""
    import os
    import shutil
    import subprocess
    import sys

    if shutil.which("quarto") is None:
        raise CostOfPassError("Quarto is not installed (conda's `quarto`, or `pip install -e \".[quarto]\"` online); "
                              f"`cost-of-pass report {params_file}` renders the same report offline")
    env = {**os.environ, "QUARTO_PYTHON": sys.executable}
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
    execute_notebook(repo_root() / REPORT_NOTEBOOK, executed, params_path, extra={"renderer": "offline"})
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
    page = out_dir / "index.html"
    page.write_text(body, encoding="utf-8")
    return page


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m helpers.publish.report", description=__doc__.split("\n\n")[0])
    ap.add_argument("params", help="params/<set>.yaml")
    args = ap.parse_args(argv)
    return run_command(lambda: print(f"ok  report -> {render_offline(Path(args.params).resolve(), load_params(args.params))}"))


if __name__ == "__main__":
    raise SystemExit(main())
