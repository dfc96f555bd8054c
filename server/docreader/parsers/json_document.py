"""JSON → one fenced ``json`` code block, so the chunker keeps the structure together.

The builtin engine pretty-prints the document (two-space indent, non-ASCII kept); the simple
engine keeps the original text. Either way the input must be valid JSON.
"""

from __future__ import annotations

import json
import re

from server.docreader.errors import ParseError
from server.docreader.parsers.base import ParsedDocument, ParseOptions
from server.docreader.parsers.text_decoding import decode_text, normalize_newlines

_BACKTICK_RUN = re.compile(r"`+")


class JsonParser:
    def __init__(self, *, pretty: bool = True) -> None:
        self._pretty = pretty

    def parse(self, content: bytes, options: ParseOptions) -> ParsedDocument:
        text = normalize_newlines(decode_text(content))
        name = options.file_name or "input"
        try:
            document = json.loads(text)
            body = (
                json.dumps(document, indent=2, ensure_ascii=False)
                if self._pretty
                else text.strip()
            )
        except json.JSONDecodeError as err:
            raise ParseError(
                f"invalid JSON in {name}: {err.msg} at line {err.lineno} column {err.colno}"
            ) from err
        except RecursionError as err:
            raise ParseError(f"invalid JSON in {name}: nested too deeply") from err
        # The fence must be longer than any backtick run inside, or a string could close it.
        longest = max((len(run) for run in _BACKTICK_RUN.findall(body)), default=0)
        fence = "`" * max(3, longest + 1)
        return ParsedDocument(markdown=f"{fence}json\n{body}\n{fence}")
