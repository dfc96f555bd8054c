"""How the CLI prints messages, span progress, search hits and errors."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import betterproto2

from sluice_client._proto.google.protobuf import Struct
from sluice_client._proto.sluice import v1
from sluice_client.errors import SluiceRpcError

_NAME_WIDTH = 12
_SNIPPET_CHARS = 160

# An attempt that ends in one of these did not produce a usable knowledge.
UNSUCCESSFUL = frozenset({v1.ParseStatus.FAILED, v1.ParseStatus.CANCELLED})


def to_json(message: betterproto2.Message) -> str:
    return json.dumps(message.to_dict(), indent=2, ensure_ascii=False)


def to_json_line(message: betterproto2.Message) -> str:
    return json.dumps(message.to_dict(), ensure_ascii=False)


def label(value: betterproto2.Enum) -> str:
    """`SpanStatus.RUNNING` -> "running"; an unknown value -> "unknown(9)"."""
    return (value.name or f"unknown({value.value})").lower()


def _scalar(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def _pairs(struct: Struct | None) -> list[str]:
    fields = struct.to_dict() if struct is not None else {}
    return [f"{key}={_scalar(value)}" for key, value in fields.items()]


def span_line(span: v1.Span) -> str:
    """`chunking     done  chunks_written=12`: name, status, then the span's output."""
    details = _pairs(span.output)
    if span.error_message:
        details.append(f"error={json.dumps(span.error_message, ensure_ascii=False)}")
    line = f"{span.name:<{_NAME_WIDTH}} {label(span.status)}"
    return f"{line}  {' '.join(details)}" if details else line


class SpanChangePrinter:
    """Prints a line whenever a span's status or output changes, so the snapshot that
    follows a reconnect repeats nothing already shown."""

    def __init__(self, write: Callable[[str], None]) -> None:
        self._write = write
        self._shown: dict[tuple[int, str], str] = {}

    def __call__(self, event: v1.WatchSpansResponse) -> None:
        for span in event.spans:
            line = span_line(span)
            key = (span.attempt, span.name)
            if self._shown.get(key) != line:
                self._shown[key] = line
                self._write(line)


def final_status_line(knowledge: v1.Knowledge) -> str:
    line = f"status: {label(knowledge.parse_status)}"
    if knowledge.error_message:
        line += f"  error={json.dumps(knowledge.error_message, ensure_ascii=False)}"
    return line


def search_hit_line(result: v1.SearchResult) -> str:
    snippet = " ".join(result.content.split())
    if len(snippet) > _SNIPPET_CHARS:
        snippet = snippet[: _SNIPPET_CHARS - 1] + "…"
    title = result.knowledge_title or result.knowledge_id
    if result.graph_match is not None:
        names = ", ".join(entity.name for entity in result.graph_match.entities)
        title = f"{title}  [graph: {names}]"
    return f"{result.score:.4f}  {title}  {snippet}"


def error_lines(error: SluiceRpcError) -> list[str]:
    lines = [f"error: {error.code.name}: {error.message}"]
    lines += [f"  {field}: {description}" for field, description in error.field_violations]
    if error.existing_knowledge_id is not None:
        lines.append(f"  existing knowledge: {error.existing_knowledge_id}")
    return lines
