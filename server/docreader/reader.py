"""Reads one file: the declared type (or the file name's extension) and the engine go to a
sandboxed child, which decides the real type from the bytes — a ``.docx`` that is really an
OLE ``.doc`` is read as ``doc`` — and parses. Only the engine name is checked here, so an
unknown engine fails without starting a child; the server itself never opens the file.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from server.docreader.engines import EngineRegistry
from server.docreader.errors import ParseCancelled, UnsupportedFormatError
from server.docreader.ocr_languages import check_requested
from server.docreader.parser_contract import ParseOptions
from server.docreader.safety.limits import ParseLimits
from server.docreader.sandbox.child import REGISTRY, ParseJob
from server.docreader.sandbox.runner import ParseResult, SandboxRunner, StopCheck
from workers.observability.metrics import metrics


@dataclass(frozen=True)
class ReadSettings:
    file_name: str
    file_type: str
    engine: str = ""
    engine_options: Mapping[str, str] | None = None
    enable_ocr: bool = True
    first_row_header: bool = True
    ocr_languages: tuple[str, ...] = ()


class DocumentReader:
    def __init__(self, runner: SandboxRunner, limits: ParseLimits | None = None) -> None:
        # The registry the children parse with (the forkserver preloads it).
        self.registry: EngineRegistry = REGISTRY
        self.runner = runner
        self.limits = limits or ParseLimits()

    def read(
        self, source: Path, settings: ReadSettings, work_dir: Path, should_stop: StopCheck
    ) -> ParseResult:
        """Parse ``source`` into ``work_dir`` (which the caller removes afterwards)."""
        declared = normalize_file_type(settings.file_type, settings.file_name)
        engine = self.registry.get(settings.engine)
        options = ParseOptions(
            file_name=settings.file_name,
            engine_options=dict(settings.engine_options or {}),
            enable_ocr=settings.enable_ocr,
            # A language not installed here fails the read before a child starts.
            ocr_languages=check_requested(settings.ocr_languages) if settings.enable_ocr else (),
            first_row_header=settings.first_row_header,
            limits=self.limits,
        )
        job = ParseJob(engine.name, declared, source, options, work_dir)
        # A type the engine has no parser for is the caller's word: not a label value.
        label = declared if declared in engine.file_types else "other"
        started, outcome = time.perf_counter(), "error"
        try:
            result = self.runner.run(job, should_stop)
            outcome = "ok"
            return result
        except ParseCancelled:
            outcome = "cancelled"
            raise
        finally:
            metrics().parse_duration.labels(label, outcome).observe(time.perf_counter() - started)


def normalize_file_type(file_type: str, file_name: str) -> str:
    """Lower-case extension without the dot; taken from the file name when not given."""
    kind = file_type.strip().lower().lstrip(".")
    if not kind:
        kind = PurePosixPath(file_name.replace("\\", "/")).suffix.lower().lstrip(".")
    if not kind:
        raise UnsupportedFormatError(f"no file type given and none in the file name {file_name!r}")
    return kind
