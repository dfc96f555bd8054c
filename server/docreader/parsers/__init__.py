"""One parser per format family: a file → Markdown, images and metadata, written to a
DocumentSink as the parser goes."""

from server.docreader.parsers.base import ParsedDocument, ParsedImage, ParseOptions, Parser

__all__ = ["ParseOptions", "ParsedDocument", "ParsedImage", "Parser"]
