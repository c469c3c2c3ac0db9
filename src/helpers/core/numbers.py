"""Numbers as people read them: three significant figures (6.25 stays 6.25, 93.44 is 93.4), thousands grouped.
Every table, finding and figure label formats through here; must import nothing from the pipeline."""

from __future__ import annotations

import math


def sig(x: float, digits: int = 3) -> str:
    """``x`` to ``digits`` significant figures, never in e-notation: thousands grouped at or above 10**digits (1,234),
    small values as decimals (0.000044) down to ``SMALLEST_DECIMAL``, below it as ``4.4 × 10⁻⁸``; no trailing zeros;
    ``∞`` / ``-∞`` for infinities and ``–`` for NaN."""
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
        return _power_of_ten(rounded, digits)
    if rounded != 0 and abs(rounded) < 1e-4:  # 0.000044, never 4.4e-05
        places = digits - 1 - math.floor(math.log10(abs(rounded)))
        return f"{rounded:.{places}f}".rstrip("0").rstrip(".")
    return f"{x:.{digits}g}"


SMALLEST_DECIMAL = 1e-7  # below it, a decimal has too many zeros to count: 4.4 × 10⁻⁸
SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def _power_of_ten(x: float, digits: int) -> str:
    """``x`` as ``m × 10ⁿ`` with ``digits`` significant figures in ``m`` (trailing zeros dropped)."""
    exponent = math.floor(math.log10(abs(x)))
    mantissa = f"{x / 10 ** exponent:.{digits - 1}f}".rstrip("0").rstrip(".")
    return f"{mantissa} × 10{str(exponent).translate(SUPERSCRIPT)}"


def signed(x: float, digits: int = 3) -> str:
    """``sig`` with a plus sign on positive values: a change or a gain (+0.12, −0.5 keeps its minus)."""
    text = sig(x, digits)
    return f"+{text}" if float(x) > 0 and math.isfinite(float(x)) else text
