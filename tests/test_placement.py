"""Label placement: the geometry of a segment against a box, and labels moved off lines and markers."""

import matplotlib.pyplot as plt
import numpy as np
import pytest

from helpers.publish import placement
from helpers.publish.figures.style import LEADER

BOX = (0.0, 0.0, 10.0, 5.0)


def test_a_segment_hits_a_box_when_it_crosses_or_lies_in_it():
    def hit(*seg):
        return placement.segments_hit_box(np.array([seg], float), BOX)
    assert hit(-5, 2, 15, 2)  # straight through
    assert hit(1, 1, 2, 2)  # inside
    assert hit(-1, -1, 1, 1)  # one end inside
    assert hit(5, -3, 5, 8)  # vertical, through
    assert not hit(-5, 6, 15, 6)  # above, parallel
    assert not hit(11, -3, 11, 8)  # beside, parallel
    assert not hit(-3, 4, 2, 9)  # passes the corner outside
    assert not hit(np.nan, 2, 15, 2)  # a gap in a line is no segment
    assert not placement.segments_hit_box(np.empty((0, 4)), BOX)
    many = np.array([[-5, 6, 15, 6], [11, -3, 11, 8], [5, -3, 5, 8]], float)
    assert placement.segments_hit_box(many, BOX) and not placement.segments_hit_box(many[:2], BOX)


def _panel_with_a_line_over_the_label():
    """A point at (0.5, 0.5) whose default label (5 pt right, 5 pt up) sits on a horizontal line at y = 0.52."""
    fig, ax = plt.subplots(figsize=(4, 3), dpi=100)
    ax.set(xlim=(0, 1), ylim=(0, 1))
    ax.plot([0, 1], [0.52, 0.52], color="k")
    ax.scatter([0.5], [0.5])
    text = ax.annotate("a model's name", (0.5, 0.5), xytext=(5, 5), textcoords="offset points", arrowprops=LEADER)
    fig.draw_without_rendering()
    return fig, ax, text


def _covers_the_line(fig, ax, text) -> bool:
    segments, points = placement.obstacles(ax, fig)
    box = placement.text_box(text, fig.canvas.get_renderer())
    return placement._covers(box, segments, points, 0.0)


def test_a_label_moves_off_a_line_where_there_is_room():
    fig, ax, text = _panel_with_a_line_over_the_label()
    assert _covers_the_line(fig, ax, text)
    placement.declutter(fig, ax, [text])
    assert text.axes is ax and not _covers_the_line(fig, ax, text)
    plt.close(fig)


def test_a_label_with_no_clear_place_is_removed_and_the_layout_check_names_one_left_over_a_line():
    """Issue 38 item 5: labels sat on lines while every layout.json said there was no problem."""
    from helpers.publish.figures.style import layout_problems

    fig, ax, text = _panel_with_a_line_over_the_label()
    assert any(p.startswith("label over a line or marker") for p in layout_problems(fig))  # left where it was asked
    for y in np.linspace(0, 1, 60):  # lines everywhere: nothing is clear of them
        ax.plot([0, 1], [y, y], color="0.8")
    placement.declutter(fig, ax, [text])
    assert text.axes is None  # removed: its point stays, coloured
    assert not any(p.startswith("label over") for p in layout_problems(fig))
    plt.close(fig)


def test_markers_and_step_lines_are_obstacles():
    fig, ax = plt.subplots(figsize=(4, 3), dpi=100)
    ax.set(xlim=(0, 3), ylim=(0, 3))
    ax.step([0, 1, 2], [2, 1, 0.5], where="post")
    ax.scatter([1.5], [1.5], s=36)
    fig.draw_without_rendering()
    segments, points = placement.obstacles(ax, fig)
    to_display = ax.transData.transform
    (x0, y0), (x1, y1) = to_display((0, 2)), to_display((1, 2))  # the first step's flat part
    assert np.isclose(segments, [x0, y0, x1, y1]).all(axis=1).any()
    (cx, cy) = to_display((1.5, 1.5))
    assert ((points[:, 0] < cx) & (points[:, 2] > cx) & (points[:, 1] < cy) & (points[:, 3] > cy)).any()
    plt.close(fig)


def test_an_errorbars_markers_are_obstacles_even_without_whiskers():
    fig, ax = plt.subplots(figsize=(4, 3), dpi=100)
    ax.set(xlim=(0, 3), ylim=(0, 3))
    ax.errorbar([2.0], [1.0], yerr=[0.0], fmt="s", ms=6, ls="none")  # a marker whose interval is a point
    fig.draw_without_rendering()
    _, points = placement.obstacles(ax, fig)
    cx, cy = ax.transData.transform((2.0, 1.0))
    assert ((points[:, 0] < cx) & (points[:, 2] > cx) & (points[:, 1] < cy) & (points[:, 3] > cy)).any()
    plt.close(fig)


def test_crossing_leaders_are_untangled():
    """Two labels asked for on each other's side: their leaders cross where they were asked, and not once placed."""
    fig, ax = plt.subplots(figsize=(6, 3), dpi=100)
    ax.set(xlim=(0, 1), ylim=(0, 1))
    ax.scatter([0.3, 0.7], [0.5, 0.5])
    texts = [ax.annotate("left point", (0.3, 0.5), xytext=(150, 40), textcoords="offset points", arrowprops=LEADER),
             ax.annotate("right point", (0.7, 0.5), xytext=(-150, 40), textcoords="offset points", ha="right",
                         arrowprops=LEADER)]
    fig.draw_without_rendering()
    renderer = fig.canvas.get_renderer()

    def crossed():
        a, b = (placement._leader(t, ax, placement.text_box(t, renderer)) for t in texts)
        return bool(placement._crossing(a, b)[0, 0])

    assert crossed()
    from helpers.publish.figures.style import layout_problems

    assert any("leader(s) cross" in p for p in layout_problems(fig))  # the layout check names them
    placement.declutter(fig, ax, texts)
    assert all(t.axes is ax for t in texts) and not crossed()
    assert not any("leader(s) cross" in p for p in layout_problems(fig))
    plt.close(fig)


def test_segments_cross_only_inside_both():
    def cross(*xy):
        return placement._crossing(np.array([xy[:4]], float), np.array([xy[4:]], float))[0, 0]
    assert cross(0, 0, 2, 2, 0, 2, 2, 0)
    assert not cross(0, 0, 1, 1, 2, 0, 3, 1)  # apart
    assert not cross(0, 0, 1, 0, 0, 1, 1, 1)  # parallel


def test_the_vectorised_geometry_agrees_with_one_pair_at_a_time():
    """``_clips`` of many (segment, box) pairs at once and ``_crossing``'s matrix equal the one-pair answers (the
    label placement tests every leader against every label in one call: one at a time took 75 s on a 25-model set)."""
    rng = np.random.default_rng(7)
    segs, boxes = rng.uniform(0, 10, (300, 4)), np.sort(rng.uniform(0, 10, (300, 4)).reshape(300, 2, 2), axis=1)
    boxes = boxes.transpose(0, 2, 1).reshape(300, 4)  # x0 <= x1, y0 <= y1
    segs[::10, 2] = segs[::10, 0]  # vertical and horizontal segments: parallel to two edges
    segs[5::10, 3] = segs[5::10, 1]
    one = [placement.segments_hit_box(segs[i:i + 1], tuple(boxes[i])) for i in range(300)]
    assert list(placement._clips(segs, boxes)) == one and 30 < sum(one) < 270

    def side(p, q, r):
        return np.sign((q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0]))

    a, b = segs[:20], segs[20:45]
    pairs = [[bool(side(s[:2], s[2:], t[:2]) * side(s[:2], s[2:], t[2:]) < 0
                   and side(t[:2], t[2:], s[:2]) * side(t[:2], t[2:], s[2:]) < 0) for t in b] for s in a]
    assert placement._crossing(a, b).tolist() == pairs and 0 < np.sum(pairs) < 500


def test_labels_side_by_side_keep_a_gap():
    """Two number labels placed edge to edge read as one ("3" beside "8" read "38" in the sim set's figure)."""
    from matplotlib.transforms import Bbox

    three, eight = Bbox([[0, 0], [10, 10]]), Bbox([[10, 0], [20, 10]])
    assert not three.overlaps(eight.translated(0.5, 0)) and placement._touch(three, eight.translated(0.5, 0), 2.0)
    assert not placement._touch(three, eight.translated(2.5, 0), 2.0)


def test_uncross_swaps_two_placed_labels_whose_leaders_cross():
    fig, ax = plt.subplots(figsize=(6, 3), dpi=100)
    ax.set(xlim=(0, 1), ylim=(0, 1))
    ax.scatter([0.3, 0.7], [0.5, 0.5])
    texts = [ax.annotate(name, (x, 0.5), xytext=(dx, 40), textcoords="offset points", ha="center", arrowprops=LEADER)
             for name, x, dx in (("left", 0.3, 150), ("right", 0.7, -150))]
    fig.draw_without_rendering()
    renderer = fig.canvas.get_renderer()
    kept = [(t, placement.text_box(t, renderer)) for t in texts]
    room = (*placement.obstacles(ax, fig), ax.get_window_extent(renderer), 1.0)
    assert placement._tangles(ax, kept, 1.0) == 1
    placement.uncross(fig, ax, kept, room)
    assert placement._tangles(ax, kept, 1.0) == 0
    assert [round(t.xyann[0]) for t in texts] == [-16, 16]  # each where the other was (the points are 134 pt apart)
    plt.close(fig)


def _crowded_panels(names: list[str], spread: float):
    """Two panels with a point per name at the same places (x from 0.45 to 0.45 + ``spread``), each labelled."""
    fig, axes = plt.subplots(1, 2, figsize=(6, 3), dpi=100)
    labelled = []
    for ax in axes:
        ax.set(xlim=(0, 1), ylim=(0, 1))
        xs = np.linspace(0.45, 0.45 + spread, len(names))
        ax.scatter(xs, np.full(len(names), 0.5))
        labelled.append((ax, [ax.annotate(n, (x, 0.5), xytext=(4, -4), textcoords="offset points", fontsize=8,
                                          arrowprops=LEADER) for n, x in zip(names, xs)], [(n,) for n in names]))
    fig.draw_without_rendering()
    return fig, labelled


def test_names_that_would_crowd_become_numbers_with_one_key_for_every_panel():
    """Issue 38: crossing leaders in dense panels. Twelve long names on points a few pixels apart cannot all be
    placed untangled: every label becomes its name's number — its place in the set's order, the same in both panels
    and in any other figure of the set — and a legend names each number used."""
    names = [f"a rather long model name {i}" for i in range(12)]
    order = ["a model with no point here", *reversed(names)]
    fig, labelled = _crowded_panels(names, 0.05)
    assert placement.place_labels(fig, labelled, order)
    for ax, _, _ in labelled:
        shown = sorted(t.get_text() for t in ax.texts)
        assert shown and set(shown) <= {str(i) for i in range(2, 14)}
        for t in ax.texts:  # each number at its name's point
            assert t.xy[0] == pytest.approx(np.linspace(0.45, 0.5, 12)[names.index(order[int(t.get_text()) - 1])])
    key = fig.legends[-1]
    assert ([t.get_text() for t in key.get_texts()] == order[1:]
            and key.get_title().get_text() == "numbers at the points")
    plt.close(fig)


def test_names_that_fit_stay_names():
    fig, labelled = _crowded_panels(["one", "two"], 0.4)
    assert not placement.place_labels(fig, labelled, ["one", "two"])
    assert not fig.legends and sorted(t.get_text() for t in labelled[0][0].texts) == ["one", "two"]
    plt.close(fig)


def test_a_leader_through_a_neighbours_marker_is_avoided():
    """The visual review: on the local set's Figure 2 the leader of SmolLM2's label ran through Qwen's marker beside it,
    as if it named Qwen. A leader that crosses another marker counts as a tangle: the label goes where its leader
    passes none."""
    import numpy as np

    from helpers.publish import placement

    boxes = np.array([[0.0, 0.0, 2.0, 2.0], [4.0, 0.0, 6.0, 2.0]])  # its own point's marker, a neighbour's
    assert placement.markers_crossed(np.array([[1.0, 1.0, 9.0, 1.5]]), boxes) == 1  # rightwards: through the neighbour
    assert placement.markers_crossed(np.array([[1.0, 1.0, -5.0, 6.0]]), boxes) == 0  # up and left: through none
    assert placement.markers_crossed(np.empty((0, 4)), boxes) == 0
