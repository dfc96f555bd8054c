"""Checks an OOXML file (docx, xlsx, pptx) before it is read.

An OOXML file saved with a password is not a zip at all but an OLE compound file holding an
``EncryptedPackage`` stream, so that case is told apart from a merely corrupt file; an OLE
file without it is the old binary format under a new extension. The zip itself is opened
with SafeZip so bomb-shaped archives are refused before anything is inflated (the docx and
xlsx readers then read their parts through it; python-pptx reopens the file).
"""

from __future__ import annotations

from pathlib import Path

from server.docreader.errors import ParseError
from server.docreader.safety.limits import ParseLimits
from server.docreader.safety.zip_guard import SafeZip
from server.docreader.sniff import OLE_MAGIC, ole_has_stream


def open_ooxml_container(path: Path, limits: ParseLimits, *, what: str) -> SafeZip:
    """The checked zip container, for the caller to read and close; ParseError when
    ``path`` is not one that is safe to inflate."""
    try:
        with path.open("rb") as handle:
            head = handle.read(len(OLE_MAGIC))
    except OSError as err:
        raise ParseError(f"the {what} cannot be read: {err}") from err
    if head == OLE_MAGIC:
        if ole_has_stream(path, "EncryptedPackage"):
            raise ParseError(f"the {what} is password-protected (encrypted); remove the password")
        raise ParseError(
            f"the {what} is an OLE compound file (the legacy binary format), not an OOXML zip"
        )
    return SafeZip(path, limits, what=what)


def check_ooxml_container(path: Path, limits: ParseLimits, *, what: str) -> None:
    """Raise ParseError unless ``path`` is a zip container that is safe to inflate."""
    open_ooxml_container(path, limits, what=what).close()
