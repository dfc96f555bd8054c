"""Checks an OOXML file (docx, pptx) before a library opens it.

An OOXML file saved with a password is not a zip at all but an OLE compound file holding an
``EncryptedPackage`` stream, so that case is told apart from a merely corrupt file; an OLE
file without it is the old binary format under a new extension. The zip itself is opened
once with SafeZip so bomb-shaped archives are refused before python-docx or python-pptx
inflate anything.
"""

from __future__ import annotations

from pathlib import Path

import olefile

from server.docreader.errors import ParseError
from server.docreader.safety.limits import ParseLimits
from server.docreader.safety.zip_guard import SafeZip

_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"


def check_ooxml_container(path: Path, limits: ParseLimits, *, what: str) -> None:
    """Raise ParseError unless ``path`` is a zip container that is safe to inflate."""
    try:
        with path.open("rb") as handle:
            head = handle.read(len(_OLE_MAGIC))
    except OSError as err:
        raise ParseError(f"the {what} cannot be read: {err}") from err
    if head == _OLE_MAGIC:
        if _is_encrypted_package(path):
            raise ParseError(f"the {what} is password-protected (encrypted); remove the password")
        raise ParseError(
            f"the {what} is an OLE compound file (the legacy binary format), not an OOXML zip"
        )
    with SafeZip(path, limits, what=what):
        pass


def _is_encrypted_package(path: Path) -> bool:
    try:
        with olefile.OleFileIO(str(path)) as ole:
            return bool(ole.exists("EncryptedPackage"))
    except (OSError, ValueError, NotImplementedError):
        # An unreadable OLE file: whatever it is, it is not a usable OOXML document.
        return False
