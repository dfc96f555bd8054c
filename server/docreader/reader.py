"""Reads one file: decides its real type, checks the engine can read it, parses it sandboxed.

The type is the declared one (or the file name's extension) unless the file's magic bytes
say otherwise — a ``.docx`` that is really an OLE ``.doc`` is read as ``doc``. The engine is
checked here, in the server, so an unknown engine or unsupported type fails at once without
starting a child.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from server.docreader.engines import EngineRegistry
from server.docreader.errors import UnsupportedFormatError
from server.docreader.parsers.base import ParseOptions
from server.docreader.safety.limits import ParseLimits
from server.docreader.sandbox.child import ParseJob
from server.docreader.sandbox.disk_sink import SpooledDocument
from server.docreader.sandbox.runner import SandboxRunner, StopCheck
from server.docreader.sniff import sniff_file_type


@dataclass(frozen=True)
class ReadSettings:
    file_name: str
    file_type: str
    engine: str = ""
    engine_options: Mapping[str, str] | None = None
    enable_ocr: bool = True
    first_row_header: bool = True


@dataclass(frozen=True)
class ReadOutput:
    document: SpooledDocument
    detected_type: str
    source: Path


class DocumentReader:
    def __init__(
        self,
        registry: EngineRegistry,
        runner: SandboxRunner,
        limits: ParseLimits | None = None,
    ) -> None:
        self.registry = registry
        self.runner = runner
        self.limits = limits or ParseLimits()

    def read(
        self, source: Path, settings: ReadSettings, work_dir: Path, should_stop: StopCheck
    ) -> ReadOutput:
        """Parse ``source`` into ``work_dir`` (which the caller removes afterwards)."""
        declared = normalize_file_type(settings.file_type, settings.file_name)
        kind = sniff_file_type(source, declared)
        engine = self.registry.get(settings.engine)
        engine.parser_for(kind)
        # Libraries pick their reader by extension (openpyxl refuses others): give them one.
        typed = work_dir / f"input.{kind}"
        if source != typed:
            typed.symlink_to(source.resolve())
        scratch = work_dir / "scratch"
        out_dir = work_dir / "out"
        scratch.mkdir()
        out_dir.mkdir()
        options = ParseOptions(
            file_name=settings.file_name,
            file_type=kind,
            engine_options=dict(settings.engine_options or {}),
            enable_ocr=settings.enable_ocr,
            first_row_header=settings.first_row_header,
            limits=self.limits,
            work_dir=scratch,
        )
        job = ParseJob(
            engine=engine.name,
            file_type=kind,
            source=typed,
            options=options,
            out_dir=out_dir,
            memory_cap_bytes=self.runner.memory_cap_bytes,
        )
        return ReadOutput(self.runner.run(job, should_stop), kind, source)


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
