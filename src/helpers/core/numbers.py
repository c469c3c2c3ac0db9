"""Numbers as people read them: three significant figures (6.25 stays 6.25, 93.44 is 93.4), thousands grouped.
Every table, finding and figure label formats through here; must import nothing from the pipeline."""

from __future__ import annotations

import math


def sig(x: float, digits: int = 3) -> str:
    """``x`` to ``digits`` significant figures, never in e-notation: thousands grouped at or above 10**digits (1,234),
    small values as decimals (0.000044) down to ``SMALLEST_DECIMAL``, below it "<0.000001" (">-0.000001" below
    zero: a number that small is rounding noise or too small to matter, and ``2.71 × 10⁻²⁰`` reads as a
    measurement); no trailing zeros; ``∞`` / ``-∞`` for infinities and ``–`` for NaN."""
    x = float(x)
    if math.isnan(x):
        return "–"
    if math.isinf(x):
        return "∞" if x > 0 else "-∞"
    if abs(x) >= 10 ** digits:
        return f"{x:,.0f}"  # 1,234 rather than 1.23e+03
    rounded = float(f"{x:.{digits}g}")
    if abs(rounded) >= 10 ** digits:
        return f"{rounded:,.0f}"  # 99.6 to two figures is 100, not 1e+02
    if rounded != 0 and abs(rounded) < SMALLEST_DECIMAL:
        return f"<{SMALLEST_DECIMAL:.6f}" if rounded > 0 else f">-{SMALLEST_DECIMAL:.6f}"
    if rounded != 0 and abs(rounded) < 1e-4:  # 0.000044, never 4.4e-05
        places = digits - 1 - math.floor(math.log10(abs(rounded)))
        return f"{rounded:.{places}f}".rstrip("0").rstrip(".")
    return f"{x:.{digits}g}"


SMALLEST_DECIMAL = 1e-6  # below it, "<0.000001": a decimal with more zeros is too many to count


def signed(x: float, digits: int = 3) -> str:
    """``sig`` with a plus sign on positive values: a change or a gain (+0.12, −0.5 keeps its minus; "<0.000001"
    takes none)."""
    text = sig(x, digits)
    return f"+{text}" if float(x) > 0 and math.isfinite(float(x)) and text[0].isdigit() else text
