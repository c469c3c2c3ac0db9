"""Text a user or a data file supplied, made safe to write into the Markdown the report renders as HTML.

A model's label, a set's description, a source's name, a problem id or an error a program raised can hold anything,
and a report is what people share: written as is, ``<script>``, an ``<img onerror>`` or a ``[link](javascript:…)``
would run in the reader's browser. ``md`` escapes HTML with MarkupSafe (Jinja2's autoescaping: ``& < > " '``) and
backslash-escapes what Markdown and Pandoc would turn into links, spans, raw blocks, table cells or math (``[ ] ` | $``:
between two dollar signs, Jupyter's Markdown and MathJax would typeset "$0.01 … $3.48" as LaTeX);
emphasis characters are left alone (they cannot run anything). The report renders the escaped text as it was typed.
Applied where text enters the report: every table cell and header, lead and caption fill (``catalog``), and the
about box (``about``); CSV files keep the raw text.
"""

from __future__ import annotations

from typing import Any

from markupsafe import escape

MARKDOWN = str.maketrans({"[": "\\[", "]": "\\]", "`": "\\`", "|": "\\|", "$": "\\$"})  # $: no math mode


def md(value: Any) -> str:
    """``value`` as text to place in Markdown (see the module's docstring); non-strings pass through ``str``."""
    return str(escape(str(value))).translate(MARKDOWN)


def md_frame(df):
    """A copy of a table whose text cells and headers are ``md``-escaped (numbers untouched)."""
    out = df.copy()
    for col in out.columns:
        if out[col].dtype == object or str(out[col].dtype) in ("string", "str", "category"):
            out[col] = [md(v) if isinstance(v, str) else v for v in out[col]]
    out.columns = [md(c) if isinstance(c, str) else c for c in out.columns]
    return out
