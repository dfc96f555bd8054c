"""Argument types the CLI's commands share."""

from __future__ import annotations

import argparse


def key_value(text: str) -> tuple[str, str]:
    """`KEY=VALUE` → (key, value); the value may be empty or hold `=`."""
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"expected key=value, got {text!r}")
    return key, value
