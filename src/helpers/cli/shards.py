"""``cost-of-pass run SET --shard i/N``: collect and grade one shard of a set's attempts (``core.shards``), for a
scheduler that runs the shards as separate processes (a Slurm array, a Kubernetes indexed Job, a CI matrix).

A shard's run executes ``01_collect`` and ``02_grade`` only, each under the ``settings`` parameter that names the
shard: its plan is the shard's attempts, its records go to files of its own (``<model>.shard-i-of-N.jsonl``), its
grading to ``graded/shard-i-of-N/`` and its executed notebooks to ``notebooks/<stage>.shard-i-of-N.ipynb``, so shards
running at once share no file. It records no stage key and writes no set card (the whole set's run does both). The
frontier, the figures and the report need every shard's records: when all shards have ended, ``cost-of-pass run SET``
(without ``--shard``) reads every file, makes only the calls no shard recorded (none, when every shard ended) and runs
every stage; the line a shard ends with says so.
"""

from __future__ import annotations

import time
from pathlib import Path

from helpers.core import kernels
from helpers.core.context import Context
from helpers.core.errors import CostOfPassError
from helpers.core.notebooks import execute_notebook, notes_path, summary_path
from helpers.core.paths import repo_root, shown
from helpers.core.progress import watch

STAGES = ("01_collect", "02_grade")  # what a shard's run executes; the rest need every shard's records


def refuse(params, only: str | None = None, recollect: bool = False) -> None:
    """One line where ``--shard`` cannot run: the racing design (each wave is chosen from the graded records of every
    problem's cheaper options: one process decides it), a batch collection (the provider already runs the calls
    off this machine, and the batches' journal is the set's), ``--only`` and ``--recollect`` (which move the
    records of every shard)."""
    part = params.settings.part
    if part is None:
        return
    if params.collects_by_race:
        raise CostOfPassError(f"--shard {part.text}: {params.source} has design: racing, whose waves are chosen from "
                              "every option's graded records; run it without --shard")
    if params.batch_mode:
        raise CostOfPassError(f"--shard {part.text}: a batch collection (collection.mode: batch or --batch) is run by "
                              "the provider, not this machine; run it without --shard")
    if only or recollect:
        raise CostOfPassError(f"--shard {part.text}: runs {' and '.join(STAGES)} of its shard; it takes neither --only "
                              "nor --recollect")


def run_shard(params_path: Path, ctx: Context, log_output: bool = False, overwrite: bool = False) -> list[str]:
    """Execute the shard's ``01_collect`` then ``02_grade`` (one line each), then say what to run next; refused in
    one line when the folder is another set's (``index_page.check_claim``). Returns the stages executed."""
    from helpers.publish.index_page import check_claim

    params = ctx.params
    check_claim(ctx, params_path, overwrite)
    try:
        for name, then in zip(STAGES, [*(_notebook(n) for n in STAGES[1:]), None], strict=True):
            _run(params_path, params, name, then, log_output)
    finally:
        kernels.retire()  # a kernel started for a stage that did not run
    print(f"next  shard {params.settings.shard} of {params.name} collected and graded; when every shard has ended, run "
          f"`cost-of-pass run {shown(params_path)}` (without --shard) to merge them and run every stage", flush=True)
    return list(STAGES)


def _notebook(name: str) -> Path:
    return repo_root() / f"notebooks/{name}.ipynb"


def _run(params_path: Path, params, name: str, then: Path | None, log_output: bool) -> None:
    """One stage of a shard's run: executed to ``notebooks/<stage>.shard-i-of-N.ipynb``, then its line (and notes)."""
    stage = params.stage_id(name)
    dst = params.output_path / "notebooks" / f"{stage}.ipynb"
    for path in (summary_path(params.output_path, stage), notes_path(params.output_path, stage)):
        path.unlink(missing_ok=True)
    start = time.perf_counter()
    with watch(dst.with_name(f".{stage}.progress.json"), stage=name):
        execute_notebook(_notebook(name), dst, params_path, log_output, extra={"settings": params.settings.parameter()},
                         then=then)
    summary = summary_path(params.output_path, stage)
    said = summary.read_text(encoding="utf-8").strip() if summary.is_file() else ""
    print(f"ok    {stage:<18} {time.perf_counter() - start:6.1f} s  {said} -> {shown(dst)}", flush=True)
    notes = notes_path(params.output_path, stage)
    for line in notes.read_text(encoding="utf-8").splitlines() if notes.is_file() else []:
        print(f"      {line}", flush=True)
