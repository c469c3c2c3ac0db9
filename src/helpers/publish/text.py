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
           "on SIMULATED sets of the sim set's shape, not of this one{held}).")


def one_run_held() -> str:
    """"; its intervals held 99.0–99.7% (each model alone) … on every generator": the coverage rows of the one-run
    study's saved output (``benchmarks/results/one_run_validity.txt``, written by ``benchmarks/readme_figures.py``),
    never typed (review 7); "" where the checkout has no saved output."""
    path = repo_root() / "benchmarks" / "results" / "one_run_validity.txt"
    rows = dict(re.findall(r"^\| (the frontier|each model alone|two models paired[^:|]*): coverage \| ([^|]+?) \|",
                           path.read_text(encoding="utf-8"), flags=re.M)) if path.is_file() else {}
    return ("; its intervals held the truth in " + ", ".join(f"{v} ({k})" for k, v in rows.items())
            + " of the sets, on every generator") if rows else ""


ONE_RUN_GAINS = ("a release's gain", "a family's gain", "a single model's gain")  # the one-run study's gain rows
HELD = 93.0  # %: what the several-run validity study holds the headline's intervals to on every generator


def one_run_gains() -> str:
    """What the one-run study says of the gains' intervals (each release's, family's and single model's) with one
    run per cell, from its saved output (``benchmarks/results/one_run_validity.txt``; review 11, M3): the coverage
    of each over the generators, said below the several-run study's ``HELD`` % where its lowest is; where the output
    has no gain rows, that no study has measured them at one run."""
    path = repo_root() / "benchmarks" / "results" / "one_run_validity.txt"
    text = path.read_text(encoding="utf-8") if path.is_file() else ""
    rows = dict(re.findall(r"^\| (a [^|:]*?gain) \([^|]*\): coverage \| ([^|]+?) \|", text, flags=re.M))
    if not all(g in rows for g in ONE_RUN_GAINS):
        return ("with one run per cell, as here, no study has measured these gains' intervals: the one-run study "
                "checks the frontier, each model alone and paired differences")
    lowest = min(float(m[0]) if (m := re.match(r"[\d.]+", v)) else 0.0 for v in rows.values())
    wrong = re.search(r"^\| a release's gain shown while its true gain is not above 0 \| ([^|]+?) \|", text, re.M)
    return ("with one run per cell, as here, the one-run study measured these gains' intervals too, on SIMULATED sets "
            "of the sim set's shape, not of this one: they held the truth in "
            + ", ".join(f"{rows[g]} ({g})" for g in ONE_RUN_GAINS) + " of the sets"
            + ("" if lowest >= HELD else f", below the {HELD:g}% the several-run study holds on some generator: "
               "read them as approximate")
            + (f"; a release's gain was shown while its true gain was not above 0 in {wrong[1]} of the datasets"
               if wrong else ""))


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
