"""The PDF parser: text in reading order, tables, figures, OCR of scanned pages (PDFium)."""

from server.docreader.parsers.pdf.parser import PdfParser

__all__ = ["PdfParser"]
