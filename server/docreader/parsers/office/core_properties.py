"""Title and author from an OOXML package's core properties (docProps/core.xml).

python-pptx invents a default core-properties part ("PowerPoint Presentation") when a file has
none, so the part is only read when it exists.
"""

from __future__ import annotations

from typing import Any

from server.docreader.parser_contract import DocumentSink
from server.docreader.parsers.office.opc import OpcPackage

_CORE_PROPERTIES = (
    "http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties"
)
_DC = "{http://purl.org/dc/elements/1.1/}"


def write_core_metadata(package: Any, sink: DocumentSink) -> None:
    """``package``: the python-pptx OPC package of the opened file."""
    try:
        core = package.part_related_by(_CORE_PROPERTIES)
    except (KeyError, ValueError):
        return
    _write(sink, core.title, core.author)


def write_package_core_metadata(package: OpcPackage, sink: DocumentSink) -> None:
    """The same, read from the core-properties part's XML in a package opened without a
    format library."""
    part = package.related("", _CORE_PROPERTIES)
    if part is None:
        return
    core = package.xml(part)
    title, author = core.find(_DC + "title"), core.find(_DC + "creator")
    _write(
        sink,
        title.text if title is not None else None,
        author.text if author is not None else None,
    )


def _write(sink: DocumentSink, title: str | None, author: str | None) -> None:
    for key, value in (("title", title), ("author", author)):
        if value and value.strip():
            sink.set_metadata(key, " ".join(value.split()))
