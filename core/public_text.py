"""What a message may say to the people who read it: no internal temporary paths.

Errors from libraries and subprocesses (LibreOffice, PDFium, PIL, an OSError) name the
scratch files the docreader and the workers spool to; a document's ``error_message`` and
its spans are shown to users, who cannot open those files and should not learn the host's
layout. The file's own name stays in the message where the caller wrote it.
"""

from __future__ import annotations

import re
import tempfile

TEMPORARY_FILE = "<temporary file>"
_TEMP_ROOTS = sorted(
    {tempfile.gettempdir().rstrip("/"), "/tmp", "/var/tmp", "/dev/shm"}, key=len, reverse=True
)
# A path under a temporary root (not inside a longer path), up to whitespace, a quote or
# closing punctuation.
_ROOTS = "|".join(re.escape(root) for root in _TEMP_ROOTS)
_TEMP_PATH = re.compile(rf"(?<![\w/.])(?:file://)?(?:{_ROOTS})/[^\s'\"`,;)\]>]+")


def without_temp_paths(message: str) -> str:
    """``message`` with every path under a temporary directory replaced by a placeholder."""
    return _TEMP_PATH.sub(TEMPORARY_FILE, message)
