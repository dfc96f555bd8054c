"""Markdown chunker: blocks (fences whole, tables cut between rows under their header),
recursive splitting, offsets and heading breadcrumbs."""

from workers.chunker.config import ChildChunk, ChunkerConfig, TextChunk
from workers.chunker.markdown_splitter import split_markdown, split_parent_child

__all__ = ["ChildChunk", "ChunkerConfig", "TextChunk", "split_markdown", "split_parent_child"]
