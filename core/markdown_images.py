"""Finds the images a Markdown text links to, with exact spans, so links are rewritten in place.

Three forms are found: Markdown images ``![alt](target "title")`` (angle-bracket targets,
backslash escapes and balanced parentheses included), HTML ``<img src=...>`` tags inside the
Markdown, and bare inline image data — a ``data:image/...;base64,`` URI or a ``base64,``
payload standing in the text outside any link. An image wrapped in a link,
``[![alt](image)](page)``, is reported with the wrapper's span too: the spec unwraps such
images to the flat form when it resolves them. Nothing inside fenced code, inline code or
an HTML comment counts: an example in a code block is text, not an image.

The edits that rewrite found links in place (``replace_target``, ``drop_image``,
``apply_edits``) are shared by the workers, which point links at the images they store, and
the API, which points stored references at fresh URLs when it returns content.
"""

from __future__ import annotations

import bisect
import functools
import html
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

# Alt text longer than this is not looked for: it bounds the work on unclosed brackets.
_MAX_ALT_CHARS = 4096
_ESCAPABLE = re.compile(r"\\([!-/:-@\[-`{-~])")
_FENCE_OPEN = re.compile(r"^ {0,3}(?P<fence>`{3,}(?=[^`]*$)|~{3,})")
_BACKTICKS = re.compile(r"`+")
_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)
_WORD = re.compile(r"\w")
_IMG_TAG = re.compile(r"<img\b(?:[^>\"']|\"[^\"]*\"|'[^']*')*>", re.IGNORECASE)
_ATTRIBUTE = re.compile(
    r"(?P<name>[^\s\"'>/=]+)(?:\s*=\s*(?:\"(?P<dq>[^\"]*)\"|'(?P<sq>[^']*)'|(?P<bare>[^\s\"'=<>`]+)))?"
)
_BARE_DATA = re.compile(
    r"data:image/[\w.+-]+(?:;[\w.+-]+=[^;,\s]*)*;base64,[A-Za-z0-9+/]{100,}={0,2}"
    r"|(?<![\w;/+])base64,[A-Za-z0-9+/]{200,}={0,2}",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class ImageLink:
    syntax: Literal["markdown", "html"]
    # What to replace to drop or unwrap the image: the wrapping link when there is one.
    start: int
    end: int
    # The image itself: ``![...](...)`` or ``<img ...>``.
    image_start: int
    image_end: int
    # The target as written: inside ``<...>`` or the attribute's quotes.
    target_start: int
    target_end: int
    # The target as a URL: escapes (Markdown) or entities (HTML) resolved, trimmed.
    target: str
    alt: str

    @property
    def wrapped(self) -> bool:
        return (self.start, self.end) != (self.image_start, self.image_end)


def find_image_links(markdown: str) -> list[ImageLink]:
    """Every image link outside code and comments, in document order, never overlapping."""
    ignored = _ignored_in(markdown)
    found = _markdown_images(markdown, ignored) + _html_images(markdown, ignored)
    found.sort(key=lambda link: link.start)
    links: list[ImageLink] = []
    for link in found:
        if not links or link.start >= links[-1].end:
            links.append(link)
    return links


def find_bare_image_data(markdown: str, links: Sequence[ImageLink]) -> list[tuple[int, int]]:
    """Spans of inline image data standing in the text: outside ``links``, code, comments."""
    ignored = _ignored_in(markdown)
    taken = [(link.start, link.end) for link in links]
    spans: list[tuple[int, int]] = []
    for match in _BARE_DATA.finditer(markdown):
        start, end = match.span()
        if ignored.hit(start) or any(lo <= start < hi for lo, hi in taken):
            continue
        spans.append((start, end))
    return spans


@functools.lru_cache(maxsize=1)
def _ignored_in(text: str) -> _Ignored:
    """The code and comment spans of the document last asked about: finding the links and
    then the bare image data of one document scans it once."""
    return _Ignored(text)


class _Ignored:
    """Offsets of fenced code, inline code and HTML comments, where nothing is an image."""

    def __init__(self, text: str) -> None:
        spans: list[tuple[int, int]] = []
        position = 0
        for fence_start, fence_end in _fences(text):
            spans += _inline_code_and_comments(text, position, fence_start)
            spans.append((fence_start, fence_end))
            position = fence_end
        spans += _inline_code_and_comments(text, position, len(text))
        self._starts = [start for start, _ in spans]
        self._spans = spans

    def hit(self, offset: int) -> bool:
        index = bisect.bisect_right(self._starts, offset) - 1
        return index >= 0 and offset < self._spans[index][1]


def _fences(text: str) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    lines = [(m.start(), m.end()) for m in re.finditer(r"[^\n]*\n|[^\n]+", text)]
    i = 0
    while i < len(lines):
        start, _ = lines[i]
        match = _FENCE_OPEN.match(text[start : lines[i][1]].rstrip("\r\n"))
        if match is None:
            i += 1
            continue
        fence = match.group("fence")
        closing = re.compile(rf"^ {{0,3}}{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$")
        j = i + 1
        while j < len(lines) and not closing.match(text[lines[j][0] : lines[j][1]].rstrip("\r\n")):
            j += 1
        last = min(j, len(lines) - 1)  # an unclosed fence runs to the end
        spans.append((start, lines[last][1]))
        i = last + 1
    return spans


def _inline_code_and_comments(text: str, lo: int, hi: int) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    position = lo
    # Each search runs to ``hi``: a match (or its absence) is kept until it is passed, and a
    # backtick run with no closing run stays unclosed further on, so the scan is linear.
    comment = _COMMENT.search(text, position, hi)
    unclosed: set[str] = set()
    while position < hi:
        tick = _BACKTICKS.search(text, position, hi)
        if comment is not None and comment.start() < position:
            comment = _COMMENT.search(text, position, hi)
        if comment is not None and (tick is None or comment.start() < tick.start()):
            spans.append(comment.span())
            position = comment.end()
            continue
        if tick is None:
            break
        if _escaped(text, tick.start()):
            position = tick.start() + 1
            continue
        run = tick.group()
        close = None
        if run not in unclosed:
            close = re.compile(rf"(?<!`){run}(?!`)").search(text, tick.end(), hi)
        if close is None:  # an unmatched run is literal backticks
            unclosed.add(run)
            position = tick.end()
            continue
        spans.append((tick.start(), close.end()))
        position = close.end()
    return spans


def _escaped(text: str, offset: int) -> bool:
    backslashes = 0
    while offset - backslashes - 1 >= 0 and text[offset - backslashes - 1] == "\\":
        backslashes += 1
    return backslashes % 2 == 1


def _markdown_images(text: str, ignored: _Ignored) -> list[ImageLink]:
    links: list[ImageLink] = []
    position = text.find("![")
    while position != -1:
        link = None
        if not ignored.hit(position) and not _escaped(text, position):
            link = _markdown_image_at(text, position)
        if link is None:
            position = text.find("![", position + 1)
            continue
        links.append(link)
        position = text.find("![", link.end)
    return links


def _markdown_image_at(text: str, start: int) -> ImageLink | None:
    alt_end = _closing_bracket(text, start + 1)
    if alt_end is None or not text.startswith("(", alt_end + 1):
        return None
    parsed = _destination_and_title(text, alt_end + 2)
    if parsed is None:
        return None
    target_start, target_end, image_end = parsed
    raw_target = text[target_start:target_end]
    target = _ESCAPABLE.sub(r"\1", raw_target).strip()
    if not target:
        return None
    outer_start, outer_end = start, image_end
    linked = start > 0 and text[start - 1] == "[" and not _escaped(text, start - 1)
    if linked and text.startswith("](", image_end):
        wrapper = _destination_and_title(text, image_end + 2)
        if wrapper is not None:
            outer_start, outer_end = start - 1, wrapper[2]
    return ImageLink(
        "markdown",
        outer_start,
        outer_end,
        start,
        image_end,
        target_start,
        target_end,
        target,
        text[start + 2 : alt_end],
    )


def _closing_bracket(text: str, open_at: int) -> int | None:
    """Offset of the ``]`` matching the ``[`` at ``open_at``, within one paragraph."""
    depth = 0
    position = open_at
    limit = min(len(text), open_at + _MAX_ALT_CHARS)
    while position < limit:
        char = text[position]
        if char == "\\":
            position += 2
            continue
        if char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
            if depth == 0:
                return position
        elif char == "\n" and text.startswith("\n", position + 1):
            return None  # a blank line ends the paragraph
        position += 1
    return None


def _destination_and_title(text: str, position: int) -> tuple[int, int, int] | None:
    """After ``(``: the target's (start, end) and the offset just past the closing ``)``."""
    position = _skip_space(text, position)
    if text.startswith("<", position):
        close = position + 1
        while close < len(text) and text[close] not in "<>\n":
            close += 2 if text[close] == "\\" else 1
        if close >= len(text) or text[close] != ">":
            return None
        target_start, target_end, position = position + 1, close, close + 1
    elif text[position : position + 5].lower() == "data:":
        # Inline data is sometimes wrapped over lines; it never holds a parenthesis.
        close = text.find(")", position)
        if close == -1:
            return None
        return position, position + len(text[position:close].rstrip()), close + 1
    else:
        target_start = position
        raw_end = _raw_destination_end(text, position)
        if raw_end is None:
            return None
        target_end = position = raw_end
    after = _skip_space(text, position)
    if after < len(text) and text[after] in "\"'(" and after > position:
        closer = ")" if text[after] == "(" else text[after]
        close = after + 1
        while close < len(text) and text[close] != closer:
            close += 2 if text[close] == "\\" else 1
        if close >= len(text):
            return None
        after = _skip_space(text, close + 1)
    if not text.startswith(")", after):
        return None
    return target_start, target_end, after + 1


def _raw_destination_end(text: str, position: int) -> int | None:
    depth = 0
    while position < len(text):
        char = text[position]
        if char == "\\" and position + 1 < len(text):
            position += 2
            continue
        if char.isspace() or ord(char) < 0x20:
            break
        if char == "(":
            depth += 1
        elif char == ")":
            if depth == 0:
                break
            depth -= 1
        position += 1
    return position if depth == 0 else None


def _skip_space(text: str, position: int) -> int:
    """Past spaces and tabs, and at most one line break (a link may wrap once)."""
    newline_seen = False
    while position < len(text):
        char = text[position]
        if char == "\n":
            if newline_seen:
                break
            newline_seen = True
        elif char not in " \t\r":
            break
        position += 1
    return position


def _html_images(text: str, ignored: _Ignored) -> list[ImageLink]:
    links: list[ImageLink] = []
    for tag in _IMG_TAG.finditer(text):
        if ignored.hit(tag.start()):
            continue
        src: tuple[int, int, str] | None = None
        alt = ""
        body_start = tag.start() + len("<img")
        for attribute in _ATTRIBUTE.finditer(text, body_start, tag.end() - 1):
            name = attribute.group("name").lower()
            group = next((g for g in ("dq", "sq", "bare") if attribute.group(g) is not None), None)
            if group is None:
                continue
            value = html.unescape(attribute.group(group))
            if name == "src" and src is None:
                src = (attribute.start(group), attribute.end(group), value.strip())
            elif name == "alt" and not alt:
                alt = value
        if src is None or not src[2]:
            continue
        links.append(ImageLink("html", tag.start(), tag.end(), tag.start(), tag.end(), *src, alt))
    return links


# -- rewriting the links found above -------------------------------------------------------

# Replace ``text[start:end]`` with the string.
Edit = tuple[int, int, str]


def replace_target(link: ImageLink, url: str) -> Edit:
    """Point the image at ``url``, everything else about the link as written."""
    return link.target_start, link.target_end, html.escape(url) if link.syntax == "html" else url


def drop_image(link: ImageLink) -> Edit:
    """The image gives way to its alt text; a wrapping link stays unless nothing is left."""
    alt = link.alt.strip()
    if link.wrapped and alt:
        return link.image_start, link.image_end, alt
    return link.start, link.end, alt


def apply_edits(text: str, edits: Sequence[Edit]) -> str:
    """``text`` with the (non-overlapping) edits made."""
    pieces: list[str] = []
    position = 0
    for start, end, replacement in sorted(edits):
        pieces += [text[position:start], replacement]
        position = end
    pieces.append(text[position:])
    return "".join(pieces)


def says_more_than_images(markdown: str) -> bool:
    """Whether ``markdown`` has any word beside its images (links, ``<img>`` tags, inline
    data): a chunk that is only a scanned page's image links does not."""
    links = find_image_links(markdown)
    spans = [(link.start, link.end) for link in links] + find_bare_image_data(markdown, links)
    return bool(_WORD.search(apply_edits(markdown, [(start, end, "") for start, end in spans])))
