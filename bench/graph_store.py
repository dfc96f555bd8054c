"""(s) The knowledge graph's store and Search's graph expansion.

Writes: graph extraction's writes (SqlGraphStore.write_chunk: the knowledge row held, the
chunk's old rows replaced, entities and relations merged race-free, orphans pruned), one
chunk per transaction, against the same rows inserted by plain executemany INSERTs, one
chunk per transaction too (each entity and relation inserted the first time it appears,
nothing checked or merged: the floor of what storing the rows costs), on SQLite and on
PostgreSQL. The synthetic extractions draw 8 entities per chunk from a Zipf-distributed
vocabulary of 2,000 names (so most merge into entities earlier chunks made) and join 6
pairs of them by relations of 4 types. The store is also run from 4 threads at once.

Search: a lite server with documents indexed and their graph written, the same queries
searched without graph expansion and with it (hops 0 and 1), alternating query by query;
the ratio of median latencies.

    .venv/bin/python -m bench.graph_store [--chunks 1000] [--queries 40] [--quick]
"""

from __future__ import annotations

import argparse
import io
import itertools
import random
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from sluice_client import SluiceClient
from sluice_client._proto.sluice import v1
from sqlalchemy import insert

from bench.report import percentile, write_result
from storage.db.engine import Database
from storage.db.migrate import upgrade_to_head
from storage.db.models import GraphEntity, GraphMention, GraphRelation, GraphRelationSource
from storage.db.repositories.knowledge_bases import KnowledgeBaseRepository
from storage.db.repositories.knowledges import KnowledgeRepository
from storage.db.repositories.tenants import TenantRepository
from storage.graph.names import normalize_name
from storage.graph.sql_store import SqlGraphStore
from storage.graph.store import ChunkExtraction, ExtractedEntity, ExtractedRelation
from tests.e2e.graph_support import stack_database, write_graph
from tests.e2e.lifecycle_support import chunking, done
from tests.e2e.stacks import lite_stack
from tests.support.databases import postgres_database

NAME = "graph_store"
VOCABULARY = 2_000
ENTITIES_PER_CHUNK = 8
RELATIONS_PER_CHUNK = 6
RELATION_TYPES = ("feeds", "part_of", "inspects", "near")
CHUNKS_PER_KNOWLEDGE = 50
# Writers side by side in the threaded run.
THREADS = 4


@dataclass(frozen=True)
class Scope:
    tenant_id: str
    kb_id: str
    knowledge_ids: list[str]


def extractions(rng: random.Random, count: int) -> list[ChunkExtraction]:
    weights = [1.0 / (i + 1) for i in range(VOCABULARY)]
    found = []
    for n in range(count):
        names = sorted(
            {f"Device {i}" for i in rng.choices(range(VOCABULARY), weights, k=ENTITIES_PER_CHUNK)}
        )
        entities = [ExtractedEntity(name, "DEVICE", f"{name} in chunk {n}") for name in names]
        pairs = [rng.sample(names, 2) for _ in range(RELATIONS_PER_CHUNK)] if len(names) > 1 else []
        relations = [
            ExtractedRelation(a, b, rng.choice(RELATION_TYPES), f"{a} and {b}") for a, b in pairs
        ]
        found.append(ChunkExtraction(str(uuid.UUID(int=n)), entities, relations))
    return found


def _scope(db: Database, chunks: int, status: str) -> Scope:
    tenant = TenantRepository(db).create_tenant(f"bench-{uuid.uuid4().hex[:6]}")
    kb = KnowledgeBaseRepository(db).create(tenant.id, "bench-graph")
    rows = KnowledgeRepository(db)
    ids = [
        rows.create(tenant_id=tenant.id, knowledge_base_id=kb.id, parse_status=status, attempt=1).id
        for _ in range(-(-chunks // CHUNKS_PER_KNOWLEDGE))
    ]
    return Scope(tenant.id, kb.id, ids)


def store_writes(db: Database, found: Sequence[ChunkExtraction], threads: int = 1) -> float:
    """Seconds to write every chunk through the store, from ``threads`` threads (as graph
    extraction's tasks write side by side, merging the same entities)."""
    scope = _scope(db, len(found), "finalizing")
    store = SqlGraphStore(db)

    def write(n: int) -> None:
        knowledge = scope.knowledge_ids[n // CHUNKS_PER_KNOWLEDGE]
        assert store.write_chunk(scope.tenant_id, scope.kb_id, knowledge, 1, found[n])

    start = time.perf_counter()
    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(write, range(len(found))))
    return time.perf_counter() - start


def raw_inserts(db: Database, found: Sequence[ChunkExtraction]) -> float:
    """The same rows by plain executemany INSERTs, one transaction per chunk."""
    scope = _scope(db, len(found), "completed")
    entity_ids: dict[str, str] = {}
    relation_ids: dict[tuple[str, str, str], str] = {}
    start = time.perf_counter()
    for n, extraction in enumerate(found):
        knowledge = scope.knowledge_ids[n // CHUNKS_PER_KNOWLEDGE]
        new_entities, mentions, new_relations, sources = [], [], [], []
        for entity in extraction.entities:
            key = normalize_name(entity.name)
            if key not in entity_ids:
                entity_ids[key] = str(uuid.uuid4())
                new_entities.append(
                    {
                        "id": entity_ids[key],
                        "tenant_id": scope.tenant_id,
                        "knowledge_base_id": scope.kb_id,
                        "normalized_name": key,
                        "type": entity.type,
                        "name": entity.name,
                        "description": entity.description,
                    }
                )
            mentions.append(
                {
                    "entity_id": entity_ids[key],
                    "knowledge_id": knowledge,
                    "attempt": 1,
                    "chunk_id": extraction.chunk_id,
                    "description": entity.description,
                }
            )
        seen = set()
        for relation in extraction.relations:
            rkey = (
                normalize_name(relation.source),
                normalize_name(relation.target),
                relation.relation,
            )
            if rkey in seen:
                continue
            seen.add(rkey)
            if rkey not in relation_ids:
                relation_ids[rkey] = str(uuid.uuid4())
                new_relations.append(
                    {
                        "id": relation_ids[rkey],
                        "tenant_id": scope.tenant_id,
                        "knowledge_base_id": scope.kb_id,
                        "source_entity_id": entity_ids[rkey[0]],
                        "target_entity_id": entity_ids[rkey[1]],
                        "relation": rkey[2],
                        "description": relation.description,
                    }
                )
            sources.append(
                {
                    "relation_id": relation_ids[rkey],
                    "knowledge_id": knowledge,
                    "attempt": 1,
                    "chunk_id": extraction.chunk_id,
                    "description": relation.description,
                    "weight": relation.weight,
                }
            )
        with db.session() as session:
            for model, rows in (
                (GraphEntity, new_entities),
                (GraphMention, mentions),
                (GraphRelation, new_relations),
                (GraphRelationSource, sources),
            ):
                if rows:
                    session.execute(insert(model), rows)
    return time.perf_counter() - start


@contextmanager
def _database(backend: str, directory: Path) -> Iterator[Database]:
    if backend == "postgresql":
        with postgres_database() as url:
            upgrade_to_head(url)
            db = Database.from_url(url)
            try:
                yield db
            finally:
                db.dispose()
        return
    url = f"sqlite:///{directory / 'graph.db'}"
    upgrade_to_head(url)
    db = Database.from_url(url)
    try:
        yield db
    finally:
        db.dispose()


def write_figures(backend: str, found: Sequence[ChunkExtraction]) -> dict[str, float]:
    mentions = sum(len(e.entities) for e in found)
    # The raw inserts before and after ours (the faster counts), each run into its own
    # knowledge base of one fresh database.
    with (
        tempfile.TemporaryDirectory(prefix="sluice-bench-") as tmp,
        _database(backend, Path(tmp)) as db,
    ):
        raw_first = raw_inserts(db, found)
        ours = store_writes(db, found)
        threaded = store_writes(db, found, THREADS)
        raw_last = raw_inserts(db, found)
    raw = min(raw_first, raw_last)
    return {
        "store_chunks_per_s": round(len(found) / ours, 1),
        "store_entity_mentions_per_s": round(mentions / ours, 1),
        "raw_chunks_per_s": round(len(found) / raw, 1),
        "ratio": round(raw / ours, 3),
        f"store_{THREADS}_threads_chunks_per_s": round(len(found) / threaded, 1),
    }


TOPICS = ("harbour", "mill", "quarry", "orchard", "foundry", "brewery", "dairy", "forge")


def search_figures(documents: int, queries: int) -> dict[str, float]:
    """Median Search latency over gRPC (lite) without graph expansion and with it."""
    rng = random.Random(11)
    with (
        tempfile.TemporaryDirectory(prefix="sluice-bench-") as tmp,
        lite_stack(Path(tmp)) as stack,
        SluiceClient(stack.target, timeout=120) as client,
    ):
        kb = client.create_knowledge_base("bench-graph-search")
        written = []
        for n in range(documents):
            topic = TOPICS[n % len(TOPICS)]
            body = _document(topic, n)
            knowledge = client.upload_file(
                kb.id,
                io.BytesIO(body),
                file_name=f"{topic}-{n}.md",
                process_config=chunking(200),
            )
            written.append(knowledge.id)
        chunk_count = 0
        with stack_database(stack) as db:
            for knowledge_id in written:
                done(client, knowledge_id)
                chunks = list(client.list_chunks(knowledge_id))
                chunk_count += len(chunks)
                write_graph(db, knowledge_id, {c.id: _graph_of(rng) for c in chunks})
        asked = [f"{TOPICS[i % len(TOPICS)]} pump {i % 12}" for i in range(queries)]
        runs: dict[str, Callable[[str], list[v1.SearchResult]]] = {
            "plain": lambda q: client.search(q, [kb.id], top_k=5),
            "hops0": lambda q: client.search(
                q, [kb.id], top_k=5, graph_expansion=v1.GraphExpansion(hops=0)
            ),
            "hops1": lambda q: client.search(
                q, [kb.id], top_k=5, graph_expansion=v1.GraphExpansion(hops=1)
            ),
        }
        added = len(runs["hops1"](asked[0])) - len(runs["plain"](asked[0]))
        times: dict[str, list[float]] = {name: [] for name in runs}
        for query in asked:
            for name, run in runs.items():
                run(query)
                start = time.perf_counter()
                run(query)
                times[name].append((time.perf_counter() - start) * 1000)
    p50 = {name: statistics.median(values) for name, values in times.items()}
    return {
        "documents": documents,
        "chunks": chunk_count,
        "results_added_hops1_first_query": added,
        **{f"{name}_p50_ms": round(value, 1) for name, value in p50.items()},
        **{f"{name}_p95_ms": round(percentile(times[name], 0.95), 1) for name in runs},
        "hops0_over_plain": round(p50["hops0"] / p50["plain"], 3),
        "hops1_over_plain": round(p50["hops1"] / p50["plain"], 3),
    }


def _document(topic: str, n: int) -> bytes:
    lines = [f"# {topic} log {n}", ""]
    for i in range(12):
        lines += [f"The {topic} crew checked pump {i} and valve {n + i} after the shift.", ""]
    return "\n".join(lines).encode()


def _graph_of(rng: random.Random) -> tuple[list[tuple[str, str]], list[tuple[str, str, str]]]:
    names = sorted({f"Device {rng.randrange(200)}" for _ in range(ENTITIES_PER_CHUNK)})
    relations = [(a, "near", b) for a, b in itertools.pairwise(names)]
    return [(name, "DEVICE") for name in names], relations


def main(argv: Sequence[str] | None = None) -> dict[str, object]:
    parser = argparse.ArgumentParser(prog="bench.graph_store", description=__doc__)
    parser.add_argument("--chunks", type=int, default=1_000)
    parser.add_argument("--documents", type=int, default=16)
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument("--quick", action="store_true", help="200 chunks, 4 documents, 10 queries")
    args = parser.parse_args(argv)
    chunks, documents, queries = (
        (200, 4, 10) if args.quick else (args.chunks, args.documents, args.queries)
    )
    found = extractions(random.Random(7), chunks)
    figures: dict[str, object] = {"chunks": chunks}
    for backend in ("sqlite", "postgresql"):
        writes = write_figures(backend, found)
        figures[backend] = writes
        print(
            f"{backend}: {writes['store_chunks_per_s']} chunks/s, "
            f"{writes['store_entity_mentions_per_s']} entity mentions/s through the store; "
            f"raw inserts {writes['raw_chunks_per_s']} chunks/s; ratio {writes['ratio']}; "
            f"{THREADS} threads: {writes[f'store_{THREADS}_threads_chunks_per_s']} chunks/s"
        )
    search = search_figures(documents, queries)
    figures["search"] = search
    print(
        f"search p50: plain {search['plain_p50_ms']} ms, graph hops 0 {search['hops0_p50_ms']} "
        f"ms ({search['hops0_over_plain']}x), hops 1 {search['hops1_p50_ms']} ms "
        f"({search['hops1_over_plain']}x)"
    )
    write_result(NAME, figures)
    return figures


if __name__ == "__main__":
    main()
