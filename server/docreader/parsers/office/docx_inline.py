"""One docx paragraph → its properties and its text: runs, tabs, breaks, hyperlinks, math and
images in place.

Speed matters here (a long document has thousands of paragraphs; the docx parser must stay
within twice python-docx's own load time), so paragraphs take one of two paths:

- A plain paragraph (runs of text only) is serialized to text by libxml2 in one C call. The body
  pass (see docx_scan) meets every element that makes a paragraph more than plain (``SCAN_TAGS``),
  so a paragraph whose scanned nodes are only its pPr properties is plain; one where the pass met
  nothing at all comes in a run of such paragraphs, read together (``plain_texts``).
- Any other paragraph (tabs, breaks, hyperlinks, images, fields, tracked changes, drawings,
  math...) is walked node by node on the raw lxml tree.

In the walk, deleted text (w:delText) and field instructions (w:instrText) are other element
names and are never read; deleted runs (w:del, w:moveFrom), old properties (w:pPrChange) and
markup-compatibility fallbacks (mc:Fallback, which repeat their mc:Choice) are skipped whole.
The paragraph's own pPr comes first in the XML, so its style and numbering are the first met;
nested paragraphs (text boxes) never override them.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from lxml import etree

from server.docreader.parsers.office.images import OfficeImages
from server.docreader.parsers.office.opc import OpcPackage
from server.docreader.parsers.office.wordml import MC, W_VAL, A, Element, R, V, W

_M = "{http://schemas.openxmlformats.org/officeDocument/2006/math}"
_T, _TAB, _BR, _CR, _P = W + "t", W + "tab", W + "br", W + "cr", W + "p"
_HYPHEN, _HYPERLINK, _MATH_T = W + "noBreakHyphen", W + "hyperlink", _M + "t"
_BLIP, _IMAGEDATA = A + "blip", V + "imagedata"
_STYLE, _NUM_ID, _ILVL, _OUTLINE = W + "pStyle", W + "numId", W + "ilvl", W + "outlineLvl"
_SKIPPED = frozenset({MC + "Fallback", W + "del", W + "moveFrom", W + "pPrChange"})
_PROPERTIES = frozenset({_STYLE, _NUM_ID, _ILVL, _OUTLINE})
# What the walk reads.
_WALK_TAGS = (
    _T, _TAB, _BR, _CR, _P, _HYPHEN, _HYPERLINK, _MATH_T, _BLIP, _IMAGEDATA,
    *_PROPERTIES, *_SKIPPED,
)  # fmt: skip
# Elements whose presence makes a paragraph more than plain text: what the walk handles, and
# what holds text that is not shown (field codes, deleted text, binary field data) or that
# libxml2 would not place well (drawings, math).
_NOT_PLAIN = (
    _TAB, _BR, _CR, _P, _HYPHEN, _HYPERLINK, _BLIP, _IMAGEDATA, *_SKIPPED,
    W + "instrText", W + "delInstrText", W + "delText", W + "fldData",
    W + "drawing", W + "pict", W + "object", MC + "AlternateContent", _M + "oMath",
)  # fmt: skip
# What the body pass must meet: paragraph properties, non-plain content, and block starts.
SCAN_TAGS = (*_PROPERTIES, *_NOT_PLAIN, W + "tbl")
_TEXT = (_T, _MATH_T)


@dataclass(slots=True)
class ParagraphProperties:
    style_id: str | None = None
    num_id: str | None = None
    ilvl: str | None = None
    outline_level: str | None = None


# A paragraph without properties of its own: shared, never changed.
NO_PROPERTIES = ParagraphProperties()


class InlineText:
    def __init__(self, package: OpcPackage, part: str, images: OfficeImages) -> None:
        """``part``: the document part whose relationships resolve images and links."""
        self._package = package
        self._relationships = package.relationships(part)
        self._images = images
        # Image refs by relationship id, so a picture placed again is not inflated again.
        self._image_refs: dict[str, str] = {}

    @staticmethod
    def plain_texts(paragraphs: Sequence[Element]) -> list[str]:
        """The texts of plain paragraphs: those whose scanned descendants are none at all."""
        return [etree.tostring(p, method="text", encoding=str) for p in paragraphs]

    def paragraph(
        self, paragraph: Element, scanned: Sequence[Element]
    ) -> tuple[str, ParagraphProperties]:
        """The paragraph's text and properties; ``scanned``: its descendants among SCAN_TAGS,
        in document order."""
        properties = ParagraphProperties()
        for node in scanned:
            tag = node.tag
            if tag == _STYLE and properties.style_id is None:  # the usual lone property
                properties.style_id = node.get(W_VAL)
                continue
            if tag not in _PROPERTIES:
                properties = ParagraphProperties()
                text = self._walk(paragraph.iterdescendants(*_WALK_TAGS), properties)
                return text, properties
            _set_property(properties, tag, node.get(W_VAL))
        return etree.tostring(paragraph, method="text", encoding=str), properties

    def paragraph_text(self, paragraph: Element, scanned: Sequence[Element]) -> str:
        """The text alone, for table cells: their paragraphs' styles do not matter."""
        for node in scanned:
            if node.tag not in _PROPERTIES:
                return self.text(paragraph)
        return str(etree.tostring(paragraph, method="text", encoding=str))

    def text(self, paragraph: Element) -> str:
        return self._walk(paragraph.iterdescendants(*_WALK_TAGS), None)

    def _walk(self, descendants: Iterable[Element], properties: ParagraphProperties | None) -> str:
        pieces: list[str] = []
        add = pieces.append
        skip: set[Element] | None = None
        for node in descendants:
            if skip is not None and node in skip:
                continue
            tag = node.tag
            if tag in _TEXT:  # the most common node, tested first
                text = node.text
                if text:
                    add(text)
            elif tag in _PROPERTIES:
                if properties is not None:
                    _set_property(properties, tag, node.get(W_VAL))
            elif tag == _TAB:
                add("\t")
            elif tag in (_BR, _CR):
                # Page and column breaks are layout only; a line break is kept.
                if node.get(W + "type") in (None, "textWrapping"):
                    add("\n")
            elif tag == _P:
                # A paragraph inside a text box: on its own line, and its properties are not ours.
                add("\n")
                properties = None
            elif tag == _HYPHEN:
                add("-")
            elif tag == _HYPERLINK:
                link = self._hyperlink(node)
                if link:
                    add(link)
                    skip = skip if skip is not None else set()
                    skip.update(node.iterdescendants(*_WALK_TAGS))
            elif tag in _SKIPPED:
                skip = skip if skip is not None else set()
                skip.update(node.iterdescendants(*_WALK_TAGS))
            elif tag in (_BLIP, _IMAGEDATA):
                rid = node.get(R + "embed") if tag == _BLIP else node.get(R + "id")
                ref = self._image(rid)
                if ref:
                    add(f"\n![image]({ref})\n")
        return "".join(pieces)

    def _hyperlink(self, link: Element) -> str:
        """``[text](url)`` for a link to an external address; "" to read it as plain text."""
        rid = link.get(R + "id")
        rel = self._relationships.get(rid) if rid else None
        if rel is None or not rel.external:
            return ""
        text = " ".join(self.text(link).split())
        if not text or "![" in text:
            return ""
        return f"[{text}]({_escape_url(rel.target)})"

    def _image(self, rid: str | None) -> str:
        if not rid:
            return ""
        ref = self._image_refs.get(rid)
        if ref is None:
            ref = self._image_refs[rid] = self._read_image(rid)
        return ref

    def _read_image(self, rid: str) -> str:
        """The ref of the image part ``rid`` points to; "" when it is not an image held in
        the package (a linked picture, a missing part)."""
        rel = self._relationships.get(rid)
        if rel is None or rel.external or not self._package.has(rel.target):
            return ""
        content_type = self._package.content_type(rel.target)
        if not content_type.startswith("image/"):
            return ""
        blob = self._package.read(rel.target)
        if not blob:
            return ""
        return self._images.add(rel.target, blob, content_type, posixpath.splitext(rel.target)[1])


def _set_property(properties: ParagraphProperties, tag: str, value: str | None) -> None:
    # First one wins: the paragraph's own pPr precedes anything nested.
    if tag == _STYLE:
        properties.style_id = properties.style_id or value
    elif tag == _NUM_ID:
        properties.num_id = properties.num_id if properties.num_id is not None else value
    elif tag == _ILVL:
        properties.ilvl = properties.ilvl if properties.ilvl is not None else value
    elif properties.outline_level is None:
        properties.outline_level = value


def _escape_url(url: str) -> str:
    # Spaces and parentheses would end a Markdown link target early.
    return url.replace(" ", "%20").replace("(", "%28").replace(")", "%29")
