"""A Quarto website of several sets, for users who have Quarto: one page per set, the sets' index as its home.

``cost-of-pass quarto-site [params/<set>.yaml ...]`` writes the project ``report/site/`` — ``_quarto.yml`` (type
website, a navbar with every set), ``index.qmd`` (the home page: each set with its kind and description, from its
card) and ``<set>.ipynb`` per set (the report notebook, ``report/index.ipynb``, with that set's parameter file and the
page's folder as its parameters' defaults) — then renders it with ``quarto render report/site`` into
``report/site/_site/``. Without Quarto the project is written and one line says how to render it. Quarto cannot be
installed here: the project is checked statically (``tests/test_report_static.py``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml

from helpers.core.errors import CostOfPassError
from helpers.core.params import load_params
from helpers.core.paths import repo_root, shown

SITE_DIR = "report/site"
OUTPUT_DIR = "_site"


def page_notebook(template: dict, params_file: str, title: str) -> dict:
    """The report notebook set up for one set: its parameters cell's ``params_file`` and ``page_dir`` defaults, and
    its front matter's title."""
    nb = json.loads(json.dumps(template))
    cell = next(c for c in nb["cells"] if "parameters" in c.get("metadata", {}).get("tags", []))
    source = "".join(cell["source"])
    source = re.sub(r'^params_file = .*$', f"params_file = {json.dumps(params_file)}", source, count=1, flags=re.M)
    source = re.sub(r'^page_dir = .*$', f"page_dir = {json.dumps(f'{SITE_DIR}/{OUTPUT_DIR}')}",
                    source, count=1, flags=re.M)
    cell["source"] = source.splitlines(keepends=True)
    raw = nb["cells"][0]
    front = yaml.safe_load("".join(raw["source"]).strip().strip("-"))
    front["title"] = title
    raw["source"] = ("---\n" + yaml.safe_dump(front, sort_keys=False) + "---").splitlines(keepends=True)
    return nb


def write_site(params_files: list[str], root: Path | None = None) -> Path:
    """Write the website project for ``params_files`` under ``root`` (default ``report/site``) and return it."""
    if not params_files:
        raise CostOfPassError("quarto-site: no set to show: name parameter files, or render a set's report first")
    root = root or repo_root() / SITE_DIR
    root.mkdir(parents=True, exist_ok=True)
    template = json.loads((repo_root() / "report" / "index.ipynb").read_text(encoding="utf-8"))
    pages = []
    for path in params_files:
        params = load_params(path)
        shown_path = str(shown(Path(path).resolve()))
        nb = page_notebook(template, shown_path, f"Cost-of-Pass report: {params.name}")
        (root / f"{params.name}.ipynb").write_text(json.dumps(nb, indent=1, ensure_ascii=False)
                                                   + "\n", encoding="utf-8")
        pages.append((params.name, params.description or ""))
    project = {"project": {"type": "website", "output-dir": OUTPUT_DIR, "execute-dir": "project",
                           "render": ["index.qmd", *(f"{name}.ipynb" for name, _ in pages)]},
               "website": {"title": "Cost-of-Pass reports", "navbar": {"left": [
                   {"href": "index.qmd", "text": "All sets"},
                   *({"href": f"{name}.ipynb", "text": name} for name, _ in pages)]}},
               "execute": {"enabled": True, "cache": False, "freeze": False, "echo": False, "warning": False},
               "format": {"html": {"toc": True, "embed-resources": False}}}
    (root / "_quarto.yml").write_text("# Written by `cost-of-pass quarto-site` (helpers.publish.quarto_site).\n"
                                      + yaml.safe_dump(project, sort_keys=False), encoding="utf-8")
    home = ["---", "title: Cost-of-Pass reports", "---", "",
            "An economic evaluation of language models after Erol et al., *Cost-of-Pass* (arXiv 2504.13359): the "
            "expected USD to obtain one correct answer, per model and on the frontier of models and a human expert. "
            "One page per parameter set:", ""]
    home += [f"- [{_escape(name)}]({name}.ipynb)" + (f": {_escape(text)}" if text else "") for name, text in pages]
    (root / "index.qmd").write_text("\n".join(home) + "\n", encoding="utf-8")
    return root


def _escape(text: str) -> str:
    from helpers.publish.safe import md

    return md(text)


def render_site(params_files: list[str]) -> Path:
    """``write_site``, then ``quarto render report/site``; one line where Quarto is not installed. Returns the home
    page."""
    import os
    import shutil
    import subprocess
    import sys

    root = write_site(params_files)
    if shutil.which("quarto") is None:
        raise CostOfPassError(f"Quarto is not installed: the website project is written at {shown(root)}; with Quarto, "
                              f"`quarto render {shown(root)}` renders it (`cost-of-pass publish` needs no Quarto)")
    done = subprocess.run(["quarto", "render", str(root), "--execute"], cwd=repo_root(),
                          env={**os.environ, "QUARTO_PYTHON": sys.executable})
    if done.returncode != 0:
        raise CostOfPassError(f"quarto render failed (exit {done.returncode}) for {shown(root)}")
    return root / OUTPUT_DIR / "index.html"


def site_params(results_dir: Path) -> list[str]:
    """The parameter files of the sets under ``results_dir`` with a rendered report (their cards), by name."""
    from helpers.publish.index_page import CARD, read_card

    out = []
    for card in sorted(results_dir.glob(f"*/{CARD}")):
        data = read_card(card, warn=True)
        if data and (card.parent / "report" / "index.html").is_file() and data.get("params"):
            out.append(str(data["params"]))
    return out
