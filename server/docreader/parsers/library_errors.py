"""Format libraries (openpyxl, xlrd, python-docx, python-pptx) report a damaged file as
almost any exception type (KeyError, struct.error, IndexError, XLRDError, zlib.error...).
Inside ``library_errors`` every one becomes a ParseError naming what failed; our own errors
and MemoryError (the sandbox's memory cap) pass through unchanged."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from server.docreader.errors import DocReaderError, ParseError


@contextmanager
def library_errors(what: str, failure: str = "is not readable") -> Iterator[None]:
    """ParseError "the <what> <failure>: <the library's error>" for whatever goes wrong."""
    try:
        yield
    except (DocReaderError, MemoryError):
        raise
    except Exception as err:
        detail = f"{type(err).__name__}: {err}" if str(err) else type(err).__name__
        raise ParseError(f"the {what} {failure}: {detail}") from err
