"""The pipeline runner: ``cost-of-pass run params/<set>.yaml [--dry-run]``.

It validates everything that can fail before money is spent (parameters, models, prices, data, API
keys, budget), then executes the notebooks in order with papermill, writing executed copies to
``results/<set>/notebooks/``, and renders the offline report. It stops at the first failing
notebook with a non-zero exit and that notebook's path.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from helpers.cli.shards import refuse as refuse_shard
from helpers.cli.shards import run_shard
from helpers.cli.skipping import StageKeys
from helpers.collect.preflight import estimate, format_estimate, preflight_estimate
from helpers.collect.records import move_records_aside
from helpers.core import kernels
from helpers.core.context import Context, prepare
from helpers.core.errors import CostOfPassError, MissingData, run_command
from helpers.core.notebooks import execute_notebook, notes_path, summary_path
from helpers.core.params import load_params, params_file
from helpers.core.paths import repo_root, shown
from helpers.core.progress import watch
from helpers.core.settings import RunSettings

# what `make all` shows: real local models, then the paper at scale
DEFAULT_SETS = ["params/local.yaml", "params/sim.yaml"]
NOTEBOOKS = ["01_collect", "02_grade", "03_frontier", "04_trends", "05_counterfactual", "06_techniques", "07_validity"]


def run_stages(params_path: Path, ctx: Context, pending_calls: int, names: list[str] | None = None,
               log_output: bool = False, force: bool = False, report: bool = True,
               overwrite: bool = False) -> list[str]:
    """Execute the notebooks in order, then the report; stop at the first that fails (its executed copy is named).

    First the set claims its output folder (``index_page.claim``: refused when another parameter file of
    the same name wrote it, unless ``overwrite``). A stage whose inputs are unchanged since its last
    success is skipped (``skipping``), one line each; collection only when no call is pending. The
    site's index is rebuilt after the report. Returns the stages executed.
    """
    from helpers.publish.index_page import claim, write_index

    params = ctx.params
    claim(ctx, params_path, overwrite)
    keys = StageKeys(ctx)
    ran: list[str] = []
    order = [*(names or NOTEBOOKS), *(["report"] if report else [])]
    try:
        for name, then in zip(order, [*(notebook_path(n) for n in order[1:]), None], strict=True):
            if run_stage(params_path, ctx, keys, name, then, pending_calls, force, log_output):
                ran.append(name)
    finally:
        kernels.retire()  # a kernel started for a stage that did not run
    if report:
        write_index(params.output_path.parent)
    return ran


def notebook_path(name: str) -> Path:
    """The notebook a stage executes (the report's for ``report``)."""
    from helpers.publish.report import REPORT_NOTEBOOK

    return repo_root() / (REPORT_NOTEBOOK if name == "report" else f"notebooks/{name}.ipynb")


def run_stage(params_path: Path, ctx: Context, keys: StageKeys, name: str, then: Path | None, pending_calls: int,
              force: bool, log_output: bool) -> bool:
    """Run one stage unless its inputs are unchanged (one line either way); ``then`` is the notebook whose kernel
    starts while this stage runs (``kernels.prepare``). Returns whether it ran."""
    params = ctx.params
    dst = params.output_path / ("report/index.html" if name == "report" else f"notebooks/{name}.ipynb")
    stale = force or not dst.is_file() or not keys.unchanged(name) or (name == "01_collect" and pending_calls)
    if not stale:
        print(f"skip  {name:<18} inputs unchanged (records, parameters, code); --force runs it", flush=True)
        return False
    keys.forget(name)
    if name != "report":
        from helpers.publish.catalog import remove_outputs

        remove_outputs(params, name)  # what this run no longer publishes must not reach the report from the last one
    summary_path(params.output_path, name).unlink(missing_ok=True)
    notes_path(params.output_path, name).unlink(missing_ok=True)
    start = time.perf_counter()
    if name == "report":
        from helpers.publish.report import render_offline

        render_offline(params_path, params)
    else:
        with watch(dst.with_name(f".{name}.progress.json"), stage=name):  # the stage's tqdm bar, redrawn here
            execute_notebook(notebook_path(name), dst, params_path, log_output,
                             extra={"settings": params.settings.parameter()}, then=then)
    keys.record(name)
    print(f"ok    {name:<18} {time.perf_counter() - start:6.1f} s  "
          f"{what_it_did(params, name)} -> {shown(dst)}", flush=True)
    notes = notes_path(params.output_path, name)
    for line in notes.read_text(encoding="utf-8").splitlines() if notes.is_file() else []:
        print(f"      {line}", flush=True)
    return True


def what_it_did(params, name: str) -> str:
    """The stage's own one-line summary (collection, grading), else the catalogued tables and figures it wrote."""
    path = summary_path(params.output_path, name)
    if path.is_file():
        return path.read_text(encoding="utf-8").strip()
    from helpers.publish.catalog import CATALOG

    made = [a for a in CATALOG.values() if a.stage == name and
            ((params.figures_path if a.kind == "figure" else params.tables_path) / f"{a.name}.caption.md").is_file()]
    tables, figures = sum(a.kind == "table" for a in made), sum(a.kind == "figure" for a in made)
    if name == "report":
        return "HTML report"
    return (f"{tables} table{'s' * (tables != 1)}, {figures} figure{'s' * (figures != 1)}" if made
            else "nothing to publish")


ENV_DEFAULTS = {"LITELLM_LOCAL_MODEL_COST_MAP": "True",  # litellm's bundled price map, not a download
                "HF_HUB_OFFLINE": "1",  # no Hugging Face Hub look-ups
                "MPLBACKEND": "Agg",  # the stages' kernels draw to files; the notebooks show the saved PNGs
                "OPENBLAS_NUM_THREADS": "1"}  # the kernels' many small linear-algebra calls: OpenBLAS's idle threads
# spin more than they help (benchmarks/blas_threads.py); the validity study forks one process per core instead


def main(argv: list[str] | None = None) -> int:
    for key, value in ENV_DEFAULTS.items():  # for the kernels it starts (and this process, but for OpenBLAS, which
        # numpy loaded before this line); a user's own setting wins
        os.environ.setdefault(key, value)
    args = parser().parse_args(argv)
    stop_on_signals()
    return run_command(lambda: command(args))


def parser() -> argparse.ArgumentParser:
    """The command line: run, all, check, report, quarto, publish, reprice, import."""
    from helpers import __version__

    ap = argparse.ArgumentParser(prog="cost-of-pass", description=__doc__.split("\n\n")[0])
    ap.add_argument("--version", action="version", version=f"cost-of-pass {__version__}")
    sub = ap.add_subparsers(dest="command", required=True)
    run = _run_parser(sub)
    every = sub.add_parser("all", help="run the default sets (or those named), then write results/index.html")
    every.add_argument("params", nargs="*", help=f"params/<set>.yaml ... (default: {', '.join(DEFAULT_SETS)}; "
                                                 "a default set whose data is missing is skipped with one line)")
    every.add_argument("--force", action="store_true", help="run every stage, even those whose inputs are unchanged")
    every.add_argument("--overwrite", action="store_true",
                       help="take over results/<name>/ even though another parameter file of that name wrote it")
    check = sub.add_parser("check", help="validate a parameter set and print its estimate (= run --dry-run)")
    check.add_argument("params")
    sub.add_parser("ls", help="the parameter sets (in params/ and on disk), datasets, "
                   "models, methods and price snapshots")
    report, quarto = _report_parsers(sub)
    from helpers.cli.importer import add_parser

    importing = add_parser(sub)
    reprice = sub.add_parser("reprice", help="every table and figure of a set at another date's prices, without a call")
    reprice.add_argument("params")
    reprice.add_argument("--as-of", required=True, type=_date, help="YYYY-MM-DD: each model's price in effect that day")
    reprice.add_argument("--force", action="store_true", help="run every stage, even those whose inputs are unchanged")
    for sp in (run, every, check, report, quarto, reprice, importing):
        sp.add_argument("--write-anywhere", action="store_true",
                        help="let the set's output_dir lie outside the project's results/ directory")
    for sp in (run, every):
        sp.add_argument("--unisolated-grading", action="store_true",
                        help="where no kernel boundary (bubblewrap) can be had, run model-written code without one: it "
                             "can then read and change this machine; every verdict and the report say so")
    return ap


def _run_parser(sub) -> argparse.ArgumentParser:
    """``run``: preflight, then the notebooks of a set."""
    run = sub.add_parser("run", help="preflight, then execute the notebooks for a parameter set")
    run.add_argument("params", help="params/<set>.yaml")
    run.add_argument("--dry-run", action="store_true", help="validate, then print pending calls and estimated USD "
                                                            "per model; call nothing (the same as `check`)")
    run.add_argument("--only", help="comma-separated notebook names (default: all, in order)")
    run.add_argument("--log-output", action="store_true", help="stream notebook output")
    run.add_argument("--no-report", action="store_true", help="skip the offline HTML report")
    run.add_argument("--force", action="store_true", help="run every stage, even those whose inputs are unchanged")
    run.add_argument("--offline", action="store_true", help="refuse any model whose api_base is another machine")
    run.add_argument("--batch", action="store_true", help="send the calls through the providers' batch APIs "
                                                          "(OpenAI, Anthropic), billed at their batch discount")
    run.add_argument("--shard", default="", metavar="I/N",
                     help="collect and grade only shard I of N of the set's attempts (a stable hash of each attempt's "
                          "key), into files of its own; then run the set without --shard to merge the shards and run "
                          "every stage (docs/collection.md, Shards)")
    run.add_argument("--recollect", action="store_true",
                     help="collect every call again (the previous records move to records.previous/)")
    run.add_argument("--overwrite", action="store_true",
                     help="take over results/<name>/ even though another parameter file of that name wrote it")
    return run


def _report_parsers(sub) -> tuple:
    """The commands that render or publish what the stages wrote: report, quarto, quarto-site, publish (the first two
    returned: they take --write-anywhere)."""
    report = sub.add_parser("report", help="re-render the offline HTML report of a set from its results")
    report.add_argument("params")
    quarto = sub.add_parser("quarto",
                            help="render a set's report with Quarto, its execution cache keyed on the results")
    quarto.add_argument("params")
    quarto.add_argument("--no-cache", action="store_true", help="execute the report even if its results are unchanged")
    website = sub.add_parser("quarto-site", help="write (and, with Quarto, render) a Quarto website: one page per set, "
                                                 "the sets' index as its home (report/site/)")
    website.add_argument("params", nargs="*", help="params/<set>.yaml ... (default: every set with a rendered report)")
    publish = sub.add_parser("publish", help="write the site (index, every report, its CSVs, data dictionary and "
                                             "figures) as a static folder to copy to any host")
    publish.add_argument("dir", nargs="?", default="site", help="the folder to write (default: site)")
    publish.add_argument("--results", default=None,
                         help="the results folder to publish (default: the project's results/)")
    return report, quarto


def run_settings(args: argparse.Namespace) -> RunSettings:
    """What the command allows (``core.settings``): the user's own switches and the command's flags — offline,
    writing outside ``results/``, grading model-written code without a kernel boundary. Every stage is given it as
    its ``settings`` parameter; nothing reaches a stage through the environment."""
    return RunSettings.from_environment().allowing(offline=getattr(args, "offline", False),
                                                   write_anywhere=getattr(args, "write_anywhere", False),
                                                   unisolated_grading=getattr(args, "unisolated_grading", False),
                                                   batch=getattr(args, "batch", False),
                                                   shard=getattr(args, "shard", "") or "")


def stop_on_signals() -> None:
    """Ctrl-C (SIGINT) and SIGTERM stop the spending: the first interrupts the running stage's kernel, whose cell
    stops starting calls and ends with what it recorded (or, outside a stage, stops here); a second one kills the
    kernels at once and exits. Either way one line says what was kept (``run_command``), exit status 130."""
    import signal

    from helpers.core.kernels import interrupt_kernels, kill_kernels

    presses = {"n": 0}

    def on_signal(signum, frame):
        presses["n"] += 1
        if presses["n"] > 1:
            kill_kernels()
            print("stopped at once: every call recorded is kept; run the same command again to resume", file=sys.stderr)
            os._exit(130)
        print("\nstopping: no new call starts; the calls in flight are recorded or dropped unrecorded "
              "(press Ctrl-C again to stop at once)", file=sys.stderr, flush=True)
        if not interrupt_kernels():
            raise KeyboardInterrupt

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)


def _date(text: str):
    import datetime as dt

    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a date (YYYY-MM-DD): {text!r}") from None


def dry_run(params, params_path: Path, overwrite: bool = False) -> None:
    """``check`` and ``run --dry-run``: the bill of the pending calls, then the run's own refusals but for missing
    keys (a dry run is how to see the bill without them): another set's folder, a bill over the budget; writes
    nothing."""
    from helpers.collect.budget import check_budget, recorded_spend_usd
    from helpers.collect.preflight import check_remote_hosts, check_replay_recorded, racing_floor
    from helpers.publish.index_page import check_claim

    ctx = prepare(params)
    for line in check_remote_hosts(ctx):
        print(line, file=sys.stderr)
    params, ctx = sized_set(params, ctx)
    est = estimate(ctx)
    forecast = racing_forecast(ctx, est)
    print(format_estimate(ctx, est, forecast), flush=True)
    check_replay_recorded(ctx, est)
    if params.settings.part:
        print(f"shard {params.settings.shard}: the calls and USD above are this shard's (docs/collection.md, Shards)",
              flush=True)
    if params.batch_mode:
        from helpers.collect.batch import check_batchable

        check_batchable(ctx.models)
    check_claim(ctx, params_path, overwrite)
    check_budget_forecast(params, forecast)
    check_budget(params, recorded_spend_usd(params, ctx.snapshot),
                 racing_floor(ctx) if params.collects_by_race else est)


def sized_set(params, ctx: Context):
    """(params, ctx) as the set collects: a racing set's Table-1 share sized by ``budget: {target_usd}``
    (``grade.forecast.sized``), said in one line."""
    if params.budget is None or not params.collects_by_race:
        return params, ctx
    from helpers.grade.forecast import sized

    params, ctx = sized(params, ctx)
    print(f"budget.target_usd ${params.budget.target_usd:g}: Table-1 share {params.racing.table1_share:.0%} (the "
          "largest whose forecast, read from no record, has its 95th percentile within it)", flush=True)
    return params, ctx


def preflight_run(params):
    """``collect.preflight.preflight_estimate`` of the set as it collects (``sized_set``), then a racing set's forecast
    against its budget (``check_budget_forecast``): every refusal before any call."""
    if params.budget is not None:
        params = sized_set(params, prepare(params))[0]
    ctx, est = preflight_estimate(params)
    check_budget_forecast(params, racing_forecast(ctx, est))
    return ctx, est


def racing_forecast(ctx: Context, est):
    """A racing set's forecast bill (``grade.forecast.set_forecast``); None for another design or nothing pending."""
    if not ctx.params.collects_by_race or est.empty:
        return None
    from helpers.grade.forecast import set_forecast

    return set_forecast(ctx)


def check_budget_forecast(params, forecast) -> None:
    """``collect.budget.check_forecast``: its warning line on stderr, its refusal raised."""
    if forecast is None:
        return
    from helpers.collect.budget import check_forecast

    for line in check_forecast(params, forecast):
        print(line, file=sys.stderr, flush=True)


def run_reprice(params_path: str, as_of, force: bool = False, settings: RunSettings | None = None) -> Path:
    """The set's stages after collection, on its records, at the prices of ``as_of`` (``cli.reprice``); the report's
    path. ``settings``: the command's (``run_settings``)."""
    from helpers.cli.reprice import repriced

    path, params = repriced(params_path, as_of, settings)
    ctx = prepare(params)  # a model without a price by that date fails here, before any stage
    print(f"set   {params.name} (records of {shown(params.records_path)}; prices: {ctx.snapshot.source})", flush=True)
    run_stages(path, ctx, 0, NOTEBOOKS[1:], force=force)
    report = params.output_path / "report/index.html"
    print(f"open  {shown(report)}", flush=True)
    return report


def run_all(paths: list[str], force: bool = False, overwrite: bool = False,
            settings: RunSettings | None = None) -> Path:
    """Run each set, then rebuild the index page of every report on disk; returns the page's path.

    Without ``paths``, the default sets: ``local`` (committed records), then ``sim`` when the
    benchmark data is there; a default set whose data is missing is skipped with one line saying
    how to get it. A set named explicitly must run. The page goes to the folder holding the sets'
    output directories (``results/``). ``settings``: the command's (``run_settings``).
    """
    import os

    from helpers.publish.index_page import write_index

    sets = [(path, load_params(path, settings)) for path in paths or DEFAULT_SETS]
    for path, params in sets:
        try:
            ctx, est = preflight_estimate(params)
        except MissingData as err:
            if paths:  # a set named explicitly must run
                raise
            print(f"skip  set {params.name}: {err}", flush=True)
            continue
        print(f"set   {params.name}", flush=True)
        run_stages(Path(path).resolve(), ctx, int(est["calls"].sum()) if not est.empty else 0, force=force,
                   overwrite=overwrite)
    page = write_index(Path(os.path.commonpath([p.output_path.parent for _, p in sets])))
    print(f"open  {shown(page)}", flush=True)
    return page


def publish_site(args: argparse.Namespace) -> None:
    """``publish [DIR]``: the results' site as a static folder (``publish.site``)."""
    from helpers.publish.site import publish

    page = publish(Path(args.results) if args.results else repo_root() / "results", Path(args.dir))
    print(f"ok    site -> {shown(page.parent)} ({sum(1 for p in page.parent.rglob('*') if p.is_file())} files)")
    print(f"open  {shown(page)}", flush=True)


def quarto_website(args: argparse.Namespace) -> None:
    """``quarto-site [PARAMS ...]``: the Quarto website of the sets named, or of every set with a rendered report."""
    from helpers.publish.quarto_site import render_site, site_params

    page = render_site([params_file(p) for p in args.params] or site_params(repo_root() / "results"))
    print(f"ok    quarto site -> {shown(page)}")


def render(args: argparse.Namespace, params) -> None:
    """``quarto`` (with Quarto) or ``report`` (offline, then the site's index) of a set whose stages have run."""
    from helpers.publish.index_page import write_index
    from helpers.publish.report import render_offline, render_quarto

    if args.command == "quarto":
        print(f"ok    quarto -> {shown(render_quarto(args.params, params, cache=not args.no_cache))}")
        return
    print(f"ok    report -> {shown(render_offline(Path(args.params).resolve(), params))}")
    write_index(params.output_path.parent)


def list_all(args: argparse.Namespace) -> None:
    """``ls``: the sets, datasets, models, methods and price snapshots (``cli.listing``)."""
    from helpers.cli.listing import listing

    print(listing())


SET_FREE = {"publish": publish_site, "quarto-site": quarto_website, "ls": list_all}  # commands without a set


def command(args: argparse.Namespace) -> None:
    """What ``main`` does with parsed arguments: all sets, check, dry run, or run (with re-collection)."""
    if args.command in SET_FREE:  # no parameter set: what is on disk, of every set
        SET_FREE[args.command](args)
        return
    if args.command == "import":  # a set made from others' runs (checked whole, then written), then run as `run`
        from helpers.cli.importer import import_runs

        path = import_runs(args, run_settings(args))
        if args.no_run:
            return
        args = argparse.Namespace(command="run", params=str(path), dry_run=False, only=None, log_output=False,
                                  no_report=False, force=False, offline=True, recollect=False,
                                  overwrite=args.overwrite, write_anywhere=args.write_anywhere)
    args.params = [params_file(p) for p in args.params] if isinstance(args.params, list) else params_file(args.params)
    settings = run_settings(args)
    if args.command == "all":
        run_all(args.params, args.force, args.overwrite, settings)
        return
    if args.command == "reprice":
        run_reprice(args.params, args.as_of, args.force, settings)
        return
    params = load_params(args.params, settings)
    if args.command in ("quarto", "report"):
        render(args, params)
        return
    refuse_shard(params, getattr(args, "only", None), getattr(args, "recollect", False))
    if args.command == "check" or args.dry_run:
        dry_run(params, Path(args.params), getattr(args, "overwrite", False))
        return
    run_set(args, params)


def run_set(args: argparse.Namespace, params) -> None:
    """``run`` of a set (its stages, or ``--only`` those named; ``--recollect``: its records moved aside first), or of
    one shard (``--shard``: ``cli.shards.run_shard``)."""
    names = args.only.split(",") if args.only else None
    unknown = [n for n in names or [] if n not in NOTEBOOKS]
    if unknown:
        raise CostOfPassError(f"unknown notebook(s) {', '.join(unknown)} (known: {', '.join(NOTEBOOKS)})")
    if args.recollect:
        from helpers.publish.index_page import claim

        # a bad set, or another set's folder, fails before its records are moved
        claim(prepare(params), Path(args.params), args.overwrite)
        if moved := move_records_aside(params):
            print(f"previous records moved to {moved}")
    ctx, est = preflight_run(params)
    if params.settings.part:  # collect and grade the shard, then say what merges the shards
        run_shard(Path(args.params).resolve(), ctx, args.log_output, args.overwrite)
        return
    pending_calls = int(est["calls"].sum()) if not est.empty else 0
    report = not names and not args.no_report
    run_stages(Path(args.params).resolve(), ctx, pending_calls, names, args.log_output, args.force or bool(names),
               report=report, overwrite=args.overwrite)
    if report:  # as `all` and `reprice` end: where to look
        print(f"open  {shown(params.output_path / 'report/index.html')}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
