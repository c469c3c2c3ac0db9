"""How a set is shown: the family palette, the per-set display context every figure takes (``Appearance``: labels,
dataset labels, families and their colours, dataset order, whether simulated), release labels and the order of its
models by family."""

from __future__ import annotations

from dataclasses import dataclass

from helpers.analyze import intervals
from helpers.analyze.estimates import Analysis
from helpers.core.tasks import in_category_order

FAMILY_COLORS = {"lightweight": "#4C72B0", "large": "#DD8452", "reasoning": "#55A868"}


MARKERS = {"vanilla": "o", "retry": "s", "warming": "^", "escalation": "D", "self_refine": "P", "majority": "v",
           "best": "X", "ldb_seed": "<", "ldb": "*"}  # a method's marker by the start of its name (longer keys first;
# no pentagon or hexagon: at a marker's size they read as the vanilla circle)


def marker(method: str) -> str:
    """A method's matplotlib marker (``MARKERS``; "o" for one it does not name)."""
    return next((m for key, m in MARKERS.items() if method.startswith(key)), "o")


# Colours of the families other than the paper's three, handed out in the families' name order. Up to seven: the
# colour-blind-safe palette (seaborn's "colorblind", Okabe-Ito's hues), its most distinct first; eight or more:
# Tableau's ten, whose orange, red and brown stay apart (the colour-blind palette's orange, vermillion and tan read as
# one when all ten are used, as on SWE-bench's ten organisations); beyond ten, Tableau's lighter twins. The blue,
# orange and green of either go last where the paper's families, drawn in those hues, are in the set.
FEW_COLORS = ("#0173b2", "#de8f05", "#029e73", "#cc78bc", "#949494", "#56b4e9", "#ece133",
              "#d55e00", "#ca9161", "#fbafe4")
MANY_COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
               "#7f7f7f", "#bcbd22", "#17becf",
               "#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5", "#c49c94", "#f7b6d2",
               "#c7c7c7", "#dbdb8d", "#9edae5")


def family_palette(families: list[str]) -> dict[str, str]:
    """The paper's three families keep their colours; any other family (a fork's) gets the next ones in name
    order (``FEW_COLORS`` or, for eight or more, ``MANY_COLORS``; repeated past twenty), so a family has one colour
    whatever order a figure lists the families in."""
    others = sorted(set(families) - set(FAMILY_COLORS))  # sorted: every figure agrees
    pool: tuple[str, ...] = FEW_COLORS if len(others) <= 7 else MANY_COLORS
    if set(families) & set(FAMILY_COLORS):
        pool = pool[3:] + pool[:3]  # the paper's hues (blue, orange, green) last
    colours = {f: pool[i % len(pool)] for i, f in enumerate(others)}
    return {f: FAMILY_COLORS.get(f) or colours[f] for f in families}


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
