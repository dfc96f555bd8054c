"""The shared test corpus: one small file per extension the upload gate accepts, each with
known sentences and the structural features its format can carry.

``build_corpus(dir)`` writes the files and describes each as a ``CorpusFile``: the sentences
(unique to that file, so a search finds exactly it) and the fidelity markers, substrings the
docreader's Markdown must contain (headings, list items, table rows, sheet and slide texts).
End-to-end tests send these files through gRPC; they never depend on a parser's internals.

Audio: only WAV is generated (a tone, no sentences). mp3, m4a, flac and ogg cannot be written
realistically without an encoder; the docreader hands every audio type to the same ASR path,
which the WAV covers.

``build_large_files(dir)`` writes the benchmark inputs (tests/support/corpus_large.py).
"""

from __future__ import annotations

import csv
import io
import json
import shutil
from collections.abc import Callable
from pathlib import Path

from tests.support.corpus_content import (
    SECTION,
    STRUCTURED_MARKS,
    TABLE,
    TABLE_HEADER_MARK,
    TABLE_ROW_MARK,
    TITLE,
    CorpusFile,
    html_body,
    html_page,
    markdown_text,
    sentences_for,
)
from tests.support.corpus_large import LargeFile, build_large_files
from tests.support.corpus_media import build_image, build_wav
from tests.support.corpus_office import (
    LO_PROFILE,
    build_doc,
    build_docx,
    build_ppt,
    build_pptx,
    build_xls,
    build_xlsx,
)
from tests.support.corpus_packaged import build_epub, build_mhtml, build_pdf, build_xmind

__all__ = [
    "AUDIO_NOT_GENERATED",
    "GATE_EXTENSIONS",
    "CorpusFile",
    "LargeFile",
    "build_corpus",
    "build_large_files",
]

# The gate's extensions this corpus covers, in build order (which fixes each file's sentences).
GATE_EXTENSIONS = (
    "pdf",
    "txt",
    "docx",
    "doc",
    "epub",
    "html",
    "htm",
    "mhtml",
    "md",
    "markdown",
    "xmind",
    "png",
    "jpg",
    "jpeg",
    "gif",
    "csv",
    "xlsx",
    "xls",
    "pptx",
    "ppt",
    "json",
    "wav",
)
AUDIO_NOT_GENERATED = ("mp3", "m4a", "flac", "ogg")

_Builder = Callable[[Path, str, tuple[str, str]], CorpusFile]


def _txt(path: Path, file_type: str, sentences: tuple[str, str]) -> CorpusFile:
    path.write_text(
        f"{TITLE}\n\n{sentences[0]}\nThe survey continues on the next line.\n\n{sentences[1]}\n",
        encoding="utf-8",
    )
    return CorpusFile(path, file_type, sentences, ())


def _markdown(path: Path, file_type: str, sentences: tuple[str, str]) -> CorpusFile:
    path.write_text(markdown_text(sentences), encoding="utf-8")
    return CorpusFile(path, file_type, sentences, STRUCTURED_MARKS)


def _html(path: Path, file_type: str, sentences: tuple[str, str]) -> CorpusFile:
    path.write_text(html_page(TITLE, html_body(sentences)), encoding="utf-8")
    return CorpusFile(path, file_type, sentences, STRUCTURED_MARKS)


def _csv(path: Path, file_type: str, sentences: tuple[str, str]) -> CorpusFile:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([*TABLE[0], "Remark"])
    for row, sentence in zip(TABLE[1:], sentences, strict=True):
        writer.writerow([*row, sentence])
    path.write_text(buffer.getvalue(), encoding="utf-8")
    return CorpusFile(path, file_type, sentences, (TABLE_HEADER_MARK, TABLE_ROW_MARK))


def _json(path: Path, file_type: str, sentences: tuple[str, str]) -> CorpusFile:
    document = {
        "title": TITLE,
        "section": SECTION,
        "observations": [
            {"region": region, "revenue": int(revenue), "note": sentence}
            for (region, revenue), sentence in zip(TABLE[1:], sentences, strict=True)
        ],
    }
    path.write_text(json.dumps(document, indent=2), encoding="utf-8")
    return CorpusFile(path, file_type, sentences, (TITLE, SECTION, "North"))


def _typed(build: Callable[[Path, tuple[str, str]], CorpusFile]) -> _Builder:
    return lambda path, _file_type, sentences: build(path, sentences)


_BUILDERS: dict[str, _Builder] = {
    "pdf": _typed(build_pdf),
    "txt": _txt,
    "docx": _typed(build_docx),
    "doc": _typed(build_doc),
    "epub": _typed(build_epub),
    "html": _html,
    "htm": _html,
    "mhtml": _typed(build_mhtml),
    "md": _markdown,
    "markdown": _markdown,
    "xmind": _typed(build_xmind),
    "png": build_image,
    "jpg": build_image,
    "jpeg": build_image,
    "gif": build_image,
    "csv": _csv,
    "xlsx": _typed(build_xlsx),
    "xls": _typed(build_xls),
    "pptx": _typed(build_pptx),
    "ppt": _typed(build_ppt),
    "json": _json,
    "wav": lambda path, _file_type, _sentences: build_wav(path),
}


def build_corpus(directory: Path) -> list[CorpusFile]:
    """Write ``sample.<ext>`` for every gate extension into ``directory`` (which must exist)."""
    files = [
        _BUILDERS[ext](directory / f"sample.{ext}", ext, sentences_for(index, ext))
        for index, ext in enumerate(GATE_EXTENSIONS)
    ]
    shutil.rmtree(directory / LO_PROFILE, ignore_errors=True)
    return files
