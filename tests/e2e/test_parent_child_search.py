"""Parent/child chunking end to end, over real gRPC against the lite stack with the local
embedding model: the children are searched, a hit returns its parent (its id and whole
content) once, at its best child's rank, and top_k is still filled with distinct results."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from sluice_client import SluiceClient
from sluice_client._proto.sluice import v1

from tests.e2e.lifecycle_support import WAIT_S
from tests.e2e.stacks import Stack, lite_stack

# Each section (about 135 characters) is one parent of two or more children.
SECTIONS = {
    "harbour": "The harbour crane lifts containers. Its operator is Ilse Brandvik. "
    "The crane was built in 1987. It is painted orange.",
    "orchard": "The orchard grows pears. The oldest tree is called Grumbleroot. "
    "Pickers arrive in September. The cider press is red.",
    "observatory": "The observatory dome rotates. Its telescope mirror is 2.4 metres. "
    "Astronomers work at night. The road up is steep.",
}


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    with lite_stack(tmp_path_factory.mktemp("parent-child-search")) as running:
        yield running


@pytest.fixture(scope="module")
def client(stack: Stack) -> Iterator[SluiceClient]:
    with SluiceClient(stack.target) as c:
        yield c


@pytest.fixture(scope="module")
def ingested(client: SluiceClient) -> tuple[v1.KnowledgeBase, v1.Knowledge]:
    config = v1.KnowledgeBaseConfig(
        chunking=v1.ChunkingConfig(
            chunk_size=80,
            chunk_overlap=0,
            separators=[". "],
            enable_parent_child=True,
            parent_chunk_size=150,
        )
    )
    kb = client.create_knowledge_base(f"pc-{uuid.uuid4().hex[:8]}", config=config)
    text = "\n\n".join(f"## {name}\n\n{body}" for name, body in SECTIONS.items())
    created = client.create_manual(kb.id, "places.md", text)
    done = client.wait_until_done(created.id, WAIT_S)
    assert done.parse_status == v1.ParseStatus.COMPLETED
    return kb, done


def chunks(client: SluiceClient, knowledge_id: str) -> list[v1.Chunk]:
    return list(client.list_chunks(knowledge_id))


def test_a_child_hit_returns_its_parent_once(
    client: SluiceClient, ingested: tuple[v1.KnowledgeBase, v1.Knowledge]
) -> None:
    kb, knowledge = ingested
    listed = chunks(client, knowledge.id)
    parents = {c.id: c for c in listed if c.chunk_type == v1.ChunkType.PARENT_TEXT}
    children = [c for c in listed if c.chunk_type == v1.ChunkType.TEXT]
    assert len(parents) == len(SECTIONS) and len(children) > 2 * len(SECTIONS)
    assert all(c.parent_chunk_id in parents for c in children)

    results = client.search("Who operates the harbour crane?", kb.id, top_k=3)

    harbour = next(p for p in parents.values() if "Ilse Brandvik" in p.content)
    assert results[0].chunk_id == harbour.id
    assert results[0].content == harbour.content, "the whole parent, not the child"
    assert "1987" in results[0].content, "a sentence of another child comes with it"
    ids = [r.chunk_id for r in results]
    assert len(ids) == len(set(ids)) == 3, "three distinct parents, though children rank"
    assert set(ids) == set(parents)


def test_keyword_search_returns_the_parent_too(
    client: SluiceClient, ingested: tuple[v1.KnowledgeBase, v1.Knowledge]
) -> None:
    kb, knowledge = ingested
    parents = {
        c.id: c for c in chunks(client, knowledge.id) if c.chunk_type == v1.ChunkType.PARENT_TEXT
    }
    results = client.search("Grumbleroot", kb.id, top_k=5, mode=v1.SearchMode.KEYWORD)
    assert [r.chunk_id for r in results][:1] == [
        next(i for i, p in parents.items() if "Grumbleroot" in p.content)
    ]
    assert all(r.chunk_id in parents for r in results)
