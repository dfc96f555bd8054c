"""(h) What detecting the OCR languages costs: a scanned PDF read with its languages unset
(tesseract's script detection picks them) against the same PDF with them given, alternated
and compared by medians. Detection runs once per document, so the cost shrinks with the page
count; the full size reads a 2-page scan 3 times each way, ``--quick`` a 1-page scan twice.

    .venv/bin/python -m bench.ocr_languages [--quick]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont
from reportlab.lib.pagesizes import A4
from reportlab.lib.utils import ImageReader
from reportlab.pdfgen import canvas

from bench.report import write_result
from server.docreader.parser_contract import ParseOptions, parse_to_document
from server.docreader.parsers.pdf import PdfParser

_LINE = "The reservoir behind the dam holds back enough water to feed three towns."


def _scanned_pdf(path: Path, pages: int) -> None:
    """Pages that are one picture each of 30 lines of English text (no text layer)."""
    scan = Image.new("L", (1240, 1754), 255)
    drawing = ImageDraw.Draw(scan)
    font = ImageFont.load_default(size=28)
    for line in range(30):
        drawing.text((80, 80 + line * 52), _LINE, font=font, fill=0)
    pdf = canvas.Canvas(str(path), pagesize=A4)
    for _ in range(pages):
        pdf.drawImage(ImageReader(scan), 0, 0, *A4)
        pdf.showPage()
    pdf.save()


def _read_s(path: Path, languages: tuple[str, ...]) -> float:
    start = time.perf_counter()
    document = parse_to_document(
        PdfParser(), path, ParseOptions(file_name=path.name, ocr_languages=languages)
    )
    elapsed = time.perf_counter() - start
    if document.metadata.get("ocr_languages") != "eng" or _LINE not in document.markdown:
        raise SystemExit(f"the scan was not read as English: {document.metadata}")
    return elapsed


def main(argv: Sequence[str] | None = None) -> dict[str, object]:
    parser = argparse.ArgumentParser(prog="bench.ocr_languages", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="1 page, 2 reads each way")
    args = parser.parse_args(argv)
    pages, rounds = (1, 2) if args.quick else (2, 3)
    detected: list[float] = []
    given: list[float] = []
    with tempfile.TemporaryDirectory(prefix="sluice-bench-") as tmp:
        path = Path(tmp) / "scan.pdf"
        _scanned_pdf(path, pages)
        for _ in range(rounds):
            given.append(_read_s(path, ("eng",)))
            detected.append(_read_s(path, ()))
    figures: dict[str, object] = {
        "pages": pages,
        "rounds": rounds,
        "given_median_s": round(statistics.median(given), 2),
        "detected_median_s": round(statistics.median(detected), 2),
        "ratio": round(statistics.median(detected) / statistics.median(given), 2),
    }
    print(
        f"{pages}-page scan: languages given {figures['given_median_s']} s, detected "
        f"{figures['detected_median_s']} s (medians of {rounds}); ratio {figures['ratio']}"
    )
    write_result("ocr_languages", figures)
    return figures


if __name__ == "__main__":
    main()
