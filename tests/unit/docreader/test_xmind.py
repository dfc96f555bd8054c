"""XMind parser: new (content.json) and legacy (content.xml) maps as nested bullet lists."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from server.docreader.errors import ParseError
from server.docreader.parser_contract import ParsedDocument, ParseOptions, parse_to_document
from server.docreader.parsers.xmind import XmindParser

EXPECTED = (
    "## Plan\n\n"
    "- Project (the whole thing)\n"
    "  - Design\n"
    "    - Sketches\n"
    "    - Review (with the team)\n"
    "  - Build\n\n"
    "## Sheet 2\n\n"
    "- Lonely root"
)


def build(path: Path, members: dict[str, str]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in members.items():
            archive.writestr(name, content)
    return path


def parse(path: Path) -> ParsedDocument:
    return parse_to_document(XmindParser(), path, ParseOptions(file_name=path.name))


def topic(title: str, *children: dict[str, object], note: str = "") -> dict[str, object]:
    value: dict[str, object] = {"id": title, "title": title}
    if children:
        value["children"] = {"attached": list(children)}
    if note:
        value["notes"] = {"plain": {"content": note}}
    return value


def test_new_format_content_json(tmp_path: Path) -> None:
    sheets = [
        {
            "title": "Plan",
            "rootTopic": topic(
                "Project",
                topic("Design", topic("Sketches"), topic("Review", note="with\nthe  team")),
                topic("Build"),
                note="the whole thing",
            ),
        },
        {"title": "", "rootTopic": topic("Lonely root")},
    ]
    members = {
        "content.json": json.dumps(sheets),
        # New files carry this stub for old XMind versions; content.json must win.
        "content.xml": "<xmap-content><sheet><title>STUB</title></sheet></xmap-content>",
        "metadata.json": "{}",
    }
    document = parse(build(tmp_path / "new.xmind", members))
    assert document.markdown == EXPECTED
    assert document.metadata == {"sheet_count": "2"}


LEGACY = """<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<xmap-content xmlns="urn:xmind:xmap:xmlns:content:2.0" version="2.0">
  <sheet id="s1"><title>Plan</title>
    <topic id="t1"><title>Project</title>
      <notes><plain>the whole thing</plain></notes>
      <children><topics type="attached">
        <topic id="t2"><title>Design</title>
          <children><topics type="attached">
            <topic id="t3"><title>Sketches</title></topic>
            <topic id="t4"><title>Review</title><notes><plain>with the team</plain></notes></topic>
          </topics></children>
        </topic>
        <topic id="t5"><title>Build</title></topic>
      </topics></children>
    </topic>
  </sheet>
  <sheet id="s2"><topic id="t6"><title>Lonely
    root</title></topic></sheet>
</xmap-content>"""


def test_legacy_format_content_xml(tmp_path: Path) -> None:
    document = parse(build(tmp_path / "old.xmind", {"content.xml": LEGACY}))
    assert document.markdown == EXPECTED
    assert document.metadata == {"sheet_count": "2"}


def test_hostile_and_broken_maps(tmp_path: Path) -> None:
    bomb = (
        '<?xml version="1.0"?><!DOCTYPE xmap-content [<!ENTITY a "aaaaaaaaaa">'
        '<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>'
        "<xmap-content><sheet><topic><title>&b;</title></topic></sheet></xmap-content>"
    )
    with pytest.raises(ParseError, match="declares XML entities"):
        parse(build(tmp_path / "bomb.xmind", {"content.xml": bomb}))
    deep = "[" * 10_000 + "]" * 10_000
    with pytest.raises(ParseError, match="nested deeper than 256 levels"):
        parse(build(tmp_path / "deep.xmind", {"content.json": deep}))
    with pytest.raises(ParseError, match="not valid JSON"):
        parse(build(tmp_path / "bad.xmind", {"content.json": "[{"}))
    with pytest.raises(ParseError, match=r"neither content\.json nor content\.xml"):
        parse(build(tmp_path / "empty.xmind", {"meta.xml": "<meta/>"}))
