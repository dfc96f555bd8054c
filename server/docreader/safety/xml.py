"""An lxml parser that cannot be turned against us: no entities, no network, no DTD loading,
no huge-tree mode (libxml2's own depth and size caps stay on)."""

from __future__ import annotations

from lxml import etree

from server.docreader.errors import ParseError


def safe_xml_parser(*, remove_blank_text: bool = False) -> etree.XMLParser:
    """``remove_blank_text``: drop whitespace-only text between elements (pretty-printing), for
    formats whose text lives only in designated elements (WordprocessingML)."""
    return etree.XMLParser(
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        huge_tree=False,
        remove_comments=True,
        remove_pis=True,
        remove_blank_text=remove_blank_text,
    )


def refuse_entity_declarations(head: bytes, *, what: str) -> None:
    """ParseError when the start of an XML document declares entities."""
    if b"<!ENTITY" in head or b"<!entity" in head:
        raise ParseError(f"the {what} declares XML entities, which is refused (XML bomb)")


def parse_xml(data: bytes, *, what: str, remove_blank_text: bool = False) -> etree._Element:
    """Parse ``data``; a document with an entity declaration is refused outright, since no
    office or ebook format needs one and entity expansion is how XML bombs work."""
    refuse_entity_declarations(data[:4096], what=what)
    try:
        return etree.fromstring(data, safe_xml_parser(remove_blank_text=remove_blank_text))
    except etree.XMLSyntaxError as err:
        raise ParseError(f"the {what} is not well-formed XML: {err}") from err
