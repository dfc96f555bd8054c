"""What "nothing lost, nothing doubled, nothing orphaned" means, checked on the real
stores after a deployment went through crashes: the database, the index and the files."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pymilvus import MilvusClient
from sqlalchemy import text

from storage.db.engine import Database
from storage.index.collection_schema import collection_name

_QUERY_LIMIT = 16_384


def integrity_problems(database_url: str, milvus_uri: str, storage_dir: Path) -> list[str]:
    """Every problem found; an empty list means the stores agree with each other."""
    db = Database.from_url(database_url)
    try:
        with db.engine.connect() as conn:
            knowledges = {
                row.id: row
                for row in conn.execute(text("SELECT id, parse_status, attempt FROM knowledges"))
            }
            chunks = conn.execute(
                text("SELECT id, knowledge_id, chunk_type, chunk_index FROM chunks")
            ).all()
            written = {
                row.knowledge_id: row.output
                for row in conn.execute(
                    text(
                        "SELECT s.knowledge_id, s.output FROM knowledge_processing_spans s "
                        "JOIN knowledges k ON k.id = s.knowledge_id AND k.attempt = s.attempt "
                        "WHERE s.name = 'chunking'"
                    )
                )
            }
            model_keys = [
                row[0]
                for row in conn.execute(
                    text("SELECT DISTINCT embedding_model_key FROM knowledge_bases")
                )
            ]
    finally:
        db.dispose()
    problems = _chunk_problems(knowledges, chunks, written)
    problems += _index_problems(knowledges, chunks, milvus_uri, model_keys)
    problems += _file_problems(knowledges, storage_dir)
    return problems


def _chunk_problems(
    knowledges: dict[str, Any], chunks: Sequence[Any], written: dict[str, Any]
) -> list[str]:
    problems = []
    keys = Counter((c.knowledge_id, c.chunk_type, c.chunk_index) for c in chunks)
    problems += [f"chunk stored {n} times: {key}" for key, n in keys.items() if n > 1]
    per_knowledge = Counter(c.knowledge_id for c in chunks)
    for knowledge_id, row in knowledges.items():
        if row.parse_status != "completed":
            continue
        output = written.get(knowledge_id)
        if isinstance(output, str):  # SQLite hands JSON back as text through Core
            output = json.loads(output)
        # A round that resumed an earlier one's parse kept its chunks instead of writing.
        output = output or {}
        expected = int(output.get("chunks_written", -1)) + int(output.get("chunks_kept", 0))
        if per_knowledge[knowledge_id] != expected:
            problems.append(
                f"knowledge {knowledge_id}: {per_knowledge[knowledge_id]} chunks, its final "
                f"attempt {row.attempt} wrote or kept {expected}"
            )
    return problems


def _index_problems(
    knowledges: dict[str, Any], chunks: Sequence[Any], milvus_uri: str, model_keys: list[str]
) -> list[str]:
    chunk_owner = {c.id: c.knowledge_id for c in chunks}
    indexed: dict[str, set[str]] = defaultdict(set)
    problems = []
    client = MilvusClient(uri=milvus_uri)
    try:
        for model_key in model_keys:
            name = collection_name(model_key) if model_key else ""
            if not name or not client.has_collection(name):
                continue
            client.load_collection(name)
            rows = client.query(
                name,
                filter='knowledge_id != ""',
                output_fields=["id", "knowledge_id", "chunk_id"],
                limit=_QUERY_LIMIT,
            )
            for row in rows:
                owner = chunk_owner.get(row["chunk_id"])
                if row["knowledge_id"] not in knowledges or owner != row["knowledge_id"]:
                    problems.append(f"orphaned index row {row['id']} of {row['knowledge_id']}")
                indexed[row["knowledge_id"]].add(row["chunk_id"])
    finally:
        client.close()
    for knowledge_id, row in knowledges.items():
        if row.parse_status == "completed":
            own = {c.id for c in chunks if c.knowledge_id == knowledge_id}
            if indexed[knowledge_id] != own:
                problems.append(f"knowledge {knowledge_id}: index and chunks differ")
    return problems


def _file_problems(knowledges: dict[str, Any], storage_dir: Path) -> list[str]:
    """Stored keys are {tenant}/{knowledge}/{file}; hidden entries are the staging area."""
    problems = []
    for path in storage_dir.rglob("*"):
        relative = path.relative_to(storage_dir)
        if not path.is_file() or relative.parts[0].startswith("."):
            continue
        if len(relative.parts) < 3 or relative.parts[1] not in knowledges:
            problems.append(f"stored file {relative} belongs to no knowledge")
    return problems
