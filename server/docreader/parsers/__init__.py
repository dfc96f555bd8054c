"""One parser per format family: bytes → ParsedDocument (Markdown, images, metadata)."""

from server.docreader.parsers.base import ParsedDocument, ParsedImage, ParseOptions, Parser

__all__ = ["ParseOptions", "ParsedDocument", "ParsedImage", "Parser"]
