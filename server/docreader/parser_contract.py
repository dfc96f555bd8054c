"""The parser contract: a parser reads a file from disk and writes Markdown and images to a sink.

A parser never returns the whole document: it writes each page, block or image to the
``DocumentSink`` as soon as it has it, so a sink that spools to disk keeps memory bounded
whatever the page count. ``parse_to_document`` collects everything in memory, for small
inputs and for tests.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, runtime_checkable

from server.docreader.safety.limits import ParseLimits


@dataclass(frozen=True)
class ParsedImage:
    # The link target the Markdown uses for this image, e.g. "image-1.png".
    ref: str
    data: bytes
    mime_type: str
    width: int = 0
    height: int = 0
    is_original: bool = False
    page: int = 0


@dataclass(frozen=True)
class ParsedDocument:
    markdown: str
    images: list[ParsedImage] = field(default_factory=list)
    metadata: dict[str, str] = field(default_factory=dict)
    # Audio inputs: the service sends the input bytes back as audio, the Markdown is a stub.
    is_audio: bool = False


@dataclass(frozen=True)
class ParseOptions:
    file_name: str = ""
    # The type the parser was chosen for (lower-case extension, after magic-byte sniffing).
    file_type: str = ""
    engine_options: Mapping[str, str] = field(default_factory=dict)
    enable_ocr: bool = True
    # Tesseract languages for OCR, checked as installed; empty: detected per document.
    ocr_languages: tuple[str, ...] = ()
    # Spreadsheets and CSV: the first row is the header row.
    first_row_header: bool = True
    limits: ParseLimits = field(default_factory=ParseLimits)
    # A private scratch directory for this parse (converter output, rendered pages);
    # removed by the caller afterwards. None: use tempfile yourself.
    work_dir: Path | None = None


class DocumentSink(Protocol):
    def write(self, markdown: str) -> None:
        """Append Markdown; the parser puts the blank lines between its blocks itself."""
        ...

    def add_image(self, image: ParsedImage) -> None:
        """An image the Markdown links to as ``![alt](image.ref)``."""
        ...

    def set_metadata(self, key: str, value: str) -> None: ...

    def mark_audio(self) -> None:
        """The input is audio: its bytes go back to the caller for transcription."""
        ...


@runtime_checkable
class WholeInputParser(Protocol):
    """A parser that reads its input whole, so it refuses one over a size of its own."""

    def max_input_bytes(self, limits: ParseLimits) -> int: ...


class Parser(Protocol):
    def parse(self, source: Path, options: ParseOptions, sink: DocumentSink) -> None:
        """Raise ParseError when ``source`` is not a valid file of the parser's type."""
        ...


class MemorySink:
    def __init__(self) -> None:
        self.parts: list[str] = []
        self.images: list[ParsedImage] = []
        self.metadata: dict[str, str] = {}
        self.is_audio = False

    def write(self, markdown: str) -> None:
        self.parts.append(markdown)

    def add_image(self, image: ParsedImage) -> None:
        self.images.append(image)

    def set_metadata(self, key: str, value: str) -> None:
        self.metadata[key] = value

    def mark_audio(self) -> None:
        self.is_audio = True

    def document(self) -> ParsedDocument:
        return ParsedDocument(
            markdown="".join(self.parts),
            images=list(self.images),
            metadata=dict(self.metadata),
            is_audio=self.is_audio,
        )


def parse_to_document(parser: Parser, source: Path, options: ParseOptions) -> ParsedDocument:
    sink = MemorySink()
    parser.parse(source, options, sink)
    return sink.document()
