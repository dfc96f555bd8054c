"""What a docx paragraph style and numbering definition mean for Markdown.

Read once from styles.xml and numbering.xml with plain lxml lookups (python-docx's style proxy
objects are far too slow to consult per paragraph): which paragraph styles are headings, and
which numbering list levels are ordered.

A style is a heading when its name is Title or "heading N", or when it (or a style it is based
on) carries an outline level. Word's "List Bullet 2"-style names nest a single-level list by
their suffix, so that suffix counts as extra depth.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from server.docreader.parsers.office.wordml import W_VAL, Element, W, int_val

_HEADING_NAME = re.compile(r"^heading\s*(\d)$")
_LIST_NAME = re.compile(r"^list(?: bullet| number| continue| paragraph)?\s*(\d)$")
_MAX_BASED_ON_DEPTH = 16
# Outline level 9 is Word's "body text".
_BODY_OUTLINE_LEVEL = 9
_UNORDERED_FORMATS = frozenset({"bullet", "none", ""})


@dataclass(frozen=True)
class _Style:
    name: str
    based_on: str
    outline_level: int | None
    num_id: str
    ilvl: int | None


@dataclass(frozen=True)
class ParagraphStyle:
    """What a paragraph style means for Markdown, resolved through its basedOn chain."""

    heading_level: int = 0
    # The numbering the style applies ("" for none) and its list level.
    num_id: str = ""
    ilvl: int | None = None
    # "List Bullet 2" nests one level deeper than its single-level numbering says.
    depth_bonus: int = 0


_PLAIN = ParagraphStyle()


class StyleMap:
    def __init__(self, styles_root: Element | None) -> None:
        # Word files define hundreds of styles and use a few: each is read and resolved on
        # first use, then paragraphs only do a dictionary lookup.
        self._elements: dict[str, Element] = {}
        self._raw: dict[str, _Style | None] = {}
        self._styles: dict[str, ParagraphStyle] = {}
        default_id = ""
        if styles_root is not None:
            for style in styles_root.iterchildren(W + "style"):
                if style.get(W + "type") == "paragraph":
                    style_id = style.get(W + "styleId", "")
                    self._elements.setdefault(style_id, style)
                    if style.get(W + "default") in ("1", "true", "on"):
                        default_id = style_id
        self._default = self._resolve(default_id) if default_id in self._elements else _PLAIN

    def style(self, style_id: str | None) -> ParagraphStyle:
        """A paragraph's style, or the document's default paragraph style when it names none
        (or one that does not exist)."""
        if style_id is None:
            return self._default
        style = self._styles.get(style_id)
        if style is None:
            style = self._resolve(style_id) if style_id in self._elements else self._default
            self._styles[style_id] = style
        return style

    def _resolve(self, style_id: str) -> ParagraphStyle:
        chain = self._chain(style_id)
        num_id, ilvl = next(((s.num_id, s.ilvl) for s in chain if s.num_id), ("", None))
        match = _LIST_NAME.match(chain[0].name)
        return ParagraphStyle(
            heading_level=_heading_level(chain),
            num_id=num_id,
            ilvl=ilvl,
            depth_bonus=max(int(match.group(1)) - 1, 0) if match else 0,
        )

    def _chain(self, style_id: str) -> list[_Style]:
        chain: list[_Style] = []
        current = self._read(style_id)
        while current is not None and len(chain) < _MAX_BASED_ON_DEPTH:
            chain.append(current)
            current = self._read(current.based_on)
        return chain

    def _read(self, style_id: str) -> _Style | None:
        if style_id not in self._raw:
            element = self._elements.get(style_id)
            self._raw[style_id] = _read_style(element) if element is not None else None
        return self._raw[style_id]


def _read_style(style: Element) -> _Style:
    name = style.find(W + "name")
    based_on = style.find(W + "basedOn")
    ppr = style.find(W + "pPr")
    outline = ppr.find(W + "outlineLvl") if ppr is not None else None
    num_pr = ppr.find(W + "numPr") if ppr is not None else None
    num_id = num_pr.find(W + "numId") if num_pr is not None else None
    ilvl = num_pr.find(W + "ilvl") if num_pr is not None else None
    return _Style(
        name=(name.get(W_VAL, "") if name is not None else "").strip().lower(),
        based_on=based_on.get(W_VAL, "") if based_on is not None else "",
        outline_level=int_val(outline) if outline is not None else None,
        num_id=num_id.get(W_VAL, "") if num_id is not None else "",
        ilvl=int_val(ilvl) if ilvl is not None else None,
    )


def _heading_level(chain: list[_Style]) -> int:
    for style in chain:
        if style.name == "title":
            return 1
        match = _HEADING_NAME.match(style.name)
        if match:
            return clamp_heading(int(match.group(1)))
        if style.outline_level is not None:
            return outline_heading(style.outline_level)
    return 0


def clamp_heading(level: int) -> int:
    return min(max(level, 1), 6)


def outline_heading(outline_level: int) -> int:
    """Markdown heading level for a 0-based outline level; 0 for body text."""
    if outline_level < 0 or outline_level >= _BODY_OUTLINE_LEVEL:
        return 0
    return clamp_heading(outline_level + 1)


@dataclass
class _Level:
    ordered: bool
    start: int


class Numbering:
    """numbering.xml: whether a list level is ordered, and the running item numbers."""

    def __init__(self, numbering_root: Element | None) -> None:
        self._levels: dict[tuple[str, int], _Level] = {}
        self._counters: dict[str, dict[int, int]] = {}
        if numbering_root is None:
            return
        abstract: dict[str, dict[int, _Level]] = {}
        for node in numbering_root.iterchildren(W + "abstractNum"):
            abstract[node.get(W + "abstractNumId", "")] = _levels_of(node)
        for num in numbering_root.iterchildren(W + "num"):
            num_id = num.get(W + "numId", "")
            base = num.find(W + "abstractNumId")
            levels = dict(abstract.get(base.get(W_VAL, "") if base is not None else "", {}))
            for override in num.iterchildren(W + "lvlOverride"):
                ilvl = _int_attribute(override, W + "ilvl")
                replaced = override.find(W + "lvl")
                if replaced is not None:
                    levels[ilvl] = _level(replaced)
                start = override.find(W + "startOverride")
                if start is not None and ilvl in levels:
                    levels[ilvl] = _Level(levels[ilvl].ordered, int_val(start, 1))
            for ilvl, level in levels.items():
                self._levels[(num_id, ilvl)] = level

    def marker(self, num_id: str, ilvl: int) -> str:
        """``- `` or ``N. `` for the next item of list ``num_id`` at level ``ilvl``."""
        level = self._levels.get((num_id, ilvl))
        counters = self._counters.setdefault(num_id, {})
        # A new item at one level restarts the numbering of every deeper level.
        for deeper in [key for key in counters if key > ilvl]:
            del counters[deeper]
        if level is None or not level.ordered:
            return "- "
        number = counters.get(ilvl, level.start - 1) + 1
        counters[ilvl] = number
        return f"{number}. "


def _levels_of(abstract_num: Element) -> dict[int, _Level]:
    return {
        _int_attribute(lvl, W + "ilvl"): _level(lvl) for lvl in abstract_num.iterchildren(W + "lvl")
    }


def _level(lvl: Element) -> _Level:
    fmt = lvl.find(W + "numFmt")
    fmt_value = fmt.get(W_VAL, "") if fmt is not None else ""
    return _Level(
        ordered=fmt_value not in _UNORDERED_FORMATS, start=int_val(lvl.find(W + "start"), 1)
    )


def _int_attribute(element: Element, attribute: str) -> int:
    try:
        return int(element.get(attribute, "0"))
    except ValueError:
        return 0
