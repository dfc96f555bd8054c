"""Title and author from an OOXML package's core properties (docProps/core.xml).

python-docx and python-pptx invent a default core-properties part ("Word Document",
"PowerPoint Presentation") when a file has none, so the part is only read when it exists.
"""

from __future__ import annotations

from typing import Any

from server.docreader.parsers.base import DocumentSink

_CORE_PROPERTIES = (
    "http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties"
)


def write_core_metadata(package: Any, sink: DocumentSink) -> None:
    """``package``: the python-docx or python-pptx OPC package of the opened file."""
    try:
        part = package.part_related_by(_CORE_PROPERTIES)
    except (KeyError, ValueError):
        return
    # python-docx wraps the part in a CoreProperties object; python-pptx's part is one.
    core = getattr(part, "core_properties", part)
    for key, value in (("title", core.title), ("author", core.author)):
        if value and value.strip():
            sink.set_metadata(key, " ".join(value.split()))
