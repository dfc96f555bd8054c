"""The parse child: caps its own memory, runs one parser into a DiskSink, reports the outcome.

The child makes itself a process-group leader, so the parent can kill it together with
whatever it started (LibreOffice, tesseract) in one signal. What it sends back is a small
``ChildOutcome``; the document itself is in the output directory.
"""

from __future__ import annotations

import logging
import os
import resource
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path

from server.docreader.engines import default_registry
from server.docreader.errors import DocReaderError
from server.docreader.parsers.base import ParseOptions
from server.docreader.sandbox.disk_sink import DiskSink

logger = logging.getLogger(__name__)
# Built once where this module is imported: the forkserver preloads it, so every forked
# child starts with the parsers constructed instead of building them per parse.
_REGISTRY = default_registry()


@dataclass(frozen=True)
class ParseJob:
    engine: str
    file_type: str
    source: Path
    options: ParseOptions
    out_dir: Path
    memory_cap_bytes: int


@dataclass(frozen=True)
class ChildOutcome:
    # Empty when the parse succeeded; else the DocReaderError subclass name to raise.
    error_kind: str = ""
    message: str = ""


def run_child(job: ParseJob, conn: Connection) -> None:
    os.setpgrp()
    if job.memory_cap_bytes > 0:
        resource.setrlimit(resource.RLIMIT_AS, (job.memory_cap_bytes, job.memory_cap_bytes))
    try:
        conn.send(_parse(job))
    finally:
        conn.close()


def _parse(job: ParseJob) -> ChildOutcome:
    name = job.options.file_name or f"the {job.file_type} file"
    try:
        parser = _REGISTRY.get(job.engine).parser_for(job.file_type)
        with DiskSink(job.out_dir) as sink:
            parser.parse(job.source, job.options, sink)
    except DocReaderError as err:
        return ChildOutcome(type(err).__name__, str(err))
    except MemoryError:
        cap_mib = job.memory_cap_bytes >> 20
        return ChildOutcome(
            "ParseError", f"reading {name} needed more than the {cap_mib} MiB memory cap"
        )
    except RecursionError:
        return ChildOutcome("ParseError", f"{name} is nested too deeply to read")
    except Exception as err:
        # A library tripping over malformed input; the traceback goes to the log for bugs.
        logger.exception("parser failed on %s", name)
        return ChildOutcome(
            "ParseError", f"{name} could not be read as {job.file_type}: "
            f"{type(err).__name__}: {err}",
        )
    return ChildOutcome()
