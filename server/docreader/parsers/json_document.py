"""JSON → one fenced ``json`` code block, which the chunker cuts along its structure (between
the members of its objects and arrays, each chunk named by its JSON path) when it is bigger
than a chunk.

The builtin engine pretty-prints the document (two-space indent, non-ASCII kept); the simple
engine keeps the original text. Either way the input must be valid JSON, no bigger than
``max_text_bytes`` and nested no deeper than ``max_nesting_depth``. The depth is measured
before ``json.loads`` by a scan of the brackets outside strings, so a deeply nested document
costs a few string passes, not a recursion or a huge object tree. Minified JSON is one long
line by design, so the text line-length limit does not apply.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from server.docreader.errors import ParseError
from server.docreader.parser_contract import DocumentSink, ParseOptions
from server.docreader.parsers.plain_text import read_limited
from server.docreader.safety.limits import ParseLimits
from server.docreader.text.decoding import decode_text, normalize_newlines

_BACKTICK_RUN = re.compile(r"`+")
_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_TO_SQUARE = str.maketrans("{}", "[]")


class JsonParser:
    def __init__(self, *, pretty: bool = True) -> None:
        self._pretty = pretty

    def max_input_bytes(self, limits: ParseLimits) -> int:
        return limits.max_text_bytes

    def parse(self, source: Path, options: ParseOptions, sink: DocumentSink) -> None:
        text = normalize_newlines(decode_text(read_limited(source, options.limits)))
        name = options.file_name or "input"
        check_json_depth(text, options.limits.max_nesting_depth, what=f"JSON in {name}")
        try:
            document = json.loads(text)
            body = (
                json.dumps(document, indent=2, ensure_ascii=False) if self._pretty else text.strip()
            )
        except json.JSONDecodeError as err:
            raise ParseError(
                f"invalid JSON in {name}: {err.msg} at line {err.lineno} column {err.colno}"
            ) from err
        except RecursionError as err:  # unbalanced brackets the depth scan cannot measure
            raise ParseError(f"invalid JSON in {name}: nested too deeply") from err
        except ValueError as err:  # e.g. an integer past Python's 4300-digit conversion cap
            raise ParseError(f"invalid JSON in {name}: {err}") from err
        # The fence must be longer than any backtick run inside, or a string could close it.
        longest = max((len(run) for run in _BACKTICK_RUN.findall(body)), default=0)
        fence = "`" * max(3, longest + 1)
        sink.write(f"{fence}json\n{body}\n{fence}")


def check_json_depth(text: str, limit: int, *, what: str) -> None:
    """ParseError when the arrays and objects of ``text`` nest deeper than ``limit``.

    Strings are removed and only the brackets kept, all as ``[``/``]`` (the bracket kind does
    not change the depth). Each pass of ``str.replace`` deletes every innermost ``[]`` pair,
    lowering the depth by exactly one, so a text still holding a pair after ``limit`` passes
    is too deep; a run of ``limit + 1`` openers proves it early. A pass that deletes nothing
    means unbalanced brackets, which ``json.loads`` reports.
    """
    brackets = _NOT_BRACKET.sub("", _JSON_STRING.sub("", text)).translate(_TO_SQUARE)
    too_deep = "[" * (limit + 1)
    for _ in range(limit):
        if too_deep in brackets:
            break
        reduced = brackets.replace("[]", "")
        if len(reduced) == len(brackets):
            return
        brackets = reduced
    if "[]" in brackets or too_deep in brackets:
        raise ParseError(f"the {what} is nested deeper than {limit} levels")
