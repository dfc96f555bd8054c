"""An OOXML (OPC) package read straight from its checked zip: which part is which
(relationships), what each part holds (content types), and the parts' XML, parsed safely.

The docx parser uses this instead of python-docx's loader, which parses every XML part of the
file into its own element classes up front: that alone costs more than the whole conversion
may. Here only the parts asked for are inflated and parsed, with plain lxml elements.

Part names are zip member names (no leading "/"); the package's own relationships belong to
the part "".
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass

from server.docreader.parsers.office.wordml import Element
from server.docreader.safety.xml import parse_xml
from server.docreader.safety.zip_guard import SafeZip

_RELATIONSHIP = "{http://schemas.openxmlformats.org/package/2006/relationships}Relationship"
_CONTENT_TYPES = "[Content_Types].xml"
_TYPES = "{http://schemas.openxmlformats.org/package/2006/content-types}"


@dataclass(frozen=True, slots=True)
class Relationship:
    type: str
    # The target part's member name; for an external relationship, the address as written.
    target: str
    external: bool


class OpcPackage:
    def __init__(self, archive: SafeZip, *, what: str) -> None:
        """``what`` names the file in errors ("docx 'report.docx'")."""
        self._archive = archive
        self._what = what
        self._relationships: dict[str, dict[str, Relationship]] = {}
        # Content types by lower-cased extension (defaults) and part name (overrides), as
        # OPC compares them case-insensitively.
        self._defaults: dict[str, str] = {}
        self._overrides: dict[str, str] = {}
        if archive.has(_CONTENT_TYPES):
            for node in self.xml(_CONTENT_TYPES):
                if node.tag == _TYPES + "Default":
                    self._defaults[node.get("Extension", "").lower()] = node.get("ContentType", "")
                elif node.tag == _TYPES + "Override":
                    name = node.get("PartName", "").lstrip("/").lower()
                    self._overrides[name] = node.get("ContentType", "")

    def has(self, part: str) -> bool:
        return self._archive.has(part)

    def read(self, part: str) -> bytes:
        return self._archive.read(part)

    def xml(self, part: str) -> Element:
        return self.parse(self._archive.read(part), part)

    def parse(self, data: bytes, part: str) -> Element:
        """``data`` (the bytes of ``part``, or a cut-down copy of them) parsed safely."""
        # Blank text between elements is dropped, as python-docx and python-pptx do: OOXML
        # text lives in its own elements, and an indented file must read like a compact one.
        return parse_xml(data, what=f"{self._what} part {part!r}", remove_blank_text=True)

    def content_type(self, part: str) -> str:
        """The part's content type; "" when the package declares none for it."""
        name = part.lower()
        override = self._overrides.get(name)
        if override is not None:
            return override
        return self._defaults.get(posixpath.splitext(name)[1].lstrip("."), "")

    def relationships(self, part: str) -> dict[str, Relationship]:
        """The relationships of ``part`` by id; none when it has no relationships part."""
        cached = self._relationships.get(part)
        if cached is not None:
            return cached
        folder, name = posixpath.split(part)
        rels_part = posixpath.join(folder, "_rels", f"{name}.rels")
        relationships: dict[str, Relationship] = {}
        if self._archive.has(rels_part):
            for node in self.xml(rels_part).iterchildren(_RELATIONSHIP):
                external = node.get("TargetMode") == "External"
                target = node.get("Target", "")
                relationships.setdefault(
                    node.get("Id", ""),
                    Relationship(
                        type=node.get("Type", ""),
                        target=target if external else _resolve(folder, target),
                        external=external,
                    ),
                )
        self._relationships[part] = relationships
        return relationships

    def related(self, part: str, relationship_type: str) -> str | None:
        """The first part that ``part`` relates to by ``relationship_type`` and that the
        package holds; None when there is none."""
        for relationship in self.relationships(part).values():
            if (
                relationship.type == relationship_type
                and not relationship.external
                and self._archive.has(relationship.target)
            ):
                return relationship.target
        return None


def _resolve(folder: str, target: str) -> str:
    """A relationship target → a member name: relative to the source part's folder unless it
    starts with "/"."""
    if target.startswith("/"):
        return posixpath.normpath(target).lstrip("/")
    return posixpath.normpath(posixpath.join(folder, target))
