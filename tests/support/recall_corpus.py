"""The recall corpus on disk: ``build_recall_corpus(dir)`` composes the documents
(tests/support/recall_documents.py) and writes each in its format; the facts and their
questions ride along on each document.

Used by ``bench/recall.py`` (every format, en/ru/zh) and tests/e2e/test_recall.py (a few).
"""

from __future__ import annotations

import dataclasses
import shutil
from collections.abc import Callable
from pathlib import Path

from tests.support.corpus_office import LO_PROFILE
from tests.support.recall_documents import (
    FORMATS,
    Picture,
    RecallDocument,
    compose_corpus,
)
from tests.support.recall_facts import LANGUAGES
from tests.support.recall_pictures import write_picture, write_scanned_pdf
from tests.support.recall_writers_office import (
    write_converted,
    write_docx,
    write_pdf,
    write_pptx,
    write_xls,
    write_xlsx,
)
from tests.support.recall_writers_text import (
    write_csv,
    write_epub,
    write_html,
    write_json,
    write_markdown,
    write_mhtml,
    write_text,
    write_xmind,
)

__all__ = ["FORMATS", "LANGUAGES", "RecallDocument", "build_recall_corpus"]


def _pictures(doc: RecallDocument) -> list[tuple[str, ...]]:
    return [b.lines for b in doc.blocks if isinstance(b, Picture)]


def _image(doc: RecallDocument, path: Path) -> None:
    (lines,) = _pictures(doc)
    write_picture(path, lines, doc.file_type)


_WRITERS: dict[str, Callable[[RecallDocument, Path], None]] = {
    "pdf": write_pdf,
    "pdf-scan": lambda doc, path: write_scanned_pdf(path, _pictures(doc)),
    "docx": write_docx,
    "doc": lambda doc, path: write_converted(doc, path, "doc"),
    "pptx": write_pptx,
    "ppt": lambda doc, path: write_converted(doc, path, "ppt"),
    "xlsx": write_xlsx,
    "xls": write_xls,
    "csv": write_csv,
    "html": write_html,
    "mhtml": write_mhtml,
    "epub": write_epub,
    "md": write_markdown,
    "txt": write_text,
    "json": write_json,
    "xmind": write_xmind,
    "png": _image,
    "jpg": _image,
}
assert set(_WRITERS) == set(FORMATS)


def build_recall_corpus(
    directory: Path,
    formats: tuple[str, ...] = tuple(FORMATS),
    languages: tuple[str, ...] = LANGUAGES,
    seed: int = 20261201,
) -> list[RecallDocument]:
    """Write a document per format and language into ``directory`` (which must exist)."""
    written = []
    for doc in compose_corpus(formats, languages, seed):
        path = directory / doc.file_name
        _WRITERS[doc.format](doc, path)
        written.append(dataclasses.replace(doc, path=path))
    shutil.rmtree(directory / LO_PROFILE, ignore_errors=True)
    return written
