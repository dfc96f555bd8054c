"""Rewrites imports of the old flat workers/pipeline modules to their new places (issue 12:
the pipeline grouped by concept). For merging branches written against the old layout:
run ``python tools/rewrite_pipeline_imports.py`` at the repository root after the merge;
it is idempotent. Delete it once no branch uses the old names."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

MOVES = {
    "checkpoint": "round.checkpoint",
    "spans": "round.spans",
    "state": "round.state",
    "round_cleanup": "round.cleanup",
    "failure": "round.failure",
    "time_limit": "round.time_limit",
    "resume": "round.resume",
    "errors": "round.errors",
    "url_source": "reading.url_source",
    "images": "reading.images",
    "transcription": "reading.transcription",
    "markdown_images": "markdown.images",
    "markdown_tables": "markdown.tables",
    "chunk_stitching": "chunks.stitching",
    "chunk_indexing": "chunks.indexing",
    "cell_values": "tables.cell_values",
    "table_profile": "tables.profile",
    "table_text": "tables.text",
}
# The stage functions of the old stages.py are stage classes now; only chunk_id moved as is.
NAMES = {
    "from workers.pipeline.stages import chunk_id\n": (
        "from workers.pipeline.stages.chunking import chunk_id\n"
    ),
}


def rewrite(text: str) -> str:
    for old, new in MOVES.items():
        text = re.sub(rf"\bworkers\.pipeline\.{old}\b", f"workers.pipeline.{new}", text)
    for old, new in NAMES.items():
        text = text.replace(old, new)
    return text


def main() -> None:
    listed = subprocess.run(
        ["git", "ls-files", "*.py"], capture_output=True, text=True, check=True
    ).stdout.split()
    for name in listed:
        path = Path(name)
        before = path.read_text()
        after = rewrite(before)
        if after != before:
            path.write_text(after)
            print("rewrote", name)


if __name__ == "__main__":
    main()
