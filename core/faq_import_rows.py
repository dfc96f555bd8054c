"""One row of an FAQ import as the API read it and the import task takes it: in the task's
payload (a small import) or, one JSON object a line, in a stored file (a large one).

A row is what the file said, split into the entry's fields but not yet cleaned or
validated (the task does that, so a row that fails is a failed row of the job, kept for
the failure CSV, not a refused request). ``columns`` is the row as read, for that CSV."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

# Beyond these (the task payload's limits), rows are stored and the payload names the file.
INLINE_MAX_ROWS = 200
INLINE_MAX_BYTES = 50 * 1024


@dataclass(frozen=True)
class ImportRow:
    row_number: int
    standard_question: str = ""
    similar_questions: list[str] = field(default_factory=list)
    negative_questions: list[str] = field(default_factory=list)
    answers: list[str] = field(default_factory=list)
    # "all", "random" or "" (the entry's default).
    answer_strategy: str = ""
    # A tag id (a list import) or a tag name (a file: found, or created, by name).
    tag_id: str = ""
    tag_name: str = ""
    columns: dict[str, str] = field(default_factory=dict)
    # Why the row cannot be an entry at all (a cell the reader could not take), else "".
    error: str = ""

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> ImportRow:
        return cls(**raw)

    @classmethod
    def from_json(cls, line: str | bytes) -> ImportRow:
        return cls.from_dict(json.loads(line))
