"""The recall corpus in text-based formats: Markdown, plain text, HTML, MHTML, EPUB, JSON,
XMind and CSV, each the way its authors usually write it (Markdown footnotes, an HTML
footnotes section, an EPUB footnote aside, pictures as data URIs or archive members)."""

from __future__ import annotations

import base64
import csv
import html
import io
import json
import zipfile
from email.message import EmailMessage
from pathlib import Path

from tests.support.corpus_packaged import chapter_xhtml
from tests.support.recall_documents import (
    Block,
    Heading,
    Items,
    Note,
    Paragraph,
    Picture,
    RecallDocument,
    Table,
)
from tests.support.recall_pictures import picture_png


def _md_table(table: Table) -> str:
    lines = ["| " + " | ".join(table.header) + " |", "|" + " --- |" * len(table.header)]
    lines += ["| " + " | ".join(row) + " |" for row in table.rows]
    return "\n".join(lines)


def write_markdown(doc: RecallDocument, path: Path) -> None:
    parts: list[str] = []
    notes: list[str] = []
    for block in doc.blocks:
        if isinstance(block, Heading):
            parts.append("#" * block.level + " " + block.text)
        elif isinstance(block, Paragraph):
            parts.append(block.text)
        elif isinstance(block, Items):
            parts.append("\n".join(f"- {item}" for item in block.items))
        elif isinstance(block, Table):
            parts.append(_md_table(block))
        elif isinstance(block, Note):
            notes.append(f"[^{len(notes) + 1}]: {block.text}")
            parts[-1] += f"[^{len(notes)}]"
        elif isinstance(block, Picture):
            data = base64.b64encode(picture_png(block.lines)).decode()
            parts.append(f"![figure](data:image/png;base64,{data})")
    path.write_text("\n\n".join(parts + notes) + "\n", encoding="utf-8")


def write_text(doc: RecallDocument, path: Path) -> None:
    parts: list[str] = []
    for block in doc.blocks:
        if isinstance(block, Heading):
            parts.append(block.text.upper() if block.level == 1 else block.text)
        elif isinstance(block, Paragraph):
            parts.append(block.text)
        elif isinstance(block, Items):
            parts.append("\n".join(f"- {item}" for item in block.items))
        else:
            raise ValueError(f"plain text holds no {type(block).__name__}")
    path.write_text("\n\n".join(parts) + "\n", encoding="utf-8")


def _html_table(table: Table) -> str:
    head = "".join(f"<th>{html.escape(c)}</th>" for c in table.header)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in table.rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def html_blocks(blocks: tuple[Block, ...], picture_src: list[str], *, epub: bool = False) -> str:
    """The blocks as HTML; the n-th picture's ``src`` is ``picture_src[n]``; notes become a
    footnotes section at the end (an EPUB footnote ``aside`` when ``epub``)."""
    parts: list[str] = []
    notes: list[str] = []
    pictures = iter(picture_src)
    for block in blocks:
        if isinstance(block, Heading):
            parts.append(f"<h{block.level}>{html.escape(block.text)}</h{block.level}>")
        elif isinstance(block, Paragraph):
            parts.append(f"<p>{html.escape(block.text)}</p>")
        elif isinstance(block, Items):
            parts.append(
                "<ul>" + "".join(f"<li>{html.escape(i)}</li>" for i in block.items) + "</ul>"
            )
        elif isinstance(block, Table):
            parts.append(_html_table(block))
        elif isinstance(block, Note):
            n = len(notes) + 1
            parts[-1] = parts[-1].removesuffix("</p>") + f'<sup><a href="#fn{n}">{n}</a></sup></p>'
            if epub:
                notes.append(
                    f'<aside epub:type="footnote" id="fn{n}"><p>{block.label}: '
                    f"{html.escape(block.text)}</p></aside>"
                )
            else:
                notes.append(f'<li id="fn{n}">{html.escape(block.text)}</li>')
        elif isinstance(block, Picture):
            parts.append(f'<p><img src="{next(pictures)}" alt="figure"/></p>')
    if notes and not epub:
        parts.append('<section class="footnotes"><ol>' + "".join(notes) + "</ol></section>")
    else:
        parts += notes
    return "\n".join(parts)


def _pictures(doc: RecallDocument) -> list[bytes]:
    return [picture_png(b.lines) for b in doc.blocks if isinstance(b, Picture)]


def _page(doc: RecallDocument, body: str) -> str:
    return (
        f'<!DOCTYPE html>\n<html lang="{doc.language}"><head><meta charset="utf-8">'
        f"<title>{html.escape(doc.title)}</title></head>\n<body>\n<article>\n{body}\n"
        "</article>\n</body></html>\n"
    )


def write_html(doc: RecallDocument, path: Path) -> None:
    sources = [f"data:image/png;base64,{base64.b64encode(p).decode()}" for p in _pictures(doc)]
    path.write_text(_page(doc, html_blocks(doc.blocks, sources)), encoding="utf-8")


def write_mhtml(doc: RecallDocument, path: Path) -> None:
    page_url = f"https://example.org/reports/{doc.key}.html"
    pictures = _pictures(doc)
    urls = [f"https://example.org/reports/{doc.key}-figure{n}.png" for n in range(len(pictures))]
    message = EmailMessage()
    message["From"] = "<Saved by Blink>"
    message["Snapshot-Content-Location"] = page_url
    message["Subject"] = doc.title
    message.set_content(
        _page(doc, html_blocks(doc.blocks, urls)),
        subtype="html",
        cte="quoted-printable",
        headers=[f"Content-Location: {page_url}"],
    )
    for n, (picture, url) in enumerate(zip(pictures, urls, strict=True)):
        message.add_related(
            picture,
            maintype="image",
            subtype="png",
            cid=f"<figure{n}@recall>",
            headers=[f"Content-Location: {url}"],
        )
    path.write_bytes(message.as_bytes())


_CONTAINER = """<?xml version="1.0" encoding="UTF-8"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
  <rootfiles>
    <rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/>
  </rootfiles>
</container>
"""


def _opf(doc: RecallDocument, chapters: int, pictures: int) -> str:
    items = "".join(
        f'<item id="ch{n}" href="chapter{n}.xhtml" media-type="application/xhtml+xml"/>'
        for n in range(chapters)
    ) + "".join(
        f'<item id="fig{n}" href="images/figure{n}.png" media-type="image/png"/>'
        for n in range(pictures)
    )
    spine = "".join(f'<itemref idref="ch{n}"/>' for n in range(chapters))
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
    <dc:identifier id="id">urn:sluice:recall:{doc.key}</dc:identifier>
    <dc:title>{html.escape(doc.title)}</dc:title>
    <dc:language>{doc.language}</dc:language>
  </metadata>
  <manifest>{items}</manifest>
  <spine>{spine}</spine>
</package>
"""


def write_epub(doc: RecallDocument, path: Path) -> None:
    """Two chapters: the blocks split at the middle second-level heading."""
    cuts = [n for n, b in enumerate(doc.blocks) if isinstance(b, Heading) and b.level == 2]
    middle = cuts[len(cuts) // 2] if cuts else len(doc.blocks)
    halves = (doc.blocks[1:middle], doc.blocks[middle:])
    pictures = _pictures(doc)
    sources = iter(f"images/figure{n}.png" for n in range(len(pictures)))
    with zipfile.ZipFile(path, "w") as book:
        book.writestr("mimetype", "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        book.writestr("META-INF/container.xml", _CONTAINER)
        book.writestr("OEBPS/content.opf", _opf(doc, len(halves), len(pictures)))
        for n, blocks in enumerate(halves):
            wanted = sum(isinstance(b, Picture) for b in blocks)
            body = html_blocks(blocks, [next(sources) for _ in range(wanted)], epub=True)
            title = doc.title if n == 0 else f"{doc.title} ({n + 1})"
            xhtml = chapter_xhtml(html.escape(title), body).replace(
                "<html ", '<html xmlns:epub="http://www.idpf.org/2007/ops" ', 1
            )
            book.writestr(f"OEBPS/chapter{n}.xhtml", xhtml, compress_type=zipfile.ZIP_DEFLATED)
        for n, picture in enumerate(pictures):
            book.writestr(f"OEBPS/images/figure{n}.png", picture)


def write_json(doc: RecallDocument, path: Path) -> None:
    """Sections with their text and records: facts are string leaves or record fields."""
    sections: list[dict[str, object]] = []
    for block in doc.blocks:
        if isinstance(block, Heading) and block.level == 2:
            sections.append({"heading": block.text})
        elif isinstance(block, Paragraph) and sections:
            texts = sections[-1].setdefault("text", [])
            assert isinstance(texts, list)
            texts.append(block.text)
        elif isinstance(block, Table):
            keys = [h.lower() for h in block.header]
            sections[-1]["records"] = [
                {k: int(v) if v.isdigit() else v for k, v in zip(keys, row, strict=True)}
                for row in block.rows
            ]
    document = {"title": doc.title, "language": doc.language, "sections": sections}
    path.write_text(json.dumps(document, ensure_ascii=False, indent=2), encoding="utf-8")


def write_xmind(doc: RecallDocument, path: Path) -> None:
    """A map: a topic per section, its list items and paragraphs as subtopics."""
    ids = iter(range(10_000))

    def topic(title: str, children: list[dict[str, object]] | None = None) -> dict[str, object]:
        node: dict[str, object] = {"id": f"t{next(ids)}", "class": "topic", "title": title}
        if children is not None:
            node["children"] = {"attached": children}
        return node

    sections: list[dict[str, object]] = []
    for block in doc.blocks:
        if isinstance(block, Heading) and block.level == 2:
            sections.append(topic(block.text, []))
        elif sections and isinstance(block, Items | Paragraph):
            texts = block.items if isinstance(block, Items) else (block.text,)
            attached = sections[-1]["children"]
            assert isinstance(attached, dict)
            attached["attached"] += [topic(t) for t in texts]
    content = [
        {
            "id": "sheet-1",
            "class": "sheet",
            "title": doc.title,
            "rootTopic": topic(doc.title, sections),
        }
    ]
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("content.json", json.dumps(content, ensure_ascii=False))
        archive.writestr("metadata.json", json.dumps({"creator": {"name": "sluice-recall"}}))
        archive.writestr("manifest.json", json.dumps({"file-entries": {"content.json": {}}}))


def write_csv(doc: RecallDocument, path: Path) -> None:
    """All tables' rows under the first header: a CSV file is one table."""
    tables = [b for b in doc.blocks if isinstance(b, Table)]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(tables[0].header)
    for table in tables:
        writer.writerows(table.rows)
    path.write_text(buffer.getvalue(), encoding="utf-8")
