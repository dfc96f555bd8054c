"""One docx paragraph → its properties and its text: runs, tabs, breaks, hyperlinks, math and
images in place.

Speed matters here (a long document has thousands of paragraphs; the docx parser must stay
within twice python-docx's own load time), so paragraphs take one of two paths:

- A plain paragraph (runs of text only) is serialized to text by libxml2 in one C call. The body
  pass (see docx_scan) meets every element that makes a paragraph more than plain (``SCAN_TAGS``),
  so a paragraph whose scanned nodes are only its pPr properties is plain.
- Any other paragraph (tabs, breaks, hyperlinks, images, fields, tracked changes, drawings,
  math...) is walked node by node on the raw lxml tree.

In the walk, deleted text (w:delText) and field instructions (w:instrText) are other element
names and are never read; deleted runs (w:del, w:moveFrom), old properties (w:pPrChange) and
markup-compatibility fallbacks (mc:Fallback, which repeat their mc:Choice) are skipped whole.
The paragraph's own pPr comes first in the XML, so its style and numbering are the first met;
nested paragraphs (text boxes) never override them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from lxml import etree

from server.docreader.parsers.office.images import OfficeImages
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
class ParagraphInfo:
    text: str = ""
    style_id: str | None = None
    num_id: str | None = None
    ilvl: str | None = None
    outline_level: str | None = None


class InlineText:
    def __init__(self, part: Any, images: OfficeImages) -> None:
        # ``part`` is python-docx's DocumentPart: its relationships resolve images and links.
        self._part = part
        self._images = images

    def paragraph(self, paragraph: Element, scanned: Sequence[Element]) -> ParagraphInfo:
        """``scanned``: the paragraph's descendants among SCAN_TAGS, in document order."""
        info = ParagraphInfo()
        for node in scanned:
            tag = node.tag
            if tag == _STYLE and info.style_id is None:  # the usual lone property
                info.style_id = node.get(W_VAL)
                continue
            if tag not in _PROPERTIES:
                info = ParagraphInfo()
                info.text = self._walk(paragraph.iterdescendants(*_WALK_TAGS), info)
                return info
            _set_property(info, tag, node.get(W_VAL))
        info.text = etree.tostring(paragraph, method="text", encoding=str)
        return info

    def paragraph_text(self, paragraph: Element, scanned: Sequence[Element]) -> str:
        """The text alone, for table cells: their paragraphs' styles do not matter."""
        for node in scanned:
            if node.tag not in _PROPERTIES:
                return self.text(paragraph)
        return str(etree.tostring(paragraph, method="text", encoding=str))

    def text(self, paragraph: Element) -> str:
        return self._walk(paragraph.iterdescendants(*_WALK_TAGS), None)

    def _walk(self, descendants: Iterable[Element], info: ParagraphInfo | None) -> str:
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
                if info is not None:
                    _set_property(info, tag, node.get(W_VAL))
            elif tag == _TAB:
                add("\t")
            elif tag in (_BR, _CR):
                # Page and column breaks are layout only; a line break is kept.
                if node.get(W + "type") in (None, "textWrapping"):
                    add("\n")
            elif tag == _P:
                # A paragraph inside a text box: on its own line, and its properties are not ours.
                add("\n")
                info = None
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
        rel = self._part.rels.get(rid) if rid else None
        if rel is None or not rel.is_external:
            return ""
        text = " ".join(self.text(link).split())
        if not text or "![" in text:
            return ""
        return f"[{text}]({_escape_url(str(rel.target_ref))})"

    def _image(self, rid: str | None) -> str:
        rel = self._part.rels.get(rid) if rid else None
        if rel is None or rel.is_external:
            return ""
        target = rel.target_part
        blob = getattr(target, "blob", b"")
        if not blob or not str(target.content_type).startswith("image/"):
            return ""
        return self._images.add(
            str(target.partname), blob, target.content_type, target.partname.ext
        )


def _set_property(info: ParagraphInfo, tag: str, value: str | None) -> None:
    # First one wins: the paragraph's own pPr precedes anything nested.
    if tag == _STYLE:
        info.style_id = info.style_id or value
    elif tag == _NUM_ID:
        info.num_id = info.num_id if info.num_id is not None else value
    elif tag == _ILVL:
        info.ilvl = info.ilvl if info.ilvl is not None else value
    else:
        info.outline_level = info.outline_level if info.outline_level is not None else value


def _escape_url(url: str) -> str:
    # Spaces and parentheses would end a Markdown link target early.
    return url.replace(" ", "%20").replace("(", "%28").replace(")", "%29")
