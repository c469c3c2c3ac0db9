"""Executing a notebook with papermill for a parameter set (the pipeline's stages and the report)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from helpers.core import kernels
from helpers.core.errors import CostOfPassError
from helpers.core.paths import repo_root


class Interrupted(CostOfPassError):
    """A stage stopped by Ctrl-C or SIGTERM (exit status 130)."""


def summary_path(output_path: Path, stage: str) -> Path:
    """Where a stage notebook leaves the one line the runner prints after it (``write_summary``)."""
    return output_path / "notebooks" / f"{stage}.summary.txt"


def write_summary(output_path: Path, stage: str, text: str) -> None:
    """A stage's one-line account of what it did (e.g. calls made, attempts graded), for the runner's line."""
    path = summary_path(output_path, stage)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(" ".join(text.split()) + "\n", encoding="utf-8")


def notes_path(output_path: Path, stage: str) -> Path:
    """Where a stage leaves lines the runner prints below its one-line summary (``write_notes``)."""
    return output_path / "notebooks" / f"{stage}.notes.txt"


def write_notes(output_path: Path, stage: str, notes: list[str]) -> None:
    """Lines the terminal must show after the stage (e.g. each run an import dropped, with its file and line)."""
    path = notes_path(output_path, stage)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(" ".join(n.split()) + "\n" for n in notes), encoding="utf-8")


def execute_notebook(src: Path, dst: Path, params_path: Path, log_output: bool = False, extra: dict | None = None,
                     then: Path | None = None) -> None:
    """Execute one notebook with papermill for a parameter set; raise one line naming the executed copy.

    Like ``papermill -f params/<set>.yaml``: the set's keys are the notebook's parameters (plus
    ``params_file``, where they came from, and ``extra``). The kernel is ``cost-of-pass`` from this environment;
    only a stage of ``kernels.KEY_STAGES`` gets the environment's provider keys. The kernel is the one ``kernels``
    prepared for ``src`` when there is one; ``then`` names the notebook to prepare a kernel for while this one runs.
    """
    import json
    import logging

    import papermill as pm
    import yaml

    logging.getLogger("papermill").setLevel(logging.ERROR)  # the set's keys are all passed, by design
    os.environ.setdefault("JUPYTER_PATH", str(Path(sys.prefix) / "share" / "jupyter"))
    parameters = {**yaml.safe_load(params_path.read_text()), "params_file": str(params_path), **(extra or {})}
    # YAML dates (prices.as_of) as ISO text: papermill writes JSON
    parameters = json.loads(json.dumps(parameters, default=str))
    dst.parent.mkdir(parents=True, exist_ok=True)
    km = kernels.take(src, repo_root())
    if then is not None:
        kernels.prepare(then, repo_root())
    kernel = {"km": km} if km is not None else {"kernel_manager_class": kernels.kernel_manager_class(
        keys=src.stem in kernels.KEY_STAGES)}
    try:
        pm.execute_notebook(str(src), str(dst), parameters=parameters, cwd=str(repo_root()), kernel_name=kernels.KERNEL,
                            log_output=log_output, progress_bar=False, **kernel)
    except pm.PapermillExecutionError as err:
        if err.ename == "KeyboardInterrupt":
            raise Interrupted(f"stopped during {src.stem}") from None
        raise CostOfPassError(f"notebook {src.stem} failed ({err.ename}: {err.evalue}); see {dst}") from None
    except Exception as err:
        raise CostOfPassError(f"notebook {src.stem} failed ({type(err).__name__}: {err}); see {dst}") from None
    finally:
        if km is not None:
            km.retire()


FOUND = "**What it found.**"  # how a stage notebook's closing paragraph starts
NO_TRUTH = "Nothing to check: this set's models are not simulated, so no truth is known."  # 07_validity on real models


def found(text: str) -> str:
    """A stage notebook's closing paragraph: "What it found", then ``text`` (Markdown, already escaped: a list where it
    starts with a blank line); "" where there is nothing to say."""
    body = text.strip()
    if not body:
        return ""
    return FOUND + ("\n\n" if text.lstrip(" ").startswith("\n") else " ") + body
