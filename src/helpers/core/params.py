"""Parameter sets: one YAML per set under ``params/``, validated into a typed ``Params``.

Every error is one line naming the file and the field, raised before any model is called.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from pydantic_core import PydanticCustomError

from helpers.core.errors import CostOfPassError
from helpers.core.paths import default_data_dir, repo_root, resolve
from helpers.core.settings import RunSettings
from helpers.core.yamlfiles import nearest, read_yaml


class Sampling(BaseModel):
    """Sampling arguments sent with every call; ``None`` leaves the provider's default."""

    model_config = ConfigDict(extra="forbid")
    temperature: float | None = Field(0.7, ge=0.0, le=2.0)
    top_p: float | None = Field(1.0, gt=0.0, le=1.0)
    max_tokens: int | None = Field(None, gt=0)


class Fidelity(BaseModel):
    """Where the paper's printed text and its reference code differ, which a set follows.

    Defaults follow the reference code, which made the paper's published numbers, except
    ``numeric_answers`` (a deliberate departure; docs/fidelity.md says why).
    """

    model_config = ConfigDict(extra="forbid")
    family_denominator: Literal["without_family", "all"] = Field(
        "without_family", description="Fig. 3: divide a family's gain by V(M_T \\ M_g) "
        "(reference) or V(M_T) (Eq. 12 as printed)")
    expert_cost: Literal["printed", "derived"] = Field(
        "printed", description="Table 3's printed USD per problem (reference), or hourly rate x minutes / 60")
    release_steps: Literal["one_model", "one_date"] = Field(
        "one_model", description="frontier over time: add models one at a time "
        "(reference) or one release date at a time")
    numeric_answers: Literal["number", "expression"] = Field(
        "number", description="numeric targets need a number as answer, or accept expressions "
        "math-verify evaluates (reference)")


class Validity(BaseModel):
    """The validity study of a simulated set (07_validity): repetitions of fresh simulated sets."""

    model_config = ConfigDict(extra="forbid")
    repetitions: int = Field(16, ge=2, description="fresh simulated sets drawn for the study")
    replicates: int = Field(100, ge=10, description="bootstrap replicates per repetition")
    refine_gain: float = Field(0.5, gt=0, le=1,
                               description="true self-refine effect g of the second study (a real gain)")
    effect_repetitions: int = Field(40, ge=2, description="simulated sets of the second study (a real self-refine "
                                    "effect, recovered by the headline's cross-fitted gain)")
    generator_repetitions: int = Field(2, ge=2,
                                       description="simulated sets per generator of the misspecification study")
    policy_repetitions: int = Field(10, ge=2, description="simulated sets per generator of the headline's study "
                                    "(the cost with up to k tries, then the expert: "
                                    "closed-form intervals, no bootstrap)")
    halving_series: int = Field(1000, ge=10, description="synthetic price series per floor of the third study (the "
                                "halving time's intervals against a known decay rate)")


Protected = Literal["frontier", "releases", "families", "models", "techniques"]  # what a race can keep exact


class Racing(BaseModel):
    """The racing collection design (``design: racing``; ``helpers.collect.racing``): what it keeps on every problem."""

    model_config = ConfigDict(extra="forbid")
    table1_share: float = Field(0.1, gt=0, le=1, description="share of each dataset's problems (at least 2) on which "
                                "every model and method makes every run: the statistics that need every option, "
                                "Table 1 where the race skipped a model (weighted), and the calibration of each "
                                "option's expected USD per attempt")
    margin: float = Field(0.5, gt=0, le=1, description="an option is skipped on a problem only where this share of its "
                          "expected USD per attempt exceeds the least upper bound on a reported frontier there")
    alpha: float = Field(0.025, gt=0, lt=0.5, description="one-sided level of the Jeffreys lower bound on a pass rate")
    protect: list[Protected] = Field(
        default_factory=lambda: list(get_args(Protected)), min_length=1,
        description="the frontiers kept exact on every problem (the frontier; Figure 2's releases; Figure 3's families "
                    "left out; Figures 4-5's models left out; Table 2's techniques): the others are computed from the "
                    "Table-1 sample, and the report says which")
    replay: bool = Field(False, description="replay the rule on the set's records instead of collecting (a uniform "
                         "set's, e.g. through records_dir; implied for an imported set): no call is made, every "
                         "number is the uniform design's, and the report adds what the race would have spent and which "
                         "protected figures it would have kept identical (docs/racing.md, Racing on records you have)")


class Collection(BaseModel):
    """How calls are sent (``helpers.collect.batch``): one request each (``sync``), or through the provider's batch
    API (``batch``: OpenAI's files and batches, Anthropic's message batches), billed at the price's
    ``batch_discount``."""

    model_config = ConfigDict(extra="forbid")
    mode: Literal["sync", "batch"] = Field("sync", description="sync: one request per call; batch: every round of "
                                           "calls as one batch per model, through the provider's batch API")
    poll_s: float = Field(30.0, gt=0, description="batch: seconds between two looks at a pending batch")
    deadline_s: float = Field(90000.0, gt=0, description="batch: seconds a run waits for its batches before it stops "
                              "(their ids stay recorded: the next run resumes them, never sends their calls again)")
    max_batch_calls: int = Field(50000, ge=1, le=50000, description="batch: calls per batch at most (OpenAI's "
                                 "limit: 50,000)")


class BudgetTarget(BaseModel):
    """``budget: {target_usd: X}``: a racing set sized to spend at most X (``grade.forecast.sized_share``)."""

    model_config = ConfigDict(extra="forbid")
    target_usd: float = Field(gt=0, lt=1e9, allow_inf_nan=False, description=(
        "USD: the racing design's Table-1 share (at most racing.table1_share) is the largest whose forecast bill, "
        "read from no record, has its 95th percentile at most this; budget_usd defaults to it"))


class PriceChoice(BaseModel):
    """Prices from the dated ledger (``core.ledger``) instead of a named snapshot: each model's price in effect on
    ``as_of``."""

    model_config = ConfigDict(extra="forbid")
    as_of: dt.date


class PriceChange(BaseModel):
    """The two dates between which the frontier's change is split into new models and price changes (04_trends)."""

    model_config = ConfigDict(extra="forbid")
    start: dt.date
    end: dt.date

    @model_validator(mode="after")
    def _ordered(self) -> "PriceChange":
        if self.start >= self.end:
            raise ValueError("start must come before end")
        return self


class AgentGroup(BaseModel):
    """What one folder of recorded agent runs is: the registry model and the method (``core.methods``)."""

    model_config = ConfigDict(extra="forbid")
    model: str = Field(min_length=1)
    method: str = Field("vanilla", min_length=1)


# each has a reader in collect/imports (READERS)
RUN_LOG_FORMATS = ["mini_swe_agent", "arc_prize", "hal", "openai_evals"]  # others' run files (``core.runlogs``)
IMPORT_FORMATS = ["routellm", "feval_ttc", "generic", "agent_evals", "swebench_bash_only", "inspect", *RUN_LOG_FORMATS]
BILLED_FORMATS = {"swebench_bash_only", "mini_swe_agent"}  # each attempt's USD as billed, not tokens: nothing to price


class ImportSource(BaseModel):
    """Where a set's records come from when others recorded them (``helpers.collect.imports``): its models are
    imported (registry field ``imported``), never called. ``path`` is relative to the data directory."""

    model_config = ConfigDict(extra="forbid")
    format: str = Field(description="the source's layout, one of IMPORT_FORMATS")
    path: str = Field(min_length=1, description="the source file (CSV, JSONL or zip) or, for agent_evals, folder; "
                      "under the data directory or absolute")
    task: str | None = Field(None, description="generic: the task of every row, when no column names it")
    columns: dict[str, str] = Field(default_factory=dict, description="generic: field -> column of the file")
    source: str = Field("", description="generic: the publication or URL the file comes from")
    licence: str = Field("", description="generic: the licence of the file")
    runs: dict[str, AgentGroup] = Field(default_factory=dict, description="agent_evals: '<strategy>/<group>' folder -> "
                                        "the set's model and method its runs are")
    model_names: dict[str, str] = Field(default_factory=dict, description="agent_evals: a model name in the logs -> "
                                        "the registry model whose price its calls are billed at")
    left_out: dict[str, str] = Field(default_factory=dict, description="agent_evals: '<strategy>/<group>' folder -> "
                                     "why the set does not import it (the runs table and the report's caveat name "
                                     "each such run; a folder in neither runs nor left_out is named too)")
    accept_mismatch: list[str] = Field(default_factory=list, description="swebench_bash_only: leaderboard entries "
                                       "imported although their per-instance count disagrees with the published "
                                       "resolved rate (by the entry's name; default: none, each is named and left out)")
    scorer: str | None = Field(None, description="inspect: the scorer whose score is the verdict (needed when the "
                               "logs have several)")
    threshold: float = Field(1.0, gt=0, description="inspect: a numeric or partial score (P = 0.5) at or above this "
                             "is a pass (default 1.0: only a full score)")
    results: list[str] = Field(default_factory=list, description="mini_swe_agent: the SWE-bench harness's report of "
                               "the run (one file), or RUN=FILE per run folder (a subfolder of path)")
    solutions: str | None = Field(None, description="arc_prize: the ARC solutions file ({task_id: [grid, ...]}); "
                                  "without it each attempt's own 'correct' is the verdict")

    @field_validator("format")
    @classmethod
    def _known_format(cls, value: str) -> str:
        if value not in IMPORT_FORMATS:
            raise PydanticCustomError("format", "unknown format '{value}'{near} (known: {known})",
                                      {"value": value, "near": nearest(value, IMPORT_FORMATS),
                                       "known": ", ".join(IMPORT_FORMATS)})
        return value


class Params(BaseModel):
    """A parameter set. Paths are relative to the repository root."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=r"^[a-z0-9][a-z0-9_-]*$", description=(
        "the set's name (lower-case letters, digits, _ and -): its results go to results/<name>/ unless output_dir "
        "says otherwise, and the site lists it under this name; a name already used by another parameter file "
        "with other parameters is refused unless the run is given --overwrite"))
    description: str = Field("", description="one line shown on the site and on the report's first screen")
    tasks: list[str] = Field(min_length=1)
    models: list[str] = Field(min_length=1)
    methods: list[str] = Field(default_factory=lambda: ["vanilla"], min_length=1)
    n_problems: int = Field(gt=0, description="problems drawn per task (fewer if the task has fewer)")
    n_runs: int = Field(gt=0, description="independent attempts per model, method and problem")
    seed: int = Field(0, ge=0, description="seed of problem sampling and of simulated backends")
    sampling: Sampling = Field(default_factory=Sampling)
    price_snapshot: str | None = Field(None, min_length=1, description="a file stem in params/prices/ or a path")
    prices: PriceChoice | None = Field(None, description="prices of a date from the ledger, instead of price_snapshot")
    budget_usd: float = Field(gt=0, description="collection refuses to start or stops before passing this (USD)")
    budget: BudgetTarget | None = Field(None, description="a racing set sized to a bill: {target_usd: X} "
                                        "(docs/racing.md, Forecast and budget)")
    concurrency: int = Field(4, ge=1, le=256)
    max_retries: int = Field(6, ge=0, le=30)
    retry_backoff_s: float = Field(1.0, ge=0, description="base of the exponential backoff (seconds)")
    timeout_s: float = Field(600.0, gt=0)
    data_dir: str | None = None
    output_dir: str | None = None
    extraction: Literal["strict", "lenient"] = "strict"
    expert_bound: Literal["low", "high"] = "high"
    models_file: str = "params/registry/models.yaml"
    task_options: dict[str, dict[str, Any]] = Field(default_factory=dict)
    sampler: Literal["hash", "reference_lcg"] = Field(
        "hash", description="problem selection: seeded hash order, or the reference code's LCG shuffle (seed 102217)")
    fidelity: Fidelity = Field(default_factory=Fidelity)
    validity: Validity = Field(default_factory=Validity)
    import_from: ImportSource | None = Field(None, description="records others made, imported instead of collected")
    records_dir: str | None = Field(None, description="read records from here instead of <output>/records (reprice)")
    price_change: PriceChange | None = Field(None, description="dates of the new-models / prices split (default: the "
                                             "first release and the latest price or release of the set's models)")
    design: Literal["uniform", "racing"] = Field("uniform", description="uniform: every model and method makes every "
                                                  "run on every problem (the paper's design); racing: options run "
                                                  "cheapest first, each only where it could still change a frontier "
                                                  "the report shows (``racing``)")
    racing: Racing = Field(default_factory=Racing)
    collection: Collection = Field(default_factory=Collection)
    expert_usd: dict[str, float] = Field(default_factory=dict, description=(
        "task -> the human expert's USD per problem, given by the set itself (an imported set's own task, e.g. "
        "`cost-of-pass import inspect --expert-usd`); a task named here needs no entry in the expert registry"))
    table1_only: list[str] = Field(default_factory=list, description=(
        "models of the set shown in Table 1 only (each model alone, then the expert): their records enter no frontier, "
        "trend, counterfactual, routing, technique or validity statistic, e.g. a leaderboard entry whose per-instance "
        "records disagree with its published rate; the report names them"))

    # where the set was read from, and what the command line decided for the run (not YAML fields)
    source: str = Field("<memory>", exclude=True)
    settings: RunSettings = Field(default_factory=RunSettings.from_environment, exclude=True)

    @field_validator("methods")
    @classmethod
    def _known_methods(cls, methods: list[str]) -> list[str]:
        from helpers.core.methods import get_method  # the registry: a method is one module in helpers/methods/
        from helpers.core.methods.base import method_forms

        for m in methods:
            try:
                get_method(m)
            except ValueError:
                forms = method_forms()
                raise PydanticCustomError("method", "unknown method '{value}'{near} (known: {known})",
                                          {"value": m, "near": nearest(m, forms), "known": ", ".join(forms)}) from None
        if len(set(methods)) != len(methods):
            raise ValueError("methods repeat")
        return methods

    @model_validator(mode="after")
    def _one_price_source(self) -> "Params":
        if self.price_snapshot is None and self.prices is None:
            raise PydanticCustomError("missing_prices",
                                      "prices are needed: price_snapshot or prices: {as_of: YYYY-MM-DD}")
        if self.price_snapshot is not None and self.prices is not None:
            raise ValueError("give exactly one of price_snapshot (a named snapshot) and prices: {as_of: YYYY-MM-DD}")
        return self

    @model_validator(mode="after")
    def _inspect_task_reads_the_logs(self) -> "Params":
        """An Inspect set's task ``inspect`` takes its problems from the logs it imports (``core.tasks.inspect_log``),
        read by the same rules (scorer, threshold); a set of others' run files (``RUN_LOG_FORMATS``) likewise has the
        one task of its format (``core.tasks.run_logs``), with the files' path and the format's options."""
        spec = self.import_from
        if spec is not None and spec.format == "inspect":
            if self.tasks != ["inspect"]:
                raise ValueError("a set importing Inspect logs has the one task 'inspect' (its problems are the "
                                 "logs' samples)")
            self.task_options["inspect"] = {**self.task_options.get("inspect", {}), "path": spec.path,
                                            "scorer": spec.scorer, "threshold": spec.threshold}
        if spec is not None and spec.format in RUN_LOG_FORMATS:  # the same for others' run files (core.runlogs)
            if self.tasks != [spec.format]:
                raise ValueError(f"a set importing {spec.format} run files has the one task '{spec.format}' (its "
                                 "problems are the files' problems)")
            self.task_options[spec.format] = {**self.task_options.get(spec.format, {}), "path": spec.path,
                                              "results": spec.results, "solutions": spec.solutions}
        if bad := {t: v for t, v in self.expert_usd.items() if not (0 < v < 1e9)}:
            raise ValueError(f"expert_usd must be a USD amount above 0 per problem, got {bad}")
        return self

    @model_validator(mode="after")
    def _racing_collects(self) -> "Params":
        if self.racing.replay and self.design != "racing":
            raise ValueError("racing.replay replays the racing design's rule: it needs design: racing")
        if self.collection.mode == "batch" and self.import_from is not None:
            raise ValueError("collection mode batch sends calls; an imported set makes none (use sync)")
        if self.budget is not None and not self.collects_by_race:
            raise ValueError("budget.target_usd sizes the racing design's Table-1 sample: it needs design: racing "
                             "on a set that collects (not an imported set or racing.replay)")
        return self

    @model_validator(mode="before")
    @classmethod
    def _budget_from_target(cls, data: Any) -> Any:
        """``budget_usd`` defaults to ``budget.target_usd``."""
        target = data.get("budget") if isinstance(data, dict) else None
        if "budget_usd" not in data and isinstance(target, dict) and type(target.get("target_usd")) in (int, float):
            return {**data, "budget_usd": data["budget"]["target_usd"]}
        return data

    @model_validator(mode="after")
    def _table1_only_in_set(self) -> "Params":
        if stray := [m for m in self.table1_only if m not in self.models]:
            raise ValueError(f"table1_only names models that are not in the set's models: {', '.join(stray)}")
        if len(set(self.table1_only)) >= len(self.models):
            raise ValueError("table1_only leaves no model for the frontier: keep at least one model out of it")
        if self.table1_only and self.collects_by_race:
            raise ValueError("table1_only is not available with design racing (the race would choose among them)")
        return self

    @field_validator("tasks", "models")
    @classmethod
    def _unique(cls, names: list[str]) -> list[str]:
        if len(set(names)) != len(names):
            raise ValueError(f"names repeat: {names}")
        return names

    @property
    def batch_mode(self) -> bool:
        """Whether calls go through the providers' batch APIs: the set's ``collection.mode``, or ``--batch``."""
        return self.collection.mode == "batch" or self.settings.batch

    @property
    def replays_race(self) -> bool:
        """``design: racing`` on records already there (an imported set, or ``racing.replay``): the rule is replayed on
        them (``analyze.race_replay``), nothing is collected, and every number is the uniform design's."""
        return self.design == "racing" and (self.import_from is not None or self.racing.replay)

    @property
    def collects_by_race(self) -> bool:
        """``design: racing`` on a set that collects: the race decides which calls to make (``grade.racing``)."""
        return self.design == "racing" and not self.replays_race

    @property
    def service_tier(self) -> str | None:
        """The tier the set's calls are billed in (``CallRecord.service_tier``): ``batch`` in batch mode, else None
        (standard)."""
        return "batch" if self.batch_mode else None

    # ---- derived locations -------------------------------------------------------------
    @property
    def output_path(self) -> Path:
        return resolve(self.output_dir or f"results/{self.name}")

    @property
    def data_path(self) -> Path:
        return resolve(self.data_dir) if self.data_dir else default_data_dir()

    @property
    def records_path(self) -> Path:
        return resolve(self.records_dir) if self.records_dir else self.output_path / "records"

    @property
    def graded_path(self) -> Path:
        """``graded/``; a shard's run (``--shard i/N``) grades its calls into ``graded/shard-i-of-N/``."""
        part = self.settings.part
        return self.output_path / "graded" / (part.label if part else "")

    def stage_id(self, stage: str) -> str:
        """A stage's name in the files a run writes under ``notebooks/`` (the executed copy, its summary, notes and
        progress): the stage's, and ``<stage>.shard-i-of-N`` in a shard's run, so shards running at once never share
        a file."""
        part = self.settings.part
        return f"{stage}.{part.label}" if part else stage

    @property
    def tables_path(self) -> Path:
        return self.output_path / "tables"

    @property
    def figures_path(self) -> Path:
        return self.output_path / "figures"

    @property
    def models_path(self) -> Path:
        return resolve(self.models_file)

    @property
    def priced_models(self) -> list[str]:
        """The models the set's prices must cover: its own, and those its imported agent calls are billed at."""
        if self.billed:
            return []
        billed = self.import_from.model_names.values() if self.import_from else []
        return list(dict.fromkeys([*self.models, *billed]))

    @property
    def billed(self) -> bool:
        """Whether the set's records carry the USD each attempt was billed and no tokens (``BILLED_FORMATS``): no
        model needs a price, and the set cannot be repriced."""
        return self.import_from is not None and self.import_from.format in BILLED_FORMATS

    @property
    def import_path(self) -> Path | None:
        """The source file of an imported set (``import_from.path``: absolute, or under the data directory)."""
        if self.import_from is None:
            return None
        p = Path(self.import_from.path)
        return p if p.is_absolute() else self.data_path / p

    @property
    def price_files(self) -> list[Path]:
        """The files the set's prices come from: its snapshot, or every snapshot of the ledger."""
        if self.prices is not None:
            from helpers.core.ledger import ledger_files

            return ledger_files()
        return [self.price_path]

    @property
    def price_path(self) -> Path:
        if self.price_snapshot is None:
            raise CostOfPassError(f"{self.source}: prices come from the ledger (prices.as_of), not one snapshot file")
        p = Path(self.price_snapshot)
        if p.suffix in {".yaml", ".yml"} or "/" in self.price_snapshot:
            return resolve(p)
        return repo_root() / "params" / "prices" / f"{self.price_snapshot}.yaml"


def _one_line(err: ValidationError, source: str) -> str:
    """Every validation error on one line, ``<source>: field '<f>': <message>; field '<g>': …``, unknown fields
    first (a typo explains a "missing") and with the nearest known name."""
    errors = sorted(err.errors(), key=lambda e: e["type"] != "extra_forbidden")
    problems = dict.fromkeys(_problem(e) for e in errors)  # in order, without repeats
    return f"{source}: " + "; ".join(problems)


def _problem(error: Any) -> str:
    """One validation error as ``field '<f>': <message>``."""
    field = ".".join(str(x) for x in error["loc"]) or "(top level)"
    msg = error["msg"]
    if error["type"] == "extra_forbidden":
        model: Any = Params
        for part in error["loc"][:-1]:
            model = getattr(getattr(model, "model_fields", {}).get(str(part)), "annotation", None)
        msg = "unknown field" + nearest(str(error["loc"][-1]), getattr(model, "model_fields", {}))
    elif error["type"] == "missing":
        msg = "required field is missing"
    elif error["type"] == "missing_prices":  # neither a snapshot nor a date: say which field a set usually gives
        field, msg = "price_snapshot", "required field is missing (or give prices: {as_of: YYYY-MM-DD})"
    return f"field '{field}': {msg}"


def params_from_mapping(data: Any, source: str = "<memory>") -> Params:
    """Validate a mapping (a parsed YAML file or papermill's injected parameters) into ``Params``."""
    if not isinstance(data, dict):
        raise CostOfPassError(f"{source}: a parameter set must be a YAML mapping, got {type(data).__name__}")
    if "settings" in data:
        raise CostOfPassError(f"{source}: field 'settings': the command line sets it (--offline, --write-anywhere, "
                              "--unisolated-grading), not a parameter file")
    try:
        params = Params.model_validate({k: v for k, v in data.items() if k != "source"})
    except ValidationError as err:
        raise CostOfPassError(_one_line(err, source)) from None
    params.source = source
    return params


def params_file(path: str | Path) -> str:
    """``path`` as given, or, for a bare set name with no such file (``tiny``), ``params/tiny.yaml`` of the
    checkout; a bare name that is no set there is one line with the nearest set's name."""
    text = str(path)
    if Path(text).suffix or "/" in text or Path(text).exists():
        return text
    sets = sorted(q.stem for q in (repo_root() / "params").glob("*.yaml"))
    if text not in sets:
        raise CostOfPassError(f"parameter set not found: {text}{nearest(text, sets)}; give a file "
                              f"(params/<set>.yaml) or one of: {', '.join(sets)}")
    return str(repo_root() / "params" / f"{text}.yaml")


def load_params(path: str | Path, settings: RunSettings | None = None) -> Params:
    """Read and validate ``params/<set>.yaml``; a bad file raises one line naming file and field. ``settings``: what
    the command line decided for the run (default: ``RunSettings.from_environment``)."""
    path = params_file(path)
    p = resolve(path, Path.cwd()) if not Path(path).is_absolute() else Path(path)
    if not p.exists():
        p = resolve(path)
    data = read_yaml(p, "parameter set", shown=str(path))
    params = params_from_mapping(data, source=str(path))
    if settings is not None:
        params.settings = settings
    return params


def params_in_notebook(namespace: dict[str, Any], params_file: str | None) -> Params:
    """The parameter set of a notebook run by papermill.

    ``papermill -f params/<set>.yaml`` injects the set's keys as variables: they are validated as
    the set. The parameters cell declares every key as ``None`` (not given). Without injected keys the notebook
    reads ``params_file``.
    """
    settings = (RunSettings.from_parameter(namespace["settings"]) if namespace.get("settings") is not None
                else None)  # the runner's (``core.settings``); else the user's own switches
    injected = {k: namespace[k] for k in Params.model_fields
                if namespace.get(k) is not None and k not in ("source", "settings")}
    if "name" in injected:
        named = params_file if params_file and Path(params_file).stem == injected["name"] else None
        params = params_from_mapping(injected, source=named or "papermill parameters")
        if settings is not None:
            params.settings = settings
        return params
    if not params_file:
        raise CostOfPassError("no parameters: run with papermill -f params/<set>.yaml or set params_file")
    return load_params(params_file, settings)


def check_confined(params: Params) -> None:
    """A parameter file cannot make the runner write outside the project's ``results/`` directory: its
    ``output_dir`` (``..`` and links resolved) must lie inside it, unless the user said otherwise on the command
    line (``--write-anywhere``, or ``COP_WRITE_ANYWHERE=1``: ``params.settings``). One line naming the field if not."""
    out, results = params.output_path.resolve(), (repo_root() / "results").resolve()
    if params.settings.write_anywhere or out == results or results in out.parents:
        return
    raise CostOfPassError(f"{params.source}: field 'output_dir': {out} is outside the project's results directory "
                          f"({results}); a parameter file cannot write there — pass --write-anywhere to allow it")
