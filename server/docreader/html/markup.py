"""Small pieces of Markdown syntax the HTML converter writes: indented list continuations,
link targets that cannot break the link, code fences that cannot be closed early, and the
text and language of a code block."""

from __future__ import annotations

import re
from typing import Any

from lxml import etree

_BACKTICKS = re.compile("`+")
_TARGET_ESCAPES = str.maketrans({" ": "%20", "(": "%28", ")": "%29", "\n": "", "\t": ""})


def indented(text: str, *, first: bool = True) -> str:
    """Every line of ``text`` indented by two spaces (the first too, unless ``first`` is
    False); empty lines stay empty so no line ends in spaces."""
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


def code_language(pre: Any) -> str:
    """The language of a ``<pre>`` block from ``language-x``/``lang-x`` classes on it or on
    its ``<code>`` child; "" when none."""
    for node in (pre, pre.find("code")):
        if node is None:
            continue
        for name in str(node.get("class") or "").split():
            if name.startswith("language-"):
                return name[len("language-"):]
            if name.startswith("lang-"):
                return name[len("lang-"):]
    return ""


def code_text(pre: Any) -> str:
    """The text of a ``<pre>`` block as written; a ``<br>`` inside (some sites break code
    lines with it) is a line break."""
    if next(pre.iter("br"), None) is None:
        return "".join(pre.itertext())
    parts: list[str] = []
    for event, node in etree.iterwalk(pre, events=("start", "end")):
        if event == "start":
            if node.tag == "br":
                parts.append("\n")
            elif isinstance(node.tag, str) and node.text:
                parts.append(node.text)
        elif node is not pre and node.tail:
            parts.append(node.tail)
    return "".join(parts)
