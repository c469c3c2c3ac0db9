"""The measured figures of the docs, regenerated rather than typed: runs the benchmarks (and the fast test loop), keeps
each output with its date, machine and command in ``benchmarks/results/<id>.txt``, and rewrites ``docs/benchmarks.md``
between its markers from those files, and any table an output prints for another page (``doc_blocks``: the
measured table of docs/statistics.md) between that page's markers.

    make readme-figures                                            # everything, one after the other (~30 min, 2 cores)
    .venv/bin/python benchmarks/readme_figures.py grading_speed    # some runs; the others keep their saved output
    .venv/bin/python benchmarks/readme_figures.py --readme-only    # rewrite docs/benchmarks.md from the saved outputs

Run it on a quiet machine: every figure is a wall-clock time. ``tests/test_architecture.py`` checks that the
page's section is exactly what the saved outputs give, so a figure typed by hand there fails the tests.
"""

from __future__ import annotations

import datetime as dt
import os
import platform
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
PAGE = ROOT / "docs" / "benchmarks.md"
START, END = ("<!-- readme-figures: start (benchmarks/readme_figures.py writes this section) -->",
              "<!-- readme-figures: end -->")


@dataclass(frozen=True)
class Run:
    """One measurement: the command (run from the repository root with this interpreter) and what it measures."""

    id: str
    args: tuple[str, ...]
    what: str
    shown: str = ""  # the command as a reader types it (default: the script and its arguments)

    @property
    def command(self) -> str:
        return self.shown or "python " + " ".join(self.args)


RUNS = (
    Run("test_fast", ("-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", str((os.cpu_count() or 1) + 1), "-m",
                      "not slow and not browser"),
        "every test but the slow and browser ones (the loop while editing)", "make test-fast"),
    Run("suite_workers", ("benchmarks/suite_workers.py",),
        "the fast loop's tests on one pytest-xdist worker per core against one per core and one more (what `make test` "
        "and `make test-fast` run): wall and how busy the cores were"),
    Run("suite_gc", ("benchmarks/suite_gc.py",),
        "the fast loop's tests with each worker's collected objects frozen out of the garbage collector (what `make "
        "test` runs) against the same left in its sight: wall and CPU seconds"),
    Run("setup_install", ("benchmarks/setup_install.py",),
        "`make setup`'s install into a fresh .venv as the Makefile runs it (pip --no-compile, the package's import "
        "closure compiled) against pip's default (every module compiled), then the first and second run's imports"),
    Run("figure_save", ("benchmarks/figure_save.py",),
        "a report figure drawn and saved (layout check, PNG, SVG) as `save_figure` does it, against the same with the "
        "layout engine `tight_layout` leaves on the figure (before): CPU seconds per figure"),
    Run("pipeline_stages_sim", ("benchmarks/pipeline_stages.py", "params/sim.yaml"),
        "the `sim` set (160,800 simulated calls) cold with each stage's kernel started when the stage starts, "
        "cold with warm kernels (the default), then again with nothing changed, per stage"),
    Run("pipeline_stages_local", ("benchmarks/pipeline_stages.py", "params/local.yaml"),
        "the `local` set from its committed records (cold kernels, warm kernels), then with nothing changed"),
    Run("forked_kernels", ("benchmarks/forked_kernels.py", "params/tiny.yaml", "3"),
        "the `tiny` set cold with its keyless warm kernels forked from a zygote that imported the stages' modules "
        "once and froze them out of the garbage collector (the default), forked from one that did not freeze them, "
        "and each started as its own process: CPU seconds and wall"),
    Run("humaneval_grading", ("benchmarks/humaneval_grading.py",),
        "the `humaneval_agents` set: import, grading cold against its bound (the programs' and their harnesses' CPU / "
        "cores), cold again beside a busy loop per core (verdicts identical?), from the "
        "verdict cache, the rest, a no-op"),
    Run("collect_overhead", ("benchmarks/collect_overhead.py", "3000"), "simulated calls per second, by path"),
    Run("analysis_scale", ("benchmarks/analysis_scale.py",),
        "the grading stage's analysis on synthetic graded calls at 1×, 10×, 100× the paper's: time and peak memory"),
    Run("collect_memory", ("benchmarks/collect_memory.py",),
        "`collect` with nothing pending at 1× and 10× the paper's records: time and peak memory"),
    Run("grading_speed", ("benchmarks/grading_speed.py",), "grading and majority votes, memoised against per-row"),
    Run("http_throughput", ("benchmarks/http_throughput.py",),
        "collection against an OpenAI-compatible server on 127.0.0.1 answering after 200 ms, by path and concurrency"),
    Run("import_scale", ("benchmarks/import_scale.py",), "importing a FEval-TTC-sized zip, then again"),
    Run("blas_threads", ("benchmarks/blas_threads.py",),
        "the model-based frontier's fit with one OpenBLAS thread (what the CLI, the Makefile and the tests set) "
        "against one per core (OpenBLAS's default)"),
    Run("cli_startup", ("benchmarks/cli_startup.py", "5", "--with-checker"),
        "what every command pays to import papermill as locked, and beside the newer jsonschema whose IRI checker the "
        "lock keeps out"),
    Run("interval_speed", ("benchmarks/interval_speed.py",),
        "every interval of a simulated set of the paper's shape (1,000 bootstrap replicates, model draws)"),
    Run("model_checks_size", ("benchmarks/model_checks_size.py", "6000", "2000"),
        "the item-response model's checks calibrated to their nominal size on 6,000 own-family sets at paper scale, "
        "their size measured on 2,000 others (writes the calibration; run before `model_checks_power`)"),
    Run("model_checks_shapes", ("benchmarks/model_checks_size.py", "shapes", "2000", "500"),
        "the same checks calibrated at three smaller shapes (20 x 3 x 4, 60 x 6 x 4, 164 x 6 x 5), each on 2,000 sets, "
        "their size measured on 500 others (adds the shapes to the calibration)"),
    Run("model_checks_sim", ("benchmarks/model_checks_size.py", "sim", "800", "200"),
        "the same checks calibrated at the `sim` set's own dataset shapes (128 and 30 problems x 20 strategies x 8 "
        "runs) on 800 SIMULATED sets of its own generative model, their size measured on 200 others (adds the shapes)"),
    Run("model_checks_pipeline", ("benchmarks/model_checks_size.py", "pipeline", "200"),
        "the size those checks reach on `sim` as the report runs them (every set's checks seeded with the set's seed), "
        "on 200 SIMULATED sets of its own model, per dataset and per set of six datasets (issue 61, item 5)"),
    Run("model_checks_power", ("benchmarks/model_checks_power.py", "20"),
        "size and power of the item-response model's checks per generator"),
    Run("gated_coverage", ("benchmarks/gated_coverage.py", "6"),
        "coverage of the model-based intervals per generator, over all cells and where the checks pass"),
    Run("routing_coverage", ("benchmarks/routing_coverage.py", "40"),
        "coverage of the cross-fitted routing envelope's interval of its own truth per generator, 40 sets each"),
    Run("comparison_power", ("benchmarks/comparison_power.py", "100"),
        "the headline's comparisons at the paper's scale, 100 SIMULATED sets of the `sim` shape per generator: the "
        "frontier against the best single model, every pair of models paired on the same problems (coverage, width "
        "over the oracle's, power where one costs at most half the other, false findings), the cheapest claim, the "
        "technique gains with no effect and with a true one, and equal options (a model's twin)"),
    Run("fee_interval_study", ("benchmarks/fee_interval_study.py", "100", "prior,poisson", "1"),
        "the fee part's interval from what each problem's runs say (empirical-Bayes prior, the default) beside the "
        "weighted Poisson one it replaced, on the same 100 SIMULATED sets of the `sim` shape per generator (seed 1: "
        "sets the method was not built on): coverage of each set's own truth and width over the oracle's, each "
        "model alone, the frontier and the technique gains"),
    Run("fee_interval_study_4runs", ("benchmarks/fee_interval_study.py", "40", "prior,poisson", "2", "4"),
        "the same with 4 runs per cell (k = 2), 40 SIMULATED sets per generator (seed 2): the fewest runs at which the "
        "fee part's interval from each problem's runs is used (`fee_prior.MIN_RUNS`; with 2 runs, the Poisson one)"),
    Run("frontier_interval", ("benchmarks/frontier_interval.py", "40"),
        "the frontier's interval where the choice is not routed (every half-split, the headline's until 2026-12-02): "
        "the union with the interval of each model it chose, at the level for the models the "
        "records cannot tell from the cheapest (the product's), beside the level for every model at once and the "
        "per-problem interval alone, on the same 40 SIMULATED sets of the `sim` shape per generator (seed 1): coverage "
        "and width over the oracle's; and on six equally good models, 30 sets"),
    Run("accuracy_interval", ("benchmarks/accuracy_interval.py", "100"),
        "Table 5's accuracy interval: Jeffreys' at the variance of the runs alone, each problem's spread read under "
        "the dataset's fitted Beta prior (the product's), beside the pooled count of every run it replaced, on 100 "
        "SIMULATED sets of the `sim` shape per generator read at 2, 3, 5 and 8 runs (seed 1), and on known rate "
        "distributions: coverage of each set's own truth and width over the oracle's"),
    Run("routing_cost", ("benchmarks/routing_cost.py", "6"),
        "what routing each problem by a shared difficulty (the headline's since 2026-12-02: five item-response and "
        "interaction fits per dataset) costs in time, on the same 6 SIMULATED sets of the `sim` shape, beside the rule "
        "before it (every half-split) and the routing with its fits run to scipy's own tolerance; then a whole set of "
        "the validity study (`policy_study.draw_set`) in CPU-seconds under each"),
    Run("routed_gains", ("benchmarks/routed_gains.py", "20"),
        "gains (Table 2's techniques, Figures 3-5) between choices routed problem by problem by a difficulty the "
        "models share (the headline's since 2026-12-02), with the delta method's interval at the estimate from each "
        "problem's run-level variance, beside the rule before it (every half-split) on the same 20 SIMULATED sets per"
        " generator: coverage of the set's own truth, width over the oracle's (over the intervals bounded in every "
        "set), the share of intervals with an infinite end, false findings"),
    Run("frontier_choice", ("benchmarks/frontier_choice.py", "40"),
        "how the headline frontier chooses its option per problem: the product's since 2026-12-02, each problem "
        "routed by a difficulty the models share (item-response curves fitted without the problem's fold of 5, the "
        "problem placed on them by half of its runs, valued on the other half, averaged over every split), beside the "
        "rule before it, every half-split (the other problems' runs and half of the problem's own choose one model), "
        "leave-one-out (the other problems choose) and every half-split with the choosing half weighed as 1, 2, 4 or 8 "
        "other problems, the weight chosen on the other problems' held-out halves (own-weight-cv), on the same "
        "40 SIMULATED sets of the `sim` shape per generator (seed 1): the frontier's coverage, width over the "
        "oracle's, relative bias, and its truth over the best single model's (all datasets, and the worst one)"),
    Run("one_run_validity", ("benchmarks/one_run_validity.py", "100"),
        "the same with ONE run per cell, as SWE-bench bash-only has: 100 SIMULATED sets of the `sim` shape per "
        "generator; the frontier's and each model's coverage and width over the oracle's, the frontier against the "
        "best single model, every pair's coverage and power, and the coverage of each release's, family's and single "
        "model's gain (the gains the report tests together)"),
    Run("halving_coverage", ("benchmarks/halving_coverage.py", "40"),
        "how often a halving time the rule marks reliable holds its truth, per generator, 40 sets each (writes the "
        "verdict every report's halving times obey)"),
    Run("racing", ("benchmarks/racing.py", "30"),
        "the racing collection design replayed 30 times on the HumanEval runs and on the `sim` set: calls and USD "
        "against the uniform design (also in the batch tier: batch, racing + batch), and the largest change of every "
        "frontier statistic (needs both sets' results)"),
    Run("racing_replay", ("benchmarks/racing_replay.py",),
        "`design: racing` on the imported HumanEval and SWE-bench bash-only sets: the rule replayed once on their "
        "records with the sets' own settings (what their reports' racing_replay tables say): the USD and calls the "
        "race would have made, and each figure identical or not (needs both sets' results)"),
    Run("racing_validity", ("benchmarks/racing_validity.py", "40"),
        "the racing design against the uniform one on known truth: bias, coverage and width per generator, 40 "
        "simulated sets each"),
    Run("racing_forecast", ("benchmarks/racing_forecast.py", "50"),
        "the racing design's forecast bill (what the dry run prints) against the actual bill of 50 simulated "
        "`sim_racing` sets per generator: coverage of the 90% range, its width and the bias, from the pilot and from "
        "the prior"),
)
BY_ID = {r.id: r for r in RUNS}


def machine() -> str:
    """This machine in one phrase: CPU model, cores, memory (GiB), OS."""
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor() or "unknown CPU")
    kib = next((int(line.split()[1]) for line in Path("/proc/meminfo").read_text().splitlines()
                if line.startswith("MemTotal")), 0)
    return f"{cpu}, {os.cpu_count()} cores, {kib / 2**20:.0f} GiB, {platform.system()} {platform.release()}"


def measure(run: Run) -> str:
    """Run one measurement; returns the text saved for it: a header (date, machine, command, wall time) and its
    output."""
    started = time.perf_counter()
    env = {"OPENBLAS_NUM_THREADS": "1",  # as the Makefile and the runner's kernels: one BLAS thread unless told
           **os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "HF_HUB_OFFLINE": "1"}
    out = subprocess.run([sys.executable, *run.args], cwd=ROOT, capture_output=True, text=True, env=env, timeout=7200)
    if out.returncode != 0:
        raise SystemExit(f"{run.id} failed ({out.returncode}):\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}")
    lines = out.stdout.strip().splitlines()
    if run.id == "test_fast":  # the summary line only, not the durations
        lines = [line.strip("= ") for line in lines if " passed" in line][-1:]
    return "\n".join([f"date: {dt.date.today().isoformat()}", f"machine: {machine()}",
                      f"command: {run.command}", f"wall: {time.perf_counter() - started:.1f} s", "",
                      *lines]) + "\n"


def saved(run: Run) -> tuple[dict[str, str], list[str]] | None:
    """A saved measurement: its header fields and its output lines (None if never measured)."""
    path = RESULTS / f"{run.id}.txt"
    if not path.is_file():
        return None
    head, _, body = path.read_text(encoding="utf-8").partition("\n\n")
    fields = dict(line.split(": ", 1) for line in head.splitlines())
    return fields, body.rstrip("\n").splitlines()


def section() -> str:
    """The Benchmarks section of ``docs/benchmarks.md``, from the saved outputs (in ``RUNS``' order)."""
    parts = [START, "", "Generated by `make readme-figures` (`benchmarks/readme_figures.py`) from the outputs saved in",
             "`benchmarks/results/`; earlier measurements, with what changed between them, are in",
             "`benchmarks/HISTORY.md`. Timings are read by people, never asserted in tests.", ""]
    for run in RUNS:
        found = saved(run)
        parts.append(f"**`{run.command}`** — {run.what}.")
        if found is None:
            parts += ["", "*Not measured yet.*", ""]
            continue
        fields, lines = found
        parts += [f"Measured {fields['date']} on {fields['machine']} ({fields['wall']} in all):", "", "```", *lines,
                  "```", ""]
    return "\n".join([*parts, END])


BLOCK = re.compile(r"<!-- (?P<page>docs/[\w.-]+\.md)#(?P<name>[\w-]+): start "
                   r"-->\n.*?\n<!-- (?P=page)#(?P=name): end -->", re.S)


def doc_blocks() -> dict[tuple[str, str], str]:
    """(page, name) -> a block a saved output prints for another page (a measured table: ``<!-- docs/x.md#name: start
    -->`` … ``<!-- docs/x.md#name: end -->``), markers included, with the output's date and command as its first
    line: the page holds it between the same markers."""
    out = {}
    for run in RUNS:
        found = saved(run)
        for m in BLOCK.finditer("\n".join(found[1]) if found else ""):
            start = f"<!-- {m['page']}#{m['name']}: start -->"
            dated = f"{start}\n*Measured {found[0]['date']} by `{run.command}` (its saved output).*\n\n"
            out[(m["page"], m["name"])] = m.group(0).replace(f"{start}\n", dated, 1)
    return out


def _replace_between(path: Path, start: str, end: str, block: str) -> None:
    text = path.read_text(encoding="utf-8")
    if start not in text or end not in text:
        raise SystemExit(f"{path}: the markers of the generated section are missing ({start})")
    before, rest = text.split(start, 1)
    path.write_text(before + block + rest.split(end, 1)[1], encoding="utf-8")


def write_readme() -> None:
    """docs/benchmarks.md's section, and every page's measured block (``doc_blocks``), from the saved outputs."""
    _replace_between(PAGE, START, END, section())
    for (page, name), block in doc_blocks().items():
        _replace_between(ROOT / page, f"<!-- {page}#{name}: start -->", f"<!-- {page}#{name}: end -->", block)


def main(argv: list[str]) -> None:
    if argv != ["--readme-only"]:
        unknown = [a for a in argv if a not in BY_ID]
        if unknown:
            raise SystemExit(f"unknown run(s) {', '.join(unknown)} (known: {', '.join(BY_ID)})")
        RESULTS.mkdir(exist_ok=True)
        write_readme()  # in step with the saved outputs before each run (the fast test loop checks it)
        for run in [BY_ID[a] for a in argv] or RUNS:
            print(f"{run.id} …", flush=True)
            (RESULTS / f"{run.id}.txt").write_text(measure(run), encoding="utf-8")
            write_readme()
    write_readme()


if __name__ == "__main__":
    main(sys.argv[1:])
