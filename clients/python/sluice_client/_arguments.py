"""Argument types and checks the CLI's commands share."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import typer


def key_values(texts: Iterable[str]) -> dict[str, str]:
    """`KEY=VALUE` texts → a dict; the value may be empty or hold `=`."""
    pairs: dict[str, str] = {}
    for text in texts:
        key, sep, value = text.partition("=")
        if not sep or not key:
            raise typer.BadParameter(f"expected key=value, got {text!r}")
        pairs[key] = value
    return pairs


def one_of(**given: str | None) -> tuple[str, str]:
    """(the option's name, its value) of the one option given of mutually exclusive ones."""
    present = [(name, value) for name, value in given.items() if value is not None]
    if len(present) != 1:
        names = ", ".join(f"--{name.replace('_', '-')}" for name in given)
        raise typer.BadParameter(f"give exactly one of {names}")
    return present[0]


def text_or_file(content: str | None, file: Path | None) -> str:
    """`--content TEXT` or `--file PATH` (UTF-8), exactly one of them."""
    name, value = one_of(content=content, file=None if file is None else str(file))
    return value if name == "content" else Path(value).read_text(encoding="utf-8")
