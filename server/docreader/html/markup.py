"""Small pieces of Markdown syntax the HTML converter writes: indented list continuations,
link targets that cannot break the link, code fences that cannot be closed early, and the
text and language of a code block."""

from __future__ import annotations

import re

from selectolax.lexbor import LexborNode

from server.docreader.html.tags import TEXT, tag_id

_BACKTICKS = re.compile("`+")
_TARGET_ESCAPES = str.maketrans({" ": "%20", "(": "%28", ")": "%29", "\n": "", "\t": ""})
_BR, _CODE = tag_id("br"), tag_id("code")


def indented(text: str, *, first: bool = True) -> str:
    """Every line of ``text`` indented by two spaces (the first too, unless ``first`` is
    False); empty lines stay empty so no line ends in spaces."""
    if "\n" not in text:
        return "  " + text if first and text else text
    lines = text.split("\n")
    start = 0 if first else 1
    for index in range(start, len(lines)):
        if lines[index]:
            lines[index] = "  " + lines[index]
    return "\n".join(lines)


def link_target(url: str) -> str:
    """``url`` with the characters that would end a Markdown link target percent-encoded."""
    if " " in url or "(" in url or ")" in url or "\n" in url or "\t" in url:
        return url.translate(_TARGET_ESCAPES)
    return url


def start_number(value: str | None) -> int:
    """The first number of an ``<ol>`` from its ``start`` attribute (1 when missing/bad)."""
    try:
        return int((value or "1").strip())
    except ValueError:
        return 1


def longest_backtick_run(text: str) -> int:
    return max(map(len, _BACKTICKS.findall(text)), default=0)


def code_language(pre: LexborNode) -> str:
    """The language of a ``<pre>`` block from ``language-x``/``lang-x`` classes on it or on
    its first ``<code>`` child; "" when none."""
    code = next((child for child in pre.iter() if child.tag_id == _CODE), None)
    for node in (pre, code):
        if node is None:
            continue
        for name in (node.attrs.get("class") or "").split():
            if name.startswith("language-"):
                return name[len("language-") :]
            if name.startswith("lang-"):
                return name[len("lang-") :]
    return ""


def code_text(pre: LexborNode) -> str:
    """The text of a ``<pre>`` block as written; a ``<br>`` inside (some sites break code
    lines with it) is a line break."""
    parts: list[str] = []
    for node in pre.traverse(include_text=True):
        tag = node.tag_id
        if tag == TEXT:
            parts.append(node.text_content or "")
        elif tag == _BR:
            parts.append("\n")
    return "".join(parts)
