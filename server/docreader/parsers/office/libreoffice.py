"""The legacy binary formats (.doc, .ppt): converted to docx/pptx by a headless LibreOffice,
then read by the OOXML parsers.

Each conversion runs ``soffice --headless --convert-to`` with its own user profile from the
profile pool (see lo_profiles). On its own timeout soffice and every process under it (the
wrapper script, oosplash, soffice.bin) are killed, not just the first; it stays in the parse
child's process group, so the sandbox's kill of that group reaches it as well.
The input is converted from a copy with a fixed, harmless name, since names can be hostile.

DocParser and PptParser convert in ``options.work_dir`` (a private TemporaryDirectory when
None) with the timeout from the engine option ``convert_timeout_s`` (seconds, default 120).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psutil

from server.docreader.errors import EngineUnavailableError, InvalidRequestError, ParseError
from server.docreader.parser_contract import DocumentSink, ParseOptions, Parser
from server.docreader.parsers.office.docx import DocxParser
from server.docreader.parsers.office.lo_profiles import claimed_profile, discard_profile
from server.docreader.parsers.office.pptx import PptxParser

_SOFFICE = "soffice"
DEFAULT_CONVERT_TIMEOUT_S = 120.0
_OUTPUT_TAIL_CHARS = 500


def libreoffice_available() -> bool:
    return shutil.which(_SOFFICE) is not None


def convert_with_libreoffice(
    source: Path,
    target_ext: str,
    work_dir: Path,
    timeout_s: float,
    *,
    profiles_dir: Path | None = None,
) -> Path:
    """Convert ``source`` to ``target_ext`` (e.g. "docx") inside ``work_dir``; the new file's
    path. ``profiles_dir`` overrides the profile pool's base directory."""
    soffice = shutil.which(_SOFFICE)
    if soffice is None:
        raise EngineUnavailableError(
            f"the {source.suffix.lstrip('.') or 'input'} format needs LibreOffice (soffice), "
            "which is not installed"
        )
    if not target_ext.isalnum():
        raise ValueError(f"not a plain file extension: {target_ext!r}")
    input_dir = work_dir / "lo-input"
    output_dir = work_dir / "lo-output"
    input_dir.mkdir(parents=True, exist_ok=True)
    output_dir.mkdir(parents=True, exist_ok=True)
    safe_source = input_dir / ("input" + _safe_suffix(source))
    shutil.copyfile(source, safe_source)
    with claimed_profile(profiles_dir) as profile:
        command = [
            soffice,
            f"-env:UserInstallation={profile.absolute().as_uri()}",
            "--headless",
            "--norestore",
            "--nolockcheck",
            "--convert-to",
            target_ext,
            "--outdir",
            str(output_dir),
            str(safe_source),
        ]
        output = _run(command, timeout_s, profile, source)
    converted = output_dir / f"{safe_source.stem}.{target_ext}"
    if not converted.is_file() or converted.stat().st_size == 0:
        raise ParseError(
            f"LibreOffice could not convert {source.name!r} to {target_ext}: "
            f"{output[-_OUTPUT_TAIL_CHARS:].strip() or 'no output file'}"
        )
    return converted


def _run(command: list[str], timeout_s: float, profile: Path, source: Path) -> str:
    process = subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        # No session of its own: soffice stays in the parse child's process group, so the
        # sandbox's kill of that group reaches it too.
        # Fresh HOME: soffice must not read or write the service user's own settings.
        env={**os.environ, "HOME": str(profile.parent)},
    )
    try:
        output, _ = process.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        _kill_tree(process)
        # A profile killed mid-write may be corrupt; the next conversion rebuilds it.
        discard_profile(profile)
        raise ParseError(
            f"LibreOffice took longer than {timeout_s:g} s converting {source.name!r}"
        ) from None
    finally:
        # Helpers soffice left behind (soffice.bin) go too.
        _kill_tree(process)
    return output.decode("utf-8", "replace")


def _kill_tree(process: subprocess.Popen[bytes]) -> None:
    """Kill soffice and every process under it (the launcher starts soffice.bin)."""
    with contextlib.suppress(psutil.NoSuchProcess):
        for descendant in psutil.Process(process.pid).children(recursive=True):
            with contextlib.suppress(psutil.NoSuchProcess):
                descendant.kill()
    with contextlib.suppress(ProcessLookupError):
        process.kill()
    process.wait()


def _safe_suffix(source: Path) -> str:
    suffix = source.suffix.lower()
    return suffix if suffix[1:].isalnum() and len(suffix) <= 6 else ""


class _ConvertedParser:
    def __init__(self, target_ext: str, parser: Parser) -> None:
        self._target_ext = target_ext
        self._parser = parser

    def parse(self, source: Path, options: ParseOptions, sink: DocumentSink) -> None:
        timeout_s = _timeout(options)
        with _work_dir(options) as work_dir:
            converted = convert_with_libreoffice(source, self._target_ext, work_dir, timeout_s)
            self._parser.parse(converted, options, sink)


class DocParser(_ConvertedParser):
    """Word 97-2003 (.doc) → docx → Markdown."""

    def __init__(self) -> None:
        super().__init__("docx", DocxParser())


class PptParser(_ConvertedParser):
    """PowerPoint 97-2003 (.ppt) → pptx → Markdown."""

    def __init__(self) -> None:
        super().__init__("pptx", PptxParser())


def _timeout(options: ParseOptions) -> float:
    raw = options.engine_options.get("convert_timeout_s", "")
    if not raw:
        return DEFAULT_CONVERT_TIMEOUT_S
    try:
        value = float(raw)
    except ValueError:
        value = 0.0
    if not value > 0:
        raise InvalidRequestError(
            f"convert_timeout_s must be a positive number of seconds, got {raw!r}"
        )
    return value


@contextmanager
def _work_dir(options: ParseOptions) -> Iterator[Path]:
    if options.work_dir is not None:
        yield options.work_dir
        return
    with tempfile.TemporaryDirectory(prefix="sluice-lo-") as scratch:
        yield Path(scratch)
