"""(e) Format parsing speed: Sluice's own parsers on large files against the raw library read
of the same file in the same run, and against markitdown.

Inputs (tests/support/corpus_large.py, seeded): a 50-page text PDF with a 40-cell ruled
table on every page ("pdf"), the same number of pages of prose and headings only
("pdf-text"), a 10,000-row x 10-column xlsx, a 100-page docx (2,500 paragraphs, 20 tables)
and a 1 MB HTML article. Rows per input, each the median of `-n` runs taken in turn (one
unmeasured warm-up each):

- ours: the parser in this process, ``parse_to_document(Parser(), path, ParseOptions(...))``;
- raw: the library alone — pypdfium2 text of every page; openpyxl read-only iteration of
  every cell; python-docx ``Document()`` load; ``lxml.html.fromstring``;
- gRPC: the same file through a real docreader on loopback (``python -m server.docreader``,
  i.e. ``build_docreader_server``, in its own process as deployed; ReadUpload via
  ``DocReaderClient.read_file``), which parses in a sandboxed child: the difference to
  "ours" is the sandbox and transport overhead. (In this process instead, every sandboxed
  child would re-import this script as its main module, heavy imports included.)
- markitdown: ``MarkItDown().convert(path)``, the reference-class converter.

Target: raw/ours >= 0.5 for every input (PDF: pages/s at least half of pypdfium2's, for
each PDF; the others: at most twice the raw read's time). The gRPC and markitdown rows are
reported only.

    .venv/bin/python -m bench.formats [-n 5] [--quick]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import docx
import lxml.html
import openpyxl
import pypdfium2
from markitdown import MarkItDown

from bench.report import verdict, write_result
from server.docreader.parser_contract import ParseOptions, Parser, parse_to_document
from tests.support.corpus import LargeFile, build_large_files
from tests.support.corpus_large import build_text_pdf
from tests.support.processes import Process, free_port, python, wait_for_port
from workers.docreader_client import DocReaderClient

NAME = "formats"
TARGET_RAW_OVER_OURS = 0.5
MESSAGE_BYTES = 64 << 20
CALL_TIMEOUT_S = 600.0
START_TIMEOUT_S = 60.0


def _our_parser(file_type: str) -> Parser:
    """Imported when needed, so one missing parser costs its row, not the benchmark."""
    if file_type == "pdf":
        from server.docreader.parsers.pdf import PdfParser

        return PdfParser()
    if file_type == "xlsx":
        from server.docreader.parsers.sheets.xlsx import XlsxParser

        return XlsxParser()
    if file_type == "docx":
        from server.docreader.parsers.office.docx import DocxParser

        return DocxParser()
    from server.docreader.parsers.html import HtmlParser

    return HtmlParser()


def _raw_pdf(path: Path) -> None:
    pdf = pypdfium2.PdfDocument(str(path))
    try:
        for page in pdf:
            text = page.get_textpage()
            text.get_text_range()
            text.close()
            page.close()
    finally:
        pdf.close()


def _raw_xlsx(path: Path) -> None:
    workbook = openpyxl.load_workbook(path, read_only=True)
    try:
        for sheet in workbook.worksheets:
            for _ in sheet.iter_rows(values_only=True):
                pass
    finally:
        workbook.close()


def _raw_docx(path: Path) -> None:
    docx.Document(str(path))


def _raw_html(path: Path) -> None:
    lxml.html.fromstring(path.read_bytes())


_RAW: dict[str, tuple[str, Callable[[Path], None]]] = {
    "pdf": ("pypdfium2 text", _raw_pdf),
    "xlsx": ("openpyxl read-only", _raw_xlsx),
    "docx": ("python-docx load", _raw_docx),
    "html": ("lxml.html parse", _raw_html),
}


@dataclass
class Timings:
    """Seconds per run of each way of reading one file; an error replaces a row's runs."""

    ours: list[float]
    raw: list[float]
    grpc: list[float]
    markitdown: list[float]
    errors: dict[str, str]
    markdown_chars: int = 0
    markitdown_chars: int = 0


def _timed(run: Callable[[], object]) -> tuple[float, object]:
    start = time.perf_counter()
    result = run()
    return time.perf_counter() - start, result


def _measure(file: LargeFile, runs: int, client: DocReaderClient, converter: MarkItDown) -> Timings:
    timings = Timings([], [], [], [], {})
    options = ParseOptions(file_name=file.path.name, file_type=file.file_type)
    try:
        parser: Parser | None = _our_parser(file.file_type)
    except ImportError as err:
        parser = None
        timings.errors["ours"] = f"parser not available: {err}"
    raw = _RAW[file.file_type][1]
    rows: dict[str, tuple[list[float], Callable[[], object]]] = {}
    if parser is not None:
        chosen = parser
        rows["ours"] = (timings.ours, lambda: parse_to_document(chosen, file.path, options))
    rows["raw"] = (timings.raw, lambda: raw(file.path))
    rows["grpc"] = (timings.grpc, lambda: client.read_file(file.path))
    rows["markitdown"] = (timings.markitdown, lambda: converter.convert(str(file.path)))
    for attempt in range(runs + 1):  # the first is a warm-up
        for name, (seconds, run) in rows.items():
            if name in timings.errors:
                continue
            try:
                elapsed, result = _timed(run)
            except Exception as err:  # a failing row is reported, the others still run
                timings.errors[name] = f"{type(err).__name__}: {err}"
                continue
            if attempt:
                seconds.append(elapsed)
            if name == "ours":
                timings.markdown_chars = len(getattr(result, "markdown", ""))
            elif name == "markitdown":
                timings.markitdown_chars = len(getattr(result, "text_content", ""))
    return timings


def _ms(values: list[float]) -> float | None:
    return round(statistics.median(values) * 1000, 1) if values else None


def _summary(file: LargeFile, timings: Timings) -> dict[str, object]:
    ours, raw = _ms(timings.ours), _ms(timings.raw)
    grpc, reference = _ms(timings.grpc), _ms(timings.markitdown)
    figures: dict[str, object] = {
        "input": file.description,
        "size_bytes": file.path.stat().st_size,
        "raw_library": _RAW[file.file_type][0],
        "ours_ms": ours,
        "raw_ms": raw,
        "grpc_ms": grpc,
        "markitdown_ms": reference,
        "markdown_chars": timings.markdown_chars,
        "markitdown_chars": timings.markitdown_chars,
        "errors": timings.errors,
    }
    figures["raw_over_ours"] = round(raw / ours, 3) if ours and raw else None
    figures["raw_over_grpc"] = round(raw / grpc, 3) if grpc and raw else None
    figures["markitdown_over_ours"] = round(reference / ours, 2) if ours and reference else None
    figures["met"] = bool(ours and raw and raw / ours >= TARGET_RAW_OVER_OURS)
    if file.file_type == "pdf":
        pdf = pypdfium2.PdfDocument(str(file.path))
        pages = len(pdf)
        pdf.close()
        figures["ours_pages_per_s"] = round(pages / ours * 1000, 1) if ours else None
        figures["raw_pages_per_s"] = round(pages / raw * 1000, 1) if raw else None
    return figures


def _print(kind: str, figures: dict[str, object]) -> None:
    def ms(key: str) -> str:
        value = figures[key]
        return f"{value:.0f} ms" if isinstance(value, float) else "-"

    ratio, grpc_ratio = figures["raw_over_ours"], figures["raw_over_grpc"]
    speedup = figures["markitdown_over_ours"]
    lines = [
        f"{kind} ({figures['input']}): ours {ms('ours_ms')}, raw {figures['raw_library']} "
        f"{ms('raw_ms')}; raw/ours "
        + (
            f"{ratio:.2f} (ours = {1 / ratio:.2f}x raw), {verdict(ratio, TARGET_RAW_OVER_OURS)}"
            if isinstance(ratio, float)
            else "-"
        ),
    ]
    if "raw_pages_per_s" in figures:
        lines.append(
            f"  pages/s: ours {figures['ours_pages_per_s']}, raw {figures['raw_pages_per_s']}"
        )
    lines.append(
        f"  via gRPC docreader: {ms('grpc_ms')}"
        + (f" (raw/gRPC {grpc_ratio:.2f})" if isinstance(grpc_ratio, float) else "")
    )
    lines.append(
        f"  markitdown: {ms('markitdown_ms')}"
        + (f", ours {speedup:.1f}x faster" if isinstance(speedup, float) else "")
        + f" (Markdown chars: ours {figures['markdown_chars']}, "
        f"markitdown {figures['markitdown_chars']})"
    )
    errors = figures["errors"]
    if isinstance(errors, dict):
        lines += [f"  {row} FAILED: {message}" for row, message in errors.items()]
    print("\n".join(lines), flush=True)


def _inputs(directory: Path) -> list[tuple[str, LargeFile]]:
    """(row name, file): each format's file, the text-only PDF right after the other PDF."""
    rows: list[tuple[str, LargeFile]] = []
    for file in build_large_files(directory):
        rows.append((file.file_type, file))
        if file.file_type == "pdf":
            rows.append(("pdf-text", build_text_pdf(directory)))
    return rows


def main(argv: Sequence[str] | None = None) -> dict[str, object]:
    parser = argparse.ArgumentParser(prog="bench.formats", description=__doc__)
    parser.add_argument("-n", type=int, default=5, help="measured runs per row (median)")
    parser.add_argument("--quick", action="store_true", help="2 runs per row")
    args = parser.parse_args(argv)
    runs = 2 if args.quick else args.n
    port = free_port()
    docreader = Process(
        "docreader",
        python(
            "-m",
            "server.docreader",
            "--address",
            f"127.0.0.1:{port}",
            "--max-message-bytes",
            str(MESSAGE_BYTES),
        ),
        {},
    )
    per_format: dict[str, dict[str, object]] = {}
    try:
        wait_for_port(port, START_TIMEOUT_S, docreader.proc)
        with (
            tempfile.TemporaryDirectory(prefix="sluice-bench-") as tmp,
            DocReaderClient(
                f"127.0.0.1:{port}", timeout_s=CALL_TIMEOUT_S, max_message_bytes=MESSAGE_BYTES
            ) as client,
        ):
            converter = MarkItDown()
            for row, file in _inputs(Path(tmp)):
                figures = _summary(file, _measure(file, runs, client, converter))
                per_format[row] = figures
                _print(row, figures)
    finally:
        docreader.stop()
    met = all(f["met"] for f in per_format.values())
    figures_out: dict[str, object] = {
        "runs": runs,
        "target_raw_over_ours": TARGET_RAW_OVER_OURS,
        "formats": per_format,
        "met": met,
    }
    write_result(NAME, figures_out)
    return figures_out


if __name__ == "__main__":
    main()
