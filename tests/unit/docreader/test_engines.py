"""The engine registry: what each engine reads, and the errors for what it does not."""

from __future__ import annotations

import grpc
import pytest

from server.docreader.engines import default_registry
from server.docreader.errors import (
    EngineUnavailableError,
    InvalidRequestError,
    ParseError,
    UnsupportedFormatError,
)
from server.docreader.parsers.csv_table import CsvParser
from server.docreader.parsers.html import HtmlParser
from server.docreader.reader import DocumentReader, normalize_file_type


def test_engines_and_their_file_types() -> None:
    registry = default_registry()
    engines = {engine.name: engine for engine in registry.engines()}
    assert list(engines) == ["builtin", "simple", "markitdown"]
    assert engines["builtin"].file_types == ("csv", "htm", "html", "json", "markdown", "md", "txt")
    assert engines["simple"].file_types == ("csv", "json", "markdown", "md", "txt")
    markitdown = engines["markitdown"]
    assert not markitdown.available
    assert markitdown.unavailable_reason == "markitdown is not installed"
    assert "docx" in markitdown.file_types
    assert registry.get("") is engines["builtin"]
    assert isinstance(engines["builtin"].parser_for("htm"), HtmlParser)
    assert isinstance(engines["simple"].parser_for("csv"), CsvParser)


def test_lookup_errors_and_their_statuses() -> None:
    registry = default_registry()
    with pytest.raises(UnsupportedFormatError, match="'simple' does not read file type 'html'"):
        registry.get("simple").parser_for("html")
    with pytest.raises(EngineUnavailableError, match="markitdown is not installed"):
        registry.get("markitdown").parser_for("docx")
    with pytest.raises(InvalidRequestError, match="unknown engine 'nope'"):
        registry.get("nope")
    assert UnsupportedFormatError.status_code == grpc.StatusCode.INVALID_ARGUMENT
    assert ParseError.status_code == grpc.StatusCode.INVALID_ARGUMENT
    assert EngineUnavailableError.status_code == grpc.StatusCode.FAILED_PRECONDITION


def test_reader_takes_the_type_from_the_name_when_missing() -> None:
    reader = DocumentReader(default_registry())
    document = reader.read(b"a,b\n1,2", file_name="Report.CSV", file_type="")
    assert document.markdown.startswith("| a | b |")
    assert normalize_file_type(".MD", "x") == "md"
    assert normalize_file_type("", "dir\\name.Json") == "json"
    with pytest.raises(UnsupportedFormatError, match="no file type"):
        normalize_file_type(" ", "README")
