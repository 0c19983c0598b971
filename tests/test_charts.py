"""The line charts' geometry: what the SVG draws, checked without a browser."""

import pytest

from games import charts


def points(line: charts.Line) -> list[tuple[float, float]]:
    return [tuple(map(float, p.split(","))) for p in line.points.split()]


@pytest.mark.parametrize(
    "span, step", [(0, 1), (3, 1), (25, 10), (30, 10), (900, 500), (7000, 2000)]
)
def test_the_grid_steps_are_round_numbers(span, step):
    assert charts.nice_step(span) == step


def test_a_score_race_runs_from_the_start_down_to_zero_and_below():
    chart = charts.line_chart(
        "Score race", "…", {"Ann": [25, 20, -1], "Bob": [25, 27, 7]}, ["Start", "1", "2"]
    )
    ann, bob = (points(line) for line in chart.lines)
    assert ann[0] == bob[0]  # everyone starts together
    assert ann[0][0] == chart.left and ann[-1][0] == chart.right
    # Higher scores are drawn higher up; zero is drawn, and Ann ends below it.
    assert bob[1][1] < ann[1][1] and ann[-1][1] > chart.zero
    assert (
        chart.top <= min(y for _, y in ann + bob) and max(y for _, y in ann + bob) <= chart.bottom
    )
    assert [t.text for t in chart.y_ticks][:2] == ["−10", "0"]


def test_the_names_at_the_ends_of_close_lines_are_kept_apart():
    chart = charts.line_chart(
        "Race", "…", {n: [25, 10 + i % 2] for i, n in enumerate("ABCD")}, ["Start", "1"]
    )
    ys = sorted(line.label_y for line in chart.lines)
    assert all(b - a >= charts.LABEL_GAP for a, b in zip(ys, ys[1:], strict=False))
    assert ys[-1] <= chart.bottom


def test_the_x_labels_never_crowd_and_the_last_one_is_shown():
    labels = ["Start", *(str(n) for n in range(1, 61))]
    chart = charts.line_chart("Race", "…", {"Ann": list(range(61))}, labels)
    xs = [t.at for t in chart.x_ticks]
    assert chart.x_ticks[0].text == "Start" and chart.x_ticks[-1].text == "60"
    assert all(b - a >= charts.X_LABEL_GAP for a, b in zip(xs, xs[1:], strict=False))


def test_a_long_name_is_shortened_at_the_line_end():
    chart = charts.line_chart("Race", "…", {"Bartholomew": [5, 3]}, ["Start", "1"])
    assert chart.lines[0].label == "Bartholo…" and chart.lines[0].name == "Bartholomew"
