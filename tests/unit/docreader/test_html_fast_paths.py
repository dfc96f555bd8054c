"""The HTML converter's shortcuts give exactly what the element-by-element walk gives: the
whitespace check without splitting, lists and tables read in one call, blank text nodes
skipped inside lexbor, and the tag-soup and hostile shapes that must not break them."""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest
from selectolax.lexbor import LexborNode

from server.docreader.errors import ParseError
from server.docreader.html.loading import body, parse_html
from server.docreader.html.tables import text_grid
from server.docreader.html.tags import AncestorCheck, tag_ids
from server.docreader.html.text_only import text_items
from server.docreader.html.whitespace import all_collapsed, collapse_space, is_collapsed
from server.docreader.parser_contract import ParseOptions, parse_to_document
from server.docreader.parsers.html import HtmlParser


def convert(tmp_path: Path, html: str) -> str:
    source = tmp_path / "page.html"
    source.write_text(f"<html><body>{html}</body></html>", encoding="utf-8")
    return parse_to_document(HtmlParser(), source, ParseOptions(file_name="page.html")).markdown


def first(html: str, tag: str) -> LexborNode:
    node = parse_html(html.encode()).css_first(tag)
    assert node is not None
    return node


@pytest.mark.parametrize("length", [3, 70, 5000, 200_000])
def test_collapse_space_is_split_and_join(length: int) -> None:
    rng = random.Random(length)
    alphabets = [
        "ab ",  # collapsed or not by spaces alone
        "ab \n\t\r\x0b\x0c\x1c\x1d\x1e\x1f\x01\x7f\xa0é\u3000",  # every kind of whitespace
    ]
    for round_ in range(200 if length < 10_000 else 10):
        alphabet = alphabets[round_ % 2]
        weights = [20, 20, 3] + [1] * (len(alphabet) - 3)
        text = "".join(rng.choices(alphabet, weights, k=rng.randint(1, length)))
        for candidate in (text, " ".join(text.split()) or "x"):
            expected = " ".join(candidate.split())
            assert collapse_space(candidate) == expected
            if is_collapsed(candidate):
                assert candidate == expected


def test_many_texts_are_checked_at_once() -> None:
    clean = ["one two", "three", "four five six" * 500]
    assert all_collapsed(clean)
    assert is_collapsed("word " * 3000 + "end")  # long ASCII text: the numpy pass
    for bad in (" edge", "edge ", "two  spaces", "line\nbreak", "tab\tbed", "nbsp\xa0", ""):
        assert not all_collapsed([*clean, bad])
        assert not all_collapsed([bad, *clean])
    assert not all_collapsed([])
    # A double space right where the numpy pass cuts its chunks is still seen.
    assert not is_collapsed("a" * 65535 + "  b" + "c" * 10_000)


def test_plain_lists_read_in_one_call_match_the_walk(tmp_path: Path) -> None:
    items = "".join(f"<li> item  {n}\n</li>\n" for n in range(4))
    assert text_items(first(f"<ul>\n{items}</ul>", "ul")) == [f" item  {n}\n" for n in range(4)]
    assert convert(tmp_path, f'<ol start="7">{items}</ol>') == (
        "7. item 0\n8. item 1\n9. item 2\n10. item 3"
    )
    assert convert(tmp_path, "<ul><li>a</li><li>b</li></ul><ol><li>c</li></ol>") == (
        "- a\n- b\n\n1. c"
    )
    # An item that only Python's whitespace rules find blank is left out, its number too.
    assert convert(tmp_path, "<ol><li>a</li><li>\xa0</li><li>b</li></ol>") == "1. a\n2. b"
    # Lists the one call cannot read exactly are walked item by item.
    for html in (
        "<ul><li>a</li><li> </li><li>b</li></ul>",  # a blank item
        "<ul>loose<li>a</li><li>b</li></ul>",  # text between the items
        "<ul><li>a<!-- c --></li><li>b</li></ul>",  # a comment
        "<ul><li><b>a</b></li><li>b</li></ul>",  # an element in an item
        "<ul><li>a</li><ul><li>b</li></ul></ul>",  # a nested list
    ):
        assert text_items(first(html, "ul")) is None
    assert convert(tmp_path, "<ul><li>a</li><li> </li><li>b</li></ul>") == "- a\n- b"
    assert convert(tmp_path, "<ul><li><b>a</b></li><li>b</li></ul>") == "- **a**\n- b"
    assert convert(tmp_path, "<ul><li>a</li><ul><li>b</li></ul></ul>") == "- a\n  - b"


def test_plain_tables_read_in_one_call_match_the_walk(tmp_path: Path) -> None:
    html = (
        "<table>\n<tfoot><tr><td>foot</td><td>note</td></tr></tfoot>\n"
        "<tbody>\n  <tr>\n    <td> b  1 </td>\n    <td>b2</td>\n  </tr>\n</tbody>\n"
        "<thead><tr><th>H1</th><th>H2</th></tr></thead>\n</table>"
    )
    assert text_grid(first(html, "table")) == [
        ["H1", "H2"],
        ["b 1", "b2"],
        ["foot", "note"],
    ]
    expected = "| H1 | H2 |\n| --- | --- |\n| b 1 | b2 |\n| foot | note |"
    assert convert(tmp_path, html) == expected
    # The same table with a blank cell or a span goes cell by cell, to the same Markdown.
    for cell, markdown in (
        ("<td> </td>", "| H1 | H2 |\n| --- | --- |\n| b 1 |  |\n| foot | note |"),
        ('<td colspan="1">b2</td>', expected),
        ("<td><!-- c -->b2</td>", expected),
    ):
        variant = html.replace("<td>b2</td>", cell)
        assert text_grid(first(variant, "table")) is None
        assert convert(tmp_path, variant) == markdown
    assert convert(tmp_path, "<table><tr><td>a|b</td><td>c\\d</td></tr></table>") == (
        "| a\\|b | c\\\\d |\n| --- | --- |"
    )


def test_blank_text_between_inline_content_still_parts_words(tmp_path: Path) -> None:
    html = (
        '<p><b>a</b> <i>b</i>\n<a href="/x">link</a> <span>s</span> <!-- c --> <em>e</em></p>'
        '<p>see<a href="/y"> <b>y</b> </a>next</p>'
        "<p>x<span><b>bold</b> </span>after <b> </b>end</p>"
        "<div><b>x</b>\n  <div>block</div>\n  <b>y</b> <b>z</b></div>"
    )
    assert convert(tmp_path, html) == (
        "**a** *b* [link](/x) s *e*\n\n"
        "see [**y**](/y) next\n\n"
        "x**bold** after end\n\n"
        "**x**\n\nblock\n\n**y** **z**"
    )


def test_main_content_ignores_a_main_that_is_never_content(tmp_path: Path) -> None:
    story = "".join(f"<p>Paragraph {n} of the story, long enough to count.</p>" for n in range(8))
    html = (
        "<form><main><p>search form text</p></main></form>"
        "<main><script>var x = 'only a script';</script></main>"
        f"<div><h1>Story</h1>{story}</div><nav><p>MENU</p></nav>"
    )
    markdown = convert(tmp_path, html)
    assert markdown.startswith("# Story\n\nParagraph 0")
    assert "search form" not in markdown and "script" not in markdown
    assert "MENU" not in markdown


def test_articles_in_sidebars_do_not_count(tmp_path: Path) -> None:
    html = (
        "<div>Site menu</div><article><h1>Story</h1><p>The story text.</p></article>"
        "<aside><article><p>A related story.</p></article></aside>"
    )
    assert convert(tmp_path, html) == "# Story\n\nThe story text."


def test_text_around_dropped_boilerplate_stays_one_piece(tmp_path: Path) -> None:
    # The densest-container search drops the script, leaving "a" and "b" side by side: the
    # plain-list read must still see one item, not two.
    story = "".join(f"<p>Paragraph {n} of a story that is long enough.</p>" for n in range(8))
    html = f"<div>{story}<ul><li>a<script>x</script>b</li><li> </li><li>c</li></ul></div>"
    assert convert(tmp_path, html).endswith("- ab\n- c")


def test_xhtml_chapter_self_closing_tags(tmp_path: Path) -> None:
    from server.docreader.html.converter import html_to_markdown
    from server.docreader.html.loading import parse_xhtml

    chapter = (
        b'<?xml version="1.0" encoding="utf-8"?>\n<html xmlns="http://www.w3.org/1999/xhtml" '
        b'xmlns:xlink="http://www.w3.org/1999/xlink"><head><script src="a.js"/>'
        b"<script>if (a &lt; b) { x = '&lt;/script&gt;' }</script></head>"
        b'<body><p>one<br/>two <a id="x"/>three</p><p/>'
        b'<svg xmlns="http://www.w3.org/2000/svg"><image xlink:href="pic.png"/></svg>'
        b"<p>\xc3\xa9t\xc3\xa9</p></body></html>"
    )
    markdown = html_to_markdown(body(parse_xhtml(chapter)), lambda source: source)
    assert markdown == "one\ntwo three\n\n![](pic.png)\n\nété"


def test_deep_nesting_is_read_or_refused_quickly(tmp_path: Path) -> None:
    # Lexbor's time grows with the square of the depth: a small page may nest deep...
    depth = 10_000
    html = "<div>" * depth + "<p>deep <b>text</b></p>" + "</div>" * depth
    assert convert(tmp_path, f"<p>top</p>{html}") == "top\n\ndeep text"
    # ...a big one is measured first, and a nesting bomb refused before lexbor sees it.
    started = time.perf_counter()
    with pytest.raises(ParseError, match="nests elements more than 2048 levels deep"):
        convert(tmp_path, "<div>" * 200_000 + "x")
    with pytest.raises(ParseError, match="nests elements more than 2048 levels deep"):
        convert(tmp_path, "".join(f'<font size="{n}">' for n in range(50_000)))
    assert time.perf_counter() - started < 5
    # A big page that is not deep is read as usual.
    paragraphs = "".join(f"<p>paragraph <b>{n}</b></p>" for n in range(20_000))
    markdown = convert(tmp_path, f"<article><h1>Long</h1>{paragraphs}</article>")
    assert markdown.startswith("# Long\n\nparagraph **0**") and markdown.endswith("**19999**")


def test_ancestor_check_remembers_answers_that_match_a_plain_walk() -> None:
    rng = random.Random(7)
    tags = ["div", "header", "main", "article", "section", "p"]
    parts: list[str] = []
    for _ in range(400):  # random nesting, opened and closed in order
        depth = rng.randint(1, 6)
        chosen = [rng.choice(tags) for _ in range(depth)]
        parts += [f"<{t}>" for t in chosen] + ["x"] + [f"</{t}>" for t in reversed(chosen)]
    tree = parse_html(("<body>" + "".join(parts) + "</body>").encode())
    wanted = tag_ids(("main", "article"))
    check = AncestorCheck(wanted)

    def plain_walk(node: LexborNode) -> bool:
        above = node.parent
        while above is not None:
            if above.tag_id in wanted:
                return True
            above = above.parent
        return False

    nodes = list(body(tree).traverse(include_text=True))
    assert [check(node) for node in nodes] == [plain_walk(node) for node in nodes]
    assert any(check(node) for node in nodes) and not all(check(node) for node in nodes)


def test_deeply_nested_page_chrome_is_dropped_and_the_content_kept(tmp_path: Path) -> None:
    # 12k nested headers: a walk up from each would be quadratic (7e7 steps).
    chrome = "<header>" * 12_000 + "<p>Site menu</p>" + "</header>" * 12_000
    html = f"<html><body>{chrome}<p>The sluice opens at dawn and closes at dusk.</p></body></html>"

    markdown = convert(tmp_path, html)

    assert "The sluice opens at dawn and closes at dusk." in markdown
    assert "Site menu" not in markdown
