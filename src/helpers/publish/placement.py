"""Where a figure's labels go: each annotation moved until it overlaps no other label and, where it can, covers no
drawn line, marker or leader (display units: pixels of the figure's canvas). Geometry plus matplotlib's own text
boxes; no file I/O."""

from __future__ import annotations

import matplotlib
import matplotlib.cbook
import matplotlib.collections
import matplotlib.text
import matplotlib.transforms
import numpy as np

PAD_PT = 1.5  # a label keeps this far from a line or a point (points)
DROP_COST = 4  # a label left out weighs as much as this many tangles (leaders crossing a leader or another label)


def text_box(text, renderer):
    """A text's own box in display units (an annotation's without its leader line, at its current offset)."""
    if isinstance(text, matplotlib.text.Annotation):
        text.update_positions(renderer)  # an annotation places its text only when drawn
    return matplotlib.text.Text.get_window_extent(text, renderer)


def segments_hit_box(segments: np.ndarray, box: tuple[float, float, float, float]) -> bool:
    """Whether any segment crosses or lies in the box. ``segments`` (n, 4): x0, y0, x1, y1; ``box``: x0, y0, x1, y1
    (x0 <= x1, y0 <= y1), both in one unit. Liang–Barsky clipping, all segments at once; non-finite rows never hit."""
    seg = segments[np.isfinite(segments).all(axis=1)] if len(segments) else segments
    return bool(len(seg)) and bool(_clips(seg, np.asarray(box, float)[None, :]).any())


def markers_crossed(leader: np.ndarray, boxes: np.ndarray) -> int:
    """How many marker boxes (m, 4) a leader (1, 4: from its point to its label) passes through, its own point's
    (the boxes holding its start) not counted: a leader that runs through a neighbour's marker seems to name it."""
    if not len(leader) or not len(boxes):
        return 0
    x0, y0 = leader[0, 0], leader[0, 1]
    other = boxes[~((boxes[:, 0] <= x0) & (x0 <= boxes[:, 2]) & (boxes[:, 1] <= y0) & (y0 <= boxes[:, 3]))]
    return int(_clips(leader[:1], other).sum()) if len(other) else 0


def _clips(segments: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """Whether each segment crosses or lies in its box (Liang–Barsky clipping), broadcast: ``segments`` (n, 4) and
    ``boxes`` (m, 4), each x0, y0, x1, y1 in one unit, n and m equal (pairs) or one of them 1; bool (max(n, m),)."""
    x0, y0 = segments[:, 0], segments[:, 1]
    dx, dy = segments[:, 2] - x0, segments[:, 3] - y0
    n = max(len(segments), len(boxes))
    lo, hi, ok = np.zeros(n), np.ones(n), np.ones(n, bool)
    with np.errstate(divide="ignore", invalid="ignore"):
        for p, q in ((-dx, x0 - boxes[:, 0]), (dx, boxes[:, 2] - x0), (-dy, y0 - boxes[:, 1]), (dy, boxes[:, 3] - y0)):
            r = q / p  # where p == 0 (parallel to this edge) r is unused
            ok &= (p != 0) | (q >= 0)  # parallel to this edge and outside it: no hit
            lo = np.where(p < 0, np.maximum(lo, r), lo)
            hi = np.where(p > 0, np.minimum(hi, r), hi)
    return ok & (lo <= hi)


def _crossing(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Whether segment ``a[i]`` and segment ``b[j]`` cross at a point inside both: bool (n, m) for ``a`` (n, 4) and
    ``b`` (m, 4), each x0, y0, x1, y1; a row with a NaN crosses nothing."""
    def side(seg, r):  # the side of the points r (1, m, 2) of each segment's line (n, 1, 4): -1, 0 or 1, (n, m)
        return np.sign((seg[..., 2] - seg[..., 0]) * (r[..., 1] - seg[..., 1])
                       - (seg[..., 3] - seg[..., 1]) * (r[..., 0] - seg[..., 0]))

    def straddles(s, t):  # t's two ends on either side of s's line, (len(s), len(t))
        return side(s[:, None, :], t[None, :, :2]) * side(s[:, None, :], t[None, :, 2:]) < 0

    return straddles(a, b) & straddles(b, a).T


def _line_segments(line) -> np.ndarray:
    """A visible line's drawn segments (n, 4) in display units, its step style applied."""
    xy = np.asarray(line.get_xydata(), float)
    if len(xy) < 2:
        return np.empty((0, 4))
    steps = matplotlib.cbook.STEP_LOOKUP_MAP.get(line.get_drawstyle(), matplotlib.cbook.STEP_LOOKUP_MAP["default"])
    xs, ys = steps(xy[:, 0], xy[:, 1])
    with np.errstate(invalid="ignore"):
        pts = line.get_transform().transform(np.column_stack([xs, ys]))
    return np.hstack([pts[:-1], pts[1:]])


def obstacles(ax, fig) -> tuple[np.ndarray, np.ndarray]:
    """What a label should not cover in ``ax``: the segments (n, 4) of its visible lines (steps, fits, error bars)
    and its markers (scatter points, a line's or an errorbar's markers) as boxes (m, 4): x0, y0, x1, y1 in display
    units, padded by ``PAD_PT``."""
    pad = PAD_PT * fig.dpi / 72
    segments, points = [np.empty((0, 4))], [np.empty((0, 4))]
    for line in ax.get_lines():
        if not line.get_visible():
            continue
        if line.get_linestyle() not in ("None", " ", ""):
            segments.append(_line_segments(line))
        if line.get_marker() not in (None, "None", " ", "") and len(line.get_xydata()):  # e.g. an errorbar's points
            xy = line.get_transform().transform(np.asarray(line.get_xydata(), float))
            points.append(_marker_boxes(xy, line.get_markersize() / 2 * fig.dpi / 72 + pad))
    for coll in ax.collections:
        if not coll.get_visible():
            continue
        if isinstance(coll, matplotlib.collections.LineCollection):
            for seg in coll.get_segments():
                if len(seg) >= 2:
                    pts = coll.get_transform().transform(np.asarray(seg, float))
                    segments.append(np.hstack([pts[:-1], pts[1:]]))
        elif isinstance(coll, matplotlib.collections.PathCollection) and len(np.asarray(coll.get_offsets())):
            xy = coll.get_offset_transform().transform(np.asarray(coll.get_offsets(), float))
            sizes = np.resize(coll.get_sizes() if len(coll.get_sizes()) else [36.0], len(xy))
            points.append(_marker_boxes(xy, np.sqrt(sizes) / 2 * fig.dpi / 72 + pad))  # a scatter size is an area (pt²)
    return np.vstack(segments), np.vstack(points)


def _marker_boxes(xy: np.ndarray, r) -> np.ndarray:
    """Boxes (m, 4) of half-width ``r`` (display units; scalar or (m,)) around marker centres ``xy`` (m, 2)."""
    return np.column_stack([xy[:, 0] - r, xy[:, 1] - r, xy[:, 0] + r, xy[:, 1] + r])


def _covers(box, segments: np.ndarray, points: np.ndarray, pad: float) -> bool:
    """Whether a text box (padded by ``pad``) crosses a segment or a marker's box (see ``obstacles``)."""
    b = _box_row(box, pad)
    hit_point = bool(((points[:, 0] < box.x1) & (points[:, 2] > box.x0)
                      & (points[:, 1] < box.y1) & (points[:, 3] > box.y0)).any())
    return hit_point or segments_hit_box(segments, b)


def _candidates(dx: float, dy: float, step_pt: float, tries: int):
    """Offsets (points) and alignments to try, nearest to the asked offset first: up or down ``tries`` steps of
    ``step_pt``, up to seven steps further out, right of the point (left-aligned) before left of it, and centred
    straight above or below it (a leader that runs straight up passes no neighbour's marker)."""
    shifts = [(out * step_pt, k * step_pt) for out in range(8) for k in range(-tries, tries + 1)]
    for ox, oy in sorted(shifts, key=lambda s: (np.hypot(*s), s[0], -s[1])):
        for side in (1, -1):
            yield (side * (abs(dx) + ox), dy + oy), "left" if side > 0 else "right"
        if ox == 0 and oy != 0:
            yield (0.0, dy + oy), "center"


def _leader(text, ax, box) -> np.ndarray:
    """An annotation's leader as one segment (1, 4) from its point to where it leaves its box (display units): the
    box's corner, edge middle or centre nearest the point (``anchor``), or none (0, 4) when it has no arrow (data
    coordinates assumed, as ``ax.annotate`` gives by default)."""
    if text.arrow_patch is None or text.xycoords != "data":
        return np.empty((0, 4))
    x, y = ax.transData.transform((ax.convert_xunits(text.xy[0]), ax.convert_yunits(text.xy[1])))
    (ax_, ay), _ = anchor(box, (x, y))
    return np.array([[x, y, ax_, ay]])


def anchor(box, point) -> tuple[tuple[float, float], tuple[float, float]]:
    """Where a leader leaves a label's box (display units) and that place as a fraction of the box: of its corners,
    edge middles and centre, the nearest to ``point`` in x and in y (as matplotlib's own simple arrows pick), so a
    label up and to the right of its point is led from its lower left corner, nearly straight down to it."""
    rx = min(((box.x0, 0.0), ((box.x0 + box.x1) / 2, 0.5), (box.x1, 1.0)), key=lambda v: abs(v[0] - point[0]))
    ry = min(((box.y0, 0.0), ((box.y0 + box.y1) / 2, 0.5), (box.y1, 1.0)), key=lambda v: abs(v[0] - point[1]))
    return (rx[0], ry[0]), (rx[1], ry[1])


def lead_from_anchor(text, ax, box) -> None:
    """Draw the annotation's leader from its box's ``anchor`` (matplotlib keeps where a leader leaves the box in the
    annotation's ``_arrow_relpos``: no public setter)."""
    if text.arrow_patch is None or text.xycoords != "data" or not hasattr(text, "_arrow_relpos"):
        return
    point = ax.transData.transform((ax.convert_xunits(text.xy[0]), ax.convert_yunits(text.xy[1])))
    text._arrow_relpos = anchor(box, point)[1]


def _touch(a, b, gap: float) -> bool:
    """Whether two label boxes overlap or come within ``gap`` (display units) of each other: two labels side by side
    with no gap read as one ("3" beside "8" read "38")."""
    return a.x0 < b.x1 + gap and b.x0 < a.x1 + gap and a.y0 < b.y1 + gap and b.y0 < a.y1 + gap


def _within(box, panel, margin: float) -> bool:
    """Whether ``box`` lies inside ``panel`` (display units) at least ``margin`` from its frame: a number flush with
    the frame reads as part of the tick label beside it ("100 2")."""
    return (box.x0 >= panel.x0 + margin and box.x1 <= panel.x1 - margin and box.y0 >= panel.y0 + margin
            and box.y1 <= panel.y1 - margin)


def _box_row(box, pad: float = 0.0) -> tuple[float, float, float, float]:
    return box.x0 - pad, box.y0 - pad, box.x1 + pad, box.y1 + pad


def _mover(text, renderer, scale: float):
    """``box(offset, align)``: the text's box (display units) at another offset (points) and alignment, laid out once
    per alignment and then translated (an annotation's text sits at its point plus its offset, so its box moves by
    the offset's change); the text itself is left as it was."""
    dx, dy = text.xyann
    align0, base = text.get_horizontalalignment(), {}

    def box(offset, align):
        if align not in base:
            text.set_horizontalalignment(align)
            base[align] = text_box(text, renderer)
            text.set_horizontalalignment(align0)
        return base[align].translated((offset[0] - dx) * scale, (offset[1] - dy) * scale)

    return box


def declutter(fig, ax, texts, step_pt: float = 7.0, tries: int = 8) -> int:
    """Move each annotation of ``texts`` (offset in points) up or down in steps to a place inside the panel that
    overlaps no label placed before it; of those, the nearest that covers no line, marker or leader of the panel
    and whose own leader crosses no placed label, leader or other marker — or, where none does, the nearest whose
    leader crosses the fewest. One that finds no place, or only places covering a line or marker, is removed (its point
    stays, coloured). Labels are placed in several orders (``_orders``), crossing leaders swapped (``uncross``), and the
    arrangement kept with the fewest tangles (``_tangles``; each label removed counts ``DROP_COST``), then the
    shortest leaders. Returns that arrangement's score: 0 where every label found an untangled place."""
    renderer = fig.canvas.get_renderer()
    room = (*obstacles(ax, fig), ax.get_window_extent(renderer), PAD_PT * fig.dpi / 72)
    asked = [(t.xyann, t.get_horizontalalignment()) for t in texts]
    best = None  # (score, [(text, offset, alignment)], dropped)
    for order in _orders(ax, texts):
        for text, (offset, align) in zip(texts, asked, strict=True):
            text.xyann = offset
            text.set_horizontalalignment(align)
        kept, dropped = _place(fig, ax, order, room, step_pt, tries)
        uncross(fig, ax, kept, room)
        length = sum(float(np.hypot(*(seg[2:] - seg[:2]))) for t, b in kept for seg in _leader(t, ax, b))
        score = (DROP_COST * len(dropped) + _tangles(ax, kept, room[3]), length)
        if best is None or score < best[0]:
            best = (score, [(t, t.xyann, t.get_horizontalalignment()) for t, _ in kept], dropped)
        if score[0] == 0 and order is texts:
            break  # the asked order already places every label untangled
    for text, offset, align in best[1] if best else []:
        text.xyann = offset
        text.set_horizontalalignment(align)
        lead_from_anchor(text, ax, text_box(text, renderer))
    for text in best[2] if best else []:
        text.remove()
    return best[0][0] if best else 0


def place_labels(fig, labelled: list[tuple], order: list[str], title: str = "numbers at the points") -> bool:
    """``declutter`` each panel's labels (``labelled``: (panel, its annotations, the names each one names — a tuple
    per annotation)); where that leaves a label dropped or a leader tangled in any panel, every label of the figure
    becomes its names' numbers instead, placed again, and a key (number, name) goes under the figure's legends. A
    name's number is its place in ``order`` (the set's models: the same number in every figure of a set), then
    after those in order of first appearance. Returns whether the labels were numbered."""
    asked = [(ax, [(t.xy, t.xycoords, t.get_fontsize(), t.get_color(), t.arrowprops) for t in texts], names)
             for ax, texts, names in labelled]
    if not any([declutter(fig, ax, texts) for ax, texts, _ in labelled]):  # a list: every panel is placed
        return False
    numbers = {name: i + 1 for i, name in enumerate(dict.fromkeys(order))}
    for ax, texts, _ in labelled:
        for text in texts:
            if text in ax.texts:
                text.remove()
    for ax, specs, names in asked:
        marks = []
        for (xy, coords, size, color, arrow), named in zip(specs, names, strict=True):
            text = ", ".join(str(numbers.setdefault(n, len(numbers) + 1)) for n in named)
            marks.append(ax.annotate(text, xy, xycoords=coords, xytext=(3, -3), textcoords="offset points",
                                     fontsize=size, color=color, arrowprops=arrow))
            marks[-1].set_in_layout(False)
        declutter(fig, ax, marks)
    used = sorted({n for _, _, names in asked for named in names for n in named}, key=numbers.__getitem__)
    _number_key(fig, {n: numbers[n] for n in used}, title, next((sp[0][2] for _, sp, _ in asked if sp), 8.0))
    return True


def _number_key(fig, numbers: dict[str, int], title: str, size: float) -> None:
    """A legend under the figure's legends (or its panels) naming each number of ``place_labels``."""
    from matplotlib.lines import Line2D

    fig.draw_without_rendering()
    renderer = fig.canvas.get_renderer()
    boxes = [lg.get_window_extent(renderer) for lg in fig.legends] or [ax.get_tightbbox(renderer) for ax in fig.axes
                                                                        if ax.get_visible()]
    below = fig.transFigure.inverted().transform((0, min(b.y0 for b in boxes)))[1]
    with matplotlib.rc_context({"text.parse_math": True}):  # a number as the marker's glyph (mathtext, digits only)
        handles = [Line2D([], [], ls="", marker=f"${int(n)}$", color="#333333", markersize=5 + 2 * len(str(n)))
                   for n in numbers.values()]
    fig.legend(handles, list(numbers), loc="upper center", bbox_to_anchor=(0.5, below), ncol=min(4, len(numbers)),
               fontsize=size, title=title, title_fontsize=size, frameon=False)


def _orders(ax, texts) -> list:
    """Orders to place ``texts`` in: as given, the most crowded point first (most other labelled points within a
    tenth of the panel), and by the point's x then y (display units)."""
    if len(texts) < 3:
        return [texts]
    xy = np.array([ax.transData.transform((ax.convert_xunits(t.xy[0]), ax.convert_yunits(t.xy[1]))) for t in texts])
    reach = 0.1 * np.hypot(*ax.get_window_extent().size)
    crowd = (np.hypot(*(xy[:, None, :] - xy[None, :, :]).transpose(2, 0, 1)) < reach).sum(axis=1)
    keys = (-crowd, xy[:, 0], -xy[:, 1])
    return [texts, *([texts[i] for i in np.argsort(k, kind="stable")] for k in keys)]


def _place(fig, ax, texts, room: tuple, step_pt: float, tries: int) -> tuple[list, list]:
    """``declutter``'s placement of ``texts`` in this order: ((text, box) placed, texts with no place)."""
    renderer = fig.canvas.get_renderer()
    segments, points, panel, pad = room
    kept: list[tuple] = []
    dropped: list = []
    leaders: list[np.ndarray] = []
    for text in texts:
        dx, dy = text.xyann
        best = None  # ((covers, tangles), offset, alignment, box)
        moved = _mover(text, renderer, fig.dpi / 72)
        placed = (np.array([_box_row(b, pad) for _, b in kept]).reshape(-1, 4), np.vstack([np.empty((0, 4)), *leaders]))
        for offset, align in _candidates(dx, dy, step_pt, tries):
            box = moved(offset, align)
            if not _within(box, panel, 2 * pad) or any(_touch(box, b, pad) for _, b in kept):
                continue
            leader = _leader(text, ax, box)
            faults = (_covers(box, segments, points, pad),  # a line or marker covered: never, then leaders crossed
                      _leader_faults(leader, *placed) + markers_crossed(leader, points))
            if best is None or faults < best[0]:
                best = (faults, offset, align, box)
            if faults == (False, 0):
                break
        if best is None or best[0][0]:  # no place that covers no line or marker: the point stays, coloured
            dropped.append(text)
            continue
        _, offset, align, box = best
        text.set_horizontalalignment(align)
        text.xyann = offset
        kept.append((text, box))
        leaders.append(_leader(text, ax, box))
        segments = np.vstack([segments, leaders[-1]])
    return kept, dropped


def _leader_faults(leader: np.ndarray, boxes: np.ndarray, leaders: np.ndarray) -> int:
    """Whether a leader (0 or 1, 4) crosses any placed label's (padded) box of ``boxes`` (m, 4), plus how many placed
    ``leaders`` (k, 4) it crosses; display units."""
    if not len(leader) or not np.isfinite(leader).all():
        return 0
    through = bool(len(boxes)) and bool(_clips(leader, boxes).any())
    return int(through) + int(_crossing(leader, leaders).sum())


def _tangles(ax, kept, pad: float) -> int:
    """How many pairs of leaders cross, plus how many leaders cross another label (its box padded by ``pad``), of
    ``kept`` ((text, box) pairs)."""
    if len(kept) < 2:
        return 0
    lead = np.full((len(kept), 4), np.nan)  # a label without a leader: NaN, which crosses and hits nothing
    for k, (text, box) in enumerate(kept):
        seg = _leader(text, ax, box)
        if len(seg):
            lead[k] = seg[0]
    crossings = int(np.triu(_crossing(lead, lead), 1).sum())
    i, j = np.nonzero(~np.eye(len(kept), dtype=bool))  # every leader against every other label's box
    boxes = np.array([_box_row(b, pad) for _, b in kept])
    drawn = np.isfinite(lead[i]).all(axis=1)
    return crossings + int(_clips(lead[i][drawn], boxes[j][drawn]).sum())


def uncross(fig, ax, kept: list, room: tuple) -> None:
    """Swap the places of two placed labels whose leaders cross (each label's box centred where the other's was)
    while that untangles the panel (``_tangles`` falls) and each box stays inside it, clear of the other labels and of
    every line and marker. ``kept``: (annotation, its box) as ``declutter`` placed them, updated in place; ``room``:
    (segments, marker boxes, the panel's box, padding), display units."""
    scale = fig.dpi / 72
    for _ in range(2 * len(kept)):  # each swap lowers the tangles: a bounded number of passes
        now = _tangles(ax, kept, room[3])
        for i in range(len(kept)):
            if now and any(_swapped(ax, kept, i, j, room, scale, now) for j in range(i + 1, len(kept))):
                break
        else:
            return


def _swapped(ax, kept: list, i: int, j: int, room: tuple, scale: float, now: int) -> bool:
    """Swap labels ``i`` and ``j`` of ``kept`` (see ``uncross``) if that is allowed and lowers the tangles ``now``."""
    segments, points, panel, pad = room
    (ti, bi), (tj, bj) = kept[i], kept[j]
    moves = []
    for text, box, target in ((ti, bi, bj), (tj, bj, bi)):
        shift = ((target.x0 + target.x1 - box.x0 - box.x1) / 2, (target.y0 + target.y1 - box.y0 - box.y1) / 2)
        moves.append((text, box.translated(*shift),
                      (text.xyann[0] + shift[0] / scale, text.xyann[1] + shift[1] / scale)))
    others = [b for k, (_, b) in enumerate(kept) if k not in (i, j)]
    for _, box, _ in moves:
        if not _within(box, panel, 2 * pad) or any(_touch(box, b, pad)
                                                   for b in others) or _covers(box, segments, points, pad):
            return False
    if _touch(moves[0][1], moves[1][1], pad):
        return False
    trial = list(kept)
    trial[i], trial[j] = (ti, moves[0][1]), (tj, moves[1][1])
    if _tangles(ax, trial, pad) >= now:
        return False
    for text, _, offset in moves:
        text.xyann = offset
    kept[i], kept[j] = trial[i], trial[j]
    return True


def labels_over_marks(fig, renderer) -> list[str]:
    """Every label of a panel (its texts and annotations) whose box covers a drawn line, error bar or marker of that
    panel (``obstacles``, unpadded): one line each, for the layout check."""
    out = []
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        segments, points = obstacles(ax, fig)
        for text in ax.texts:
            if text.get_visible() and text.get_text().strip() and _covers(text_box(text,
                                                                                   renderer), segments, points, 0.0):
                out.append(f"label over a line or marker: {text.get_text()[:40]!r}")
    return out


def leaders_tangled(fig, renderer) -> list[str]:
    """Every panel whose annotations' leaders cross each other or another label (``_tangles``, unpadded): one line
    each, for the layout check."""
    out = []
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        kept = [(t, text_box(t, renderer)) for t in ax.texts
                if isinstance(t, matplotlib.text.Annotation) and t.get_visible() and t.get_text().strip()]
        if tangles := _tangles(ax, kept, 0.0):
            out.append(f"{tangles} leader(s) cross a leader or another label: {ax.get_title()[:40]!r}")
    return out
