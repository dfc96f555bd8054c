"""The chunking span records the chunks longer than the chunk size (the unit the chunker
never cuts: a table row with its repeated header; a fenced code block is cut between lines),
run by the real chunking stage on the databases of test_data_table (chunks of 300
characters)."""

from __future__ import annotations

from tests.integration.pipeline.test_data_table import CHUNKING, ctx, processed_knowledge, spans_of
from workers.context import WorkerContext

__all__ = ["ctx"]  # the fixture, imported for the tests below

SIZE = CHUNKING["chunk_size"]
_CODE = [f"total_{n} = compute(item_{n}) * factor" for n in range(20)]
FENCE = "\n".join(["```python", *_CODE, "```"])
LONG_ROW = "| pump 7 | " + "a note on the seals and the bearings " * 12 + "|"
TABLE = "| item | note |\n|---|---|\n| pump 1 | fine |\n" + LONG_ROW + "\n| pump 9 | fine |"
PROSE = "The gate keeper logs every reading. " * 20


def test_chunks_over_the_size_are_counted_with_the_longest(ctx: WorkerContext) -> None:
    assert len(FENCE) > SIZE and len(LONG_ROW) > SIZE
    markdown = "\n\n".join(["# Pumps", PROSE, FENCE, PROSE, TABLE, PROSE])
    row = processed_knowledge(ctx, markdown, file_name="pumps.md")
    output = spans_of(ctx, row.id)["chunking"].output
    # The long row under the table's header and delimiter rows; the fence is cut.
    row_chunk = len("| item | note |\n|---|---|\n") + len(LONG_ROW)
    assert output["oversize_chunks"] == 1
    assert output["oversize_max_chars"] == row_chunk
    chunks, _ = ctx.chunks.list_by_knowledge(row.id, limit=1000, tenant_id=None)
    over = [len(c.content) for c in chunks if len(c.content) > SIZE]
    assert over == [row_chunk]
    code = [c.content for c in chunks if "total_0" in c.content or "total_19" in c.content]
    assert len(code) == 2 and code[0].endswith("\n```") and code[1].startswith("```python\n")


def test_a_document_whose_chunks_all_fit_records_none(ctx: WorkerContext) -> None:
    row = processed_knowledge(ctx, "\n\n".join(["# Gates", PROSE, TABLE[:60], PROSE]), "gates.md")
    output = spans_of(ctx, row.id)["chunking"].output
    assert output["oversize_chunks"] == 0
    assert output["oversize_max_chars"] == 0
