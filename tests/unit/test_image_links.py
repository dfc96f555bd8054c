"""Image links at read time: the resource references stored content links are found and
pointed at URLs, and a reference without a URL gives way to its alt text."""

from __future__ import annotations

from collections.abc import Mapping

from server.services.image_links import link_images, resource_links

FIGURE = "resource://0b9d7a3e-1c2f-4e5a-8b6c-7d8e9f0a1b2c"
CHART = "resource://5f4e3d2c-1b0a-4987-8654-3210fedcba98"
GONE = "resource://11111111-2222-4333-8444-555555555555"
# A presigned URL: query separators that HTML must escape.
PRESIGNED = "http://s3.test/b/t/exports/k-1.png?X-Amz-Algorithm=AWS4&X-Amz-Signature=ab%2Fcd"


def _linked(text: str, urls: Mapping[str, str]) -> str:
    return link_images(text, resource_links(text), urls)


def test_only_image_links_to_resource_references_are_found() -> None:
    text = "\n\n".join(
        [
            f"![figure]({FIGURE}) and <img alt='chart' src=\"{CHART}\">",
            "![remote](https://example.com/a.png) ![inline](data:image/png;base64,iVBORw0KGgo=)",
            f"[a plain link]({FIGURE}) `![in code]({FIGURE})`",
            f"```\n![fenced]({CHART})\n```",
        ]
    )

    links = resource_links(text)

    assert [(link.syntax, link.target, link.alt) for link in links] == [
        ("markdown", FIGURE, "figure"),
        ("html", CHART, "chart"),
    ]
    assert resource_links("No stored images here: ![x](https://example.com/x.png)") == []


def test_references_are_pointed_at_their_urls_escaped_for_html() -> None:
    text = (
        f"Before ![figure]({FIGURE}) middle <img src='{CHART}' alt=\"chart\"> "
        f'and ![again](<{FIGURE}> "titled") after.'
    )

    linked = _linked(text, {FIGURE: PRESIGNED, CHART: "file:///srv/files/t/exports/c.png"})

    assert linked == (
        f"Before ![figure]({PRESIGNED}) middle "
        "<img src='file:///srv/files/t/exports/c.png' alt=\"chart\"> "
        f'and ![again](<{PRESIGNED}> "titled") after.'
    )
    html_text = f'<img src="{FIGURE}">'
    assert _linked(html_text, {FIGURE: PRESIGNED}) == (
        '<img src="http://s3.test/b/t/exports/k-1.png'
        '?X-Amz-Algorithm=AWS4&amp;X-Amz-Signature=ab%2Fcd">'
    )


def test_a_reference_without_a_url_gives_way_to_its_alt_text() -> None:
    text = (
        f"Kept ![figure]({FIGURE}); gone ![old chart]({GONE}), "
        f"[![linked]({GONE})](https://example.com/page) and [![]({GONE})](https://example.com/x)."
    )

    linked = _linked(text, {FIGURE: PRESIGNED})

    assert linked == (
        f"Kept ![figure]({PRESIGNED}); gone old chart, [linked](https://example.com/page) and ."
    )


def test_text_without_references_comes_back_as_it_is() -> None:
    text = "# Notes\n\n![remote](https://example.com/a.png) and `resource://not-a-link`"
    assert _linked(text, {FIGURE: PRESIGNED}) == text
