"""The single extension gate for every import path (spec: «Единый шлюз по расширениям»).

Direct upload, URL file download and the worker's re-check after download all ask this
table, so no path can accept a type another path refuses.
"""

from __future__ import annotations

from pathlib import PurePosixPath
from urllib.parse import unquote

from core.errors import SluiceError

SUPPORTED_IMPORT_EXTENSIONS: frozenset[str] = frozenset(
    {
        *("pdf", "txt", "docx", "doc", "epub", "html", "htm", "mhtml", "md", "markdown"),
        *("xmind", "png", "jpg", "jpeg", "gif", "csv", "xlsx", "xls", "pptx", "ppt", "json"),
        *("mp3", "wav", "m4a", "flac", "ogg"),
    }
)
IMAGE_EXTENSIONS: frozenset[str] = frozenset({"png", "jpg", "jpeg", "gif"})
AUDIO_EXTENSIONS: frozenset[str] = frozenset({"mp3", "wav", "m4a", "flac", "ogg"})
# Tabular types also get the data-table summary task after processing.
DATA_TABLE_EXTENSIONS: frozenset[str] = frozenset({"csv", "xlsx", "xls"})
VIDEO_EXTENSIONS: frozenset[str] = frozenset(
    {"mp4", "mov", "avi", "mkv", "webm", "flv", "wmv", "m4v", "mpeg", "mpg", "3gp", "ts"}
)

VIDEO_NOT_SUPPORTED = "uploading video files is not supported yet"
# The file type of a URL knowledge that is a web page, not a file: the spec's virtual type
# "url", under which the knowledge base's parser rules choose a page's engine.
WEB_PAGE_TYPE = "url"


class UnsupportedFileType(SluiceError, ValueError):
    """The file's extension is outside the gate; ``str(exc)`` is the user-facing reason."""


def file_type_of(file_name: str) -> str:
    """Lower-case extension without the dot ("" when there is none)."""
    return PurePosixPath(file_name.replace("\\", "/")).suffix.lstrip(".").lower()


def validate_import_file_type(file_name: str) -> str:
    """Return the file type of ``file_name`` or raise UnsupportedFileType saying why."""
    file_type = file_type_of(file_name)
    if file_type in SUPPORTED_IMPORT_EXTENSIONS:
        return file_type
    if file_type in VIDEO_EXTENSIONS:
        raise UnsupportedFileType(VIDEO_NOT_SUPPORTED)
    if not file_type:
        raise UnsupportedFileType(f"file {file_name!r} has no extension; supported: {_listed()}")
    raise UnsupportedFileType(f"file type {file_type!r} is not supported; supported: {_listed()}")


def url_file_type(url_path: str, file_name: str = "", file_type: str = "") -> str | None:
    """What a URL import is (spec: isFileURL): the type of the file it downloads, or None
    for a web page.

    An explicit ``file_type``, else a ``file_name`` with an extension, must pass the gate
    (UnsupportedFileType otherwise). The URL path's extension decides only when the gate
    knows it — a video is refused as such — since "/post.php" or "/v1.2" are pages."""
    if file_type.strip():
        return validate_import_file_type(f"file.{file_type.strip().lstrip('.')}")
    if file_type_of(file_name):
        return validate_import_file_type(file_name)
    name = url_path_name(url_path)
    from_path = file_type_of(name)
    if from_path in SUPPORTED_IMPORT_EXTENSIONS or from_path in VIDEO_EXTENSIONS:
        return validate_import_file_type(name)
    return None


def url_path_name(url_path: str) -> str:
    """The last segment of a URL path, percent-decoded ("" when the path ends in "/")."""
    return unquote(url_path).rsplit("/", 1)[-1]


def _listed() -> str:
    return ", ".join(sorted(SUPPORTED_IMPORT_EXTENSIONS))
