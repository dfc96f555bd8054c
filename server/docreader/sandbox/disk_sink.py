"""A DocumentSink that spools to a directory, and the reader of what it wrote.

The child process writes the Markdown to ``document.md`` as the parser produces it and each
image to its own file, so neither side ever holds the whole document: the parent streams the
frames back from these files.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import IO

from server.docreader.parser_contract import ParsedImage

MARKDOWN_FILE = "document.md"
IMAGES_FILE = "images.jsonl"
IMAGE_DIR = "images"
META_FILE = "meta.json"


class DiskSink:
    def __init__(self, out_dir: Path) -> None:
        self._dir = out_dir
        (out_dir / IMAGE_DIR).mkdir(parents=True, exist_ok=True)
        self._markdown: IO[str] = open(out_dir / MARKDOWN_FILE, "w", encoding="utf-8")  # noqa: SIM115
        self._images: IO[str] = open(out_dir / IMAGES_FILE, "w", encoding="utf-8")  # noqa: SIM115
        self._image_count = 0
        self._refs: set[str] = set()
        self._metadata: dict[str, str] = {}
        self._is_audio = False

    def __enter__(self) -> DiskSink:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def write(self, markdown: str) -> None:
        self._markdown.write(markdown)

    def add_image(self, image: ParsedImage) -> None:
        if image.ref in self._refs:
            raise ValueError(f"image ref {image.ref!r} was added twice")
        self._refs.add(image.ref)
        name = f"{self._image_count:06d}"
        (self._dir / IMAGE_DIR / name).write_bytes(image.data)
        record = {
            "ref": image.ref,
            "file": name,
            "mime_type": image.mime_type,
            "width": image.width,
            "height": image.height,
            "is_original": image.is_original,
            "page": image.page,
        }
        self._images.write(json.dumps(record) + "\n")
        self._image_count += 1

    def set_metadata(self, key: str, value: str) -> None:
        self._metadata[key] = str(value)

    def mark_audio(self) -> None:
        self._is_audio = True

    def close(self) -> None:
        self._markdown.close()
        self._images.close()
        meta = {
            "metadata": self._metadata,
            "is_audio": self._is_audio,
            "image_count": self._image_count,
        }
        (self._dir / META_FILE).write_text(json.dumps(meta), encoding="utf-8")


@dataclass(frozen=True)
class SpooledImage:
    ref: str
    path: Path
    mime_type: str
    width: int
    height: int
    is_original: bool
    page: int

    def read(self) -> ParsedImage:
        return ParsedImage(
            self.ref,
            self.path.read_bytes(),
            self.mime_type,
            self.width,
            self.height,
            self.is_original,
            self.page,
        )


@dataclass(frozen=True)
class SpooledDocument:
    """What a finished parse left in its output directory."""

    out_dir: Path
    metadata: dict[str, str] = field(default_factory=dict)
    is_audio: bool = False
    image_count: int = 0

    @classmethod
    def load(cls, out_dir: Path) -> SpooledDocument:
        meta = json.loads((out_dir / META_FILE).read_text(encoding="utf-8"))
        return cls(
            out_dir,
            metadata={str(k): str(v) for k, v in meta["metadata"].items()},
            is_audio=bool(meta["is_audio"]),
            image_count=int(meta["image_count"]),
        )

    @property
    def markdown_bytes(self) -> int:
        return (self.out_dir / MARKDOWN_FILE).stat().st_size

    def markdown_pieces(self, max_chars: int) -> Iterator[str]:
        with open(self.out_dir / MARKDOWN_FILE, encoding="utf-8") as markdown:
            while piece := markdown.read(max_chars):
                yield piece

    def markdown(self) -> str:
        return (self.out_dir / MARKDOWN_FILE).read_text(encoding="utf-8")

    def images(self) -> Iterator[SpooledImage]:
        with open(self.out_dir / IMAGES_FILE, encoding="utf-8") as lines:
            for line in lines:
                record = json.loads(line)
                yield SpooledImage(
                    ref=record["ref"],
                    path=self.out_dir / IMAGE_DIR / record["file"],
                    mime_type=record["mime_type"],
                    width=int(record["width"]),
                    height=int(record["height"]),
                    is_original=bool(record["is_original"]),
                    page=int(record["page"]),
                )
