"""Numbers as people read them: three significant figures (6.25 stays 6.25, 93.44 is 93.4), thousands grouped.
Every table, finding and figure label formats through here; must import nothing from the pipeline."""

from __future__ import annotations

import math


def sig(x: float, digits: int = 3) -> str:
    """``x`` to ``digits`` significant figures, with no exponent at or above 10**digits (1,234) and without trailing zeros;
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
    return f"{x:.{digits}g}"
