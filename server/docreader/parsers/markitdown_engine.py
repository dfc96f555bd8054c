"""The markitdown engine: Microsoft MarkItDown converts the file, we pass its Markdown on.

MarkItDown is imported only by a parse that uses it (it loads magika's model, about a
second): the builtin engine's parses never pay for it, and nothing is kept between parses,
since each runs in a fresh child. Its ``data:`` URIs are not kept: images stay the
builtin engine's job. Any failure inside MarkItDown is a ParseError naming it.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

from server.docreader.errors import ParseError
from server.docreader.parser_contract import DocumentSink, ParseOptions
from server.docreader.safety.limits import ParseLimits
from server.docreader.safety.zip_guard import SafeZip

MARKITDOWN_FILE_TYPES = (
    "csv",
    "docx",
    "epub",
    "htm",
    "html",
    "json",
    "md",
    "markdown",
    "pdf",
    "pptx",
    "txt",
    "xls",
    "xlsx",
)
# Zip containers are bomb-checked by us first: MarkItDown's libraries don't check.
_ZIP_TYPES = frozenset({"docx", "epub", "pptx", "xlsx"})


def markitdown_missing_reason() -> str:
    """Why the engine cannot run here ("" when it can)."""
    if importlib.util.find_spec("markitdown") is None:
        return "the markitdown package is not installed (pip install markitdown)"
    return ""


def _converter() -> Any:
    from markitdown import MarkItDown

    return MarkItDown(enable_plugins=False)


class MarkItDownParser:
    def max_input_bytes(self, limits: ParseLimits) -> int:
        return limits.max_text_bytes * 4

    def parse(self, source: Path, options: ParseOptions, sink: DocumentSink) -> None:
        size = source.stat().st_size
        if size > self.max_input_bytes(options.limits):
            raise ParseError(
                f"{options.file_name or 'the file'} is {size} bytes, too large for markitdown"
            )
        if options.file_type in _ZIP_TYPES:
            SafeZip(source, options.limits, what=options.file_type).close()
        try:
            result = _converter().convert_local(str(source))
        except Exception as err:
            raise ParseError(
                f"markitdown could not convert {options.file_name or 'the file'}: "
                f"{type(err).__name__}: {err}"
            ) from err
        sink.write(str(result.text_content or "").strip())
        if result.title:
            sink.set_metadata("title", str(result.title))
