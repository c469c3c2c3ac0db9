"""Where things live: the repository root, the data directory, a parameter set's outputs, the user's cache."""

from __future__ import annotations

import os
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent


def repo_root() -> Path:
    """The checkout holding ``params/`` (COP_REPO_ROOT overrides; falls back to the cwd's ancestors)."""
    if env := os.environ.get("COP_REPO_ROOT"):
        return Path(env).resolve()
    for start in (PACKAGE_DIR, Path.cwd().resolve()):
        for candidate in (start, *start.parents):
            if (candidate / "params").is_dir() and (candidate / "pyproject.toml").is_file():
                return candidate
    return Path.cwd().resolve()


def resolve(path: str | os.PathLike, base: Path | None = None) -> Path:
    """An absolute path; relative paths are taken from ``base`` (default: the repository root)."""
    p = Path(os.path.expanduser(str(path)))
    return p if p.is_absolute() else ((base or repo_root()) / p).resolve()


def default_data_dir(root: Path | None = None) -> Path:
    """The benchmark data: COP_DATA_DIR if set, else ``<repo>/data`` (where ``python -m
    helpers.core.tasks.download`` writes) if it exists, else ``../shared/data`` beside the checkout if it
    exists, else ``<repo>/data`` (named in the missing-data error)."""
    env = os.environ.get("COP_DATA_DIR")
    if env:
        return resolve(env)
    root = root or repo_root()
    own, beside = root / "data", root.parent / "shared" / "data"
    return beside if not own.is_dir() and beside.is_dir() else own


def shown(path: Path) -> Path:
    """``path`` relative to the repository when inside it (for messages)."""
    root = repo_root()
    return path.relative_to(root) if path.is_relative_to(root) else path


def user_cache(*parts: str) -> Path:
    """A folder of the user's cache, ``~/.cache/cost-of-pass/<parts>`` (COP_CACHE_DIR replaces
    ``~/.cache/cost-of-pass``): what is costly to make and the same for every checkout (a local model's weights,
    unless COP_MODEL_CACHE names their folder; the Vega bundle). Not created here."""
    base = os.environ.get("COP_CACHE_DIR") or Path.home() / ".cache" / "cost-of-pass"
    return Path(base).joinpath(*parts)
