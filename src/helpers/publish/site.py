"""``cost-of-pass publish DIR``: the results' site as a self-contained static folder, ready to copy to any host.

What goes in, per set with a card and a rendered report (``index_page.set_entries``): its report
(``<set>/report/index.html``, figures embedded), its tables' CSVs and data dictionary (``<set>/tables/``), its
figures (``<set>/figures/*.png``, ``*.svg``) and its per-problem explorer (``<set>/explorer/``); at the top, the index
of the sets. Nothing else: no records, graded verdicts, notebooks, parameter files or logs. The layout is the results
folder's, so every link the pages carry (relative by construction) works unchanged. Before anything is written, every
page is checked: no absolute path or ``file:`` link, no path of this machine, no secret of the environment, no
key-shaped string (``core.redaction``); a page that fails stops the publication with one line naming it.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from helpers.core.errors import CostOfPassError
from helpers.core.paths import repo_root, shown
from helpers.core.redaction import redact, secret_values
from helpers.publish.index_page import index_html, set_entries

PAGE_FILES = {"report": ("index.html",), "tables": ("*.csv", "index.html"), "figures": ("*.png", "*.svg"),
              "explorer": ("index.html",), "explorer/p": ("*.html",)}
SCRIPT = re.compile(r"<script\b.*?</script>", re.S | re.I)
ABSOLUTE = re.compile(r"""(?:href|src)\s*=\s*["'](?:/|file:|[A-Za-z]:\\)""", re.I)


def site_files(results_dir: Path) -> dict[str, Path]:
    """Relative path in the site -> the file under ``results_dir`` it copies (the index is written, not copied)."""
    out: dict[str, Path] = {}
    for entry in set_entries(results_dir):
        set_dir = entry.report.parent.parent
        for folder, patterns in PAGE_FILES.items():
            for pattern in patterns:
                for path in sorted((set_dir / folder).glob(pattern)):
                    if path.is_file():
                        out[f"{set_dir.name}/{folder}/{path.name}"] = path
    return out


def leaks(name: str, text: str, machine_paths: list[str]) -> list[str]:
    """What a page of the site must not carry: ``<name>: <what>`` for an absolute link, a path of this machine, a
    secret of the environment or a key-shaped string."""
    out = []
    if m := ABSOLUTE.search(SCRIPT.sub("", text)):  # a script's own text (the charts' library) is code, not links
        out.append(f"{name}: an absolute link ({m.group(0)}…)")
    out += [f"{name}: a path of this machine ({p})" for p in machine_paths if p in text]
    if any(v in text for v in secret_values()) or redact(text) != text:
        out.append(f"{name}: a secret or a key-shaped string")
    return out


def publish(results_dir: Path, dest: Path) -> Path:
    """Write the site of ``results_dir`` to ``dest`` (created; files the site has are replaced, others left) and
    return its index. Refuses a ``dest`` inside the results or the checkout's source, and any page that leaks."""
    results_dir, dest = results_dir.resolve(), dest.resolve()
    if dest == results_dir or results_dir in dest.parents or dest in results_dir.parents:
        raise CostOfPassError(f"publish: {dest} overlaps the results "
                              f"({shown(results_dir)}); give a folder outside them")
    files = site_files(results_dir)
    if not files:
        raise CostOfPassError(f"publish: no rendered report under {shown(results_dir)}: run `make all` or "
                              "`cost-of-pass run params/<set>.yaml` first")
    machine = sorted({str(repo_root()), str(results_dir), str(Path.home())} - {"/"}, key=len, reverse=True)
    index = index_html(set_entries(results_dir), results_dir)
    problems = leaks("index.html", index, machine)
    for rel, path in files.items():
        if path.suffix in (".html", ".svg", ".csv"):
            problems += leaks(rel, path.read_text(encoding="utf-8", errors="replace"), machine)
    if problems:
        raise CostOfPassError(f"publish: not published, {len(problems)} page(s) would leak: {problems[0]}")
    for rel, path in files.items():
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, dest / rel)
    (dest / "index.html").write_text(index, encoding="utf-8")
    if broken := broken_links(dest):
        raise CostOfPassError(f"publish: {len(broken)} link(s) of the site at {dest} lead nowhere, e.g. {broken[0]}")
    return dest / "index.html"


def broken_links(root: Path) -> list[str]:
    """``<page>: <link>`` for every link (``href``/``src``) of an HTML page under ``root`` whose file is missing, lies
    outside ``root``, or whose ``#fragment`` names no id of its page. Data URIs and web addresses are not followed."""
    import html as html_lib
    from urllib.parse import unquote

    pages = {p.resolve(): SCRIPT.sub("", p.read_text(encoding="utf-8", errors="replace")) for p in root.rglob("*.html")}
    ids = {p: set(unquote(html_lib.unescape(i)) for i in re.findall(r'\bid="([^"]+)"', text))
           for p, text in pages.items()}
    out = []
    for page, text in pages.items():
        for link in re.findall(r'(?:href|src)="([^"]*)"', text):
            link = html_lib.unescape(link)
            if re.match(r"(data|https?|mailto):", link):
                continue
            path, _, fragment = link.partition("#")
            target = (page.parent / unquote(path)).resolve() if path else page
            if root.resolve() not in target.parents or not target.is_file():
                out.append(f"{page.relative_to(root.resolve())}: {link}")
            elif fragment and target.suffix == ".html" and unquote(fragment) not in ids.get(target, set()):
                out.append(f"{page.relative_to(root.resolve())}: {link}")
    return out
