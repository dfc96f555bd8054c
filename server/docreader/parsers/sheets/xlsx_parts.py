"""Reads what openpyxl's read-only mode does not give: sheet part paths and merged ranges.

A read-only worksheet streams its rows but never exposes ``<mergeCell ref="A1:C2"/>``, which
sits after ``<sheetData>`` in the sheet's XML part. The part is found through
``workbook.xml`` and its relationships; it is first scanned as raw bytes for "mergeCell"
(most sheets have none, and inflating is far cheaper than parsing), and only when present
parsed with lxml's iterparse, rows being discarded as they end and the parse stopping at
``</mergeCells>``.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterator
from typing import IO, Any

from lxml import etree
from openpyxl.utils.cell import range_boundaries

from server.docreader.errors import ParseError
from server.docreader.parsers.sheets.library_errors import library_errors
from server.docreader.parsers.sheets.merges import MergedRange
from server.docreader.safety.xml import parse_xml
from server.docreader.safety.zip_guard import SafeZip

_DEFAULT_WORKBOOK = "xl/workbook.xml"
_MERGE_MARK = b"mergeCell"
_ENTITY_MARK = b"<!ENTITY"
_SCAN_BLOCK = 1 << 20


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
    # Damaged deflate data, a bad CRC or broken XML: zlib, zipfile and lxml errors alike.
    with library_errors(f"xlsx sheet part {part!r}"):
        if not _mentions_merges(archive, part):
            return []
        return _read_merges(archive, part)


def _read_merges(archive: SafeZip, part: str) -> list[MergedRange]:
    ranges: list[MergedRange] = []
    with archive.zipfile.open(part) as stream:
        for _, element in _iterparse(stream):
            local = etree.QName(element).localname
            if local == "mergeCell":
                merged = _merged_range(element.get("ref", ""))
                if merged is not None:
                    ranges.append(merged)
            elif local == "mergeCells":
                break
            # Drop what has been read so the tree never holds more than one row.
            element.clear(keep_tail=True)
            while element.getprevious() is not None:
                del element.getparent()[0]
    return ranges


def _iterparse(stream: IO[bytes]) -> Iterator[tuple[str, Any]]:
    events: Iterator[tuple[str, Any]] = etree.iterparse(
        stream,
        events=("end",),
        tag=("{*}row", "{*}mergeCell", "{*}mergeCells"),
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        huge_tree=False,
    )
    return events


def _mentions_merges(archive: SafeZip, part: str) -> bool:
    tail = b""
    with archive.zipfile.open(part) as stream:
        first = True
        while block := stream.read(_SCAN_BLOCK):
            if first and _ENTITY_MARK in block[:4096]:
                raise ParseError(
                    f"the xlsx sheet {part!r} declares XML entities, which is refused (XML bomb)"
                )
            first = False
            # Keep the block's end so a mark split across two blocks is still found.
            if _MERGE_MARK in tail + block[: len(_MERGE_MARK)] or _MERGE_MARK in block:
                return True
            tail = block[-len(_MERGE_MARK) :]
    return False


def _merged_range(ref: str) -> MergedRange | None:
    try:
        first_col, first_row, last_col, last_row = range_boundaries(ref)
    except (ValueError, TypeError):
        return None  # A damaged merge only loses its fill, not the sheet.
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
