"""What a page turns into: atoms placed in the reading order, and the Markdown blocks written.

An ``Atom`` is a finished piece of Markdown with a position (a table, a figure link) that the
layout orders among the text lines. A ``Block`` is one Markdown block of the page's output;
a block from the top or bottom margin carries a ``margin_key`` so the repeated-header filter
can drop it once the same key shows up on enough pages. A paragraph cut by a column or page
break is two paragraph blocks; ``joined`` glues them back when the first one stops mid-sentence
and the second one starts in lower case.
"""

from __future__ import annotations

from dataclasses import dataclass

from server.docreader.parsers.pdf.geometry import Box
from server.docreader.text.cjk import line_separator


@dataclass(frozen=True, slots=True)
class Atom:
    box: Box
    markdown: str


@dataclass(frozen=True, slots=True)
class Block:
    markdown: str
    margin_key: str | None = None
    # Running text (not a heading, list, table or figure): it may continue in the next block.
    paragraph: bool = False


# Sentence ends, with closing quotes (U+201D, U+2019) and brackets.
SENTENCE_END = tuple('.!?:;"\u201d\u2019)]')


def continues(before: Block, after: Block) -> bool:
    """Whether ``after`` is the rest of the paragraph ``before``, cut by a column or page."""
    return (
        before.paragraph
        and after.paragraph
        and not before.markdown.endswith(SENTENCE_END)
        and after.markdown[:1].islower()
    )


def joined(blocks: list[Block]) -> list[Block]:
    """The blocks with every paragraph continued in the next block joined to it."""
    result: list[Block] = []
    for block in blocks:
        if result and continues(result[-1], block):
            result[-1] = join(result[-1], block)
        else:
            result.append(block)
    return result


def join(before: Block, after: Block) -> Block:
    text = before.markdown
    if len(text) > 2 and text[-1] == "-" and text[-2].isalpha() and text[-3].isalpha():
        return Block(text[:-1] + after.markdown, paragraph=True)
    return Block(f"{text}{line_separator(text, after.markdown)}{after.markdown}", paragraph=True)
