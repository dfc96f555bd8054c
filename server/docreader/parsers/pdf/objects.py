"""The page objects the parser needs besides text: ruling lines and embedded images.

Objects are walked with PDFium's raw calls (one type query per object), descending into form
XObjects with their matrices composed, because the bounds PDFium reports for an object inside
a form are in the form's space. Most objects are text, which the walk only skips: it asks for
their types through prototypes taking and returning plain addresses (calls.py), because
pypdfium2's typed handles cost a new ctypes object and a type check per call. Thin paths
become horizontal or vertical rules; a stroked axis-aligned rectangle contributes its four
edges (cell borders are often drawn that way). The walk stops after a fixed number of
objects so a page of dense vector art stays cheap.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import pypdfium2.raw as pdfium_c

from server.docreader.parsers.pdf.calls import declared, handle
from server.docreader.parsers.pdf.geometry import Box, PageFrame

MAX_OBJECTS = 50_000
MAX_RULES = 5_000
_MAX_FORM_DEPTH = 8
# A path thinner than this (points) is a rule; shorter than _MIN_RULE_LENGTH is a dot.
_RULE_THICKNESS = 3.0
_MIN_RULE_LENGTH = 4.0
_MAX_RECT_SEGMENTS = 6
_CORNER_SLACK = 1.0

_TEXT, _PATH, _IMAGE = (
    pdfium_c.FPDF_PAGEOBJ_TEXT,
    pdfium_c.FPDF_PAGEOBJ_PATH,
    pdfium_c.FPDF_PAGEOBJ_IMAGE,
)
_SHADING, _FORM = pdfium_c.FPDF_PAGEOBJ_SHADING, pdfium_c.FPDF_PAGEOBJ_FORM

Matrix = tuple[float, float, float, float, float, float]


_VOID_P, _FLOAT_P = ctypes.c_void_p, ctypes.POINTER(ctypes.c_float)
# Objects are known by their addresses (ints) in the walk: untyped, the page's object getter
# returns one for a page handle; the others take it as a c_void_p.
_PAGE_OBJECT = declared(pdfium_c.FPDFPage_GetObject, _VOID_P)
_FORM_OBJECT = declared(pdfium_c.FPDFFormObj_GetObject, _VOID_P, _VOID_P, ctypes.c_ulong)
# NULL gives FPDF_PAGEOBJ_UNKNOWN, which the walk skips.
_OBJECT_TYPE = declared(pdfium_c.FPDFPageObj_GetType, ctypes.c_int, _VOID_P)
_BOUNDS = declared(
    pdfium_c.FPDFPageObj_GetBounds, ctypes.c_int, _VOID_P, _FLOAT_P, _FLOAT_P, _FLOAT_P, _FLOAT_P
)
_IDENTITY: Matrix = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)


class Rule(NamedTuple):
    box: Box
    horizontal: bool


@dataclass(frozen=True, slots=True)
class PageImage:
    handle: Any
    box: Box
    pixel_width: int
    pixel_height: int


@dataclass
class PageObjects:
    rules: list[Rule] = field(default_factory=list)
    images: list[PageImage] = field(default_factory=list)
    drawings: int = 0


def scan_objects(page: Any, frame: PageFrame) -> PageObjects:
    scanner = _Scanner(frame)
    scanner.walk(page.raw, None, _IDENTITY, 0)
    return scanner.found


class _Scanner:
    def __init__(self, frame: PageFrame) -> None:
        self._frame = frame
        self.found = PageObjects()
        self._visited = 0
        self._floats = [ctypes.c_float() for _ in range(4)]
        self._uints = [ctypes.c_uint(), ctypes.c_uint()]
        self._fill, self._stroke = ctypes.c_int(), ctypes.c_int()
        self._matrix = pdfium_c.FS_MATRIX()

    def walk(self, page_raw: Any, form: Any, matrix: Matrix, depth: int) -> None:
        parent: Any
        if form is None:
            count = pdfium_c.FPDFPage_CountObjects(page_raw)
            get_object, typed_parent = pdfium_c.FPDFPage_GetObject, page_raw
            # The untyped getter takes the page as a plain pointer.
            address_at, parent = _PAGE_OBJECT, handle(page_raw)
        else:
            count = pdfium_c.FPDFFormObj_CountObjects(form)
            get_object, typed_parent = pdfium_c.FPDFFormObj_GetObject, form
            address_at, parent = _FORM_OBJECT, handle(form).value
        count = min(count, MAX_OBJECTS - self._visited)
        self._visited += max(count, 0)
        object_type = _OBJECT_TYPE
        for index in range(count):
            address = address_at(parent, index)
            kind = object_type(address)
            # Text objects are most objects on most pages: test for them first.
            if kind == _TEXT:
                continue
            if kind == _PATH:
                self.found.drawings += 1
                self._path(address, matrix)
                continue
            obj = get_object(typed_parent, index)
            if kind == _IMAGE:
                self._image(obj, matrix)
            elif kind == _SHADING:
                self.found.drawings += 1
            elif kind == _FORM and depth < _MAX_FORM_DEPTH:
                self.walk(page_raw, obj, _compose(matrix, self._own_matrix(obj)), depth + 1)

    def _bounds(self, obj: Any, matrix: Matrix) -> Box | None:
        """The display box of an object, given as a typed handle or as an address."""
        left, bottom, right, top = self._floats
        get_bounds = _BOUNDS if isinstance(obj, int) else pdfium_c.FPDFPageObj_GetBounds
        if not get_bounds(obj, left, bottom, right, top):
            return None
        if matrix is _IDENTITY:
            return self._frame.box(left.value, bottom.value, right.value, top.value)
        corners = [
            _apply(matrix, x, y)
            for x in (left.value, right.value)
            for y in (bottom.value, top.value)
        ]
        xs, ys = [x for x, _ in corners], [y for _, y in corners]
        return self._frame.box(min(xs), min(ys), max(xs), max(ys))

    def _own_matrix(self, obj: Any) -> Matrix:
        if not pdfium_c.FPDFPageObj_GetMatrix(obj, self._matrix):
            return _IDENTITY
        m = self._matrix
        return (m.a, m.b, m.c, m.d, m.e, m.f)

    def _path(self, address: int, matrix: Matrix) -> None:
        if len(self.found.rules) >= MAX_RULES:
            return
        box = self._bounds(address, matrix)
        if box is None:
            return
        x0, top, x1, bottom = box
        if bottom - top <= _RULE_THICKNESS and x1 - x0 >= _MIN_RULE_LENGTH:
            self.found.rules.append(Rule(box, True))
        elif x1 - x0 <= _RULE_THICKNESS and bottom - top >= _MIN_RULE_LENGTH:
            self.found.rules.append(Rule(box, False))
        elif self._is_stroked_rectangle(_typed(address), matrix, box):
            self.found.rules.extend(
                [
                    Rule(Box(box.x0, box.top, box.x1, box.top), horizontal=True),
                    Rule(Box(box.x0, box.bottom, box.x1, box.bottom), horizontal=True),
                    Rule(Box(box.x0, box.top, box.x0, box.bottom), horizontal=False),
                    Rule(Box(box.x1, box.top, box.x1, box.bottom), horizontal=False),
                ]
            )

    def _is_stroked_rectangle(self, obj: Any, matrix: Matrix, box: Box) -> bool:
        segments = pdfium_c.FPDFPath_CountSegments(obj)
        if not 4 <= segments <= _MAX_RECT_SEGMENTS:
            return False
        if not pdfium_c.FPDFPath_GetDrawMode(obj, self._fill, self._stroke):
            return False
        if not self._stroke.value:
            return False
        full = _compose(matrix, self._own_matrix(obj))
        x, y = self._floats[0], self._floats[1]
        for index in range(segments):
            segment = pdfium_c.FPDFPath_GetPathSegment(obj, index)
            if not segment or not pdfium_c.FPDFPathSegment_GetPoint(segment, x, y):
                return False
            px, py = _apply(full, x.value, y.value)
            point = self._frame.box(px, py, px, py)
            on_x = min(abs(point.x0 - box.x0), abs(point.x0 - box.x1)) <= _CORNER_SLACK
            on_y = min(abs(point.top - box.top), abs(point.top - box.bottom)) <= _CORNER_SLACK
            if not (on_x and on_y):
                return False
        return True

    def _image(self, obj: Any, matrix: Matrix) -> None:
        box = self._bounds(obj, matrix)
        width, height = self._uints
        if box is None or not pdfium_c.FPDFImageObj_GetImagePixelSize(obj, width, height):
            return
        self.found.images.append(PageImage(obj, box, width.value, height.value))


def _typed(address: int) -> Any:
    """The pypdfium2 handle of an object known by its address."""
    return ctypes.cast(address, pdfium_c.FPDF_PAGEOBJECT)


def _compose(outer: Matrix, inner: Matrix) -> Matrix:
    """The matrix applying ``inner`` first, then ``outer`` (PDF row-vector convention)."""
    a1, b1, c1, d1, e1, f1 = inner
    a2, b2, c2, d2, e2, f2 = outer
    return (
        a1 * a2 + b1 * c2,
        a1 * b2 + b1 * d2,
        c1 * a2 + d1 * c2,
        c1 * b2 + d1 * d2,
        e1 * a2 + f1 * c2 + e2,
        e1 * b2 + f1 * d2 + f2,
    )


def _apply(matrix: Matrix, x: float, y: float) -> tuple[float, float]:
    a, b, c, d, e, f = matrix
    return a * x + c * y + e, b * x + d * y + f
