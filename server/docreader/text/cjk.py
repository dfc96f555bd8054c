"""Chinese and Japanese text is written without spaces between words, so a line break inside
a sentence of it must join without one (a space would split a word in two for search and
chunking). Korean separates words with spaces and is left out.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

# Unicode name prefixes of the ideographs, kana and their punctuation ("CJK UNIFIED
# IDEOGRAPH-6C34", "IDEOGRAPHIC FULL STOP", "FULLWIDTH COMMA", "HIRAGANA LETTER A").
_NAME_PREFIXES = ("CJK ", "IDEOGRAPHIC ", "FULLWIDTH ", "HIRAGANA ", "KATAKANA ")
# A space between two characters that may be unspaced CJK (checked with is_unspaced).
_INNER_SPACE = re.compile(r"(?<=[^\x00-\u2dff]) +(?=[^\x00-\u2dff])")
# A line break (with the spaces around it) between two such characters.
_INNER_BREAK = re.compile(r"(?<=[^\x00-\u2dff])[ \t]*[\r\n]\s*(?=[^\x00-\u2dff])")


@lru_cache(maxsize=4096)
def is_unspaced(char: str) -> bool:
    """Whether ``char`` belongs to a script written without spaces between words."""
    if char < "\u2e80":
        return False
    return unicodedata.name(char, "").startswith(_NAME_PREFIXES)


def line_separator(before: str, after: str) -> str:
    """What goes between two lines of one paragraph: nothing between CJK characters, a space
    otherwise."""
    if before and after and is_unspaced(before[-1]) and is_unspaced(after[0]):
        return ""
    return " "


def without_inner_spaces(text: str) -> str:
    """``text`` with the spaces between two CJK characters removed (OCR puts one between
    every pair of ideographs)."""
    return _INNER_SPACE.sub(_drop_if_unspaced, text)


def without_inner_line_breaks(text: str) -> str:
    """``text`` with the line breaks between two CJK characters removed, as browsers render
    a source line break inside Chinese text (CSS Text 3, segment break transformation)."""
    return _INNER_BREAK.sub(_drop_if_unspaced, text)


def _drop_if_unspaced(match: re.Match[str]) -> str:
    text, start, end = match.string, match.start(), match.end()
    return "" if is_unspaced(text[start - 1]) and is_unspaced(text[end]) else match.group()


def one_line(text: str) -> str:
    """``text`` on one line: each line's spaces collapsed, the lines joined as one paragraph's
    (a heading or list item with a manual line break)."""
    result = ""
    for line in text.splitlines():
        part = " ".join(line.split())
        if part:
            result = f"{result}{line_separator(result, part)}{part}" if result else part
    return result
