"""CSV and JSON parsers."""

from __future__ import annotations

import json

import pytest

from server.docreader.errors import ParseError
from server.docreader.parsers.base import ParseOptions
from server.docreader.parsers.csv_table import CsvParser
from server.docreader.parsers.json_document import JsonParser

OPTIONS = ParseOptions(file_name="data")


def test_csv_quotes_commas_pipes_and_line_breaks() -> None:
    source = (
        'name,comment,amount\r\n'
        '"Smith, John","said ""hi"" | waved",10\r\n'
        '\r\n'
        'Ann,"two\nlines",\r\n'
        'Bob,short\r\n'
        'C:\\path,x,1\r\n'
    )
    document = CsvParser().parse(source.encode(), OPTIONS)
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
def test_csv_delimiter_is_sniffed(delimiter: str) -> None:
    rows = [["id", "город", "note"], ["1", "Москва", "a,b"], ["2", "Казань", "c"]]
    source = "\n".join(delimiter.join(row) for row in rows)
    document = CsvParser().parse(source.encode("cp1251"), OPTIONS)
    assert document.markdown.splitlines() == [
        "| id | город | note |",
        "| --- | --- | --- |",
        "| 1 | Москва | a,b |",
        "| 2 | Казань | c |",
    ]


def test_csv_delimiter_option_and_simple_mode() -> None:
    source = b"a;b\n1;2"
    assert CsvParser(sniff_delimiter=False).parse(source, OPTIONS).markdown == (
        "| a;b |\n| --- |\n| 1;2 |"
    )
    chosen = ParseOptions(file_name="x.csv", engine_options={"delimiter": ";"})
    assert CsvParser(sniff_delimiter=False).parse(source, chosen).markdown == (
        "| a | b |\n| --- | --- |\n| 1 | 2 |"
    )
    with pytest.raises(ParseError, match="one character"):
        CsvParser().parse(source, ParseOptions(engine_options={"delimiter": ";;"}))


def test_empty_csv_is_an_empty_document() -> None:
    document = CsvParser().parse(b"\n\n", OPTIONS)
    assert document.markdown == ""
    assert document.metadata["rows"] == "0"


def test_json_is_pretty_printed_in_a_fence() -> None:
    value = {"name": "Сервис", "nested": {"list": [1, 2.5, None, True], "empty": {}},
             "text": "a\nb"}
    document = JsonParser().parse(b"\xef\xbb\xbf" + json.dumps(value).encode(), OPTIONS)
    body = json.dumps(value, indent=2, ensure_ascii=False)
    assert document.markdown == f"```json\n{body}\n```"
    assert '"name": "Сервис"' in document.markdown
    assert '    "list": [\n      1,' in document.markdown


def test_json_fence_outgrows_backticks_in_strings() -> None:
    document = JsonParser().parse(b'{"code": "```` four"}', OPTIONS)
    assert document.markdown.startswith("`````json\n")
    assert document.markdown.endswith("\n`````")


def test_simple_json_keeps_the_original_text() -> None:
    document = JsonParser(pretty=False).parse(b'  {"a":1,  "b":[2]}\n', OPTIONS)
    assert document.markdown == '```json\n{"a":1,  "b":[2]}\n```'


@pytest.mark.parametrize("pretty", [True, False])
def test_invalid_json_is_a_parse_error(pretty: bool) -> None:
    message = r"invalid JSON in data: Expecting value at line 2 column 7"
    with pytest.raises(ParseError, match=message):
        JsonParser(pretty=pretty).parse(b'{"a": 1,\n "b": }', OPTIONS)
