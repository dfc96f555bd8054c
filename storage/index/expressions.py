"""Milvus boolean filter expressions built from values, never from unescaped input."""

from __future__ import annotations

from collections.abc import Sequence

# Milvus (and milvus-lite's parser) accept C-style escapes inside double-quoted literals.
_ESCAPES = str.maketrans({"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"})


def quote(value: str) -> str:
    """`value` as a double-quoted Milvus string literal."""
    return '"' + value.translate(_ESCAPES) + '"'


def field_in(field: str, values: Sequence[str]) -> str:
    """`field in [...]`; `values` must not be empty (an empty scope is the caller's decision)."""
    if not values:
        raise ValueError(f"no values for filter on {field}")
    return f"{field} in [{', '.join(quote(v) for v in dict.fromkeys(values))}]"


def field_eq(field: str, value: str) -> str:
    return f"{field} == {quote(value)}"


def all_of(*clauses: str) -> str:
    return " and ".join(f"({clause})" for clause in clauses)
