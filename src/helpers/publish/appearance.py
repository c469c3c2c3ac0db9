"""How a set is shown: the family palette, the per-set display context every figure takes (``Appearance``: labels,
dataset labels, families and their colours, dataset order, whether simulated), release labels and the order of its
models by family."""

from __future__ import annotations

from dataclasses import dataclass

import seaborn as sns

from helpers.analyze import intervals
from helpers.analyze.estimates import Analysis
from helpers.core.tasks import in_category_order

FAMILY_COLORS = {"lightweight": "#4C72B0", "large": "#DD8452", "reasoning": "#55A868"}


MARKERS = {"vanilla": "o", "retry": "s", "warming": "^", "escalation": "D", "self_refine": "P", "majority": "v",
           "best": "X", "ldb_seed": "p", "ldb": "h"}  # a method's marker by the start of its name (longer keys first)


def marker(method: str) -> str:
    """A method's matplotlib marker (``MARKERS``; "o" for one it does not name)."""
    return next((m for key, m in MARKERS.items() if method.startswith(key)), "o")


def family_palette(families: list[str]) -> dict[str, str]:
    """The paper's three families keep their colours; any other family (a fork's) gets the next ones in name
    order, so a family has one colour whatever order a figure lists the families in."""
    spare = iter(c for c in sns.color_palette("colorblind", 10).as_hex() if c not in FAMILY_COLORS.values())
    others = {f: next(spare) for f in sorted(set(families) - set(FAMILY_COLORS))}  # sorted: every figure agrees
    return {f: FAMILY_COLORS.get(f) or others[f] for f in families}


@dataclass(frozen=True)
class Appearance:
    """One set's display context, passed to every figure that names models or datasets: ``labels`` (model id ->
    label), ``task_labels`` (dataset id -> label), ``families`` (model id -> family, in the set's order of models),
    ``order`` (the datasets in the paper's order of categories: panels follow it) and ``simulated`` (every title says
    SIMULATED). Colours follow from the families (``family_palette``)."""
    labels: dict[str, str]
    task_labels: dict[str, str]
    families: dict[str, str]
    order: list[str]
    simulated: bool = False

    @classmethod
    def of(cls, an: Analysis) -> Appearance:
        return cls(dict(an.labels), dict(an.task_labels), {m: an.families[m] for m in an.models},
                   in_category_order(an.tasks), bool(an.simulated))

    @property
    def family_colors(self) -> dict[str, str]:
        """Family -> colour, in the set's order of families (a figure's legend)."""
        return family_palette(list(dict.fromkeys(self.families.values())))

    @property
    def model_colors(self) -> dict[str, str]:
        """Model label -> its family's colour."""
        palette = self.family_colors
        return {self.labels.get(m, m): palette[f] for m, f in self.families.items()}


def release_names(an: Analysis) -> dict[str, str]:
    """Release step index -> ``YYYY-MM-DD model(s)`` label, in date order."""
    return {str(i): f"{d:%Y-%m-%d} {', '.join(an.labels.get(m, m) for m in names)}"
            for i, (d, names) in enumerate(intervals.set_steps(an))}


def release_colors(an: Analysis) -> dict[str, str]:
    """Release label -> the colour of its (first) model's family."""
    palette, labels = Appearance.of(an).family_colors, release_names(an)
    return {labels[str(i)]: palette[an.families[names[0]]] for i, (_, names) in enumerate(intervals.set_steps(an))}


def models_by_family(an: Analysis) -> dict[str, str]:
    """Model -> label, grouped by family (in the set's order of families), by release date within one."""
    fams = list(dict.fromkeys(an.families))
    order = sorted(an.models, key=lambda m: (fams.index(an.families[m]), an.releases[m], an.labels[m]))
    return {m: an.labels[m] for m in order}


def family_colors(an: Analysis) -> dict[str, str]:
    """Family -> colour, in the set's order of families (a figure's legend)."""
    return Appearance.of(an).family_colors


def model_colors(an: Analysis) -> dict[str, str]:
    """Model label -> its family's colour."""
    return Appearance.of(an).model_colors
