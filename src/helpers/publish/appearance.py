"""How a set is shown: its release labels, the order of its models by family, and the colours of families, models
and releases (one palette per set, the figures' ``family_palette``)."""

from __future__ import annotations

from helpers.analyze import intervals
from helpers.analyze.estimates import Analysis
from helpers.publish import figures


def release_names(an: Analysis) -> dict[str, str]:
    """Release step index -> ``YYYY-MM-DD model(s)`` label, in date order."""
    return {str(i): f"{d:%Y-%m-%d} {', '.join(an.labels.get(m, m) for m in names)}"
            for i, (d, names) in enumerate(intervals.set_steps(an))}


def release_colors(an: Analysis) -> dict[str, str]:
    """Release label -> the colour of its (first) model's family."""
    palette = figures.family_palette(list(dict.fromkeys(an.families)))
    return {release_names(an)[str(i)]: palette[an.families[names[0]]] for i, (_, names) in enumerate(intervals.set_steps(an))}


def models_by_family(an: Analysis) -> dict[str, str]:
    """Model -> label, grouped by family (in the set's order of families), by release date within one."""
    fams = list(dict.fromkeys(an.families))
    order = sorted(an.models, key=lambda m: (fams.index(an.families[m]), an.releases[m], an.labels[m]))
    return {m: an.labels[m] for m in order}


def family_colors(an: Analysis) -> dict[str, str]:
    """Family -> colour, in the set's order of families (a figure's legend)."""
    return figures.family_palette(list(dict.fromkeys(an.families)))


def model_colors(an: Analysis) -> dict[str, str]:
    """Model label -> its family's colour."""
    palette = figures.family_palette(list(dict.fromkeys(an.families)))
    return {an.labels[m]: palette[an.families[m]] for m in an.models}
