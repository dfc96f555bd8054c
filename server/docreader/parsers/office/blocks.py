"""Writes Markdown blocks to a sink with the right blank lines between them.

Blocks are separated by a blank line, except consecutive items of one list, which are separated
by a single newline so they stay one tight list. A nested item is indented by the widths of its
parents' markers (three spaces under "1. ", two under "- "), as CommonMark needs to keep it
inside its parent item.
"""

from __future__ import annotations

from server.docreader.parser_contract import DocumentSink


class BlockWriter:
    def __init__(self, sink: DocumentSink) -> None:
        self._write = sink.write
        self._started = False
        self._in_list = False
        # The marker of the current item at each depth, for the nested items' indent.
        self._markers: list[str] = []
        self._pending = ""

    def heading_if_followed(self, markdown: str) -> None:
        """A heading written only when a block or list item follows it (before the next
        such heading): a section with nothing in it leaves no trace, so an empty slide is
        not "## Slide 1" and an empty deck reads as empty."""
        self._pending = markdown

    def block(self, markdown: str) -> None:
        if not markdown:
            return
        self._flush_pending()
        self._write("\n\n" + markdown if self._started else markdown)
        self._started = True
        self._in_list = False

    def list_item(self, text: str, *, depth: int, marker: str, new_list: bool = False) -> None:
        """``marker`` is "- " or "N. "; ``new_list``: the item starts another list, so a blank
        line separates the two."""
        if not text:
            return
        self._flush_pending()
        if new_list or not self._in_list:
            self._markers = []
        # A level skipped on the way down indents like a bullet.
        parents = (self._markers + ["- "] * depth)[:depth]
        self._markers = [*parents, marker]
        markdown = "".join(" " * len(m) for m in parents) + marker + text
        if self._started:
            tight = self._in_list and not new_list
            markdown = ("\n" if tight else "\n\n") + markdown
        self._write(markdown)
        self._started = True
        self._in_list = True

    def _flush_pending(self) -> None:
        if self._pending:
            heading, self._pending = self._pending, ""
            self.block(heading)
