"""Which docreader engine reads a file type, with which options (spec: ResolveParserEngine
and MergeParserEngineOverrides).

Rules come from the knowledge base first, then from the upload's overrides. A later rule for
the same file type wins the engine; its options are merged over the earlier ones when it
names the same engine (or none), and replace them when it switches engines, since one
engine's options mean nothing to another. Two options are switches of the read itself:
``enable_ocr`` and ``first_row_header`` ("false" turns them off).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

DEFAULT_ENGINE = "builtin"
_SWITCHES = ("enable_ocr", "first_row_header")
_FALSE = frozenset({"false", "0", "no", "off"})


@dataclass(frozen=True)
class ParserChoice:
    engine: str = DEFAULT_ENGINE
    options: Mapping[str, str] = field(default_factory=dict)

    @property
    def engine_options(self) -> dict[str, str]:
        """The options meant for the engine itself (the read switches taken out)."""
        return {k: v for k, v in self.options.items() if k not in _SWITCHES}

    def switch(self, name: str) -> bool:
        return self.options.get(name, "true").strip().lower() not in _FALSE


def merge_rules(rules: Iterable[Mapping[str, Any]]) -> dict[str, ParserChoice]:
    """File type → the engine and options its rules add up to, in the order given."""
    merged: dict[str, ParserChoice] = {}
    for rule in rules:
        file_type = str(rule.get("file_type", "")).strip().lower().lstrip(".")
        if not file_type:
            continue
        options = {str(k): str(v) for k, v in (rule.get("options") or {}).items()}
        earlier = merged.get(file_type)
        engine = str(rule.get("engine") or (earlier.engine if earlier else DEFAULT_ENGINE))
        if earlier is not None and earlier.engine == engine:
            options = {**earlier.options, **options}
        merged[file_type] = ParserChoice(engine, options)
    return merged
