"""Keeping API keys out of everything the project writes: records, tables, notebooks, logs, errors.

A value is secret when it is held by an environment variable that a model of the set names as its
``api_key_env`` (registered with ``protect``), or by any variable whose name says KEY, TOKEN,
SECRET, PASSWORD or CRED; key-shaped strings (``sk-…``, ``hf_…``) are redacted whatever holds them.
"""

from __future__ import annotations

import os
import re

_SECRET_NAME = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CRED)", re.I)
_SECRET_SHAPE = re.compile(r"\b(sk-[A-Za-z0-9_-]{8,}|sk-ant-[A-Za-z0-9_-]{8,}|hf_[A-Za-z0-9]{8,})")
_MIN_LEN = 6  # shorter values would redact ordinary words
_PROTECTED: set[str] = set()
MARK = "[redacted]"


def protect(*names: str | None) -> None:
    """Treat the values of these environment variables as secrets from now on (names, never values)."""
    _PROTECTED.update(n for n in names if n)


def secret_values(every_variable: bool = False) -> list[str]:
    """The secret values now in the environment, longest first (so a key inside another goes too); with
    ``every_variable``, the value of every variable (for text a hostile program wrote, such as a grade's reason)."""
    values = {v for k, v in os.environ.items()
              if (every_variable or k in _PROTECTED or _SECRET_NAME.search(k)) and len(v) >= _MIN_LEN}
    return sorted(values, key=len, reverse=True)


def without_secrets(environ: dict[str, str]) -> dict[str, str]:
    """``environ`` less every variable that holds a secret (see the module's docstring): the environment of a process
    that needs no key, such as the kernel that grades model-written code."""
    return {k: v for k, v in environ.items() if not (k in _PROTECTED or _SECRET_NAME.search(k))}


def redact(text: str) -> str:
    """``text`` with every secret value and key-shaped string replaced by ``[redacted]``."""
    return Redactor()(text)


class Redactor:
    """``redact`` with the secret values read once, at construction: for writers of many texts.

    Reading the environment costs more than a record's serialisation; the record store builds one
    when it opens, so the secrets it removes are those in the environment at that moment.
    """

    def __init__(self, every_variable: bool = False, environment: bool = True):
        """``every_variable``: every value of the environment, not only secrets'; not ``environment``: key-shaped
        strings only (for text written where the environment was out of sight: looking for its values there would
        tell the writer which guess was right)."""
        values = secret_values(every_variable) if environment else []  # longest first: a key inside another goes too
        self._values = re.compile("|".join(re.escape(v) for v in values)) if values else None

    def __call__(self, text: str) -> str:
        if self._values is not None:
            text = self._values.sub(MARK, text)
        return _SECRET_SHAPE.sub(MARK, text)
