"""XMind mind maps → Markdown: each sheet a ``##`` section holding its topic tree as a nested
bullet list, the central topic first.

An ``.xmind`` file is a zip (opened with SafeZip's bomb checks). XMind Zen and later store
the sheets in ``content.json`` (a list of sheets, each with a ``rootTopic`` whose subtopics
are ``children.attached``); XMind 8 and older store ``content.xml``
(``xmap-content/sheet/topic``, subtopics under ``children/topics/topic``). New files also
carry a stub ``content.xml``, so ``content.json`` wins when both exist. A topic's plain-text
note is appended in parentheses.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from server.docreader.errors import ParseError
from server.docreader.parser_contract import DocumentSink, ParseOptions
from server.docreader.parsers.json_document import check_json_depth
from server.docreader.safety.limits import ParseLimits
from server.docreader.safety.xml import parse_xml
from server.docreader.safety.zip_guard import SafeZip
from server.docreader.text.decoding import decode_text


@dataclass
class _Topic:
    title: str
    note: str = ""
    children: list[_Topic] = field(default_factory=list)


@dataclass
class _Sheet:
    title: str
    root: _Topic | None


class XmindParser:
    def parse(self, source: Path, options: ParseOptions, sink: DocumentSink) -> None:
        with SafeZip(source, options.limits, what="XMind file") as archive:
            if archive.has("content.json"):
                sheets = _json_sheets(archive.read("content.json"), options.limits)
            elif archive.has("content.xml"):
                content = parse_xml(archive.read("content.xml"), what="XMind content.xml")
                sheets = _xml_sheets(content)
            else:
                raise ParseError("the XMind file has neither content.json nor content.xml")
        for number, sheet in enumerate(sheets, start=1):
            lines = [f"## {sheet.title or f'Sheet {number}'}"]
            if sheet.root is not None:
                lines.append("\n".join(_bullets(sheet.root, 0)))
            sink.write(("\n\n" if number > 1 else "") + "\n\n".join(lines))
        sink.set_metadata("sheet_count", str(len(sheets)))


def _bullets(topic: _Topic, level: int) -> Iterator[str]:
    text = topic.title or "(untitled)"
    if topic.note:
        text += f" ({topic.note})"
    yield "  " * level + "- " + text
    for child in topic.children:
        yield from _bullets(child, level + 1)


def _json_sheets(data: bytes, limits: ParseLimits) -> list[_Sheet]:
    text = decode_text(data)
    check_json_depth(text, limits.max_nesting_depth, what="XMind content.json")
    try:
        document = json.loads(text)
    except (ValueError, RecursionError) as err:  # JSONDecodeError is a ValueError
        raise ParseError(f"the XMind content.json is not valid JSON: {err}") from err
    if not isinstance(document, list):
        raise ParseError("the XMind content.json is not a list of sheets")
    sheets = []
    for sheet in document:
        if isinstance(sheet, dict):
            root = sheet.get("rootTopic")
            topic = _json_topic(root) if isinstance(root, dict) else None
            sheets.append(_Sheet(_clean(sheet.get("title")), topic))
    return sheets


def _json_topic(topic: dict[str, Any]) -> _Topic:
    children = topic.get("children")
    attached = children.get("attached") if isinstance(children, dict) else None
    notes = topic.get("notes")
    plain = notes.get("plain") if isinstance(notes, dict) else None
    note = plain.get("content") if isinstance(plain, dict) else None
    subtopics = attached if isinstance(attached, list) else []
    return _Topic(
        title=_clean(topic.get("title")),
        note=_clean(note),
        children=[_json_topic(child) for child in subtopics if isinstance(child, dict)],
    )


def _xml_sheets(content: Any) -> list[_Sheet]:
    sheets = []
    for sheet in content.iterchildren("{*}sheet"):
        root = sheet.find("{*}topic")
        sheets.append(
            _Sheet(_clean(sheet.findtext("{*}title")), None if root is None else _xml_topic(root))
        )
    return sheets


def _xml_topic(topic: Any) -> _Topic:
    return _Topic(
        title=_clean(topic.findtext("{*}title")),
        note=_clean(topic.findtext("{*}notes/{*}plain")),
        children=[_xml_topic(child) for child in topic.iterfind("{*}children/{*}topics/{*}topic")],
    )


def _clean(value: object) -> str:
    return " ".join(value.split()) if isinstance(value, str) else ""
