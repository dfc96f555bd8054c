"""Reads what openpyxl's read-only mode does not give: sheet part paths and merged ranges.

A read-only worksheet streams its rows but never exposes ``<mergeCell ref="A1:C2"/>``, which
sits after ``<sheetData>`` in the sheet's XML part. The part is found through
``workbook.xml`` and its relationships; it is inflated once and scanned as raw bytes (far
cheaper than parsing its rows) for the ``<mergeCells>`` element, whose refs are read from
that element alone. A literal ``<`` cannot occur in cell text, so the tag is found exactly.
"""

from __future__ import annotations

import posixpath
import re
from typing import Any

from openpyxl.utils.cell import range_boundaries

from server.docreader.parsers.library_errors import library_errors
from server.docreader.parsers.sheets.merges import MergedRange
from server.docreader.safety.xml import parse_xml, refuse_entity_declarations
from server.docreader.safety.zip_guard import SafeZip

_DEFAULT_WORKBOOK = "xl/workbook.xml"
_SCAN_BLOCK = 1 << 20
# The tag, with or without a namespace prefix: <mergeCells or <x:mergeCells.
_MERGE_SECTION = re.compile(rb"<(?:[A-Za-z_][\w.-]*:)?mergeCells\b")
_MERGE_REF = re.compile(rb"<(?:[A-Za-z_][\w.-]*:)?mergeCell\b[^>]*?\bref=[\"']([^\"']*)[\"']")
_TAG_OVERLAP = 64


def sheet_parts(archive: SafeZip) -> dict[str, str]:
    """Sheet name → the zip member holding that sheet's XML (the first sheet of a name wins)."""
    workbook = _workbook_part(archive)
    targets = {
        rel.get("Id", ""): _resolve(workbook, rel.get("Target", ""))
        for rel in _relationships(archive, _rels_part(workbook))
    }
    root = parse_xml(archive.read(workbook), what="xlsx workbook part")
    parts: dict[str, str] = {}
    for sheet in root.iter("{*}sheet"):
        # r:id, in the transitional or the strict relationships namespace.
        rel_id = next((v for k, v in sheet.attrib.items() if k.endswith("}id")), "")
        name = sheet.get("name", "")
        if rel_id in targets and name not in parts:
            parts[name] = targets[rel_id]
    return parts


def merged_ranges(archive: SafeZip, part: str) -> list[MergedRange]:
    if not archive.has(part):
        return []
    # Damaged deflate data, a bad CRC: zlib and zipfile errors alike.
    with library_errors(f"xlsx sheet part {part!r}"):
        section = _merge_section(archive, part)
    ranges = (_merged_range(ref.decode("utf-8", "replace")) for ref in _MERGE_REF.findall(section))
    return [merged for merged in ranges if merged is not None]


def _merge_section(archive: SafeZip, part: str) -> bytes:
    """The part's bytes from its ``<mergeCells`` tag on (b"" when it has none), in one pass."""
    tail = b""
    kept: list[bytes] = []
    with archive.zipfile.open(part) as stream:
        first = True
        while block := stream.read(_SCAN_BLOCK):
            if first:
                refuse_entity_declarations(block[:4096], what=f"xlsx sheet {part!r}")
                first = False
            if kept:
                kept.append(block)
                continue
            # The block's start joined to the last one's end, so a tag split between
            # the two is still found.
            window = tail + block
            found = _MERGE_SECTION.search(window)
            if found is not None:
                kept.append(window[found.start() :])
            tail = block[-_TAG_OVERLAP:]
    return b"".join(kept)


def _merged_range(ref: str) -> MergedRange | None:
    try:
        first_col, first_row, last_col, last_row = range_boundaries(ref)
    except (ValueError, TypeError):
        return None  # A damaged merge is only left unlisted, not the sheet lost.
    if None in (first_col, first_row, last_col, last_row):
        return None  # Whole-row or whole-column refs are not cell merges.
    return MergedRange(first_row - 1, first_col - 1, last_row - 1, last_col - 1)


def _workbook_part(archive: SafeZip) -> str:
    for rel in _relationships(archive, "_rels/.rels"):
        if rel.get("Type", "").endswith("/officeDocument"):
            return _resolve("", rel.get("Target", ""))
    return _DEFAULT_WORKBOOK


def _relationships(archive: SafeZip, part: str) -> list[Any]:
    if not archive.has(part):
        return []
    root = parse_xml(archive.read(part), what="xlsx relationships part")
    return list(root.iter("{*}Relationship"))


def _rels_part(part: str) -> str:
    folder, name = posixpath.split(part)
    return posixpath.join(folder, "_rels", f"{name}.rels")


def _resolve(source_part: str, target: str) -> str:
    """A relationship target → a zip member name (targets are relative to the source's folder
    unless they start with "/")."""
    if target.startswith("/"):
        return posixpath.normpath(target).lstrip("/")
    return posixpath.normpath(posixpath.join(posixpath.dirname(source_part), target))
