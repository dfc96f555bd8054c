"""One recursive walk over an lxml element tree, writing Markdown.

Block elements (paragraphs, headings, lists, code, quotes, tables) become blank-line separated
blocks; inline elements (emphasis, code, links, images) are written into the paragraph being
built. Text is gathered raw and its whitespace collapsed once per paragraph, not per node;
line breaks inside a paragraph travel as ``_LINE_BREAK`` and paragraph breaks inside inline
content (a ``<div>`` in a link) as ``_PARAGRAPH_BREAK``, two control characters that
``str.split()`` would otherwise treat as whitespace. Unknown elements (``span``, custom tags)
are transparent: their children are walked in place, so a block inside them stays a block.

Markdown that must not break: ``|`` in table cells is escaped (``markdown_table``), code gets
a fence longer than any backtick run inside, link and image targets get spaces and
parentheses percent-encoded. Text itself is not escaped: the output feeds search, not a
renderer, and ``snake\\_case`` would hurt matching more than a stray ``*`` hurts reading.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from server.docreader.html.markup import (
    code_language,
    code_text,
    indented,
    link_target,
    longest_backtick_run,
    start_number,
)
from server.docreader.html.tables import row_cells, table_grid, table_rows
from server.docreader.markdown.tables import markdown_table

# An ``<img>`` source → the link target to write, or None to leave the image out.
ImageResolver = Callable[[str], str | None]

_LINE_BREAK = "\x1f"
_PARAGRAPH_BREAK = "\x1e"
# Element nesting walked before the rest is kept as plain text; each level costs a few Python
# frames, and lxml's huge-tree mode allows 2048 levels, far past the recursion limit.
_MAX_DEPTH = 100
_XLINK_HREF = "{http://www.w3.org/1999/xlink}href"


def html_to_markdown(root: Any, resolve_image: ImageResolver) -> str:
    """Markdown of ``root``'s content (``root`` itself is treated as a block container)."""
    walker = _Walker(resolve_image)
    walker.flow(root)
    walker.flush()
    return "\n\n".join(walker.blocks)


class _Walker:
    def __init__(self, resolve_image: ImageResolver) -> None:
        self._resolve_image = resolve_image
        self.blocks: list[str] = []
        # The paragraph being built; ``flush`` clears it in place, so aliases stay valid.
        self._para: list[str] = []
        self._handlers = _BLOCK_HANDLERS
        self._depth = 0
        self._in_table = 0

    def flow(self, element: Any) -> None:
        """Walk ``element``'s text and children in place."""
        para = self._para
        if self._depth >= _MAX_DEPTH:
            para.append(" " + " ".join(element.itertext()) + " ")
            return
        self._depth += 1
        handlers = self._handlers
        append = para.append
        text = element.text
        if text:
            append(text)
        for child in element:
            tag = child.tag
            handler = handlers.get(tag)
            if handler is not None:
                handler(self, child)
            elif type(tag) is str:  # not a comment, processing instruction or entity
                if len(child):
                    self.flow(child)
                else:
                    text = child.text
                    if text:
                        append(text)
            tail = child.tail
            if tail:
                append(tail)
        self._depth -= 1

    def flush(self) -> None:
        para = self._para
        if not para:
            return
        text = "".join(para)
        para.clear()
        if _LINE_BREAK not in text and _PARAGRAPH_BREAK not in text:
            line = " ".join(text.split())
            if line:
                self.blocks.append(line)
            return
        for chunk in text.split(_PARAGRAPH_BREAK):
            lines: list[str] = []
            for raw in chunk.split(_LINE_BREAK):
                line = " ".join(raw.split())
                if line:
                    lines.append(line)
                elif lines:  # two line breaks in a row end the paragraph
                    self.blocks.append("\n".join(lines))
                    lines = []
            if lines:
                self.blocks.append("\n".join(lines))

    # -- rendering into a separate buffer ---------------------------------------------------

    def _render_blocks(self, element: Any) -> list[str]:
        saved_blocks, saved_para = self.blocks, self._para
        self.blocks, self._para = [], []
        self.flow(element)
        self.flush()
        blocks = self.blocks
        self.blocks, self._para = saved_blocks, saved_para
        return blocks

    def _render_inline(self, element: Any) -> str:
        if not len(element):
            return str(element.text or "")
        saved_para, saved_handlers = self._para, self._handlers
        self._para, self._handlers = [], _INLINE_HANDLERS
        self.flow(element)
        text = "".join(self._para)
        self._para, self._handlers = saved_para, saved_handlers
        return text

    # -- blocks -----------------------------------------------------------------------------

    def _block(self, element: Any) -> None:
        if self._para:
            self.flush()
        if not len(element):
            line = " ".join((element.text or "").split())
            if line:
                self.blocks.append(line)
            return
        self.flow(element)
        self.flush()

    def _heading(self, element: Any) -> None:
        self.flush()
        text = " ".join(self._render_inline(element).split())
        if text:
            self.blocks.append("#" * int(element.tag[1]) + " " + text)

    def _rule(self, element: Any) -> None:
        self.flush()
        self.blocks.append("---")

    def _list(self, element: Any) -> None:
        self.flush()
        ordered = element.tag == "ol"
        number = start_number(element.get("start")) if ordered else 0
        items: list[str] = []
        for child in element.iterchildren():
            tag = child.tag
            if type(tag) is not str:
                continue
            if tag in ("ul", "ol"):
                # A list placed directly in a list belongs to the item before it.
                nested = indented(self._render_list(child))
                if nested and items:
                    items[-1] += "\n" + nested
                elif nested:
                    items.append(nested)
                continue
            blocks = self._item_blocks(child)
            if not blocks:
                continue
            marker = f"{number}. " if ordered else "- "
            number += 1
            items.append(marker + indented("\n".join(blocks), first=False))
        if items:
            self.blocks.append("\n".join(items))

    def _render_list(self, element: Any) -> str:
        if self._depth >= _MAX_DEPTH:
            return " ".join(" ".join(element.itertext()).split())
        saved_blocks = self.blocks
        self.blocks = []
        self._depth += 1
        self._list(element)
        self._depth -= 1
        rendered = "\n\n".join(self.blocks)
        self.blocks = saved_blocks
        return rendered

    def _item_blocks(self, item: Any) -> list[str]:
        if not len(item):
            line = " ".join((item.text or "").split())
            return [line] if line else []
        return self._render_blocks(item)

    def _pre(self, element: Any) -> None:
        self.flush()
        lines = [line.rstrip() for line in code_text(element).split("\n")]
        while lines and not lines[0]:
            lines.pop(0)
        while lines and not lines[-1]:
            lines.pop()
        if not lines:
            return
        code = "\n".join(lines)
        fence = "`" * max(3, longest_backtick_run(code) + 1)
        self.blocks.append(f"{fence}{code_language(element)}\n{code}\n{fence}")

    def _blockquote(self, element: Any) -> None:
        self.flush()
        text = "\n\n".join(self._render_blocks(element))
        if text:
            self.blocks.append("\n".join(f"> {line}" if line else ">" for line in text.split("\n")))

    def _table(self, element: Any) -> None:
        self.flush()
        caption = element.find("caption")
        if caption is not None:
            text = " ".join(self._render_inline(caption).split())
            if text:
                self.blocks.append(text)
        rows = table_rows(element)
        if self._in_table:
            # A table inside a cell: its rows become lines of the cell.
            lines = (" ".join(filter(None, map(self._cell_text, row_cells(row)))) for row in rows)
            text = "\n".join(line for line in lines if line)
            if text:
                self.blocks.append(text)
            return
        if len(rows) == 1:
            cells = row_cells(rows[0])
            if len(cells) == 1:  # a one-cell layout wrapper, not data
                self.flow(cells[0])
                self.flush()
                return
        self._in_table += 1
        grid = table_grid(element, rows, self._cell_text)
        self._in_table -= 1
        table = markdown_table(grid, header=True)
        if table:
            self.blocks.append(table)

    def _cell_text(self, cell: Any) -> str:
        if len(cell):
            return "\n".join(self._render_blocks(cell))
        text = cell.text
        return " ".join(text.split()) if text else ""

    # -- inline -----------------------------------------------------------------------------

    def _line_break(self, element: Any) -> None:
        self._para.append(_LINE_BREAK)

    def _paragraph_break(self, element: Any) -> None:
        """A block inside inline content: its text, set off as a paragraph of its own."""
        para = self._para
        para.append(_PARAGRAPH_BREAK)
        self.flow(element)
        para.append(_PARAGRAPH_BREAK)

    def _cell_gap(self, element: Any) -> None:
        para = self._para
        para.append(" ")
        self.flow(element)
        para.append(" ")

    def _wrap(self, element: Any) -> None:
        """Emphasis, strong or strikethrough; the word gaps at its edges stay outside."""
        inner = self._render_inline(element) if len(element) else element.text
        if not inner:
            return
        core = inner.strip()
        if not core:
            self._para.append(inner)
            return
        mark = _MARKS[element.tag]
        if not (core.startswith(mark) and core.endswith(mark)):  # <b><b>x</b></b>: once
            core = mark + core + mark
        if inner[0].isspace():
            core = " " + core
        if inner[-1].isspace():
            core += " "
        self._para.append(core)

    def _code(self, element: Any) -> None:
        text = " ".join("".join(element.itertext()).split())
        if not text:
            return
        if "`" not in text:
            self._para.append(f"`{text}`")
            return
        fence = "`" * (longest_backtick_run(text) + 1)
        self._para.append(f"{fence} {text} {fence}")

    def _link(self, element: Any) -> None:
        inner = self._render_inline(element) if len(element) else element.text
        if not inner:
            return
        href = element.get("href")
        text = " ".join(inner.split())
        if href:
            href = href.strip()
        if not text or not href or href[0] == "#" or href[:11].lower() == "javascript:":
            self._para.append(inner)  # not a link worth keeping: its text stays
            return
        link = f"[{text}]({link_target(href)})"
        if inner[0].isspace():
            link = " " + link
        if inner[-1].isspace():
            link += " "
        self._para.append(link)

    def _image(self, element: Any) -> None:
        source = element.get("src")
        lazy = element.get("data-src")  # lazy loading: src is empty or a placeholder
        if lazy and (not source or source.startswith("data:")):
            source = lazy
        self._add_image(source, element.get("alt"))

    def _svg_image(self, element: Any) -> None:
        get = element.get
        self._add_image(get("href") or get(_XLINK_HREF) or get("xlink:href"), None)

    def _add_image(self, source: str | None, alt: str | None) -> None:
        source = (source or "").strip()
        if not source:
            return
        target = self._resolve_image(source)
        if target is None:
            return
        text = " ".join((alt or "").split())
        self._para.append(f"![{text}]({link_target(target)})")


_Handler = Callable[[_Walker, Any], None]
_MARKS = {
    "strong": "**", "b": "**", "em": "*", "i": "*", "cite": "*", "del": "~~", "s": "~~",
    "strike": "~~",
}
_CONTAINERS = (
    "p", "div", "section", "article", "main", "header", "footer", "figure", "figcaption",
    "address", "center", "details", "summary", "dl", "dt", "dd", "fieldset", "legend",
    "hgroup", "body", "html", "li", "caption", "tr",
)
_INLINE: dict[str, _Handler] = {
    "br": _Walker._line_break,
    "img": _Walker._image,
    "image": _Walker._svg_image,
    **dict.fromkeys(_MARKS, _Walker._wrap),
    "code": _Walker._code, "kbd": _Walker._code, "samp": _Walker._code, "tt": _Walker._code,
    "a": _Walker._link,
}
_BLOCK_HANDLERS: dict[Any, _Handler] = {
    **dict.fromkeys(_CONTAINERS, _Walker._block),
    **dict.fromkeys(("h1", "h2", "h3", "h4", "h5", "h6"), _Walker._heading),
    "ul": _Walker._list, "ol": _Walker._list,
    "pre": _Walker._pre,
    "blockquote": _Walker._blockquote,
    "table": _Walker._table,
    "hr": _Walker._rule,
    **_INLINE,
}
# Inside a heading, link or emphasis, blocks cannot be written: their text is kept instead.
_INLINE_HANDLERS: dict[Any, _Handler] = {
    **dict.fromkeys(
        (*_CONTAINERS, "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "pre", "blockquote",
         "table", "hr"),
        _Walker._paragraph_break,
    ),
    "td": _Walker._cell_gap, "th": _Walker._cell_gap,
    **_INLINE,
}
