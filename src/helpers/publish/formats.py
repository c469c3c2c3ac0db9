"""Cell formats of the report's tables and sentences: numbers (three significant figures, never e-notation),
USD, percentages, intervals and ranges, the top-three marks, a table as Markdown, and writing a table's CSV and
Markdown."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from helpers.core.numbers import SMALLEST_DECIMAL, sig

MARKS = {1: "¹", 2: "²", 3: "³"}


def top3_marks(df: pd.DataFrame, columns: list[str], lowest: bool = True,
               ranked: pd.Series | None = None) -> pd.DataFrame:
    """Rank within each column (1 = best); ranks > 3 are 0, and so is every rank of a column with three values
    or fewer (a top three of three says nothing). ``ranked``: the rows that take part (boolean, ``df``'s index;
    default all); the others get 0."""
    values = df[columns] if ranked is None else df[columns].where(ranked, axis=0)
    ranks = values.rank(axis=0, method="min", ascending=lowest)
    ranks = ranks.where(ranks <= 3, 0).fillna(0).astype(int)
    ranks.loc[:, values.notna().sum() <= 3] = 0
    return ranks


def fmt_usd(x: float) -> str:
    if not np.isfinite(x):
        return "∞"
    if x == 0:
        return "0"
    return sig(x) if abs(x) < 100 else f"{x:,.0f}"  # 0.000044, 0.0121, 3.07, 1,234: never e-notation


def dollars(x: float) -> str:
    """USD as a sentence gives it: ``$0.000049``, ``$3.92``, ``$1,234`` (``fmt_usd`` after a dollar sign)."""
    text = fmt_usd(x)
    if text.startswith(("<", ">")):  # "<0.000001" -> "<$0.000001"
        return f"{text[0]}{'-' if text[1] == '-' else ''}${text.lstrip('<>-')}"
    return f"-${text[1:]}" if text.startswith("-") else f"${text}"


def fmt_tries(k: float) -> str:
    """A table's "tries" cell: "1" for one try, "up to k" for more, "–" where none is defined (NaN)."""
    if k != k:  # NaN
        return "–"
    return "1" if int(k) == 1 else f"up to {int(k)}"


def fmt_pct(x: float) -> str:
    """A percentage (or a count of months) to three significant figures: 6.25, 93.4, 100, and a small one too
    (0.000678, -0.00279: review 9, M6, "<0.01 [>-0.01, <0.01]" hid the sign and both ends); below a millionth
    ``sig``'s "<0.000001"."""
    if not np.isfinite(x):
        return "∞"
    return sig(x)


def level_pct(x: float) -> str:
    """A level in % of the expert alone: ``fmt_pct``, but a level off 100 never printed as "100": two decimals where
    it rounds to 100 (100.05, 99.96; ">100" where two decimals still read 100.00): review 9, M8, a frontier dearer
    than the expert alone read "100"; review 10, L1: one rule for every such level ("100.1" beside ">100" before)."""
    text = fmt_pct(x)
    if text != "100" or not np.isfinite(x) or x == 100:
        return text
    finer = f"{x:.2f}"
    return finer if finer != "100.00" else (">100" if x > 100 else "<100")


def level_interval(value: float, low: float, high: float) -> tuple[str, str, str]:
    """A level's value and interval ends in % of the expert alone (``level_pct``), at one precision: where the value
    needs two decimals to stay off 100, so do the ends within a point or so of 100 (review 11, L4: "100.15 [52.7,
    101]" printed its value to five figures, its upper end, 100.72, to three)."""
    said = level_pct(value)
    if said == fmt_pct(value):
        return said, level_pct(low), level_pct(high)
    def end(x: float) -> str:
        return f"{x:.2f}" if np.isfinite(x) and 99 < x < 101.5 and x != 100 else level_pct(x)
    return said, end(low), end(high)


def near_zero(x: float) -> str | None:
    """"within 0.000001 of 0 (below it)" for a number other than 0 closer to it than ``SMALLEST_DECIMAL`` (USD), whose
    "<0.000001" / ">-0.000001" hid its sign (review 10, L6; review 11, L5); else None."""
    if not np.isfinite(x) or x == 0 or abs(x) >= SMALLEST_DECIMAL:
        return None
    return f"within 0.000001 of 0 ({'below' if x < 0 else 'above'} it)"


def fee_pct(share: float) -> str:
    """The expert fee's share of a value (%): ``fmt_pct``, but ">99.9", not "100", where the records decide a part."""
    return ">99.9" if 99.95 <= share < 100 else fmt_pct(share)


def with_interval(value: float, low: float, high: float, fmt) -> str:
    """``value [low, high]`` in a table's number format."""
    return f"{fmt(value)} [{fmt(low)}, {fmt(high)}]"


def one_problem(share_pct: float, problem: object) -> str:
    """"; x% of it from one problem, <id>" where one problem carries more than half of a number (``share_pct``, %),
    else "": the number stands or falls with that problem, whatever the others do."""
    if not (isinstance(problem, str) and problem and np.isfinite(share_pct) and share_pct > 50):
        return ""
    if share_pct > 100 + 1e-9:  # the others together lower it
        return f"; more than all of it from one problem, {problem} (the other problems together lower it)"
    return f"; {fee_pct(share_pct)}% of it from one problem, {problem}"


GAIN_FLOOR_PCT = -100.0  # a gain's interval is said, and drawn, from here: lower says only "it may double the cost"
GAIN_MAX_PCT = 100.0  # the most a gain can be (the option's cost 0): an interval's upper end there is no measurement
AT_MOST = "100 (max)"  # how such an upper end reads: the records do not bound the gain below its possible maximum


def gain_interval(value: float, low: float, high: float) -> str:
    """A gain's ``value [low, high]`` in % (``fmt_pct``), its low end below ``GAIN_FLOOR_PCT`` said as "< -100" and an
    upper end at the possible maximum (``GAIN_MAX_PCT``, within rounding) as ``AT_MOST``, so neither reads as a
    measurement (one style for every gain's interval)."""
    lo = f"< {fmt_pct(GAIN_FLOOR_PCT)}" if low < GAIN_FLOOR_PCT else fmt_pct(low)
    hi = AT_MOST if high >= GAIN_MAX_PCT - 1e-9 else fmt_pct(high)
    return f"{fmt_pct(value)} [{lo}, {hi}]"


NOT_CHOSEN = "0 (not chosen on any problem: it does not look cheaper on the others)"


def gain_said(value: float, low: float, high: float) -> str:
    """A gain's interval in % (``gain_interval`` with its unit), or, where the option was chosen on no problem (0, 0,
    0: the frontiers with and without it are the same), ``NOT_CHOSEN`` in words: "0 [0, 0]%" reads as a precise
    measurement of no effect (review 9, M7)."""
    if value == low == high == 0:
        return NOT_CHOSEN
    return gain_interval(value, low, high) + "%"


ESTIMATOR_LABELS = {"plug-in": "plug-in (paper)", "range": "range the records allow"}


def range_cell(low: float, high: float, unseen_pct: float, fmt) -> str:
    """The range a number's never-passed problems allow, with the share of its value they carry."""
    if not (np.isfinite(low) and np.isfinite(high)):
        return "–"
    if never_passed(unseen_pct):
        return f"[{fmt(low)}, {fmt(high)}] · {NEVER_PASSED}"
    return f"[{fmt(low)}, {fmt(high)}]" + (f" · {sig(unseen_pct)}% unseen" if unseen_pct > 0.05 else "")


NEVER_PASSED = "never passed here"


def never_passed(unseen_pct: float) -> bool:
    """Whether a number's whole value comes from problems no strategy of it passed (``unseen_pct`` 100): for
    Table 1, a model that passed no problem of the dataset."""
    return bool(np.isfinite(unseen_pct) and unseen_pct >= 100 - 1e-9)


def whole_pct(x: float) -> str:
    """A share in %, whole, never "-0%" (a rounding below 0)."""
    return f"{min(max(x, 0.0), 100.0):.0f}%" if np.isfinite(x) else "–"


def to_markdown(df: pd.DataFrame, numeric: list[str], fmt=fmt_usd, marks: pd.DataFrame | None = None) -> str:
    """A Markdown table, the ``numeric`` columns right-aligned (also where a cell is "–"); with ``marks``, the top
    three of each column get bold and ¹²³. Any other column of floats is written by ``sig``, and no cell is read back
    as a number (tabulate would print 0.0000455 as 4.55e-05)."""
    shown = df.copy().astype(object)
    for col in df.columns:
        if col not in numeric and pd.api.types.is_float_dtype(df[col]):
            shown[col] = [sig(v) for v in df[col]]
    for col in numeric:
        vals = []
        for i, v in df[col].items():
            s = fmt(float(v)) if pd.notna(v) else "–"
            r = 0 if marks is None else int(marks.loc[i, col])
            vals.append(f"**{s}**{MARKS[r]}" if r else s)
        shown[col] = vals
    return shown.to_markdown(index=False, colalign=["right" if c in numeric else "left" for c in shown.columns],
                             disable_numparse=True)


def markdown(df: pd.DataFrame) -> str:
    """Any table as Markdown the report can show: its float columns written by ``sig`` (never e-notation) and
    right-aligned, the rest as given (``to_markdown``)."""
    return to_markdown(df, [c for c in df.columns if pd.api.types.is_float_dtype(df[c])], sig)


FORMULA_START = ("=", "+", "-", "@", "\t", "\r")  # a spreadsheet reads a cell starting so as a formula


def csv_ready(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` as the project writes it to a CSV: every float column whose values are all whole numbers (or missing)
    as integers, so a CSV says "128", not "128.0" (counts that became floats by a missing value), and every text cell
    that a spreadsheet would read as a formula (starting with ``FORMULA_START``: a graded program's reason could be
    ``=HYPERLINK(…)``) led by an apostrophe, so it stays text."""
    out = df.copy()
    for col in df.columns:
        if df[col].dtype == object or pd.api.types.is_string_dtype(df[col]):
            out[col] = [f"'{v}" if isinstance(v, str) and v.startswith(FORMULA_START) else v for v in df[col]]
    for col in df.columns:
        values = df[col]
        if pd.api.types.is_float_dtype(values) and values.notna().any():
            finite = values.dropna().to_numpy(float)
            if np.isfinite(finite).all() and (finite == np.round(finite)).all() and (np.abs(finite) < 2**53).all():
                out[col] = values.astype("Int64")
    return out


def save_table(df: pd.DataFrame, markdown: str, name: str, out_dir: Path) -> tuple[Path, Path]:
    """Write ``<name>.csv`` (``write_csv``) and ``<name>.md`` (the formatted table)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    csv, md = out_dir / f"{name}.csv", out_dir / f"{name}.md"
    write_csv(df, csv)
    md.write_text(f"{markdown}\n")
    return csv, md


def write_csv(df: pd.DataFrame, path: Path) -> Path:
    """Every CSV the report writes: full precision, whole numbers without ".0", no cell a spreadsheet would read as a
    formula (``csv_ready``)."""
    csv_ready(df).to_csv(path, index=False)
    return path
