"""One recursive walk over a lexbor element tree, writing Markdown.

Block elements (paragraphs, headings, lists, code, quotes, tables) become blank-line separated
blocks; inline elements (emphasis, code, links, images) are written into the paragraph being
built. Text is gathered raw and its whitespace collapsed once per paragraph, not per node;
line breaks inside a paragraph travel as ``_LINE_BREAK`` and paragraph breaks inside inline
content (a ``<div>`` in a link) as ``_PARAGRAPH_BREAK``, two control characters that
``str.split()`` would otherwise treat as whitespace. Unknown elements (``span``, custom tags)
are transparent: their children are walked in place, so a block inside them stays a block.

Speed: elements are dispatched on lexbor's integer tag ids (``tags``) and blank text nodes
skipped inside lexbor; an element whose only child is a text node (most paragraphs, headings
and cells) is read without walking it; lists and tables of plain text are read with one
lexbor call each (``text_only``, ``tables.text_grid``); and the whitespace of paragraphs and
list items is collapsed only if one check of all of them (``whitespace``) finds it needed.

Markdown that must not break: ``|`` in table cells is escaped (``markdown_table``), code gets
a fence longer than any backtick run inside, link and image targets get spaces and
parentheses percent-encoded. Text itself is not escaped: the output feeds search, not a
renderer, and ``snake\\_case`` would hurt matching more than a stray ``*`` hurts reading.
"""

from __future__ import annotations

from collections.abc import Callable

from selectolax.lexbor import LexborNode

from server.docreader.html.cleanup import NEVER_CONTENT, is_note
from server.docreader.html.markup import (
    code_language,
    code_text,
    indented,
    link_target,
    longest_backtick_run,
    start_number,
)
from server.docreader.html.tables import row_cells, table_grid, table_rows, text_grid
from server.docreader.html.tags import COMMENT, TEXT, tag_id
from server.docreader.html.text_only import text_items
from server.docreader.html.whitespace import all_collapsed, collapse_space
from server.docreader.markdown.tables import markdown_table

# An ``<img>`` source → the link target to write, or None to leave the image out.
ImageResolver = Callable[[str], str | None]

_LINE_BREAK = "\x1f"
_PARAGRAPH_BREAK = "\x1e"
# Element nesting walked before the rest is kept as plain text; each level costs a few Python
# frames, and lexbor's tree has no depth limit at all.
_MAX_DEPTH = 100


def html_to_markdown(root: LexborNode, resolve_image: ImageResolver) -> str:
    """Markdown of ``root``'s content (``root`` itself is treated as a block container)."""
    walker = _Walker(resolve_image)
    walker.flow(root)
    walker.flush()
    return "\n\n".join(walker.settled_blocks())


def _sole_text(element: LexborNode) -> str | None:
    """The text of an element holding nothing but text ("" when empty); None otherwise."""
    first = element.first_child
    if first is None:
        return ""
    if first.next is None and first.tag_id == TEXT:
        return first.text_content or ""
    return None


class _Walker:
    def __init__(self, resolve_image: ImageResolver) -> None:
        self._resolve_image = resolve_image
        self.blocks: list[str] = []
        # Blocks written before their whitespace was collapsed, all checked at once by
        # ``settled_blocks``: paragraphs (their index) and plain lists (see _RawList).
        self._raw: list[int] = []
        self._raw_lists: list[_RawList] = []
        # The paragraph being built; ``flush`` clears it in place, so aliases stay valid.
        self._para: list[str] = []
        self._handlers = _BLOCK_HANDLERS
        self._depth = 0
        self._in_table = 0

    def flow(self, element: LexborNode) -> None:
        """Walk ``element``'s children in place."""
        para = self._para
        if self._depth >= _MAX_DEPTH:
            para.append(" " + element.text(separator=" ") + " ")
            return
        self._depth += 1
        handlers = self._handlers
        append = para.append
        # Blank text nodes (indentation between blocks, mostly) are skipped inside lexbor.
        # One that parts pieces of inline content, or sits at an edge of inline content
        # (whose callers keep such a gap outside their markup), is put back as a space.
        inline = handlers is _INLINE_HANDLERS
        for child in element.iter(include_text=True, skip_empty=True):
            tag = child.tag_id
            if tag == TEXT:
                append(child.text_content or "")
            else:
                if para or inline:
                    previous = child.prev
                    if previous is not None and previous.is_empty_text_node:
                        append(" ")
                handler = handlers.get(tag)
                if handler is None:
                    self.flow(child)
                else:
                    handler(self, child)
        if para or inline:
            last = element.last_child
            if last is not None and last.is_empty_text_node:
                append(" ")
        self._depth -= 1

    def flush(self) -> None:
        para = self._para
        if not para:
            return
        text = "".join(para)
        para.clear()
        if _LINE_BREAK not in text and _PARAGRAPH_BREAK not in text:
            line = collapse_space(text)
            if line:
                self.blocks.append(line)
            return
        for chunk in text.split(_PARAGRAPH_BREAK):
            lines: list[str] = []
            for raw in chunk.split(_LINE_BREAK):
                line = collapse_space(raw)
                if line:
                    lines.append(line)
                elif lines:  # two line breaks in a row end the paragraph
                    self.blocks.append("\n".join(lines))
                    lines = []
            if lines:
                self.blocks.append("\n".join(lines))

    def settled_blocks(self) -> list[str]:
        """The blocks, the raw texts among them collapsed (and dropped if blank)."""
        blocks, raw, raw_lists = self.blocks, self._raw, self._raw_lists
        texts = [blocks[index] for index in raw]
        for _, items, _ in raw_lists:
            texts += items
        if not texts or all_collapsed(texts):
            return blocks
        for index in raw:
            blocks[index] = collapse_space(blocks[index])
        for block, items, start in raw_lists:
            collapsed = [item for item in map(collapse_space, items) if item]
            blocks[block] = _list_block(collapsed, start)
        return [block for block in blocks if block]

    # -- rendering into a separate buffer ---------------------------------------------------

    def _render_blocks(self, element: LexborNode, render: _Handler | None = None) -> list[str]:
        """The blocks of ``element`` walked by ``render`` (``flow`` by default)."""
        saved = self.blocks, self._para, self._raw, self._raw_lists
        self.blocks, self._para, self._raw, self._raw_lists = [], [], [], []
        (render or _Walker.flow)(self, element)
        self.flush()
        blocks = self.settled_blocks()
        self.blocks, self._para, self._raw, self._raw_lists = saved
        return blocks

    def _render_inline(self, element: LexborNode) -> str:
        text = _sole_text(element)
        if text is not None:
            return text
        saved_para, saved_handlers = self._para, self._handlers
        self._para, self._handlers = [], _INLINE_HANDLERS
        self.flow(element)
        text = "".join(self._para)
        self._para, self._handlers = saved_para, saved_handlers
        return text

    # -- blocks -----------------------------------------------------------------------------

    def _block(self, element: LexborNode) -> None:
        if self._para:
            self.flush()
        first = element.first_child
        if first is None:
            return
        if first.next is None and first.tag_id == TEXT:  # inlined _sole_text: the hot path
            text = first.text_content
            if text:
                self._raw.append(len(self.blocks))
                self.blocks.append(text)
            return
        self.flow(element)
        self.flush()

    def _heading(self, element: LexborNode) -> None:
        self.flush()
        text = " ".join(self._render_inline(element).split())
        if text:
            self.blocks.append(_HEADING_MARKS[element.tag_id] + text)

    def _rule(self, element: LexborNode) -> None:
        self.flush()
        self.blocks.append("---")

    def _list(self, element: LexborNode) -> None:
        self.flush()
        ordered = element.tag_id == _OL
        number = start_number(element.attrs.get("start")) if ordered else 0
        texts = text_items(element)
        if texts is not None:  # written as they are, collapsed later if need be
            start = number if ordered else None
            self._raw_lists.append((len(self.blocks), texts, start))
            self.blocks.append(_list_block(texts, start))
            return
        items: list[str] = []
        for child in element.iter():
            tag = child.tag_id
            if tag in _LISTS:
                # A list placed directly in a list belongs to the item before it.
                nested = indented(self._render_list(child))
                if nested and items:
                    items[-1] += "\n" + nested
                elif nested:
                    items.append(nested)
                continue
            if tag == COMMENT:
                continue
            text = _sole_text(child)
            text = "\n".join(self._render_blocks(child)) if text is None else collapse_space(text)
            if not text:
                continue
            marker = f"{number}. " if ordered else "- "
            number += 1
            items.append(marker + indented(text, first=False))
        if items:
            self.blocks.append("\n".join(items))

    def _render_list(self, element: LexborNode) -> str:
        if self._depth >= _MAX_DEPTH:
            return " ".join(element.text(separator=" ").split())
        self._depth += 1
        rendered = "\n\n".join(self._render_blocks(element, _Walker._list))
        self._depth -= 1
        return rendered

    def _pre(self, element: LexborNode) -> None:
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

    def _blockquote(self, element: LexborNode) -> None:
        self.flush()
        text = "\n\n".join(self._render_blocks(element))
        if text:
            self.blocks.append("\n".join(f"> {line}" if line else ">" for line in text.split("\n")))

    def _table(self, element: LexborNode) -> None:
        self.flush()
        if not self._in_table:
            grid = text_grid(element)
            if grid is not None:
                if len(grid) == 1 and len(grid[0]) == 1:  # a one-cell layout wrapper
                    if grid[0][0]:
                        self.blocks.append(grid[0][0])
                    return
                self._add_table(grid, collapsed=True)
                return
        for child in element.iter():
            if child.tag_id == _CAPTION:
                text = " ".join(self._render_inline(child).split())
                if text:
                    self.blocks.append(text)
                break
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
        grid = table_grid(rows, self._cell_text)
        self._in_table -= 1
        self._add_table(grid)

    def _add_table(self, grid: list[list[str]], *, collapsed: bool = False) -> None:
        table = markdown_table(grid, header=True, collapsed=collapsed)
        if table:
            self.blocks.append(table)

    def _cell_text(self, cell: LexborNode) -> str:
        text = _sole_text(cell)
        if text is None:
            return "\n".join(self._render_blocks(cell))
        return " ".join(text.split())

    # -- inline -----------------------------------------------------------------------------

    def _skip(self, element: LexborNode) -> None:
        """A comment, or an element that is never content (scripts, menus, forms)."""

    def _aside(self, element: LexborNode) -> None:
        """A footnote or endnote is text like any block; other asides are sidebars."""
        if not is_note(element):
            return
        if self._handlers is _INLINE_HANDLERS:
            self._paragraph_break(element)
        else:
            self._block(element)

    def _line_break(self, element: LexborNode) -> None:
        self._para.append(_LINE_BREAK)

    def _paragraph_break(self, element: LexborNode) -> None:
        """A block inside inline content: its text, set off as a paragraph of its own."""
        para = self._para
        para.append(_PARAGRAPH_BREAK)
        self.flow(element)
        para.append(_PARAGRAPH_BREAK)

    def _cell_gap(self, element: LexborNode) -> None:
        para = self._para
        para.append(" ")
        self.flow(element)
        para.append(" ")

    def _wrap(self, element: LexborNode) -> None:
        """Emphasis, strong or strikethrough; the word gaps at its edges stay outside."""
        inner = self._render_inline(element)
        if not inner:
            return
        core = inner.strip()
        if not core:
            self._para.append(inner)
            return
        mark = _MARKS[element.tag_id]
        if not (core.startswith(mark) and core.endswith(mark)):  # <b><b>x</b></b>: once
            core = mark + core + mark
        if inner[0].isspace():
            core = " " + core
        if inner[-1].isspace():
            core += " "
        self._para.append(core)

    def _code(self, element: LexborNode) -> None:
        text = " ".join(element.text().split())
        if not text:
            return
        if "`" not in text:
            self._para.append(f"`{text}`")
            return
        fence = "`" * (longest_backtick_run(text) + 1)
        self._para.append(f"{fence} {text} {fence}")

    def _link(self, element: LexborNode) -> None:
        inner = self._render_inline(element)
        if not inner:
            return
        href = element.attrs.get("href")
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

    def _image(self, element: LexborNode) -> None:
        attributes = element.attrs
        source = attributes.get("src")
        lazy = attributes.get("data-src")  # lazy loading: src is empty or a placeholder
        if lazy and (not source or source.startswith("data:")):
            source = lazy
        self._add_image(source, attributes.get("alt"))

    def _svg_image(self, element: LexborNode) -> None:
        attributes = element.attrs
        self._add_image(attributes.get("href") or attributes.get("xlink:href"), None)

    def _add_image(self, source: str | None, alt: str | None) -> None:
        source = (source or "").strip()
        if not source:
            return
        target = self._resolve_image(source)
        if target is None:
            return
        text = " ".join((alt or "").split())
        self._para.append(f"![{text}]({link_target(target)})")


# A plain list written with its items as they are: the index of its block, the items, and
# the number of the first item (None: a bulleted list). A tuple: one is made per list.
_RawList = tuple[int, list[str], int | None]


def _list_block(items: list[str], start: int | None) -> str:
    """The Markdown of a list of one-line items (none of them blank)."""
    if start is None:
        return "- " + "\n- ".join(items) if items else ""
    return "\n".join(f"{number}. {item}" for number, item in enumerate(items, start))


_Handler = Callable[[_Walker, LexborNode], None]
_MARKS = {
    tag_id(name): mark
    for name, mark in (
        ("strong", "**"),
        ("b", "**"),
        ("em", "*"),
        ("i", "*"),
        ("cite", "*"),
        ("del", "~~"),
        ("s", "~~"),
        ("strike", "~~"),
    )
}
_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
_HEADING_MARKS = {tag_id(name): "#" * int(name[1]) + " " for name in _HEADINGS}
_OL, _CAPTION = tag_id("ol"), tag_id("caption")
_LISTS = (tag_id("ul"), _OL)
_CONTAINERS = (
    "p",
    "div",
    "section",
    "article",
    "main",
    "header",
    "footer",
    "figure",
    "figcaption",
    "address",
    "center",
    "details",
    "summary",
    "dl",
    "dt",
    "dd",
    "fieldset",
    "legend",
    "hgroup",
    "body",
    "html",
    "li",
    "caption",
    "tr",
)
_CODE = ("code", "kbd", "samp", "tt")
# Handlers that apply in block and inline content alike.
_ANYWHERE: dict[int, _Handler] = {
    COMMENT: _Walker._skip,
    **dict.fromkeys(NEVER_CONTENT, _Walker._skip),
    tag_id("aside"): _Walker._aside,
    tag_id("br"): _Walker._line_break,
    tag_id("img"): _Walker._image,
    tag_id("image"): _Walker._svg_image,
    **dict.fromkeys(_MARKS, _Walker._wrap),
    **{tag_id(name): _Walker._code for name in _CODE},
    tag_id("a"): _Walker._link,
}
_BLOCK_HANDLERS: dict[int, _Handler] = {
    **{tag_id(name): _Walker._block for name in _CONTAINERS},
    **dict.fromkeys(_HEADING_MARKS, _Walker._heading),
    **dict.fromkeys(_LISTS, _Walker._list),
    tag_id("pre"): _Walker._pre,
    tag_id("blockquote"): _Walker._blockquote,
    tag_id("table"): _Walker._table,
    tag_id("hr"): _Walker._rule,
    **_ANYWHERE,
}
# Inside a heading, link or emphasis, blocks cannot be written: their text is kept instead.
_INLINE_HANDLERS: dict[int, _Handler] = {
    **dict.fromkeys(
        (tag for tag in _BLOCK_HANDLERS if tag not in _ANYWHERE), _Walker._paragraph_break
    ),
    tag_id("td"): _Walker._cell_gap,
    tag_id("th"): _Walker._cell_gap,
    **_ANYWHERE,
}
