"""The paper's counterfactual equations written out as pandas, one loop per family or model: the reference the
vectorised estimators (``analyze.headline``, ``analyze.intervals``) and the figures are checked against in the tests.
Not part of the package: nothing in ``helpers`` needs them."""

import pandas as pd

from helpers.analyze.costofpass import frontier, gain, relative_gain


def family_counterfactual(cop: pd.DataFrame, families: pd.Series, expert: pd.Series,
                          denominator: str = "without_family") -> pd.DataFrame:
    """Fig. 3: G(M_g, M_T \\ M_g) / V(·) per task (rows) and family (columns).

    ``denominator``: ``"without_family"`` divides by V(M_T \\ M_g), as the reference code does
    (0-1, like Eq. 16); ``"all"`` divides by V(M_T), as Eq. 12 is printed (can exceed 1).
    """
    everyone = list(families.index)
    total = frontier(cop, everyone, expert)
    out = {}
    for fam, members in families.groupby(families):
        rest = [s for s in everyone if s not in members.index]
        ref = frontier(cop, rest, expert) if denominator == "without_family" else total
        out[fam] = gain(cop, list(members.index), rest, expert) / ref
    return pd.DataFrame(out)


def single_model_counterfactual(cop: pd.DataFrame, strategies: list[str], expert: pd.Series) -> pd.DataFrame:
    """Eq. 16 (Fig. 5): G({m}, M_T \\ {m}) / V(M_T \\ {m}) per task (rows) and model (columns), 0-1."""
    out = {}
    for s in strategies:
        rest = [x for x in strategies if x != s]
        out[s] = relative_gain(cop, [s], rest, expert)
    return pd.DataFrame(out)
