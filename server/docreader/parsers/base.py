"""What every parser returns, and the interface the engines call."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol


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
    engine_options: Mapping[str, str] = field(default_factory=dict)


class Parser(Protocol):
    def parse(self, content: bytes, options: ParseOptions) -> ParsedDocument:
        """Raise ParseError when ``content`` is not a valid file of the parser's type."""
        ...
