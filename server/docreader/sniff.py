"""The type a file really is, from its first bytes: magic numbers win over the extension.

Extensions lie: Word saves web pages under a .doc name, old binary .doc files get renamed
.docx, a JPEG arrives as .png. Picking the parser by extension then fails with a confusing
error, so the content decides when it is recognised. Text is the exception: a text file
declared as a text type (txt, md, csv, json, html...) keeps its type, since a Markdown file
that happens to start with ``<html>`` is still what its author says it is. Anything not
recognised keeps the declared type, and the parser reports what is wrong with it.

Reads at most the first 64 KiB, plus the directory of an OLE file or the central directory
(and a few small members) of a zip file.
"""

from __future__ import annotations

import re
import zipfile
import zlib
from email.parser import HeaderParser
from pathlib import Path

import olefile

from core.image_bytes import sniff_image_type
from server.docreader.audio_headers import id3_tag_length, is_mpeg_frame_header
from server.docreader.errors import ParseError
from server.docreader.text.decoding import decode_text, normalize_newlines

TEXT_TYPES = frozenset({"txt", "md", "markdown", "csv", "json", "html", "htm", "mhtml"})

_HEAD_BYTES = 64 * 1024
# Acrobat accepts a PDF header anywhere in the first KiB.
_PDF_HEADER_WINDOW = 1024
OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_ZIP_MAGIC = b"PK\x03\x04"
_TEXT_BOMS = (b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")
# OLE stream → type; an "EncryptedPackage" stream is a password-protected OOXML file instead.
_OLE_STREAMS = (
    ("WordDocument", "doc"),
    ("Workbook", "xls"),
    ("Book", "xls"),
    ("PowerPoint Document", "ppt"),
)
_OOXML_PARTS = (("word/", "docx"), ("xl/", "xlsx"), ("ppt/", "pptx"))
_M4A_BRANDS = (b"M4A ", b"M4B ", b"M4P ")
# The image types the image parser reads; other images keep the declared type.
_IMAGE_TYPES = {"image/png": "png", "image/jpeg": "jpg", "image/gif": "gif"}
# How much of a zip member is read to recognise it (never the whole, possibly huge, member).
_MEMBER_PEEK = 4096
_ZIP_ERRORS = (
    zipfile.BadZipFile,
    OSError,
    ValueError,
    EOFError,
    RuntimeError,
    NotImplementedError,
    zlib.error,
    KeyError,
)
# C0 control characters that text does not contain (tab, newlines, form feed, escape allowed).
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1a\x1c-\x1f]")
_MAX_CONTROL_SHARE = 0.01
# An XML declaration and comments may precede the doctype; only so much of them is skipped.
_PROLOGUE_CHARS = 4096
_LEADING_XML = re.compile(r"^\s*(?:<\?xml[^>]*>\s*|<!--.*?-->\s*)*", re.DOTALL)


def sniff_file_type(path: Path, declared: str) -> str:
    """The file type of ``path`` (lower-case extension form): its content's, else ``declared``."""
    declared = declared.strip().lower().lstrip(".")
    try:
        with path.open("rb") as stream:
            head = stream.read(_HEAD_BYTES)
    except OSError:
        return declared  # the parser reports the unreadable file
    if not head:
        return declared
    return _by_signature(path, head, declared) or _by_text(head, declared) or declared


def _by_signature(path: Path, head: bytes, declared: str) -> str | None:
    if head.startswith(b"%PDF"):
        return "pdf"
    if head.startswith(OLE_MAGIC):
        return _ole_type(path, declared)
    if head.startswith(_ZIP_MAGIC):
        return _zip_type(path, declared)
    image = _IMAGE_TYPES.get(sniff_image_type(head) or "")
    if image is not None:
        return "jpeg" if image == "jpg" and declared == "jpeg" else image
    if head.startswith(_TEXT_BOMS):
        return None  # a UTF-16 BOM would otherwise pass for an MPEG frame header
    return _audio_type(head, declared)


def _audio_type(head: bytes, declared: str) -> str | None:
    if head[:4] == b"RIFF" and head[8:12] == b"WAVE":
        return "wav"
    if head.startswith(b"fLaC"):
        return "flac"
    if head.startswith(b"OggS"):
        return "ogg"
    if head[4:8] == b"ftyp" and head[8:12] in _M4A_BRANDS:
        return "m4a"
    tag = id3_tag_length(head)
    if tag:
        # FLAC may carry an ID3 tag too; past the head, trust a declared flac.
        after = head[tag : tag + 4]
        if after == b"fLaC" or (declared == "flac" and len(after) < 4):
            return "flac"
        return "mp3"
    if is_mpeg_frame_header(head):
        return "mp3"
    return None


def _ole_type(path: Path, declared: str) -> str:
    streams = _ole_streams(path, ("EncryptedPackage", *(s for s, _ in _OLE_STREAMS)))
    if "EncryptedPackage" in streams:
        return declared  # the OOXML parser reports the password protection
    return next((kind for stream, kind in _OLE_STREAMS if stream in streams), declared)


def ole_has_stream(path: Path, name: str) -> bool:
    """Whether the OLE compound file at ``path`` holds stream ``name`` (False when it is
    not one or is too damaged to tell)."""
    return name in _ole_streams(path, (name,))


def _ole_streams(path: Path, names: tuple[str, ...]) -> set[str]:
    try:
        with olefile.OleFileIO(str(path)) as ole:
            return {name for name in names if ole.exists(name)}
    # olefile raises many kinds of errors on damaged directories (MemoryError included on
    # a forged sector count); all mean "unknown".
    except Exception:
        return set()


def _zip_type(path: Path, declared: str) -> str:
    try:
        with zipfile.ZipFile(path) as archive:
            return _zip_member_type(archive) or declared
    except _ZIP_ERRORS:
        return declared


def _zip_member_type(archive: zipfile.ZipFile) -> str | None:
    names = set(archive.namelist())
    if "[Content_Types].xml" in names:
        for prefix, kind in _OOXML_PARTS:
            if any(name.startswith(prefix) for name in names):
                return kind
        return None
    if "mimetype" in names and _peek(archive, "mimetype").strip() == b"application/epub+zip":
        return "epub"
    # XMind Zen: content.json with manifest.json; XMind 8: content.xml in XMind's namespace.
    if "content.json" in names and ("manifest.json" in names or "metadata.json" in names):
        return "xmind"
    if "content.xml" in names:
        manifest = "META-INF/manifest.xml"
        marker = _peek(archive, manifest) if manifest in names else b""
        if b"xmind" in marker or b"xmind" in _peek(archive, "content.xml"):
            return "xmind"
    return None


def _peek(archive: zipfile.ZipFile, name: str) -> bytes:
    with archive.open(name) as member:
        return member.read(_MEMBER_PEEK)


def _by_text(head: bytes, declared: str) -> str | None:
    text = _as_text(head)
    pdf_inside = b"%PDF-" in head[:_PDF_HEADER_WINDOW]
    if text is None:
        return "pdf" if pdf_inside else None
    if declared in TEXT_TYPES:
        return declared
    if pdf_inside:
        return "pdf"
    if _is_mhtml(text):
        return "mhtml"
    if _is_html(text):
        return "html"
    return None


def _as_text(head: bytes) -> str | None:
    """``head`` decoded when it looks like text, None when it looks binary."""
    try:
        text = decode_text(head)
    except ParseError:
        return None  # NUL bytes outside UTF-16
    if len(_CONTROL.findall(text)) > _MAX_CONTROL_SHARE * len(text):
        return None
    return normalize_newlines(text).lstrip("\ufeff")


def _is_mhtml(text: str) -> bool:
    headers, _, _ = text.partition("\n\n")
    message = HeaderParser().parsestr(headers)
    return "MIME-Version" in message and message.get_content_type() == "multipart/related"


def _is_html(text: str) -> bool:
    start = text[:_PROLOGUE_CHARS]
    prologue = _LEADING_XML.match(start)
    if prologue is not None:
        start = start[prologue.end() :]
    return start[:16].lower().startswith(("<!doctype html", "<html"))
