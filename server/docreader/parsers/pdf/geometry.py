"""Page geometry in display space: boxes measured from the top-left of the page as shown.

PDF user space has its origin at the bottom-left, may be offset by the crop box and may be
shown rotated (/Rotate). Every position the parser reasons about (lines, columns, tables,
margins) is converted once into display space, where ``top`` grows downwards, so reading
order is simply "top to bottom, left to right" whatever the page's rotation.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import NamedTuple, cast


class Box(NamedTuple):
    # A named tuple: pages create thousands of boxes and tuples are the cheapest to build.
    x0: float
    top: float
    x1: float
    bottom: float

    @property
    def width(self) -> float:
        return self.x1 - self.x0

    @property
    def height(self) -> float:
        return self.bottom - self.top

    @property
    def center_x(self) -> float:
        return (self.x0 + self.x1) / 2

    @property
    def center_y(self) -> float:
        return (self.top + self.bottom) / 2

    def union(self, other: Box) -> Box:
        return Box(
            min(self.x0, other.x0),
            min(self.top, other.top),
            max(self.x1, other.x1),
            max(self.bottom, other.bottom),
        )


# Box(...) runs a Python-level __new__; hot loops build the tuple directly, twice as fast.
make_box = cast(Callable[[tuple[float, float, float, float]], Box], partial(tuple.__new__, Box))


def union_all(boxes: list[Box]) -> Box:
    result = boxes[0]
    for box in boxes[1:]:
        result = result.union(box)
    return result


class PageFrame:
    """Maps PDF user-space rectangles of one page to display-space boxes and back."""

    def __init__(self, bbox: tuple[float, float, float, float], rotation: int) -> None:
        self._left, self._bottom, self._right, self._top = bbox
        self._rotation = rotation % 360
        page_w, page_h = self._right - self._left, self._top - self._bottom
        sideways = self._rotation in (90, 270)
        self.width = page_h if sideways else page_w
        self.height = page_w if sideways else page_h

    @property
    def upright_origin(self) -> tuple[float, float] | None:
        """The PDF point shown at the top-left when the page is not rotated (display boxes
        are then plain offsets from it, which hot loops compute inline), else None."""
        return (self._left, self._top) if self._rotation == 0 else None

    def box(self, left: float, bottom: float, right: float, top: float) -> Box:
        """The display box of the PDF rectangle (left, bottom, right, top)."""
        if self._rotation == 0:
            return Box(left - self._left, self._top - top, right - self._left, self._top - bottom)
        ax, ay = self._point(left, bottom)
        bx, by = self._point(right, top)
        return Box(min(ax, bx), min(ay, by), max(ax, bx), max(ay, by))

    def point(self, x: float, y: float) -> tuple[float, float]:
        """The display position of the PDF point (x, y)."""
        if self._rotation == 0:
            return x - self._left, self._top - y
        return self._point(x, y)

    def pdf_rect(self, box: Box) -> tuple[float, float, float, float]:
        """The PDF rectangle (left, bottom, right, top) shown as ``box``."""
        ax, ay = self._inverse(box.x0, box.top)
        bx, by = self._inverse(box.x1, box.bottom)
        return min(ax, bx), min(ay, by), max(ax, bx), max(ay, by)

    def _point(self, x: float, y: float) -> tuple[float, float]:
        rotation = self._rotation
        if rotation == 90:
            return y - self._bottom, x - self._left
        if rotation == 180:
            return self._right - x, y - self._bottom
        if rotation == 270:
            return self._top - y, self._right - x
        return x - self._left, self._top - y

    def _inverse(self, dx: float, dy: float) -> tuple[float, float]:
        rotation = self._rotation
        if rotation == 90:
            return dy + self._left, dx + self._bottom
        if rotation == 180:
            return self._right - dx, dy + self._bottom
        if rotation == 270:
            return self._right - dy, self._top - dx
        return dx + self._left, self._top - dy
