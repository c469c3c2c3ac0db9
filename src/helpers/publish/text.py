"""The report's longer prose, kept as Markdown in ``report/text/`` rather than in Python: the Methods box
(``methods.md``, its numbers filled from the code's constants) and the notes shown after a section's artifacts
(``notes.md``, one ``## <section title>`` each) and every artifact's caption (``captions.md``, one
``## <artifact name>`` each). A leading HTML comment says what a file is; lines within a
paragraph are joined, as Markdown would. Imports ``analyze`` for the constants only."""

from __future__ import annotations

import re
from functools import lru_cache

from helpers.analyze.bootstrap import DEFAULT_REPLICATES
from helpers.analyze.frontier_model import FLOOR_TEST_LEVEL
from helpers.analyze.intervals import MODEL_DRAWS
from helpers.core.errors import CostOfPassError
from helpers.core.paths import repo_root


def text_dir():
    return repo_root() / "report" / "text"


@lru_cache(maxsize=8)
def paragraphs(name: str) -> tuple[str, ...]:
    """The paragraphs of ``report/text/<name>`` without its leading comment, each on one line."""
    path = text_dir() / name
    if not path.is_file():
        raise CostOfPassError(f"the report's text {path} is missing (report/text/ is part of the checkout)")
    body = re.sub(r"\A\s*<!--.*?-->\s*", "", path.read_text(encoding="utf-8"), flags=re.S)
    return tuple(" ".join(line.strip() for line in p.splitlines())
                 for p in re.split(r"\n\s*\n", body.strip()) if p.strip())


ONE_RUN = (" That study drew several runs per cell; with one run per cell, as here, the study that checks the "
           "headline is the one-run study (the docs' SWE-bench page, \"Do its intervals hold with one run per cell?\", "
           "on SIMULATED sets of the `sim` set's shape, not of this one{held}).")


def one_run_held() -> str:
    """"; its intervals held 99.0–99.7% (each model alone) … on every generator": the coverage rows of the one-run
    study's saved output (``benchmarks/results/one_run_validity.txt``, written by ``benchmarks/readme_figures.py``),
    never typed (review 7); "" where the checkout has no saved output."""
    path = repo_root() / "benchmarks" / "results" / "one_run_validity.txt"
    rows = dict(re.findall(r"^\| (the frontier|each model alone|two models paired[^:|]*): coverage \| ([^|]+?) \|",
                           path.read_text(encoding="utf-8"), flags=re.M)) if path.is_file() else {}
    return ("; its intervals held the truth in " + ", ".join(f"{v} ({k})" for k, v in rows.items())
            + " of the sets, on every generator") if rows else ""


def methods(one_run: bool = False) -> str:
    """The Methods box (Markdown) with the bootstrap's replicates, the model's draws and the floor test's level; with
    ``one_run`` (a set with one run per cell), the headline's coverage sentence names the study that checks it there
    (review 6, M9)."""
    text = "\n\n".join(paragraphs("methods.md")).format(replicates=DEFAULT_REPLICATES, draws=MODEL_DRAWS,
                                                        floor_level=FLOOR_TEST_LEVEL)
    said = "on every generator tried (the simulated set's section \"Validity on known truth\")."
    return text.replace(said, said + ONE_RUN.format(held=one_run_held())) if one_run else text


def sections(name: str) -> dict[str, str]:
    """``report/text/<name>`` as heading (after ``## ``) -> its Markdown, in file order."""
    out: dict[str, list[str]] = {}
    title = None
    for para in paragraphs(name):
        if para.startswith("## "):
            title = para[3:].strip()
            out[title] = []
        elif title is None:
            raise CostOfPassError(f"{text_dir() / name}: text before the first '## ' heading")
        else:
            out[title].append(para)
    return {t: "\n\n".join(ps) for t, ps in out.items()}


def section_notes(methods: list[str] | None = None) -> dict[str, str]:
    """Section title (as in ``catalog.PARTS``) -> the note the report shows after its artifacts (Markdown). A
    paragraph marked ``[when: a, b]`` is kept only where one of ``methods`` (the set's) starts with ``a`` or ``b``
    (all kept when ``methods`` is None); a note left empty is dropped."""
    out = {}
    for title, text in sections("notes.md").items():
        kept = []
        for para in text.split("\n\n"):
            m = re.match(r"\[when: ([^\]]+)\]\s*", para)
            if m and methods is not None and not any(x.startswith(tuple(w.strip() for w in m.group(1).split(",")))
                                                     for x in methods):
                continue
            kept.append(para[m.end():] if m else para)
        if kept:
            out[title] = "\n\n".join(kept)
    return out


@lru_cache(maxsize=1)
def captions() -> dict[str, str]:
    """Artifact name -> its caption (Markdown with ``{placeholders}``; ``catalog.Artifact``)."""
    return sections("captions.md")
