"""The extension gate on a URL download: planned at creation, checked again on what the server
actually sent (spec: «Единый шлюз по расширениям» — the worker's re-check after download asks
the same table as an upload).

At creation the URL (or the file name or type the caller gave) decides the name and type of
the file to download. When the response arrives, before a byte is stored, every clue it
carries is weighed:

- the file name the server gives (Content-Disposition) names the file outright;
- the final URL's last path segment counts when the gate knows its extension (after a
  redirect to "/get.php" it says nothing about the file);
- the Content-Type: a video, an executable or an archive is refused whatever the name says.

A clue that changes the type also renames the file; otherwise the planned name stays. Then
the first bytes: an executable, a video or an archive is refused under any name. A URL that
was planned as a web page must answer HTML.
"""

from __future__ import annotations

from dataclasses import dataclass
from email.message import Message
from urllib.parse import urlsplit

from core.extensions import (
    SUPPORTED_IMPORT_EXTENSIONS,
    VIDEO_EXTENSIONS,
    VIDEO_NOT_SUPPORTED,
    UnsupportedFileType,
    file_type_of,
    url_file_type,
    url_path_name,
    validate_import_file_type,
)
from storage.files.keys import safe_file_name

HTML_MEDIA_TYPES = frozenset({"text/html", "application/xhtml+xml"})
# Enough of the body to recognise every signature below.
MAGIC_HEAD_BYTES = 16
_ZIP_BASED = frozenset({"docx", "xlsx", "pptx", "epub", "xmind"})
_M4A_BRANDS = (b"M4A ", b"M4B ", b"M4P ")
_HEIF_BRANDS = (b"heic", b"heix", b"mif1", b"msf1", b"avif")
# Media types refused whatever the name says: (the extension the gate judges, what it is).
_REFUSED_MEDIA_TYPES: dict[str, tuple[str, str]] = {
    **dict.fromkeys(
        (
            "application/x-msdownload",
            "application/x-msdos-program",
            "application/x-dosexec",
            "application/vnd.microsoft.portable-executable",
        ),
        ("exe", "a Windows executable"),
    ),
    **dict.fromkeys(("application/x-msi", "application/x-ms-installer"), ("msi", "an installer")),
    **dict.fromkeys(
        ("application/x-executable", "application/x-elf", "application/x-sharedlib"),
        ("elf", "an ELF executable"),
    ),
    "application/x-mach-binary": ("macho", "a Mach-O executable"),
    "application/java-archive": ("jar", "a Java archive"),
    "application/vnd.android.package-archive": ("apk", "an Android package"),
    "application/x-apple-diskimage": ("dmg", "a disk image"),
    **dict.fromkeys(("application/gzip", "application/x-gzip"), ("gz", "a gzip archive")),
    **dict.fromkeys(
        ("application/vnd.rar", "application/x-rar-compressed"), ("rar", "a RAR archive")
    ),
    "application/x-7z-compressed": ("7z", "a 7-Zip archive"),
    "application/x-tar": ("tar", "a tar archive"),
}
# (prefix, extension the gate judges, what it is)
_SIGNATURES: tuple[tuple[bytes, str, str], ...] = (
    (b"\x7fELF", "elf", "an ELF executable"),
    *(
        (magic, "macho", "a Mach-O executable")
        for magic in (
            b"\xfe\xed\xfa\xce",
            b"\xfe\xed\xfa\xcf",
            b"\xce\xfa\xed\xfe",
            b"\xcf\xfa\xed\xfe",
            b"\xca\xfe\xba\xbe",
        )
    ),
    (b"\x1a\x45\xdf\xa3", "mkv", "a Matroska/WebM video"),
    (b"FLV\x01", "flv", "a Flash video"),
    (b"\x30\x26\xb2\x75\x8e\x66\xcf\x11", "wmv", "a Windows Media video"),
    (b"\x00\x00\x01\xba", "mpeg", "an MPEG video"),
    (b"\x00\x00\x01\xb3", "mpeg", "an MPEG video"),
    (b"\x1f\x8b", "gz", "a gzip archive"),
    (b"Rar!\x1a\x07", "rar", "a RAR archive"),
    (b"7z\xbc\xaf\x27\x1c", "7z", "a 7-Zip archive"),
)


@dataclass(frozen=True)
class DownloadName:
    file_name: str
    file_type: str


def planned_download(url: str, file_name: str = "", file_type: str = "") -> DownloadName | None:
    """What a URL import will download, or None when the URL is a web page.

    The name is ``file_name``, else the URL's last path segment, carrying the type's
    extension. UnsupportedFileType when the gate refuses the given name or type or the
    URL's own extension."""
    path = urlsplit(url).path
    kind = url_file_type(path, file_name, file_type)
    if kind is None:
        return None
    name = file_name.strip() or url_path_name(path)
    name = safe_file_name(name) if name else "download"
    if file_type_of(name) != kind:
        name = f"{name}.{kind}"
    return DownloadName(name, kind)


def checked_download(
    planned: DownloadName, *, final_url: str, content_disposition: str, content_type: str
) -> DownloadName:
    """The download's name and type once its headers are in; UnsupportedFileType when the
    server says it is something the gate refuses."""
    if _is_video(content_type):
        raise UnsupportedFileType(f"the server sent {content_type}: {VIDEO_NOT_SUPPORTED}")
    if content_type in _REFUSED_MEDIA_TYPES:
        extension, what = _REFUSED_MEDIA_TYPES[content_type]
        raise _refusal(extension, f"the server sent {content_type} ({what})")
    disposition = _disposition_name(content_disposition)
    final_name = safe_file_name(url_path_name(urlsplit(final_url).path) or "download")
    final_type = file_type_of(final_name)
    known = final_type in SUPPORTED_IMPORT_EXTENSIONS or final_type in VIDEO_EXTENSIONS
    for clue in (disposition if file_type_of(disposition) else "", final_name if known else ""):
        if clue:
            kind = validate_import_file_type(clue)
            return planned if kind == planned.file_type else DownloadName(clue, kind)
    return planned


def check_page_type(content_type: str) -> None:
    """UnsupportedFileType unless a web page's answer is HTML (or says nothing of its type)."""
    if _is_video(content_type):
        raise UnsupportedFileType(f"the URL answered {content_type}: {VIDEO_NOT_SUPPORTED}")
    if content_type and content_type not in HTML_MEDIA_TYPES:
        raise UnsupportedFileType(
            f"the URL answered {content_type}, not a web page; to import it as a file, give "
            "its file_type (or a file_name with the extension)"
        )


def check_first_bytes(head: bytes, file_type: str) -> None:
    """UnsupportedFileType when the download's first bytes are an executable, a video or an
    archive, whatever it is called (``head``: at least MAGIC_HEAD_BYTES unless shorter)."""
    found = _signature(head, file_type)
    if found is not None:
        extension, what = found
        raise _refusal(extension, f"the download is {what}, not a {file_type} file")


def _signature(head: bytes, file_type: str) -> tuple[str, str] | None:
    # "MZ" alone could start a text; a DOS header has NUL bytes right after it.
    if head.startswith(b"MZ") and b"\x00" in head[2:MAGIC_HEAD_BYTES]:
        return "exe", "a Windows executable"
    for magic, extension, what in _SIGNATURES:
        if head.startswith(magic):
            return extension, what
    if head[4:8] == b"ftyp":  # ISO media: audio the gate takes, or an image or a video
        brand = head[8:12]
        if brand in _HEIF_BRANDS:
            return "heic", "an HEIF/AVIF image"
        if brand not in _M4A_BRANDS and file_type != "m4a":
            return "mp4", "an MP4/QuickTime video"
    if head[:4] == b"RIFF" and head[8:12] == b"AVI ":
        return "avi", "an AVI video"
    if head.startswith((b"PK\x03\x04", b"PK\x05\x06")) and file_type not in _ZIP_BASED:
        return "zip", "a zip archive"
    return None


def _is_video(content_type: str) -> bool:
    """ "video/mp4", or the top-level type alone ("video") a careless server sends."""
    return content_type.partition("/")[0] == "video"


def _refusal(extension: str, context: str) -> UnsupportedFileType:
    """``context``, then the gate's own verdict on ``extension``."""
    try:
        validate_import_file_type(f"download.{extension}")
    except UnsupportedFileType as exc:
        return UnsupportedFileType(f"{context}: {exc}")
    raise AssertionError(f"{extension!r} passes the gate: the refusal tables are wrong")


def _disposition_name(header: str) -> str:
    """The file name a Content-Disposition header gives (filename* preferred), directories
    and unsafe characters removed; "" when it gives none."""
    if not header.strip():
        return ""
    message = Message()
    message["Content-Disposition"] = header
    name = message.get_filename() or ""
    return safe_file_name(name) if name.strip() else ""
