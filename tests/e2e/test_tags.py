"""Tags end to end, over real gRPC against the lite stack: TagService (create, list,
rename, delete), SetKnowledgeTags, and tag ids on the create RPCs.

A create naming tags links them (a repeated id once) and every read shows them; a create
naming an id that is not a tag of the knowledge base is INVALID_ARGUMENT and leaves no
knowledge and no stored file; deleting the knowledge takes its links with it. Tag names are
unique per knowledge base; deleting a tag unlinks it from every knowledge.
"""

from __future__ import annotations

import io
import json
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest
from google.rpc import error_details_pb2
from sluice_client import AlreadyExists, InvalidArgument, NotFound, SluiceClient
from sluice_client._proto.sluice import v1
from sluice_client.cli import main as cli
from sqlalchemy import select

from server.services.tags import MAX_TAG_IDS
from storage.db.engine import Database
from storage.db.models import KnowledgeTag
from tests.e2e.lifecycle_support import done, notes, stored_files
from tests.e2e.stacks import Stack, lite_stack
from tests.support.http_server import RecordingServer
from workers.settings import Settings

ALLOWED_HOST = "localhost"
PAGE = (
    b"<html><head><title>Harbour rules</title></head><body><main><p>Boats moor at the east "
    b"quay after the evening bell rings.</p></main></body></html>"
)


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    env = {"SLUICE_SSRF_ALLOW_HOSTS": ALLOWED_HOST}
    with lite_stack(tmp_path_factory.mktemp("tags-lite"), extra_env=env) as running:
        yield running


@pytest.fixture(scope="module")
def database(stack: Stack) -> Iterator[Database]:
    """The deployment's own database, where the test reads the links a deletion leaves."""
    db = Database.from_url(Settings.from_env(env=stack.env).storage.database_url)
    try:
        yield db
    finally:
        db.dispose()


@pytest.fixture(scope="module")
def pages() -> Iterator[RecordingServer]:
    def page(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "text/html; charset=utf-8")
        handler.send_header("Content-Length", str(len(PAGE)))
        handler.end_headers()
        handler.wfile.write(PAGE)

    server = RecordingServer(default=page)
    try:
        yield server
    finally:
        server.close()


def _kb(client: SluiceClient) -> v1.KnowledgeBase:
    return client.create_knowledge_base(f"tags-{uuid.uuid4().hex[:8]}")


def _tag(client: SluiceClient, kb: v1.KnowledgeBase, name: str) -> str:
    return client.create_tag(kb.id, name).id


def _links(database: Database, knowledge_id: str) -> list[str]:
    query = select(KnowledgeTag.tag_id).where(KnowledgeTag.knowledge_id == knowledge_id)
    with database.session() as session:
        return sorted(session.scalars(query))


def _refused_tags(refused: InvalidArgument, field: str = "tag_ids") -> str:
    [(violation_field, description)] = refused.field_violations
    assert violation_field == field
    return description


def _nothing_in(client: SluiceClient, kb: v1.KnowledgeBase) -> bool:
    return not list(client.list_knowledge(kb.id))


def test_an_upload_links_its_tags_and_every_read_shows_them(
    client: SluiceClient, database: Database
) -> None:
    kb = _kb(client)
    pumps, valves = _tag(client, kb, "pumps"), _tag(client, kb, "valves")
    expected = sorted([pumps, valves])

    knowledge = client.upload_file(
        kb.id, io.BytesIO(notes("Pumps")), file_name="pumps.md", tag_ids=[valves, pumps, valves]
    )

    assert knowledge.tag_ids == expected
    assert client.get_knowledge(knowledge.id).tag_ids == expected
    untagged = client.upload_file(kb.id, io.BytesIO(notes("Gates")), file_name="gates.md")
    listed = {k.id: k.tag_ids for k in client.list_knowledge(kb.id)}
    assert listed == {knowledge.id: expected, untagged.id: []}
    assert _links(database, knowledge.id) == expected

    client.delete_knowledge(knowledge.id)
    assert _links(database, knowledge.id) == []


def test_an_upload_naming_an_unknown_tag_leaves_no_knowledge_and_no_file(
    stack: Stack, client: SluiceClient
) -> None:
    kb, other_kb = _kb(client), _kb(client)
    known = _tag(client, kb, "known")
    # Same tenant, another knowledge base: not a tag of this one.
    foreign = _tag(client, other_kb, "foreign")
    files_before: set[Path] = stored_files(stack)

    with pytest.raises(InvalidArgument) as refused:
        client.upload_file(
            kb.id,
            io.BytesIO(notes("Sluices")),
            file_name="sluices.md",
            tag_ids=[known, foreign, "no-such-tag"],
        )

    description = _refused_tags(refused.value, "header.tag_ids")
    assert foreign in description and "no-such-tag" in description
    assert known not in description
    assert _nothing_in(client, kb)
    assert stored_files(stack) == files_before


def test_more_tags_than_the_cap_are_refused(client: SluiceClient) -> None:
    kb = _kb(client)
    too_many = [f"tag-{n}" for n in range(MAX_TAG_IDS + 1)]
    with pytest.raises(InvalidArgument) as refused:
        client.create_manual(kb.id, "Too many", "text", publish=False, tag_ids=too_many)
    assert f"at most {MAX_TAG_IDS}" in _refused_tags(refused.value)
    assert _nothing_in(client, kb)


def test_a_url_import_links_its_tags(client: SluiceClient, pages: RecordingServer) -> None:
    kb = _kb(client)
    tag = _tag(client, kb, "harbour")

    knowledge = client.create_from_url(
        kb.id, pages.url("/harbour", host=ALLOWED_HOST), tag_ids=[tag]
    )

    assert knowledge.tag_ids == [tag]
    assert client.get_knowledge(knowledge.id).tag_ids == [tag]

    refused_url = pages.url("/refused", host=ALLOWED_HOST)
    with pytest.raises(InvalidArgument) as refused:
        client.create_from_url(kb.id, refused_url, tag_ids=["no-such-tag"])
    assert "no-such-tag" in _refused_tags(refused.value)
    assert [k.id for k in client.list_knowledge(kb.id)] == [knowledge.id]


def test_a_manual_knowledge_keeps_its_tags_through_publishing_and_reparsing(
    client: SluiceClient,
) -> None:
    kb = _kb(client)
    tag = _tag(client, kb, "rules")

    draft = client.create_manual(
        kb.id, "Harbour rules", "Boats moor at the east quay.", publish=False, tag_ids=[tag]
    )
    assert draft.tag_ids == [tag]
    assert client.update_manual(draft.id, publish=True).tag_ids == [tag]
    assert done(client, draft.id).tag_ids == [tag]
    assert client.reparse(draft.id).tag_ids == [tag]

    with pytest.raises(InvalidArgument) as refused:
        client.create_manual(kb.id, "Other rules", "Text.", tag_ids=[tag, "no-such-tag"])
    assert "no-such-tag" in _refused_tags(refused.value)
    assert [k.id for k in client.list_knowledge(kb.id)] == [draft.id]


def test_tags_are_created_listed_renamed_and_deleted(client: SluiceClient) -> None:
    kb, other_kb = _kb(client), _kb(client)
    valves = client.create_tag(kb.id, "valves", color="#3366ff")
    pumps = client.create_tag(kb.id, "pumps")
    # Names are unique per knowledge base only.
    client.create_tag(other_kb.id, "pumps")

    assert (valves.name, valves.color, valves.knowledge_base_id) == ("valves", "#3366ff", kb.id)
    assert [t.name for t in client.list_tags(kb.id)] == ["pumps", "valves"]
    assert [t.id for t in client.list_tags(kb.id, page_size=1)] == [pumps.id, valves.id]
    with pytest.raises(AlreadyExists) as taken:
        client.create_tag(kb.id, "pumps")
    [holder] = [d for d in taken.value.details if isinstance(d, error_details_pb2.ResourceInfo)]
    assert (holder.resource_type, holder.resource_name) == ("sluice.v1.Tag", pumps.id)
    with pytest.raises(AlreadyExists):
        client.rename_tag(valves.id, "pumps")

    renamed = client.rename_tag(pumps.id, "pump room")
    assert (renamed.id, renamed.name) == (pumps.id, "pump room")
    knowledge = client.create_manual(
        kb.id, "Pumps", "Hold the red button.", publish=False, tag_ids=[pumps.id, valves.id]
    )
    assert client.delete_tag(pumps.id) == 1
    assert client.get_knowledge(knowledge.id).tag_ids == [valves.id]
    assert [t.id for t in client.list_tags(kb.id)] == [valves.id]
    with pytest.raises(NotFound):
        client.rename_tag(pumps.id, "again")
    with pytest.raises(NotFound):
        client.delete_tag(pumps.id)


def test_a_tag_needs_a_name_and_a_short_color(client: SluiceClient) -> None:
    kb = _kb(client)
    with pytest.raises(InvalidArgument) as blank:
        client.create_tag(kb.id, "  ")
    assert _refused_tags(blank.value, "name") == "is required"
    with pytest.raises(InvalidArgument) as long_name:
        client.create_tag(kb.id, "n" * 256)
    assert "255" in _refused_tags(long_name.value, "name")
    with pytest.raises(InvalidArgument) as long_color:
        client.create_tag(kb.id, "pumps", color="c" * 33)
    assert "32" in _refused_tags(long_color.value, "color")
    assert list(client.list_tags(kb.id)) == []


def test_set_knowledge_tags_replaces_them_with_tags_of_its_knowledge_base(
    client: SluiceClient,
) -> None:
    kb, other_kb = _kb(client), _kb(client)
    pumps, valves = _tag(client, kb, "pumps"), _tag(client, kb, "valves")
    foreign = _tag(client, other_kb, "foreign")
    knowledge = client.create_manual(kb.id, "Pumps", "Text.", publish=False, tag_ids=[pumps])

    assert client.set_knowledge_tags(knowledge.id, [valves, pumps, valves]).tag_ids == sorted(
        [pumps, valves]
    )
    with pytest.raises(InvalidArgument) as refused:
        client.set_knowledge_tags(knowledge.id, [valves, foreign])
    assert foreign in _refused_tags(refused.value)
    assert client.get_knowledge(knowledge.id).tag_ids == sorted([pumps, valves])
    assert client.set_knowledge_tags(knowledge.id, []).tag_ids == []


def test_the_cli_manages_tags(
    client: SluiceClient, stack: Stack, capsys: pytest.CaptureFixture[str]
) -> None:
    kb = _kb(client)
    target = ["--target", stack.target]
    assert cli([*target, "tag", "create", kb.id, "pumps", "--color", "#ff0000"]) == 0
    tag_id = json.loads(capsys.readouterr().out)["id"]
    knowledge = client.create_manual(kb.id, "Pumps", "Text.", publish=False)
    assert cli([*target, "set-tags", knowledge.id, tag_id]) == 0
    assert json.loads(capsys.readouterr().out)["tagIds"] == [tag_id]
    assert cli([*target, "tag", "rename", tag_id, "pump room"]) == 0
    assert json.loads(capsys.readouterr().out)["name"] == "pump room"
    assert cli([*target, "tag", "list", kb.id]) == 0
    assert [json.loads(line)["name"] for line in capsys.readouterr().out.splitlines()] == [
        "pump room"
    ]
    assert cli([*target, "tag", "delete", tag_id]) == 0
    assert capsys.readouterr().out.strip() == f"deleted {tag_id} (unlinked from 1 knowledges)"
    assert cli([*target, "tag", "create", kb.id, " "]) == 5
    assert "INVALID_ARGUMENT" in capsys.readouterr().err
