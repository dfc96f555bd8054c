"""The engine registry: what each engine reads, and the errors for what it does not."""

from __future__ import annotations

from pathlib import Path

import grpc
import pytest

from core.extensions import SUPPORTED_IMPORT_EXTENSIONS
from server.docreader.engines import Engine, default_registry
from server.docreader.errors import (
    EngineUnavailableError,
    InvalidRequestError,
    ParseError,
    UnsupportedFormatError,
)
from server.docreader.parsers.csv_table import CsvParser
from server.docreader.parsers.html import HtmlParser
from server.docreader.reader import DocumentReader, ReadSettings, normalize_file_type
from server.docreader.sandbox.runner import SandboxRunner


def test_engines_and_their_file_types() -> None:
    registry = default_registry()
    engines = {engine.name: engine for engine in registry.engines()}
    assert list(engines) == ["builtin", "simple", "markitdown"]
    assert set(engines["builtin"].file_types) == SUPPORTED_IMPORT_EXTENSIONS
    assert set(engines["simple"].file_types) == {
        "csv",
        "json",
        "markdown",
        "md",
        "txt",
        "png",
        "jpg",
        "jpeg",
        "gif",
        "mp3",
        "wav",
        "m4a",
        "flac",
        "ogg",
    }
    markitdown = engines["markitdown"]
    assert markitdown.available
    assert {"docx", "pdf", "xlsx"} <= set(markitdown.file_types)
    assert registry.get("") is engines["builtin"]
    assert isinstance(engines["builtin"].parser_for("htm"), HtmlParser)
    assert isinstance(engines["simple"].parser_for("csv"), CsvParser)


def test_lookup_errors_and_their_statuses() -> None:
    registry = default_registry()
    with pytest.raises(UnsupportedFormatError, match="'simple' does not read file type 'html'"):
        registry.get("simple").parser_for("html")
    with pytest.raises(InvalidRequestError, match="unknown engine 'nope'"):
        registry.get("nope")
    assert UnsupportedFormatError.status_code == grpc.StatusCode.INVALID_ARGUMENT
    assert ParseError.status_code == grpc.StatusCode.INVALID_ARGUMENT
    assert EngineUnavailableError.status_code == grpc.StatusCode.FAILED_PRECONDITION


def test_a_missing_tool_or_package_makes_a_type_or_engine_unavailable() -> None:
    no_office = Engine(
        "builtin", "d", {"doc": CsvParser()}, unavailable_file_types={"doc": "no soffice"}
    )
    assert no_office.file_types == ("doc",)
    with pytest.raises(EngineUnavailableError, match="cannot read doc here: no soffice"):
        no_office.parser_for("doc")
    absent = Engine(
        "markitdown", "d", unavailable_reason="not installed", planned_file_types=("pdf",)
    )
    assert (absent.available, absent.file_types) == (False, ("pdf",))
    with pytest.raises(EngineUnavailableError, match="'markitdown' is unavailable: not installed"):
        absent.parser_for("pdf")


def test_reader_takes_the_type_from_the_name_when_missing(tmp_path: Path) -> None:
    reader = DocumentReader(SandboxRunner(memory_cap_bytes=2 << 30, timeout_s=60))
    source = tmp_path / "upload"
    source.write_bytes(b"a,b\n1,2")
    work = tmp_path / "work"
    work.mkdir()
    output = reader.read(
        source, ReadSettings(file_name="Report.CSV", file_type=""), work, lambda: False
    )
    assert output.detected_type == "csv"
    assert output.document.markdown().startswith("| a | b |")
    assert normalize_file_type(".MD", "x") == "md"
    assert normalize_file_type("", "dir\\name.Json") == "json"
    with pytest.raises(UnsupportedFormatError, match="no file type"):
        normalize_file_type(" ", "README")
