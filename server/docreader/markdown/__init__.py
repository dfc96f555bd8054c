"""Markdown building blocks shared by the parsers."""
