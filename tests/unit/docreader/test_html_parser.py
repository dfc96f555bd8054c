"""HTML parser: main content only, structure kept as Markdown, data-URI images extracted."""

# Non-Latin letters in strings are the point of these tests.
# ruff: noqa: RUF001

from __future__ import annotations

from server.docreader.parsers.base import ParseOptions
from server.docreader.parsers.html import HtmlParser
from tests.unit.docreader.images import data_uri, png_bytes

OPTIONS = ParseOptions(file_name="page.html")

PAGE = """<!DOCTYPE html>
<html lang="ru">
<head><title>  Отчёт   за год </title><style>body {{ color: red }}</style>
<script>window.tracking = "SCRIPT-TEXT";</script></head>
<body>
<header><a href="/">Home</a> SITE-HEADER</header>
<nav><ul><li>NAV-LINK</li></ul></nav>
<main>
  <article>
    <header><h1>Annual report</h1></header>
    <p>Revenue grew, see <a href="https://example.com/details">the details</a>.</p>
    <!-- COMMENT-TEXT -->
    <h2>Numbers</h2>
    <ul><li>first point</li><li>second point</li></ul>
    <table>
      <tr><th>Region</th><th>Value</th></tr>
      <tr><td>North | East</td><td>10</td></tr>
    </table>
    <p><img src="{image}" alt="chart" title="Chart">
       <img src="https://example.com/x.png" alt="remote"></p>
    <form><input name="q"><button>SEARCH-BUTTON</button></form>
    <footer>Article footnote</footer>
  </article>
  <aside>ASIDE-TEXT</aside>
</main>
<footer>SITE-FOOTER</footer>
</body></html>
"""


def test_main_content_becomes_markdown() -> None:
    png = png_bytes(64, 48)
    document = HtmlParser().parse(PAGE.format(image=data_uri(png)).encode(), OPTIONS)
    markdown = document.markdown
    for dropped in ("SCRIPT-TEXT", "SITE-HEADER", "NAV-LINK", "COMMENT-TEXT", "SEARCH-BUTTON",
                    "ASIDE-TEXT", "SITE-FOOTER", "color: red", "data:image"):
        assert dropped not in markdown
    assert markdown.startswith("# Annual report\n\n")
    assert "Revenue grew, see [the details](https://example.com/details)." in markdown
    assert "## Numbers\n\n- first point\n- second point" in markdown
    assert "| Region | Value |\n| --- | --- |\n| North \\| East | 10 |" in markdown
    assert "![chart](image-1.png)" in markdown
    assert "![remote](https://example.com/x.png)" in markdown
    assert "Article footnote" in markdown, "a footer inside the article is content"
    assert "\n\n\n" not in markdown
    assert document.metadata == {"title": "Отчёт за год", "language": "ru"}
    assert [(i.ref, i.mime_type, i.width, i.height, i.data) for i in document.images] == [
        ("image-1.png", "image/png", 64, 48, png)
    ]


def test_without_main_the_body_is_used_and_encoding_is_detected() -> None:
    page = (
        '<html><head><meta charset="windows-1251"><title>Т</title></head>'
        "<body><h3>Раздел</h3><p>Текст абзаца</p><table><tr><td>a</td><td>b</td></tr>"
        "<tr><td>1</td><td>2</td></tr></table></body></html>"
    )
    document = HtmlParser().parse(page.encode("cp1251"), OPTIONS)
    assert document.markdown == (
        "### Раздел\n\nТекст абзаца\n\n| a | b |\n| --- | --- |\n| 1 | 2 |"
    )
    assert document.metadata == {"title": "Т"}
    assert document.images == []
