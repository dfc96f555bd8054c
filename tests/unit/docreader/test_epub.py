"""EPUB parser: spine order, chapter images, metadata, DRM and hostile XML."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from server.docreader.errors import ParseError
from server.docreader.parser_contract import ParsedDocument, ParseOptions, parse_to_document
from server.docreader.parsers.epub import EpubParser
from tests.unit.docreader.images import png_bytes

CONTAINER = """<?xml version="1.0"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
  <rootfiles>
    <rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/>
  </rootfiles>
</container>"""

OPF = """<?xml version="1.0" encoding="utf-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
    <dc:identifier id="id">urn:uuid:1</dc:identifier>
    <dc:title>A Small   Book</dc:title>
    <dc:creator>Ann Author</dc:creator>
    <dc:creator>Bob Writer</dc:creator>
    <dc:language>en</dc:language>
  </metadata>
  <manifest>
    <item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>
    <item id="one" href="text/chapter%201.xhtml" media-type="application/xhtml+xml"/>
    <item id="two" href="text/chapter2.xhtml" media-type="application/xhtml+xml"/>
    <item id="pic" href="images/pic.png" media-type="image/png"/>
    <item id="css" href="style.css" media-type="text/css"/>
  </manifest>
  <spine>
    <itemref idref="two"/>
    <itemref idref="one"/>
    <itemref idref="css"/>
  </spine>
</package>"""

CHAPTER = """<?xml version="1.0" encoding="utf-8"?>
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops">
<head><title>ignored</title><script src="x.js"/><link rel="stylesheet" href="../style.css"/></head>
<body><section><header><h1>{title}</h1></header>
<p>{text} <a id="page{n}"/>continues <img src="../images/pic.png" alt="pic"/></p>
<p>Missing <img src="../images/none.png" alt="gone"/> image.</p>
</section></body></html>"""

NAV = """<?xml version="1.0" encoding="utf-8"?>
<html xmlns="http://www.w3.org/1999/xhtml"><body><nav><ol><li>TOC-ENTRY</li></ol></nav></body>
</html>"""


def build_epub(path: Path, members: dict[str, str | bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("mimetype", "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        for name, content in members.items():
            archive.writestr(name, content, compress_type=zipfile.ZIP_DEFLATED)
    return path


def book(png: bytes) -> dict[str, str | bytes]:
    return {
        "META-INF/container.xml": CONTAINER,
        "OEBPS/content.opf": OPF,
        "OEBPS/nav.xhtml": NAV,
        "OEBPS/text/chapter 1.xhtml": CHAPTER.format(title="Chapter One", text="First", n=1),
        "OEBPS/text/chapter2.xhtml": CHAPTER.format(title="Chapter Two", text="Second", n=2),
        "OEBPS/images/pic.png": png,
        "OEBPS/style.css": "p { color: red }",
    }


def parse(path: Path) -> ParsedDocument:
    return parse_to_document(EpubParser(), path, ParseOptions(file_name=path.name))


def test_chapters_in_spine_order_with_their_image(tmp_path: Path) -> None:
    png = png_bytes(30, 20)
    document = parse(build_epub(tmp_path / "book.epub", book(png)))
    assert document.markdown == (
        "# Chapter Two\n\nSecond continues ![pic](image-1.png)\n\nMissing image.\n\n"
        "# Chapter One\n\nFirst continues ![pic](image-1.png)\n\nMissing image."
    )
    assert [(i.ref, i.mime_type, i.width, i.height, i.data) for i in document.images] == [
        ("image-1.png", "image/png", 30, 20, png)
    ]
    assert document.metadata == {
        "title": "A Small Book",
        "creator": "Ann Author; Bob Writer",
        "language": "en",
        "chapter_count": "2",
    }


def test_font_obfuscation_is_not_drm_but_encrypted_content_is(tmp_path: Path) -> None:
    def encryption(algorithm: str, uri: str) -> str:
        return (
            '<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" '
            'xmlns:enc="http://www.w3.org/2001/04/xmlenc#"><enc:EncryptedData>'
            f'<enc:EncryptionMethod Algorithm="{algorithm}"/>'
            f'<enc:CipherData><enc:CipherReference URI="{uri}"/></enc:CipherData>'
            "</enc:EncryptedData></encryption>"
        )

    fonts = book(png_bytes(2, 2)) | {
        "META-INF/encryption.xml": encryption("http://www.idpf.org/2008/embedding", "f.otf")
    }
    assert parse(build_epub(tmp_path / "fonts.epub", fonts)).metadata["chapter_count"] == "2"
    drm = book(png_bytes(2, 2)) | {
        "META-INF/encryption.xml": encryption(
            "http://www.w3.org/2001/04/xmlenc#aes128-cbc", "OEBPS/text/chapter2.xhtml"
        )
    }
    with pytest.raises(ParseError, match="DRM-protected"):
        parse(build_epub(tmp_path / "drm.epub", drm))


def test_entity_bomb_in_the_package_document_is_refused(tmp_path: Path) -> None:
    bomb = (
        '<?xml version="1.0"?><!DOCTYPE package [<!ENTITY a "aaaaaaaaaa">'
        + "".join(f'<!ENTITY {chr(98 + i)} "{("&" + chr(97 + i) + ";") * 10}">' for i in range(8))
        + ']><package xmlns="http://www.idpf.org/2007/opf"><metadata/>'
        "<manifest/><spine/></package>"
    )
    members = book(png_bytes(2, 2)) | {"OEBPS/content.opf": bomb}
    with pytest.raises(ParseError, match="declares XML entities"):
        parse(build_epub(tmp_path / "bomb.epub", members))


def test_broken_containers(tmp_path: Path) -> None:
    not_zip = tmp_path / "plain.epub"
    not_zip.write_bytes(b"not a zip at all")
    with pytest.raises(ParseError, match="not a valid zip"):
        parse(not_zip)
    no_package = build_epub(tmp_path / "empty.epub", {"OEBPS/a.xhtml": "<html/>"})
    with pytest.raises(ParseError, match="no package document"):
        parse(no_package)
    empty_spine = book(png_bytes(2, 2)) | {
        "OEBPS/content.opf": OPF.replace('<itemref idref="two"/>', "").replace(
            '<itemref idref="one"/>', ""
        )
    }
    with pytest.raises(ParseError, match="no readable chapters"):
        parse(build_epub(tmp_path / "nospine.epub", empty_spine))


def test_tag_soup_chapter_is_still_read(tmp_path: Path) -> None:
    members = book(png_bytes(2, 2)) | {
        "OEBPS/text/chapter2.xhtml": "<html><body><p>Unclosed <b>bold<p>Second</body></html>"
    }
    document = parse(build_epub(tmp_path / "soup.epub", members))
    # Read as browsers do (HTML Standard): the unclosed <b> carries on into the next paragraph.
    assert document.markdown.startswith("Unclosed **bold**\n\n**Second**\n\n# Chapter One")


FOOTNOTED = """<?xml version="1.0" encoding="utf-8"?>
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops">
<body><h1>{title}</h1><p>{text}<a epub:type="noteref" href="#fn{n}">{n}</a></p>
<aside epub:type="footnote" id="fn{n}"><p>Footnote {n}: 3347 crates.</p></aside>
<aside><p>SIDEBAR</p></aside>
</body></html>"""


def test_footnote_asides_are_text_and_other_asides_are_not(tmp_path: Path) -> None:
    members = book(png_bytes(4, 4))
    members["OEBPS/text/chapter 1.xhtml"] = FOOTNOTED.format(title="One", text="First", n=1)
    members["OEBPS/text/chapter2.xhtml"] = FOOTNOTED.format(title="Two", text="Second", n=2)
    document = parse(build_epub(tmp_path / "notes.epub", members))
    assert document.markdown == (
        "# Two\n\nSecond2\n\nFootnote 2: 3347 crates.\n\n"
        "# One\n\nFirst1\n\nFootnote 1: 3347 crates."
    )
