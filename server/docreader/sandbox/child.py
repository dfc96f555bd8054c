"""The parse child: caps its own memory, decides the file's real type from its bytes, runs the
parser into a DiskSink, reports the outcome. Everything that touches the untrusted file —
the type sniffing too — happens here, under the cap, never in the server.

The child makes itself a process-group leader, so the parent can kill it together with
whatever it started (LibreOffice, tesseract) in one signal. What it sends back is a small
``ChildOutcome``; the document itself is in the output directory.
"""

from __future__ import annotations

import logging
import os
import resource
from dataclasses import dataclass, replace
from multiprocessing.connection import Connection
from pathlib import Path

from server.docreader.engines import default_registry
from server.docreader.errors import DocReaderError
from server.docreader.parser_contract import ParseOptions
from server.docreader.sandbox.disk_sink import DiskSink
from server.docreader.sniff import sniff_file_type

logger = logging.getLogger(__name__)
# Built once where this module is imported: the forkserver preloads it, so every forked
# child starts with the parsers constructed instead of building them per parse.
REGISTRY = default_registry()


@dataclass(frozen=True)
class ParseJob:
    engine: str
    # The type the caller declared (or the name's extension); the bytes may overrule it.
    declared_type: str
    source: Path
    options: ParseOptions
    # The read's private directory: the typed input link, scratch space, the spooled output.
    work_dir: Path

    @property
    def display_name(self) -> str:
        return self.options.file_name or f"the {self.declared_type} file"

    @property
    def out_dir(self) -> Path:
        return self.work_dir / "out"


@dataclass(frozen=True)
class ChildOutcome:
    # Empty when the parse succeeded; else the DocReaderError subclass name to raise.
    error_kind: str = ""
    message: str = ""
    # The type the file was read as ("" when the parse failed before deciding).
    detected_type: str = ""
    # The sandbox limit that stopped the parse ("memory"), for the server's metrics.
    stopped_by: str = ""


def run_child(job: ParseJob, conn: Connection, memory_cap_bytes: int) -> None:
    os.setpgrp()
    if memory_cap_bytes > 0:
        resource.setrlimit(resource.RLIMIT_AS, (memory_cap_bytes, memory_cap_bytes))
    try:
        conn.send(_parse(job, memory_cap_bytes))
    finally:
        conn.close()


def _parse(job: ParseJob, memory_cap_bytes: int) -> ChildOutcome:
    name = job.display_name
    kind = job.declared_type
    try:
        kind = sniff_file_type(job.source, job.declared_type)
        parser = REGISTRY.get(job.engine).parser_for(kind)
        # Libraries pick their reader by extension (openpyxl refuses others): give them one.
        typed = job.work_dir / f"input.{kind}"
        typed.symlink_to(job.source.resolve())
        scratch = job.work_dir / "scratch"
        scratch.mkdir()
        job.out_dir.mkdir()
        with DiskSink(job.out_dir) as sink:
            parser.parse(typed, replace(job.options, file_type=kind, work_dir=scratch), sink)
    except DocReaderError as err:
        return ChildOutcome(type(err).__name__, str(err))
    except MemoryError:
        cap_mib = memory_cap_bytes >> 20
        return ChildOutcome(
            "ParseError",
            f"reading {name} needed more than the {cap_mib} MiB memory cap",
            stopped_by="memory",
        )
    except RecursionError:
        return ChildOutcome("ParseError", f"{name} is nested too deeply to read")
    except Exception as err:
        # A library tripping over malformed input; the traceback goes to the log for bugs.
        logger.exception("parser failed on %s", name)
        return ChildOutcome(
            "ParseError",
            f"{name} could not be read as {kind}: {type(err).__name__}: {err}",
        )
    return ChildOutcome(detected_type=kind)
