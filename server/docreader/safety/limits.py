"""How much a single parse may consume; every parser checks its input against these."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ParseLimits:
    # Text-like inputs (txt, md, csv, json, html...) read whole: bigger is refused.
    max_text_bytes: int = 64 << 20
    # A "line" longer than this is not prose: minified blobs, binary junk, attacks.
    max_line_chars: int = 1 << 20
    # Zip containers (docx, xlsx, pptx, epub, xmind): members, total and per-member size,
    # and the compression ratio a member may have before it counts as a bomb.
    max_zip_members: int = 10_000
    max_unzipped_bytes: int = 1 << 30
    max_member_bytes: int = 256 << 20
    max_compression_ratio: float = 200.0
    # Decoded images: more pixels than this is a decompression bomb.
    max_image_pixels: int = 100_000_000
    # JSON / XML nesting.
    max_nesting_depth: int = 256
    max_pages: int = 10_000
    # A spreadsheet sheet: cells beyond this are cut (and the cut is recorded in metadata).
    max_sheet_cells: int = 5_000_000
