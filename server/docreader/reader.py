"""Picks the engine and parser for a request and runs it."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import PurePosixPath

from server.docreader.engines import EngineRegistry
from server.docreader.errors import UnsupportedFormatError
from server.docreader.parsers.base import ParsedDocument, ParseOptions


class DocumentReader:
    def __init__(self, registry: EngineRegistry) -> None:
        self.registry = registry

    def read(
        self,
        content: bytes,
        *,
        file_name: str,
        file_type: str,
        engine: str = "",
        engine_options: Mapping[str, str] | None = None,
    ) -> ParsedDocument:
        kind = normalize_file_type(file_type, file_name)
        parser = self.registry.get(engine).parser_for(kind)
        return parser.parse(
            content, ParseOptions(file_name=file_name, engine_options=dict(engine_options or {}))
        )


def normalize_file_type(file_type: str, file_name: str) -> str:
    """Lower-case extension without the dot; taken from the file name when not given."""
    kind = file_type.strip().lower().lstrip(".")
    if not kind:
        kind = PurePosixPath(file_name.replace("\\", "/")).suffix.lower().lstrip(".")
    if not kind:
        raise UnsupportedFormatError(
            f"no file type given and none in the file name {file_name!r}"
        )
    return kind
