"""pptx → Markdown, slide by slide: ``## Slide N: <title>``, then the slide's shapes; a
slide with neither title nor content writes nothing.

Shapes are read top to bottom, then left to right (group shapes likewise, recursively): text
frames keep their bullet levels, tables become GFM tables, pictures become
``![image](image-N.ext)`` images whose page is the slide number. Speaker notes follow the slide
as a ``> Notes:`` quote. Date, footer and slide-number placeholders are boilerplate and dropped.
Each slide's blocks go to the sink before the next slide is read.

Metadata: slide_count, image_count, and title and author from the core properties.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pptx
from pptx.enum.shapes import MSO_SHAPE_TYPE, PP_PLACEHOLDER

from server.docreader.errors import ParseError
from server.docreader.markdown.tables import markdown_table
from server.docreader.parser_contract import DocumentSink, ParseOptions
from server.docreader.parsers.library_errors import library_errors
from server.docreader.parsers.office.blocks import BlockWriter
from server.docreader.parsers.office.container import check_ooxml_container
from server.docreader.parsers.office.core_properties import write_core_metadata
from server.docreader.parsers.office.images import OfficeImages
from server.docreader.parsers.office.pptx_shapes import (
    BULLETED_PLACEHOLDERS,
    table_rows,
    text_frame_pieces,
)
from server.docreader.text.cjk import one_line

_TITLES = frozenset(
    {PP_PLACEHOLDER.TITLE, PP_PLACEHOLDER.CENTER_TITLE, PP_PLACEHOLDER.VERTICAL_TITLE}
)
_BOILERPLATE = frozenset(
    {PP_PLACEHOLDER.DATE, PP_PLACEHOLDER.FOOTER, PP_PLACEHOLDER.SLIDE_NUMBER, PP_PLACEHOLDER.HEADER}
)
# Groups nested deeper than this are not followed (a hostile file could nest thousands).
_MAX_GROUP_DEPTH = 32


class PptxParser:
    def parse(self, source: Path, options: ParseOptions, sink: DocumentSink) -> None:
        what = f"pptx {options.file_name!r}" if options.file_name else "pptx"
        check_ooxml_container(source, options.limits, what=what)
        with library_errors(what, "cannot be opened as a presentation"):
            presentation = pptx.Presentation(str(source))
        with library_errors(what, "has a broken slide list"):
            slides = list(presentation.slides)
        if len(slides) > options.limits.max_pages:
            raise ParseError(
                f"the {what} has {len(slides)} slides, over the limit of {options.limits.max_pages}"
            )
        images = OfficeImages(sink)
        writer = BlockWriter(sink)
        for number, slide in enumerate(slides, start=1):
            with library_errors(what, f"has a malformed slide {number}"):
                _write_slide(slide, number, writer, images)
        write_core_metadata(presentation.part.package, sink)
        sink.set_metadata("slide_count", str(len(slides)))
        sink.set_metadata("image_count", str(images.count))


def _write_slide(slide: Any, number: int, writer: BlockWriter, images: OfficeImages) -> None:
    title_shape = next((s for s in slide.placeholders if _placeholder(s) in _TITLES), None)
    title = one_line(title_shape.text_frame.text) if title_shape is not None else ""
    if title:
        writer.block(f"## Slide {number}: {title}")
    else:
        writer.heading_if_followed(f"## Slide {number}")
    title_id = title_shape.shape_id if title_shape is not None else None
    for shape in _reading_order(slide.shapes, depth=0):
        if title_id is not None and shape.shape_id == title_id:
            continue
        _write_shape(shape, number, writer, images)
    if slide.has_notes_slide:
        frame = slide.notes_slide.notes_text_frame
        lines = [line.strip() for line in frame.text.splitlines()] if frame is not None else []
        notes = [line for line in lines if line]
        if notes:
            writer.block("\n".join(["> Notes: " + notes[0], *("> " + n for n in notes[1:])]))


def _write_shape(shape: Any, number: int, writer: BlockWriter, images: OfficeImages) -> None:
    placeholder = _placeholder(shape)
    if placeholder in _BOILERPLATE:
        return
    if getattr(shape, "has_table", False):
        writer.block(markdown_table(table_rows(shape.table), header=bool(shape.table.first_row)))
        return
    image = _embedded_image(shape)
    if image is not None:
        ref = images.add(image.sha1, image.blob, image.content_type, image.ext, page=number)
        writer.block(f"![image]({ref})")
        return
    if getattr(shape, "has_text_frame", False):
        bulleted = placeholder in BULLETED_PLACEHOLDERS
        previous_list = False
        for piece in text_frame_pieces(shape.text_frame.paragraphs, bulleted=bulleted):
            if piece.marker:
                # Each shape's list is its own list.
                writer.list_item(
                    piece.text, depth=piece.depth, marker=piece.marker, new_list=not previous_list
                )
            else:
                writer.block(piece.text)
            previous_list = bool(piece.marker)


def _reading_order(shapes: Iterable[Any], *, depth: int) -> Iterator[Any]:
    """Shapes top to bottom, then left to right; group members in place of their group."""
    for shape in sorted(shapes, key=lambda s: (s.top or 0, s.left or 0)):
        if _shape_type(shape) == MSO_SHAPE_TYPE.GROUP:
            if depth < _MAX_GROUP_DEPTH:
                yield from _reading_order(shape.shapes, depth=depth + 1)
        else:
            yield shape


def _shape_type(shape: Any) -> Any:
    try:
        return shape.shape_type
    except NotImplementedError:
        # python-pptx names no type for some autoshapes; they are still read for their text.
        return None


def _placeholder(shape: Any) -> Any:
    if not shape.is_placeholder:
        return None
    try:
        return shape.placeholder_format.type
    except ValueError:
        return None


def _embedded_image(shape: Any) -> Any:
    """The picture's image, or None for other shapes and pictures linked to outside files."""
    try:
        return shape.image
    except (AttributeError, KeyError, ValueError):
        return None
