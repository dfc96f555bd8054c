"""The import file layout: which column (or JSON key) holds which field of an entry, and
how a cell holding several values is split.

Column headers are matched case-insensitively, ignoring anything from an opening
parenthesis on, so the reference system's Chinese template headers (问题(必填),
相似问题(选填-多个用##分隔), ...) match as they are. Other columns are kept in the row (for
the failure CSV) and otherwise ignored."""

from __future__ import annotations

import re
from collections.abc import Mapping

from core.errors import InvalidArgument
from core.faq_import_rows import ImportRow

# A cell with several similar questions, negative questions or answers: split on "##" or
# on line breaks.
VALUE_SEPARATOR = re.compile(r"##|\r\n|\r|\n")

FIELD_ALIASES: dict[str, tuple[str, ...]] = {
    "standard_question": ("standard_question", "question", "问题", "标准问题", "标准问"),
    "similar_questions": ("similar_questions", "相似问题", "相似问"),
    "negative_questions": ("negative_questions", "反例问题", "负面问题"),
    "answers": ("answers", "answer", "机器人回答", "答案", "回答"),
    "answer_strategy": ("answer_strategy",),
    # The reference template's yes/no column: yes = every answer, no = one at random.
    "reply_all": ("是否全部回复",),
    "tag": ("tag", "分类", "标签"),
}
REQUIRED_FIELDS = ("standard_question", "answers")

_ALIAS_TO_FIELD = {alias: name for name, aliases in FIELD_ALIASES.items() for alias in aliases}
# An opening parenthesis, ASCII or full-width (U+FF08), and the note after it.
_HEADER_NOTE = re.compile("[(\\uff08].*$", re.DOTALL)
_YES = {"true", "yes", "1", "是", "y"}
_NO = {"false", "no", "0", "否", "n", ""}


def field_of(header: str) -> str | None:
    """The entry field a column header names, if any."""
    return _ALIAS_TO_FIELD.get(_HEADER_NOTE.sub("", header).strip().lower())


def header_fields(headers: list[str]) -> dict[int, str]:
    """Column index -> field; INVALID_ARGUMENT (row 1) when a required column is missing or
    a field has two columns."""
    fields: dict[int, str] = {}
    for index, header in enumerate(headers):
        name = field_of(header)
        if name is None:
            continue
        if name in fields.values():
            raise InvalidArgument.field("data", f"row 1: two columns hold {name} ({header!r})")
        fields[index] = name
    missing = [name for name in REQUIRED_FIELDS if name not in fields.values()]
    if missing:
        raise InvalidArgument.field(
            "data",
            f"row 1: the header has no {' or '.join(missing)} column "
            f"(accepted headers: {', '.join(FIELD_ALIASES[missing[0]])})",
        )
    return fields


def split_values(cell: str) -> list[str]:
    return [part.strip() for part in VALUE_SEPARATOR.split(cell) if part.strip()]


def row_from_cells(row_number: int, named: Mapping[str, str], columns: dict[str, str]) -> ImportRow:
    """An import row from a row's cells by field (``named``) and as read (``columns``)."""
    strategy, error = _strategy(named)
    return ImportRow(
        row_number=row_number,
        standard_question=named.get("standard_question", "").strip(),
        similar_questions=split_values(named.get("similar_questions", "")),
        negative_questions=split_values(named.get("negative_questions", "")),
        answers=split_values(named.get("answers", "")),
        answer_strategy=strategy,
        tag_name=named.get("tag", "").strip(),
        columns=columns,
        error=error,
    )


def _strategy(named: Mapping[str, str]) -> tuple[str, str]:
    """The answer strategy a row gives, or why it gives none that can be read."""
    given = named.get("answer_strategy", "").strip().lower()
    if given:
        if given in ("all", "random"):
            return given, ""
        return "", f"answer_strategy must be all or random, not {given!r}"
    reply_all = named.get("reply_all", "").strip().lower()
    if reply_all in _YES:
        return "all", ""
    if reply_all in _NO:
        return ("random" if reply_all else ""), ""
    return "", f"是否全部回复 must be TRUE or FALSE, not {reply_all!r}"
