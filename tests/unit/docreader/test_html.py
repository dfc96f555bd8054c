"""HTML parser and converter: exact Markdown per construct, boilerplate dropped, the main
content chosen, data-URI images extracted, encodings and limits."""

# Non-Latin letters in strings are the point of these tests.
# ruff: noqa: RUF001

from __future__ import annotations

from pathlib import Path

import pytest

from server.docreader.errors import ParseError
from server.docreader.parser_contract import ParsedDocument, ParseOptions, parse_to_document
from server.docreader.parsers.html import HtmlParser
from server.docreader.safety.limits import ParseLimits
from tests.unit.docreader.images import data_uri, png_bytes


def convert(
    tmp_path: Path, page: str | bytes, options: ParseOptions | None = None
) -> ParsedDocument:
    source = tmp_path / "page.html"
    source.write_bytes(page.encode() if isinstance(page, str) else page)
    return parse_to_document(HtmlParser(), source, options or ParseOptions(file_name="page.html"))


def body(tmp_path: Path, html: str) -> str:
    return convert(tmp_path, f"<html><body>{html}</body></html>").markdown


def test_headings_paragraphs_and_inline_markup(tmp_path: Path) -> None:
    html = (
        "<h1>Title</h1><h2>Sub  <em>title</em></h2><h6>Six</h6>"
        "<p>Some <b>bold</b>, <strong>strong</strong>, <i> spaced </i>, <code>x = `y`</code>,"
        " <del>gone</del> and\n   collapsed\twhite&nbsp;space.</p>"
        "<p>Line one<br>line two<br><br>next paragraph</p><hr><p>after the rule</p>"
    )
    assert body(tmp_path, html) == (
        "# Title\n\n## Sub *title*\n\n###### Six\n\n"
        "Some **bold**, **strong**, *spaced* , `` x = `y` ``, ~~gone~~ and collapsed white space."
        "\n\nLine one\nline two\n\nnext paragraph\n\n---\n\nafter the rule"
    )


def test_links(tmp_path: Path) -> None:
    html = (
        '<p><a href="https://example.com/a">absolute</a> <a href="/docs/my page (1).html">'
        'relative</a> <a href="javascript:void(0)">script</a> <a href="#top">anchor</a> '
        '<a href="https://example.com/icon"> </a><a>no href</a></p>'
    )
    assert body(tmp_path, html) == (
        "[absolute](https://example.com/a) [relative](/docs/my%20page%20%281%29.html) "
        "script anchor no href"
    )


def test_nested_lists_with_start_numbers(tmp_path: Path) -> None:
    html = (
        '<ol start="3"><li>three<ol><li>a</li><li>b<ul><li>deep</li></ul></li></ol></li>'
        "<li>four</li></ol>"
        "<ul><li><p>first paragraph</p><p>second paragraph</p></li><li> </li><li>last</li></ul>"
    )
    assert body(tmp_path, html) == (
        "3. three\n  1. a\n  2. b\n    - deep\n4. four\n\n"
        "- first paragraph\n  second paragraph\n- last"
    )


def test_tables_with_spans_header_and_nested_table(tmp_path: Path) -> None:
    html = (
        "<table><caption>Scores</caption>"
        '<thead><tr><th rowspan="2">Name</th><th colspan="2">Result</th></tr>'
        "<tr><th>A</th><th>B</th></tr></thead>"
        '<tbody><tr><td>x | y</td><td rowspan="2">1</td><td>2</td></tr>'
        "<tr><td>z</td><td>3</td></tr>"
        '<tr><td colspan="3">wide <table><tr><td>n1</td><td>n2</td></tr>'
        "<tr><td>n3</td></tr></table></td></tr></tbody></table>"
        "<table><tr><td>first</td><td>row</td></tr><tr><td>is</td><td>header</td></tr></table>"
    )
    assert body(tmp_path, html) == (
        "Scores\n\n"
        "| Name | Result | Result |\n| --- | --- | --- |\n| Name | A | B |\n"
        "| x \\| y | 1 | 2 |\n| z | 1 | 3 |\n"
        "| wide<br>n1 n2<br>n3 | wide<br>n1 n2<br>n3 | wide<br>n1 n2<br>n3 |\n\n"
        "| first | row |\n| --- | --- |\n| is | header |"
    )


def test_one_cell_layout_table_is_read_as_content(tmp_path: Path) -> None:
    html = "<table><tr><td><h2>Inside</h2><p>layout text</p></td></tr></table>"
    assert body(tmp_path, html) == "## Inside\n\nlayout text"


def test_code_blocks_and_blockquotes(tmp_path: Path) -> None:
    html = (
        '<pre><code class="language-python">def f():\n    return "```"\n</code></pre>'
        "<pre>plain   spaced\n\n  text<br>after a br</pre>"
        "<blockquote><p>Quoted</p><p>twice</p><blockquote>inner</blockquote></blockquote>"
    )
    assert body(tmp_path, html) == (
        '````python\ndef f():\n    return "```"\n````\n\n'
        "```\nplain   spaced\n\n  text\nafter a br\n```\n\n"
        "> Quoted\n>\n> twice\n>\n> > inner"
    )


def test_blocks_inside_inline_and_unknown_elements(tmp_path: Path) -> None:
    html = (
        "<div>loose <span>span text</span><div>inner block</div>tail</div>"
        '<a href="/card"><div><h3>Card title</h3><p>teaser</p></div></a>'
        "<my-widget><p>custom element content</p></my-widget>"
    )
    assert body(tmp_path, html) == (
        "loose span text\n\ninner block\n\ntail\n\n"
        "[Card title teaser](/card)\n\ncustom element content"
    )


PAGE = """<!DOCTYPE html>
<html lang="ru">
<head><title>  Отчёт   за год </title><style>body {{ color: red }}</style>
<meta name="description" content="Annual   numbers">
<script>window.tracking = "SCRIPT-TEXT";</script></head>
<body>
<header><a href="/">Home</a> SITE-HEADER</header>
<nav><ul><li>NAV-LINK</li></ul></nav>
<main>
  <article>
    <header><h1>Annual report</h1></header>
    <p>Revenue grew, see <a href="https://example.com/details">the details</a>.</p>
    <!-- COMMENT-TEXT -->
    <noscript>NOSCRIPT-TEXT</noscript><template><p>TEMPLATE-TEXT</p></template>
    <p><img src="{image}" alt="chart" title="Chart">
       <img src="https://example.com/x.png" alt="remote">
       <img src="data:image/png;base64,@@corrupt@@" alt="broken"></p>
    <form><input name="q"><button>SEARCH-BUTTON</button><select><option>OPT</option></select>
      <textarea>TEXTAREA</textarea></form>
    <iframe src="/x">IFRAME</iframe><object>OBJECT</object>
    <footer>Article footnote</footer>
  </article>
  <aside>ASIDE-TEXT</aside>
</main>
<footer>SITE-FOOTER</footer>
</body></html>
"""


def test_boilerplate_is_dropped_and_images_extracted(tmp_path: Path) -> None:
    png = png_bytes(64, 48)
    document = convert(tmp_path, PAGE.format(image=data_uri(png)))
    assert document.markdown == (
        "# Annual report\n\n"
        "Revenue grew, see [the details](https://example.com/details).\n\n"
        "![chart](image-1.png) ![remote](https://example.com/x.png)\n\n"
        "Article footnote"
    )
    assert document.metadata == {
        "title": "Отчёт за год",
        "language": "ru",
        "description": "Annual numbers",
    }
    assert [(i.ref, i.mime_type, i.width, i.height, i.data) for i in document.images] == [
        ("image-1.png", "image/png", 64, 48, png)
    ]


def test_single_article_is_the_main_content(tmp_path: Path) -> None:
    page = (
        "<body><div class='menu'>Menu text</div>"
        "<article><h1>Story</h1><p>Story text.</p></article>"
        "<div>Related stuff</div></body>"
    )
    assert convert(tmp_path, page).markdown == "# Story\n\nStory text."


def test_densest_container_is_the_main_content(tmp_path: Path) -> None:
    story = "".join(
        f"<p>Paragraph {n} of the story, long enough to count as text.</p>" for n in range(20)
    )
    links = "".join(f'<a href="/{n}">link {n}</a> ' for n in range(30))
    page = (
        f"<body><div id='top'><div class='links'>{links}</div>"
        f"<div id='content'><h2>Story</h2>{story}</div>"
        "<div class='comments'><p>One short comment.</p></div></div></body>"
    )
    markdown = convert(tmp_path, page).markdown
    assert markdown.startswith("## Story\n\nParagraph 0 of the story")
    assert markdown.endswith("Paragraph 19 of the story, long enough to count as text.")
    assert "link 1" not in markdown and "comment" not in markdown


def test_a_link_heavy_block_is_never_the_main_content(tmp_path: Path) -> None:
    links = "".join(f'<a href="/{n}">a link numbered {n}</a> ' for n in range(100))
    page = (
        f"<body><div><div class='directory'>{links}</div>"
        "<div class='text'><p>The only prose on the page.</p></div></div></body>"
    )
    markdown = convert(tmp_path, page).markdown
    assert markdown.endswith("The only prose on the page.")
    assert markdown.startswith("[a link numbered 0](/0)")


def test_title_outside_the_text_container_is_kept(tmp_path: Path) -> None:
    story = "".join(f"<p>Paragraph {n} of a story that is long enough.</p>" for n in range(8))
    page = f"<body><div><h1>Headline</h1><div class='text'>{story}</div></div></body>"
    markdown = convert(tmp_path, page).markdown
    assert markdown.startswith("# Headline\n\nParagraph 0")


def test_encodings(tmp_path: Path) -> None:
    cp1251 = (
        '<html><head><meta charset="windows-1251"><title>Т</title></head>'
        "<body><h3>Раздел</h3><p>Текст абзаца</p></body></html>"
    ).encode("cp1251")
    document = convert(tmp_path, cp1251)
    assert document.markdown == "### Раздел\n\nТекст абзаца"
    assert document.metadata == {"title": "Т"}
    no_declaration = "<p>Без объявления кодировки — UTF-8</p>".encode()
    assert convert(tmp_path, no_declaration).markdown == "Без объявления кодировки — UTF-8"
    legacy = "<p>Съешь же ещё этих мягких французских булок</p>".encode("cp1251")
    assert convert(tmp_path, legacy).markdown == "Съешь же ещё этих мягких французских булок"


def test_empty_page_and_deep_nesting(tmp_path: Path) -> None:
    assert convert(tmp_path, b"").markdown == ""
    # Deeper than the walk recurses (the rest is kept as text), within libxml2's depth cap.
    deep = "<div>" * 1500 + "<p>deep <b>text</b></p>" + "</div>" * 1500
    assert body(tmp_path, f"<p>top</p>{deep}") == "top\n\ndeep text"


def test_control_characters_in_the_page_are_survived(tmp_path: Path) -> None:
    page = b"<body><header>chrome</header>tail\x01 text<pre>a<br>\x02b</pre></body>"
    assert convert(tmp_path, page).markdown == "tail\x01 text\n\n```\na\n\x02b\n```"


def test_size_limit(tmp_path: Path) -> None:
    options = ParseOptions(limits=ParseLimits(max_text_bytes=100))
    with pytest.raises(ParseError, match=r"the file is 150 bytes, over the limit of 100 bytes"):
        convert(tmp_path, "<p>" + "x" * 143 + "</p>", options)


def test_note_asides_are_kept_in_block_and_inline_content(tmp_path: Path) -> None:
    page = (
        "<body><p>Body.</p>"
        "<aside role='doc-endnote'><p>Endnote text.</p></aside>"
        "<p>Inline <b>bold <aside epub:type='footnote'>inner note</aside></b></p>"
        "<aside class='related'>RELATED</aside></body>"
    )
    assert convert(tmp_path, page).markdown == (
        "Body.\n\nEndnote text.\n\nInline **bold**\n\n**inner note**"
    )
