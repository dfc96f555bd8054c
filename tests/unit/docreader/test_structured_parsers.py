"""CSV and JSON parsers."""

from __future__ import annotations

from pathlib import Path

import pytest

from server.docreader.errors import ParseError
from server.docreader.parser_contract import ParsedDocument, ParseOptions, parse_to_document
from server.docreader.parsers.csv_table import CsvParser
from server.docreader.safety.limits import ParseLimits

OPTIONS = ParseOptions(file_name="data")


def read_csv(
    tmp_path: Path, content: bytes, *, sniff: bool = True, options: ParseOptions = OPTIONS
) -> ParsedDocument:
    path = tmp_path / "data.csv"
    path.write_bytes(content)
    return parse_to_document(CsvParser(sniff_delimiter=sniff), path, options)


def test_csv_quotes_commas_pipes_and_line_breaks(tmp_path: Path) -> None:
    source = (
        "name,comment,amount\r\n"
        '"Smith, John","said ""hi"" | waved",10\r\n'
        "\r\n"
        'Ann,"two\nlines",\r\n'
        "Bob,short\r\n"
        "C:\\path,x,1\r\n"
    )
    document = read_csv(tmp_path, source.encode())
    assert document.markdown == (
        "| name | comment | amount |\n"
        "| --- | --- | --- |\n"
        '| Smith, John | said "hi" \\| waved | 10 |\n'
        "| Ann | two<br>lines |  |\n"
        "| Bob | short |  |\n"
        "| C:\\\\path | x | 1 |"
    )
    assert document.metadata == {"rows": "4", "columns": "3", "delimiter": ","}


@pytest.mark.parametrize("delimiter", [";", "\t", "|"])
def test_csv_delimiter_is_sniffed(tmp_path: Path, delimiter: str) -> None:
    rows = [["id", "город", "note"], ["1", "Москва", "a,b"], ["2", "Казань", "c"]]
    source = "\n".join(delimiter.join(row) for row in rows)
    document = read_csv(tmp_path, source.encode("cp1251"))
    assert document.markdown.splitlines() == [
        "| id | город | note |",
        "| --- | --- | --- |",
        "| 1 | Москва | a,b |",
        "| 2 | Казань | c |",
    ]


def test_csv_delimiter_option_and_simple_mode(tmp_path: Path) -> None:
    source = b"a;b\n1;2"
    assert read_csv(tmp_path, source, sniff=False).markdown == "| a;b |\n| --- |\n| 1;2 |"
    chosen = ParseOptions(file_name="x.csv", engine_options={"delimiter": ";"})
    assert read_csv(tmp_path, source, sniff=False, options=chosen).markdown == (
        "| a | b |\n| --- | --- |\n| 1 | 2 |"
    )
    with pytest.raises(ParseError, match="one character"):
        read_csv(tmp_path, source, options=ParseOptions(engine_options={"delimiter": ";;"}))


def test_csv_without_header_row_gets_numbered_columns(tmp_path: Path) -> None:
    source = b"1,2\n3,4,5\n"
    expected = (
        "| Column 1 | Column 2 | Column 3 |\n| --- | --- | --- |\n| 1 | 2 |  |\n| 3 | 4 | 5 |"
    )
    document = read_csv(tmp_path, source, options=ParseOptions(first_row_header=False))
    assert document.markdown == expected
    assert document.metadata["rows"] == "2"
    # The engine option overrides the request's flag, both ways.
    off = ParseOptions(first_row_header=True, engine_options={"first_row_header": "false"})
    assert read_csv(tmp_path, source, options=off).markdown == expected
    on = ParseOptions(first_row_header=False, engine_options={"first_row_header": "TRUE"})
    assert read_csv(tmp_path, source, options=on).markdown.startswith("| 1 | 2 |  |\n| --- |")
    with pytest.raises(ParseError, match="first_row_header option must be true or false"):
        read_csv(tmp_path, source, options=ParseOptions(engine_options={"first_row_header": "x"}))


def test_csv_over_the_size_or_line_limit_is_refused(tmp_path: Path) -> None:
    small = ParseOptions(file_name="big.csv", limits=ParseLimits(max_text_bytes=10))
    with pytest.raises(ParseError, match=r"big.csv is 12 bytes, over the 10-byte limit"):
        read_csv(tmp_path, b"a,b\n1,2\n3,4\n", options=small)
    short_lines = ParseOptions(file_name="wide.csv", limits=ParseLimits(max_line_chars=8))
    assert read_csv(tmp_path, b"a,b\n1,2\n", options=short_lines).metadata["rows"] == "1"
    with pytest.raises(ParseError, match="a line of 9 characters, over the 8-character limit"):
        read_csv(tmp_path, b"a,b\n123456789\n", options=short_lines)


def test_empty_csv_is_an_empty_document(tmp_path: Path) -> None:
    document = read_csv(tmp_path, b"\n\n")
    assert document.markdown == ""
    assert document.metadata["rows"] == "0"
