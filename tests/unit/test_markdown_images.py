"""Image links in Markdown are found exactly (spans, targets, alt text), never inside code;
inline image data decodes to the bytes it carries."""

from __future__ import annotations

import base64
import io
import random

import pytest
from PIL import Image

from core.image_bytes import (
    InvalidImageData,
    decode_inline_image,
    extension_for,
    image_size,
    sniff_image_type,
)
from core.markdown_images import ImageLink, find_bare_image_data, find_image_links


def _png(width: int = 80, height: int = 60, seed: int = 0) -> bytes:
    rng = random.Random(seed)
    image = Image.new("RGB", (width, height))
    image.putdata([(rng.randrange(256), rng.randrange(256), 0) for _ in range(width * height)])
    buffer = io.BytesIO()
    image.save(buffer, "PNG")
    return buffer.getvalue()


def _retargeted(markdown: str, links: list[ImageLink], url: str = "U") -> str:
    for link in reversed(links):
        markdown = markdown[: link.target_start] + url + markdown[link.target_end :]
    return markdown


@pytest.mark.parametrize(
    ("markdown", "target", "alt", "rewritten"),
    [
        ("![a](image-1.png)", "image-1.png", "a", "![a](U)"),
        ('![a](img.png "A title")', "img.png", "a", '![a](U "A title")'),
        ("![a](img.png 'title')", "img.png", "a", "![a](U 'title')"),
        ("![a](img.png (title))", "img.png", "a", "![a](U (title))"),
        ("![a](<my picture.png>)", "my picture.png", "a", "![a](<U>)"),
        ('![a](<x y.png> "t")', "x y.png", "a", '![a](<U> "t")'),
        ("![a](pic_(1).png)", "pic_(1).png", "a", "![a](U)"),
        ("![a](pic\\).png)", "pic).png", "a", "![a](U)"),
        ("![alt [nested] text](n.png)", "n.png", "alt [nested] text", "![alt [nested] text](U)"),
        ("![](empty-alt.png)", "empty-alt.png", "", "![](U)"),
        ("![a](\n  wrapped.png\n)", "wrapped.png", "a", "![a](\n  U\n)"),
        ("![a](https://h.example/i?x=1&y=2)", "https://h.example/i?x=1&y=2", "a", "![a](U)"),
    ],
)
def test_markdown_image_targets_are_found_exactly(
    markdown: str, target: str, alt: str, rewritten: str
) -> None:
    text = f"Before {markdown} after."
    links = find_image_links(text)
    assert [(link.syntax, link.target, link.alt) for link in links] == [("markdown", target, alt)]
    assert text[links[0].start : links[0].end] == markdown
    assert not links[0].wrapped
    assert _retargeted(text, links) == f"Before {rewritten} after."


@pytest.mark.parametrize(
    "markdown",
    [
        "`![code](a.png)`",
        "``![code with ` tick](a.png)``",
        "```\n![fenced](a.png)\n```",
        "~~~markdown\n![fenced](a.png)\n~~~",
        "````\n```\n![nested fence](a.png)\n```\n````",
        "<!-- ![commented](a.png) -->",
        "\\![escaped](a.png)",
        "![reference][ref]",
        "![space] (a.png)",
        "![unclosed](a.png",
        "![a](two words.png)",
        "![]()",
        "<!-- <img src='a.png'> -->",
        '`<img src="a.png">`',
    ],
)
def test_code_comments_and_non_images_are_not_image_links(markdown: str) -> None:
    assert find_image_links(f"Text\n\n{markdown}\n\nText") == []


def test_an_unclosed_fence_hides_everything_after_it() -> None:
    text = "![seen](a.png)\n\n```\n![hidden](b.png)\n\n![hidden too](c.png)"
    assert [link.target for link in find_image_links(text)] == ["a.png"]


def test_links_after_inline_code_and_an_unmatched_backtick_are_found() -> None:
    text = "Use `x` then ![one](1.png), a lone ` tick, then ![two](2.png)."
    assert [link.target for link in find_image_links(text)] == ["1.png", "2.png"]


def test_a_linked_image_reports_its_wrapper() -> None:
    text = 'See [![logo](logo.png "Logo")](https://site.example/home) now.'
    (link,) = find_image_links(text)
    assert link.wrapped
    assert text[link.start : link.end] == '[![logo](logo.png "Logo")](https://site.example/home)'
    assert text[link.image_start : link.image_end] == '![logo](logo.png "Logo")'
    assert link.target == "logo.png"


@pytest.mark.parametrize(
    ("tag", "target", "alt", "raw_target"),
    [
        ('<img src="a.png" alt="A">', "a.png", "A", "a.png"),
        ("<IMG SRC='b.png'>", "b.png", "", "b.png"),
        ("<img src=c.png alt=plain />", "c.png", "plain", "c.png"),
        ('<img alt="x > y" src="d.png" />', "d.png", "x > y", "d.png"),
        ('<img src=" h.png?a=1&amp;b=2 ">', "h.png?a=1&b=2", "", " h.png?a=1&amp;b=2 "),
        ('<img\n  data-src="no.png"\n  src="e.png">', "e.png", "", "e.png"),
    ],
)
def test_html_img_tags_are_found_with_their_src_span(
    tag: str, target: str, alt: str, raw_target: str
) -> None:
    text = f"Text {tag} text"
    (link,) = find_image_links(text)
    assert (link.syntax, link.target, link.alt) == ("html", target, alt)
    assert text[link.start : link.end] == tag
    assert text[link.target_start : link.target_end] == raw_target


def test_an_img_without_src_or_a_different_tag_is_not_a_link() -> None:
    assert find_image_links('<img alt="none"> <imgx src="a.png"> <image src="b.png">') == []


def test_links_come_in_document_order_across_both_syntaxes() -> None:
    text = '<img src="1.png"> ![two](2.png) <img src="3.png">\n\n![four](4.png)'
    assert [link.target for link in find_image_links(text)] == ["1.png", "2.png", "3.png", "4.png"]


def test_a_data_uri_target_may_be_wrapped_over_lines() -> None:
    payload = base64.b64encode(_png()).decode()
    wrapped = "\n".join(payload[i : i + 76] for i in range(0, len(payload), 76))
    text = f"![chart](data:image/png;base64,\n{wrapped}\n) after"
    (link,) = find_image_links(text)
    assert text[link.end :] == " after"
    decoded = decode_inline_image(link.target, max_bytes=1 << 20)
    assert decoded is not None and decoded.data == _png()


def test_bare_image_data_is_found_only_outside_links_and_code() -> None:
    payload = base64.b64encode(_png()).decode()
    bare = f"data:image/png;base64,{payload}"
    prefixless = f"base64,{payload}"
    text = (
        f"Inline {bare} here.\n\n![linked](data:image/png;base64,{payload})\n\n"
        f'`{bare}`\n\n<img src="{bare}">\n\nAlso {prefixless} there.'
    )
    links = find_image_links(text)
    spans = find_bare_image_data(text, links)
    assert [text[start:end] for start, end in spans] == [bare, prefixless]
    assert len(links) == 2


def test_short_base64_fragments_are_not_bare_image_data() -> None:
    text = "data:image/png;base64,iVBORw0KGgo= and base64,QUJD"
    assert find_bare_image_data(text, find_image_links(text)) == []


def test_inline_image_data_decodes_in_every_form() -> None:
    png = _png()
    b64 = base64.b64encode(png).decode()
    for value in (
        f"data:image/png;base64,{b64}",
        f"DATA:image/PNG;charset=x;BASE64,{b64[:50]}\n {b64[50:]}",
        f"data:image/jpeg;base64,{b64}",  # the bytes, not the label, decide the type
        f"base64,{b64}",
        b64,
        base64.urlsafe_b64encode(png).decode().rstrip("="),
    ):
        decoded = decode_inline_image(value, max_bytes=len(png))
        assert decoded is not None
        assert (decoded.mime_type, decoded.data) == ("image/png", png)
    svg = decode_inline_image(
        "data:image/svg+xml,%3Csvg%20xmlns%3D%22http://www.w3.org/2000/svg%22/%3E", max_bytes=100
    )
    assert svg is not None and svg.mime_type == "image/svg+xml"
    assert svg.data == b'<svg xmlns="http://www.w3.org/2000/svg"/>'


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("data:text/html;base64,PHNjcmlwdD4=", "not an image"),
        ("data:,hello", "not an image"),
        ("data:image/png;base64,@@@@", "characters base64 does not use"),
        ("data:image/png;base64,", "characters base64 does not use"),
        ("data:image/png;base64,QUJDR", "does not decode"),
        ("base64," + base64.b64encode(b"plain text, no image" * 20).decode(), "not an image"),
    ],
)
def test_claimed_image_data_that_is_not_one_is_invalid(value: str, message: str) -> None:
    with pytest.raises(InvalidImageData, match=message):
        decode_inline_image(value, max_bytes=1 << 20)


def test_inline_image_data_over_the_cap_is_invalid_before_decoding() -> None:
    uri = f"data:image/png;base64,{base64.b64encode(_png()).decode()}"
    with pytest.raises(InvalidImageData, match="over the 100-byte cap"):
        decode_inline_image(uri, max_bytes=100)


@pytest.mark.parametrize(
    "value",
    [
        "image-3.png",
        "https://h.example/a.png",
        "local://t/exports/x.png",
        "a" * 80,
        "assets/images/" + "long_path_segment_" * 5,
        base64.b64encode(b"x" * 100).decode(),
    ],
)
def test_urls_and_file_names_carry_no_inline_image(value: str) -> None:
    assert decode_inline_image(value, max_bytes=1 << 20) is None


def test_types_extensions_and_dimensions_come_from_the_bytes() -> None:
    buffer = io.BytesIO()
    Image.new("RGB", (70, 90)).save(buffer, "JPEG")
    jpeg = buffer.getvalue()
    assert sniff_image_type(_png()) == "image/png"
    assert sniff_image_type(jpeg) == "image/jpeg"
    assert sniff_image_type(b"GIF89a....") == "image/gif"
    assert sniff_image_type(b"<?xml version='1.0'?><svg/>") == "image/svg+xml"
    assert sniff_image_type(b"%PDF-1.7") is None
    assert image_size(_png(123, 45)) == (123, 45)
    assert image_size(jpeg) == (70, 90)
    assert image_size(b"<svg/>") == (0, 0)
    assert image_size(b"\x89PNG\r\n\x1a\n corrupt") == (0, 0)
    assert [extension_for(m) for m in ("image/jpeg", "image/svg+xml", "image/x-foo+zip")] == [
        "jpg",
        "svg",
        "xfoo",
    ]
