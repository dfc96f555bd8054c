"""Writes Markdown blocks to a sink with the right blank lines between them.

Blocks are separated by a blank line, except consecutive items of one list, which are separated
by a single newline so they stay one tight list.
"""

from __future__ import annotations

from server.docreader.parsers.base import DocumentSink


class BlockWriter:
    def __init__(self, sink: DocumentSink) -> None:
        self._write = sink.write
        self._started = False
        self._in_list = False

    def block(self, markdown: str) -> None:
        if not markdown:
            return
        self._write("\n\n" + markdown if self._started else markdown)
        self._started = True
        self._in_list = False

    def list_item(self, markdown: str, *, new_list: bool = False) -> None:
        """``new_list``: the item starts another list, so a blank line separates the two."""
        if not markdown:
            return
        if self._started:
            tight = self._in_list and not new_list
            markdown = ("\n" if tight else "\n\n") + markdown
        self._write(markdown)
        self._started = True
        self._in_list = True
