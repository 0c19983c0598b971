"""Line charts drawn on the server as plain SVG: the geometry here, the markup in
templates/games/_line_chart.html, the colours in static/css/app.css (custom properties that
follow the light or dark scheme). No chart library, nothing from a CDN.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol

from games.words import number

WIDTH, HEIGHT = 360, 220
RIGHT, TOP, BOTTOM = 80, 12, 28  # room for the lines' end names (9 bold letters), the axes' labels
LABEL_GAP = 14  # the least room between two names at the lines' ends
X_LABEL_GAP = 46  # the least room between two labels of the x axis
CHAR = 6.5  # about how wide a character of an axis label is


@dataclass(frozen=True)
class Line:
    name: str
    series: int  # which colour: .series-0 … .series-5
    points: str  # the polyline's "x,y x,y …"
    end_x: float
    end_y: float
    label_y: float  # where its name goes, kept clear of the other names

    @property
    def label(self) -> str:
        return self.name if len(self.name) <= 9 else self.name[:8] + "…"

    @property
    def label_x(self) -> float:
        return round(self.end_x + 7, 1)


@dataclass(frozen=True)
class Tick:
    at: float  # x or y in the drawing
    text: str


@dataclass(frozen=True)
class Chart:
    title: str
    description: str
    width: int
    height: int
    lines: list[Line]
    x_ticks: list[Tick]
    y_ticks: list[Tick]
    zero: float | None  # the y of 0 when it is drawn, or None
    left: int
    right: int  # the x where the plot ends
    top: int
    bottom: int  # the y where the plot ends

    @property
    def y_label_x(self) -> int:
        return self.left - 5

    @property
    def x_label_y(self) -> int:
        return self.height - 8


def nice_step(span: float, ticks: int = 4) -> int:
    """A round step (1, 2, 5, 10, 20, 50 …) that cuts `span` into about `ticks` parts."""
    raw = max(span / ticks, 1)
    power = 10 ** math.floor(math.log10(raw))
    return int(next(m * power for m in (1, 2, 5, 10) if m * power >= raw))


def _spread(ys: list[float], top: float, bottom: float) -> list[float]:
    """The names' heights, moved apart just enough to be read, in the order given."""
    order = sorted(range(len(ys)), key=lambda i: ys[i])
    placed = [0.0] * len(ys)
    last = top - LABEL_GAP
    for i in order:
        placed[i] = max(ys[i], last + LABEL_GAP)
        last = placed[i]
    overflow = last - bottom
    if overflow > 0:  # pushed past the bottom: shift them all up, keeping the gaps
        for i in order:
            placed[i] -= overflow
    return placed


class YText(Protocol):
    """Words a value on the y axis (a protocol, not a Callable, so that a lambda with a
    default argument, as the money chart passes, is still inferred)."""

    def __call__(self, v: int, /) -> str: ...


def line_chart(
    title: str,
    description: str,
    series: dict[str, list[int]],
    x_labels: list[str],
    y_text: YText = number,
    zero: bool = True,
) -> Chart:
    """A chart of `series` (name → the value at each x, all of one length) over `x_labels`.

    `y_text` words a value on the y axis; with `zero`, 0 is always in view and drawn.
    """
    values = [v for vs in series.values() for v in vs]
    low, high = min(values, default=0), max(values, default=0)
    if zero:
        low, high = min(low, 0), max(high, 0)
    step = nice_step(high - low)
    low, high = math.floor(low / step) * step, math.ceil(high / step) * step
    if high == low:
        high = low + step
    count = max((len(vs) for vs in series.values()), default=1)
    y_values = range(int(low), int(high) + 1, step)
    left = round(10 + CHAR * max(len(y_text(v)) for v in y_values))
    right, bottom = WIDTH - RIGHT, HEIGHT - BOTTOM

    def x(i: int) -> float:
        return left + (right - left) * (i / (count - 1) if count > 1 else 0.5)

    def y(v: float) -> float:
        return TOP + (bottom - TOP) * (high - v) / (high - low)

    ends = [y(vs[-1]) for vs in series.values()]
    labels = _spread(ends, TOP + 4, bottom)
    lines = [
        Line(
            name,
            i % 6,
            " ".join(f"{x(j):.1f},{y(v):.1f}" for j, v in enumerate(vs)),
            round(x(len(vs) - 1), 1),
            round(ends[i], 1),
            round(labels[i], 1),
        )
        for i, (name, vs) in enumerate(series.items())
    ]
    y_ticks = [Tick(round(y(v), 1), y_text(v)) for v in y_values]
    # The first and the last x, and as many between them as fit.
    step_width = (right - left) / max(count - 1, 1)
    every = max(1, math.ceil(X_LABEL_GAP / step_width))
    shown = sorted({*range(0, count, every), count - 1})
    if len(shown) > 2 and (shown[-1] - shown[-2]) * step_width < X_LABEL_GAP:
        shown.pop(-2)
    x_ticks: list[Tick] = []
    for i in shown:  # a label that says what the one before it said is left out
        if i < len(x_labels) and (not x_ticks or x_ticks[-1].text != x_labels[i]):
            x_ticks.append(Tick(round(x(i), 1), x_labels[i]))
    return Chart(
        title,
        description,
        WIDTH,
        HEIGHT,
        lines,
        x_ticks,
        y_ticks,
        round(y(0), 1) if zero else None,
        left,
        right,
        TOP,
        bottom,
    )
