"""DocxParser on hand-written packages: how parts are found (relationships, content types),
styles parts cut down to their paragraph styles, indented XML, and broken or foreign
packages."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest
from PIL import Image

from server.docreader.errors import ParseError
from server.docreader.parser_contract import (
    MemorySink,
    ParsedDocument,
    ParseOptions,
    parse_to_document,
)
from server.docreader.parsers.office.docx import DocxParser

_W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_DOCUMENT_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"
_STYLES_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"
_RELATIONSHIPS_TYPE = "application/vnd.openxmlformats-package.relationships+xml"
_DECLARATION = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'


def _paragraph(text: str, style: str = "") -> str:
    properties = f'<w:pPr><w:pStyle w:val="{style}"/></w:pPr>' if style else ""
    return f"<w:p>{properties}<w:r><w:t>{text}</w:t></w:r></w:p>"


def _document(body: str) -> str:
    namespaces = f'xmlns:w="{_W}" xmlns:r="{_R}"'
    return f"{_DECLARATION}<w:document {namespaces}><w:body>{body}</w:body></w:document>"


def _relationships(*relationships: tuple[str, str, str]) -> str:
    rows = "".join(
        f'<Relationship Id="{rid}" Type="{_R}/{kind}" Target="{target}"'
        + (' TargetMode="External"/>' if target.startswith("http") else "/>")
        for rid, kind, target in relationships
    )
    return (
        f"{_DECLARATION}<Relationships "
        f'xmlns="http://schemas.openxmlformats.org/package/2006/relationships">{rows}</Relationships>'
    )


def _content_types(main_type: str = _DOCUMENT_TYPE) -> str:
    return (
        f'{_DECLARATION}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
        f'<Default Extension="rels" ContentType="{_RELATIONSHIPS_TYPE}"/>'
        '<Default Extension="xml" ContentType="application/xml"/>'
        '<Default Extension="PNG" ContentType="image/png"/>'
        f'<Override PartName="/word/document.xml" ContentType="{main_type}"/>'
        f'<Override PartName="/word/styles.xml" ContentType="{_STYLES_TYPE}"/>'
        "</Types>"
    )


def _write_package(path: Path, parts: dict[str, str | bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in parts.items():
            archive.writestr(name, data)
    return path


def _package(
    path: Path,
    body: str,
    *,
    styles: str | None = None,
    main_type: str = _DOCUMENT_TYPE,
    main_target: str = "word/document.xml",
    document_relationships: tuple[tuple[str, str, str], ...] = (),
    extra: dict[str, str | bytes] | None = None,
) -> Path:
    parts: dict[str, str | bytes] = {
        "[Content_Types].xml": _content_types(main_type),
        "_rels/.rels": _relationships(("rId1", "officeDocument", main_target)),
        "word/document.xml": _document(body),
    }
    relationships = list(document_relationships)
    if styles is not None:
        parts["word/styles.xml"] = styles
        relationships.append(("rIdStyles", "styles", "styles.xml"))
    parts["word/_rels/document.xml.rels"] = _relationships(*relationships)
    parts.update(extra or {})
    return _write_package(path, parts)


def _parse(path: Path) -> ParsedDocument:
    return parse_to_document(DocxParser(), path, ParseOptions(file_name=path.name))


def _styles(prefix: str) -> str:
    """A table style (named like a heading, which must not matter) before the paragraph
    styles; one style's start tag holds a quoted ">", another's attributes use single
    quotes."""
    p = prefix
    return (
        f'{_DECLARATION}<{p}:styles xmlns:{p}="{_W}">'
        f'<{p}:style {p}:type="table" {p}:styleId="Grid"><{p}:name {p}:val="heading 1"/>'
        f"<{p}:tblPr/></{p}:style>"
        f'<{p}:style {p}:type="paragraph" {p}:default="1" {p}:styleId="Normal">'
        f'<{p}:name {p}:val="Normal"/></{p}:style>'
        f'<{p}:style {p}:label="big > small" {p}:type="paragraph" {p}:styleId="Big">'
        f'<{p}:name {p}:val="Big"/>'
        f'<{p}:pPr><{p}:outlineLvl {p}:val="1"/></{p}:pPr></{p}:style>'
        f"<{p}:style {p}:styleId='Quote' {p}:type='paragraph'><{p}:name {p}:val='Quote'/>"
        f"<{p}:basedOn {p}:val='Big'/></{p}:style>"
        f'<{p}:style {p}:type="character" {p}:styleId="Strong"/>'
        f"</{p}:styles>"
    )


_STYLED_BODY = (
    _paragraph("Outline heading", "Big")
    + _paragraph("Based on it", "Quote")
    + _paragraph("A table style is not a heading", "Grid")
    + _paragraph("Plain")
)
_STYLED_MARKDOWN = "## Outline heading\n\n## Based on it\n\nA table style is not a heading\n\nPlain"


@pytest.mark.parametrize("prefix", ["w", "ns0"])
def test_paragraph_styles_are_read_past_table_styles(tmp_path: Path, prefix: str) -> None:
    # "w" takes the cut-down styles part; another prefix is parsed whole: both read alike.
    path = _package(tmp_path / "styles.docx", _STYLED_BODY, styles=_styles(prefix))
    assert _parse(path).markdown == _STYLED_MARKDOWN


def test_indented_xml_reads_like_compact_xml(tmp_path: Path) -> None:
    body = (
        '\n  <w:p>\n    <w:pPr>\n      <w:pStyle w:val="Big"/>\n    </w:pPr>\n'
        "    <w:r>\n      <w:t>Title</w:t>\n    </w:r>\n  </w:p>\n"
        '  <w:p>\n    <w:r>\n      <w:t xml:space="preserve">Two </w:t>\n    </w:r>\n'
        "    <w:r>\n      <w:t>runs</w:t>\n    </w:r>\n  </w:p>\n"
        "  <w:p>\n    <w:r>\n      <w:t> </w:t>\n    </w:r>\n  </w:p>\n"
    )
    path = _package(tmp_path / "indented.docx", body, styles=_styles("w"))
    assert _parse(path).markdown == "## Title\n\nTwo runs"


def test_absolute_targets_and_case_insensitive_content_types(tmp_path: Path) -> None:
    buffer = io.BytesIO()
    Image.new("RGB", (3, 2), (0, 90, 200)).save(buffer, "PNG")
    picture = (
        '<w:p><w:r><w:drawing><a:blip xmlns:a="http://schemas.openxmlformats.org/drawingml/'
        '2006/main" r:embed="rIdImage"/></w:drawing></w:r></w:p>'
    )
    path = _package(
        tmp_path / "absolute.docx",
        _paragraph("Before") + picture,
        main_target="/word/document.xml",
        # The Default is declared for "PNG", the part is named ".png".
        document_relationships=(("rIdImage", "image", "/word/media/Picture.png"),),
        extra={"word/media/Picture.png": buffer.getvalue()},
    )
    parsed = _parse(path)
    assert parsed.markdown == "Before\n\n![image](image-1.png)"
    assert [(i.mime_type, i.width, i.height) for i in parsed.images] == [("image/png", 3, 2)]


def test_missing_image_part_and_external_picture_are_skipped(tmp_path: Path) -> None:
    pictures = "".join(
        f'<w:p><w:r><w:pict><v:imagedata xmlns:v="urn:schemas-microsoft-com:vml" r:id="{rid}"/>'
        "</w:pict></w:r></w:p>"
        for rid in ("rIdGone", "rIdLinked", "rIdUnknown")
    )
    path = _package(
        tmp_path / "gone.docx",
        _paragraph("Text stays") + pictures,
        document_relationships=(
            ("rIdGone", "image", "media/gone.png"),
            ("rIdLinked", "image", "https://example.com/picture.png"),
        ),
    )
    parsed = _parse(path)
    assert (parsed.markdown, parsed.images) == ("Text stays", [])


def test_macro_enabled_document_is_read(tmp_path: Path) -> None:
    path = _package(
        tmp_path / "macros.docx",
        _paragraph("Macro-enabled"),
        main_type="application/vnd.ms-word.document.macroEnabled.main+xml",
    )
    assert _parse(path).markdown == "Macro-enabled"


def test_package_whose_main_part_is_not_word_is_refused(tmp_path: Path) -> None:
    path = _package(
        tmp_path / "workbook.docx",
        _paragraph("Not Word"),
        main_type="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml",
    )
    with pytest.raises(ParseError, match="cannot be opened as a Word document"):
        _parse(path)


def test_malformed_document_part_is_reported(tmp_path: Path) -> None:
    path = _package(tmp_path / "broken.docx", "<w:p><w:r><w:t>unclosed</w:r></w:p>")
    with pytest.raises(ParseError, match=r"'word/document\.xml' is not well-formed XML"):
        _parse(path)


def test_entity_declaration_in_the_styles_part_is_refused(tmp_path: Path) -> None:
    styles = _styles("w").replace(
        _DECLARATION, _DECLARATION + '<!DOCTYPE w:styles [<!ENTITY big "Big">]>'
    )
    path = _package(tmp_path / "entity.docx", _STYLED_BODY, styles=styles)
    with pytest.raises(ParseError, match="entities"):
        _parse(path)


def test_a_long_run_of_plain_paragraphs_is_read_whole_and_streamed(tmp_path: Path) -> None:
    # Consecutive plain paragraphs are written in batches: none is lost or doubled, and a
    # long run still reaches the sink in several writes.
    texts = [f"Paragraph {n}" for n in range(1, 1201)]
    body = "".join(_paragraph(text) for text in texts[:600])
    body += _paragraph("Middle heading", "Big") + "".join(_paragraph(t) for t in texts[600:])
    path = _package(tmp_path / "long.docx", body, styles=_styles("w"))
    sink = MemorySink()
    DocxParser().parse(path, ParseOptions(file_name=path.name), sink)
    parsed = sink.document()
    assert parsed.markdown == "\n\n".join([*texts[:600], "## Middle heading", *texts[600:]])
    assert parsed.metadata["paragraph_count"] == "1201"
    assert len(sink.parts) > 4


def test_a_default_style_with_an_outline_level_makes_headings(tmp_path: Path) -> None:
    styles = _styles("w").replace(
        '<w:name w:val="Normal"/></w:style>',
        '<w:name w:val="Normal"/><w:pPr><w:outlineLvl w:val="0"/></w:pPr></w:style>',
    )
    path = _package(tmp_path / "heading-default.docx", _paragraph("No style named"), styles=styles)
    assert _parse(path).markdown == "# No style named"
