"""Reading the project's YAML files (parameter sets, registries, price snapshots) strictly.

Every failure is one line naming the file: not found, not UTF-8, not valid YAML (with its line),
a key given twice in one mapping (PyYAML would silently keep the later value), or not a mapping.
"""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any, Iterable

import yaml

from helpers.core.errors import CostOfPassError


class _StrictLoader(yaml.SafeLoader):
    """SafeLoader that rejects a key repeated within one mapping."""


def _mapping(loader: _StrictLoader, node: yaml.MappingNode, deep: bool = False) -> dict:
    loader.flatten_mapping(node)
    seen: dict[Any, int] = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"key {key!r} appears twice (lines {seen[key] + 1} and {key_node.start_mark.line + 1})",
                key_node.start_mark)
        seen[key] = key_node.start_mark.line
    return loader.construct_mapping(node, deep=deep)


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping)


def read_yaml(path: Path, what: str = "file", shown: str | None = None) -> Any:
    """The parsed YAML document of ``path``; one-line errors name ``shown`` (default: the path)."""
    name = shown or str(path)
    if not path.is_file():
        raise CostOfPassError(f"{what} not found: {name}")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        raise CostOfPassError(f"{name}: not UTF-8 text (byte {err.start}); save the {what} as UTF-8") from None
    try:
        return yaml.load(text, Loader=_StrictLoader)  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as err:
        raise CostOfPassError(f"{name}:{_where(err)} is not valid YAML "
                              f"({getattr(err, 'problem', None) or err})") from None


def _where(err: yaml.YAMLError) -> str:
    """The line to look at: where the unfinished key, bracket or quote began (the parser notices it a line or
    more later, where it stopped), else where it stopped; block structure errors are where they stop."""
    problem, context = getattr(err, "problem_mark", None), getattr(err, "context_mark", None)
    if not problem:
        return ""
    began = context and not str(getattr(err, "context", "")).startswith("while parsing a block")
    if began and context is not None and context.line < problem.line:
        return f" line {context.line + 1} (the parser stopped on line {problem.line + 1})"
    return f" line {problem.line + 1}"


def read_mapping(path: Path, what: str = "file", shown: str | None = None) -> dict:
    """``read_yaml`` for a file that must hold a mapping (an empty file is an empty mapping)."""
    data = read_yaml(path, what, shown)
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise CostOfPassError(f"{shown or path}: a {what} must be a YAML mapping, got a {type(data).__name__}")
    return data


def nearest(name: str, known: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for the closest known name, or an empty string."""
    close = difflib.get_close_matches(str(name), list(known), n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""
