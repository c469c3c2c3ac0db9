"""Model registry: one entry per model in ``params/registry/models.yaml``.

An entry names the litellm model id, the family (lightweight / large / reasoning, or any label a
fork uses), the public release date, per-model sampling overrides and, for estimates before any
call, a typical completion length in tokens.
"""

from __future__ import annotations

import datetime as dt
import os
from functools import lru_cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from helpers.core.errors import CostOfPassError
from helpers.core.yamlfiles import nearest, read_mapping

LOCAL_PROVIDERS = {"sim", "local"}  # litellm custom providers registered by helpers.collect.backends


class SimProfile(BaseModel):
    """A simulated model: target accuracy (0-1) and mean completion tokens per task."""

    model_config = ConfigDict(extra="forbid")
    accuracy: dict[str, float]
    completion_tokens: dict[str, float]
    aptitude: dict[str, float] = Field(default_factory=dict, description="A per task, solved on a sample")
    difficulty_spread: float = Field(2.0, ge=0)
    interaction_sd: float = Field(0.0, ge=0, description="sd of the problem x model interaction (logit scale)")
    cliff: float | None = Field(None, description="capability cliff: no pass where the logit is below it")
    refine_gain: float = Field(0.0, ge=0, le=1)
    format_error_rate: float = Field(0.0, ge=0, lt=1)


class WeightPart(BaseModel):
    model_config = ConfigDict(extra="forbid")
    dist: str = Field(description="the PyPI distribution that ships this part")
    file: str = Field(description="path of the part inside the installed distribution")


class LocalWeights(BaseModel):
    """Where a local model's GGUF comes from and how to prompt it."""

    model_config = ConfigDict(extra="forbid")
    parts: list[WeightPart] = Field(min_length=1)
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    chat: bool = True
    n_ctx: int = Field(2048, gt=0)
    license: str
    source: str


class ImportedModel(BaseModel):
    """A model whose responses others recorded and published: its records are imported
    (``helpers.collect.imports``), it is never called."""

    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1, description="the model's name in the source (a column, an LLMType)")
    tokenizer: str | None = Field(None, description="a tiktoken encoding that is the model's own (cl100k_base for "
                                  "GPT-4), used where the source has no token counts; None: counts are estimated")
    billed_usd: bool = Field(False, description="the source gives each attempt's USD as billed and its API calls, no "
                             "tokens: that USD is its cost (no price needed; repricing is refused)")


class ModelSpec(BaseModel):
    """One model. ``sampling`` overrides the set's sampling; a ``null`` value drops that argument. ``name`` becomes
    a file name (its record shard): letters, digits and ``. _ + -`` only, so no name can point outside the set."""

    model_config = ConfigDict(extra="forbid")
    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._+-]*$")
    label: str
    litellm_id: str = Field(pattern=r"^[A-Za-z0-9_.-]+/.+$")
    family: str
    release_date: dt.date
    release_source: str = Field("", description="where the release date comes from (the date in the API name, or the "
                                "provider's announcement)")
    api_base: str | None = None
    api_key_env: str | None = Field(None, description="name of the environment variable holding the key")
    sampling: dict[str, float | int | None] = Field(default_factory=dict)
    typical_completion_tokens: int = Field(500, gt=0, description="tokens per call, for estimates only")
    sim: SimProfile | None = Field(None, description="profile of a simulated model (provider 'sim')")
    local: LocalWeights | None = Field(None, description="weights of a local llama.cpp model (provider 'local')")
    imported: ImportedModel | None = Field(None, description="responses recorded by others: imported, never called")
    notes: str = ""

    @property
    def simulated(self) -> bool:
        return self.provider == "sim"

    @property
    def provider(self) -> str:
        return self.litellm_id.split("/", 1)[0]

    def required_env_keys(self) -> list[str]:
        """Environment variables this model needs that are unset (names only, never values)."""
        if self.imported:
            return []
        if self.api_key_env:
            return [] if os.environ.get(self.api_key_env) else [self.api_key_env]
        if self.provider in LOCAL_PROVIDERS or self.api_base:
            return []
        import litellm  # slow import: only when a real provider is checked

        return list(litellm.validate_environment(self.litellm_id).get("missing_keys") or [])


@lru_cache(maxsize=8)
def _read_registry(path: Path, mtime: float) -> dict[str, ModelSpec]:
    data = read_mapping(path, "model registry")
    entries = data.get("models")
    if not isinstance(entries, dict):
        raise CostOfPassError(f"{path}: expected a top-level 'models:' mapping of name -> entry")
    out = {}
    for name, entry in entries.items():
        if entry is not None and not isinstance(entry, dict):
            raise CostOfPassError(f"{path}: model '{name}': an entry must be a mapping, got a {type(entry).__name__}")
        try:
            out[name] = ModelSpec.model_validate({"name": name, **(entry or {})})
        except ValidationError as err:
            e = err.errors()[0]
            field = ".".join(str(x) for x in e["loc"])
            raise CostOfPassError(f"{path}: model '{name}': field '{field}': {e['msg']}") from None
    return out


def load_registry(path: Path) -> dict[str, ModelSpec]:
    """All models of a registry file, by name."""
    if not path.is_file():
        raise CostOfPassError(f"model registry not found: {path}")
    return _read_registry(path, path.stat().st_mtime)  # cached per file version


def resolve_models(names: list[str], path: Path) -> list[ModelSpec]:
    """The registry entries for ``names``; an unknown name raises one line listing the known ones."""
    registry = load_registry(path)
    unknown = [n for n in names if n not in registry]
    if unknown:
        raise CostOfPassError(
            f"unknown model(s) {', '.join(unknown)}{nearest(unknown[0], registry)} (not in {path.name}; "
            f"known: {', '.join(sorted(registry))})"
        )
    return [registry[n] for n in names]


def call_sampling(model: ModelSpec, base: dict[str, Any]) -> dict[str, Any]:
    """Sampling args for one call: the set's, overridden per model; ``None`` values are dropped."""
    merged = {**base, **model.sampling}
    return {k: v for k, v in merged.items() if v is not None}


def remote_host(model: ModelSpec) -> str | None:
    """The host of a model's ``api_base`` when it is not this machine (a loopback address or ``localhost``), else
    None: a key sent there leaves the machine."""
    if not model.api_base:
        return None
    import ipaddress
    from urllib.parse import urlparse

    host = (urlparse(model.api_base).hostname or "").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return None
    try:
        return None if ipaddress.ip_address(host).is_loopback else host
    except ValueError:
        return host or model.api_base


BASE_FAMILIES = ("lightweight", "large")  # the families of M_L, the models the paper's Table 2 applies techniques to


def technique_base(families: dict[str, str], models: list[str]) -> list[str]:
    """M_L: the lightweight and large models, as the paper's Table 2; every model when a set has none."""
    base = [m for m in models if families[m] in BASE_FAMILIES]
    return base or list(models)
