"""OCR languages at the API: tesseract language codes, checked for their form before anything
is stored or queued. Only the docreader knows which languages it has installed; it refuses
a language it lacks when the document is converted (INVALID_ARGUMENT naming the installed
ones, which its ListEngines also reports)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from core.errors import InvalidArgument

MAX_OCR_LANGUAGES = 8
# "eng", "chi_sim", "deu_latf": letters, digits and "_"; "+" joins codes in tesseract's own
# syntax, here each code is its own entry.
_CODE = re.compile(r"[a-z][a-z0-9_]{1,31}", re.IGNORECASE)
# Orientation and script detection data, not a language to read text in.
_NOT_LANGUAGES = frozenset({"osd"})


def check_ocr_languages(languages: Sequence[str], field: str) -> None:
    """INVALID_ARGUMENT with a field violation (``{field}[i]``) per malformed, repeated or
    excess code."""
    violations: list[tuple[str, str]] = []
    if len(languages) > MAX_OCR_LANGUAGES:
        violations.append((field, f"has {len(languages)} entries, at most {MAX_OCR_LANGUAGES}"))
    seen: set[str] = set()
    for index, code in enumerate(languages):
        where = f"{field}[{index}]"
        if not _CODE.fullmatch(code):
            violations.append(
                (
                    where,
                    f"{code!r} is not a tesseract language code (one code per entry, "
                    "letters, digits and '_', e.g. eng, rus, chi_sim)",
                )
            )
        elif code in _NOT_LANGUAGES:
            violations.append((where, f"{code!r} is tesseract's script detection, not a language"))
        elif code in seen:
            violations.append((where, f"{code!r} is listed twice"))
        seen.add(code)
    if violations:
        raise InvalidArgument(violations)
