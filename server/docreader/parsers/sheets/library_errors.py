"""Spreadsheet libraries report a damaged file as almost any exception type (KeyError,
struct.error, IndexError, XLRDError, zlib.error...). Inside ``library_errors`` every one
becomes a ParseError naming the part that failed; our own errors and MemoryError (the
sandbox's memory cap) pass through unchanged."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from server.docreader.errors import DocReaderError, ParseError


@contextmanager
def library_errors(what: str) -> Iterator[None]:
    try:
        yield
    except (DocReaderError, MemoryError):
        raise
    except Exception as err:
        detail = f"{type(err).__name__}: {err}" if str(err) else type(err).__name__
        raise ParseError(f"the {what} is not readable: {detail}") from err
