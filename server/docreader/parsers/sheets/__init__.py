"""Spreadsheets (xlsx, xls) → one Markdown table per sheet, written to the sink sheet by sheet.

The parsers live in ``xlsx`` and ``xls``; this package file imports nothing so that the CSV
parser can share ``header_option`` without loading openpyxl or xlrd.
"""
