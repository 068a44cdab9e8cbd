"""A memory's score curve placed on a small SVG: the facade computes the scores, this only
maps times and scores to pixels."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from ...facade.web_views import Curve

__all__ = ["Chart", "Mark", "place"]

WIDTH, HEIGHT = 600, 180
_LEFT, _RIGHT, _TOP, _BOTTOM = 36, 12, 10, 24


@dataclass(frozen=True)
class Mark:
    """A labelled vertical line (a time) or horizontal one (a score)."""

    x1: float
    y1: float
    x2: float
    y2: float
    label: str
    kind: str


@dataclass(frozen=True)
class Chart:
    """What the template draws."""

    width: int
    height: int
    polyline: str
    marks: list[Mark]
    anchor: tuple[float, float]
    start: str
    end: str


def place(curve: Curve) -> Chart:
    """The curve in pixels: time across, score up (0 to 1)."""
    span = (curve.end - curve.start).total_seconds() or 1.0
    inner_w = WIDTH - _LEFT - _RIGHT
    inner_h = HEIGHT - _TOP - _BOTTOM

    def x(at: datetime) -> float:
        share = (at - curve.start).total_seconds() / span
        return round(_LEFT + min(1.0, max(0.0, share)) * inner_w, 1)

    def y(score: float) -> float:
        return round(_TOP + (1.0 - score) * inner_h, 1)

    left, right = float(_LEFT), float(WIDTH - _RIGHT)
    top, bottom = float(_TOP), float(HEIGHT - _BOTTOM)
    marks = [
        Mark(left, y(curve.active_min), right, y(curve.active_min), "Active 0.2", "level"),
        Mark(left, y(curve.keep_min), right, y(curve.keep_min), "forgotten 0.05", "level"),
        Mark(x(curve.now), top, x(curve.now), bottom, "now", "now"),
    ]
    if curve.expires_at is not None and curve.start <= curve.expires_at <= curve.end:
        at = x(curve.expires_at)
        marks.append(Mark(at, top, at, bottom, "expires", "expiry"))
    return Chart(
        width=WIDTH,
        height=HEIGHT,
        polyline=" ".join(f"{x(at)},{y(score)}" for at, score in curve.points),
        marks=marks,
        anchor=(x(curve.anchor_at), y(curve.anchor_score)),
        start=curve.start.date().isoformat(),  # four digits of year always
        end=curve.end.date().isoformat(),
    )
