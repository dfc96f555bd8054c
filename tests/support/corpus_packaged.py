"""Corpus files built from their container formats: PDF (reportlab), EPUB and XMind (zip),
MHTML (a MIME multipart/related message).

The PDF has two pages (title, sentence and a grid table on the first; a heading and the second
sentence on the second). The EPUB has two XHTML chapters and a picture; the MHTML page links
a PNG part by its Content-Location, as browsers save it.
"""

from __future__ import annotations

import json
import zipfile
from email.message import EmailMessage
from pathlib import Path

from reportlab.lib import colors
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import getSampleStyleSheet
from reportlab.platypus import (
    PageBreak,
    Paragraph,
    SimpleDocTemplate,
    Table,
    TableStyle,
)

from tests.support.corpus_content import (
    BULLET_MARK,
    ITEMS,
    SECTION,
    STRUCTURED_MARKS,
    TABLE,
    TABLE_HEADER_MARK,
    TITLE,
    CorpusFile,
    html_body,
    html_page,
    html_table,
)
from tests.support.corpus_media import figure_png

EPUB_TITLE = "Heron Chronicle"
MAP_TITLE = "Heron Map"
_PAGE_URL = "https://example.org/heron/gazette.html"
_FIGURE_URL = "https://example.org/heron/figure.png"
_GRID = TableStyle([("GRID", (0, 0), (-1, -1), 0.5, colors.black)])


def build_pdf(path: Path, sentences: tuple[str, str]) -> CorpusFile:
    styles = getSampleStyleSheet()
    story = [
        Paragraph(TITLE, styles["Title"]),
        Paragraph(sentences[0], styles["BodyText"]),
        Paragraph(SECTION, styles["Heading2"]),
        Table([list(row) for row in TABLE], style=_GRID),
        PageBreak(),
        Paragraph("Appendix", styles["Heading1"]),
        Paragraph(sentences[1], styles["BodyText"]),
    ]
    SimpleDocTemplate(str(path), pagesize=A4, title=TITLE).build(story)
    # PDF has no structure tags here: only the texts are required, not their Markdown form.
    return CorpusFile(path, "pdf", sentences, (TITLE, SECTION, "Appendix", "Region", "North"))


def chapter_xhtml(title: str, body: str) -> str:
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE html>\n'
        '<html xmlns="http://www.w3.org/1999/xhtml" xml:lang="en"><head>'
        f"<title>{title}</title></head>\n<body>\n<h1>{title}</h1>\n{body}\n</body></html>\n"
    )


def opf_document(title_xml: str = EPUB_TITLE, doctype: str = "") -> str:
    """The package document; ``doctype`` lets hostile files add a DTD (entity bombs)."""
    return f"""<?xml version="1.0" encoding="UTF-8"?>
{doctype}<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
    <dc:identifier id="id">urn:uuid:5b0c2f1e-8d1a-4a57-9a55-6f1c0e2d9a01</dc:identifier>
    <dc:title>{title_xml}</dc:title>
    <dc:language>en</dc:language>
    <meta property="dcterms:modified">2026-01-01T00:00:00Z</meta>
  </metadata>
  <manifest>
    <item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>
    <item id="ch1" href="chapter1.xhtml" media-type="application/xhtml+xml"/>
    <item id="ch2" href="chapter2.xhtml" media-type="application/xhtml+xml"/>
    <item id="fig" href="images/figure.png" media-type="image/png"/>
  </manifest>
  <spine><itemref idref="ch1"/><itemref idref="ch2"/></spine>
</package>
"""


_CONTAINER = """<?xml version="1.0" encoding="UTF-8"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
  <rootfiles>
    <rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/>
  </rootfiles>
</container>
"""
_NAV = """<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE html>
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops">
<head><title>Contents</title></head>
<body><nav epub:type="toc"><ol>
<li><a href="chapter1.xhtml">Chapter One</a></li><li><a href="chapter2.xhtml">Chapter Two</a></li>
</ol></nav></body></html>
"""


def write_epub(path: Path, sentences: tuple[str, str], opf: str | None = None) -> None:
    items = "".join(f"<li>{item}</li>" for item in ITEMS)
    chapter1 = (
        f"<p>{sentences[0]}</p>\n<ul>{items}</ul>\n"
        '<p><img src="images/figure.png" alt="heron figure"/></p>'
    )
    chapter2 = f"<p>{sentences[1]}</p>\n{html_table()}"
    with zipfile.ZipFile(path, "w") as book:
        # The mimetype member comes first and uncompressed, as the EPUB container requires.
        book.writestr("mimetype", "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        deflated = zipfile.ZIP_DEFLATED
        book.writestr("META-INF/container.xml", _CONTAINER, compress_type=deflated)
        book.writestr("OEBPS/content.opf", opf or opf_document(), compress_type=deflated)
        book.writestr("OEBPS/nav.xhtml", _NAV, compress_type=deflated)
        book.writestr(
            "OEBPS/chapter1.xhtml", chapter_xhtml("Chapter One", chapter1), compress_type=deflated
        )
        book.writestr(
            "OEBPS/chapter2.xhtml", chapter_xhtml("Chapter Two", chapter2), compress_type=deflated
        )
        book.writestr("OEBPS/images/figure.png", figure_png(), compress_type=zipfile.ZIP_STORED)


def build_epub(path: Path, sentences: tuple[str, str]) -> CorpusFile:
    write_epub(path, sentences)
    marks = ("# Chapter One", "# Chapter Two", BULLET_MARK, TABLE_HEADER_MARK)
    return CorpusFile(path, "epub", sentences, marks, images=1)


def build_mhtml(path: Path, sentences: tuple[str, str]) -> CorpusFile:
    message = EmailMessage()
    message["From"] = "<Saved by Blink>"
    message["Snapshot-Content-Location"] = _PAGE_URL
    message["Subject"] = TITLE
    page = html_page(TITLE, html_body(sentences, image_src=_FIGURE_URL))
    # Content-* headers move with the page into its part when add_related makes the message
    # multipart/related.
    message.set_content(
        page, subtype="html", cte="quoted-printable", headers=[f"Content-Location: {_PAGE_URL}"]
    )
    message.add_related(
        figure_png(),
        maintype="image",
        subtype="png",
        cid="<figure@heron>",
        headers=[f"Content-Location: {_FIGURE_URL}"],
    )
    path.write_bytes(message.as_bytes())
    return CorpusFile(path, "mhtml", sentences, STRUCTURED_MARKS, images=1)


def build_xmind(path: Path, sentences: tuple[str, str]) -> CorpusFile:
    """An XMind (Zen) map: content.json holds the sheets and their topic trees."""

    def topic(ident: str, title: str, *children: dict[str, object]) -> dict[str, object]:
        node: dict[str, object] = {"id": ident, "class": "topic", "title": title}
        if children:
            node["children"] = {"attached": list(children)}
        return node

    root = topic(
        "root",
        MAP_TITLE,
        topic("t1", SECTION, topic("t2", sentences[0])),
        topic("t3", "Observations", topic("t4", sentences[1])),
    )
    content = [{"id": "sheet-1", "class": "sheet", "title": "Survey", "rootTopic": root}]
    manifest: dict[str, object] = {"file-entries": {"content.json": {}, "metadata.json": {}}}
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("content.json", json.dumps(content, indent=1))
        archive.writestr("metadata.json", json.dumps({"creator": {"name": "sluice-tests"}}))
        archive.writestr("manifest.json", json.dumps(manifest))
    return CorpusFile(path, "xmind", sentences, (MAP_TITLE, SECTION, "Observations"))
