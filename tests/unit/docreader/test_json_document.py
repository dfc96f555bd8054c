"""JSON parser: a fenced block, pretty or as written, and the size and nesting limits."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from server.docreader.errors import ParseError
from server.docreader.parser_contract import ParsedDocument, ParseOptions, parse_to_document
from server.docreader.parsers.json_document import JsonParser, check_json_depth
from server.docreader.safety.limits import ParseLimits

OPTIONS = ParseOptions(file_name="data")


def parse(
    tmp_path: Path, content: bytes, *, pretty: bool = True, options: ParseOptions = OPTIONS
) -> ParsedDocument:
    source = tmp_path / "data.json"
    source.write_bytes(content)
    return parse_to_document(JsonParser(pretty=pretty), source, options)


def test_json_is_pretty_printed_in_a_fence(tmp_path: Path) -> None:
    value = {
        "name": "Сервис",
        "nested": {"list": [1, 2.5, None, True], "empty": {}},
        "text": "a\nb",
    }
    document = parse(tmp_path, b"\xef\xbb\xbf" + json.dumps(value).encode())
    body = json.dumps(value, indent=2, ensure_ascii=False)
    assert document.markdown == f"```json\n{body}\n```"
    assert '"name": "Сервис"' in document.markdown
    assert '    "list": [\n      1,' in document.markdown


def test_json_fence_outgrows_backticks_in_strings(tmp_path: Path) -> None:
    document = parse(tmp_path, b'{"code": "```` four"}')
    assert document.markdown.startswith("`````json\n")
    assert document.markdown.endswith("\n`````")


def test_simple_json_keeps_the_original_text(tmp_path: Path) -> None:
    document = parse(tmp_path, b'  {"a":1,  "b":[2]}\n', pretty=False)
    assert document.markdown == '```json\n{"a":1,  "b":[2]}\n```'


def test_minified_json_is_not_held_to_the_line_limit(tmp_path: Path) -> None:
    options = ParseOptions(limits=ParseLimits(max_line_chars=10))
    document = parse(tmp_path, b'{"a":[1,2,3],"b":"long string"}', pretty=False, options=options)
    assert document.markdown == '```json\n{"a":[1,2,3],"b":"long string"}\n```'


@pytest.mark.parametrize("pretty", [True, False])
def test_invalid_json_is_a_parse_error(tmp_path: Path, pretty: bool) -> None:
    message = r"invalid JSON in data: Expecting value at line 2 column 7"
    with pytest.raises(ParseError, match=message):
        parse(tmp_path, b'{"a": 1,\n "b": }', pretty=pretty)


def test_an_integer_too_long_to_convert_is_a_parse_error(tmp_path: Path) -> None:
    with pytest.raises(ParseError, match="invalid JSON in data: Exceeds the limit"):
        parse(tmp_path, b"[" + b"7" * 5000 + b"]")


def test_size_limit(tmp_path: Path) -> None:
    options = ParseOptions(limits=ParseLimits(max_text_bytes=5))
    with pytest.raises(ParseError, match="the file is 8 bytes, over the limit of 5 bytes"):
        parse(tmp_path, b'{"a": 1}', options=options)


def test_a_nesting_bomb_is_refused_before_parsing(tmp_path: Path) -> None:
    bomb = b"[" * 5_000_000 + b"]" * 5_000_000
    started = time.monotonic()
    with pytest.raises(ParseError, match="the JSON in data is nested deeper than 256 levels"):
        parse(tmp_path, bomb)
    assert time.monotonic() - started < 5


def test_depth_is_measured_outside_strings_and_across_bracket_kinds() -> None:
    within = '{"a": [{"b": "[[[[[[[[[[ {{{{ \\" ]]]"}]}'
    check_json_depth(within, 3, what="JSON")
    with pytest.raises(ParseError, match="nested deeper than 2 levels"):
        check_json_depth(within, 2, what="JSON")
    interleaved = '[[], [[]], {"k": [[[1]]]}]'  # depth 5, reached through mixed brackets
    check_json_depth(interleaved, 5, what="JSON")
    with pytest.raises(ParseError, match="nested deeper than 4 levels"):
        check_json_depth(interleaved, 4, what="JSON")
