"""A chunk edit while the index is down (full mode, its Milvus server stopped): UNAVAILABLE
naming the index, and the chunk's row rolled back with it, so the database and the index
still agree once the index is back; the same edit then goes through."""

from __future__ import annotations

import io
import uuid
from pathlib import Path

import pytest
from sluice_client import SluiceClient, Unavailable
from sluice_client._proto.sluice import v1

from tests.e2e.lifecycle_support import done
from tests.e2e.stacks import full_stack
from tests.support.processes import Process, wait_for_port
from tests.support.waiting import wait_until

TEXT = b"# Gates\n\nThe sluice gate opens at the turn of the tide.\n"
KEYWORD = v1.SearchMode.KEYWORD


def _restarted(old: Process, port: int, env: dict[str, str]) -> Process:
    """The same Milvus server (same command: data directory and port) started again."""
    args = old.proc.args
    assert isinstance(args, list)
    milvus = Process("milvus", [str(arg) for arg in args], env)
    wait_for_port(port, 60, milvus.proc)
    return milvus


def _found(client: SluiceClient, kb_id: str, query: str) -> list[str] | None:
    """The chunk ids a keyword search finds, None while the index is still unavailable."""
    try:
        return [h.chunk_id for h in client.search(query, [kb_id], mode=KEYWORD)]
    except Unavailable:
        return None


def test_an_index_outage_rolls_the_chunk_edit_back(tmp_path: Path) -> None:
    with full_stack(tmp_path, workers=1) as stack, SluiceClient(stack.target) as client:
        kb = client.create_knowledge_base(f"outage-{uuid.uuid4().hex[:8]}")
        knowledge = client.upload_file(kb.id, io.BytesIO(TEXT), file_name="gates.md")
        done(client, knowledge.id)
        [chunk] = client.list_chunks(knowledge.id)
        port = int(stack.env["SLUICE_MILVUS_URI"].rsplit(":", 1)[1])

        stack.processes["milvus"].stop()
        with pytest.raises(Unavailable) as down:
            client.update_chunk(chunk.id, "The weir overflows at spring tide.")
        assert down.value.message == "index is unavailable; try again later"
        with pytest.raises(Unavailable) as down:
            client.set_chunk_enabled(chunk.id, False)
        assert down.value.message == "index is unavailable; try again later"
        [unchanged] = client.list_chunks(knowledge.id)
        assert (unchanged.content, unchanged.is_enabled) == (chunk.content, True)

        stack.processes["milvus"] = _restarted(stack.processes["milvus"], port, stack.env)
        # The index client reconnects with a backoff.
        wait_until(lambda: _found(client, kb.id, "sluice gate") is not None, 60, "the index")
        assert _found(client, kb.id, "sluice gate tide") == [chunk.id]
        assert _found(client, kb.id, "weir") == []
        client.update_chunk(chunk.id, "The weir overflows at spring tide.")
        assert _found(client, kb.id, "weir") == [chunk.id]
