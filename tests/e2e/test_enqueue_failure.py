"""When the queue cannot take the task, the knowledge is marked failed and its file stays.

A full-mode API whose Redis is unreachable (nothing listens on the port) accepts the upload,
fails to enqueue, and says so on the knowledge; the stored file is kept for a later reparse.
"""

from __future__ import annotations

import io
from pathlib import Path

from sluice_client import SluiceClient
from sluice_client._proto.sluice import v1

from tests.support.processes import Process, free_port, python

_LISTENING = r"listening on [\d.]+:(\d+)"


def test_enqueue_failure_marks_the_knowledge_failed_and_keeps_the_file(tmp_path: Path) -> None:
    env = {
        "SLUICE_MODE": "full",
        "SLUICE_DATA_DIR": str(tmp_path),
        "SLUICE_DATABASE_URL": f"sqlite:///{tmp_path / 'sluice.db'}",
        "SLUICE_MILVUS_URI": str(tmp_path / "milvus.db"),
        "SLUICE_REDIS_URL": f"redis://127.0.0.1:{free_port()}/0",
        "SLUICE_DOCREADER_ADDRESS": f"127.0.0.1:{free_port()}",
        "SLUICE_AUTH_REQUIRED": "false",
    }
    api = Process("api", python("-m", "server.main", "--address", "127.0.0.1:0"), env)
    try:
        port = int(api.wait_for_line(_LISTENING, timeout=120).group(1))
        with SluiceClient(f"127.0.0.1:{port}") as client:
            kb = client.create_knowledge_base("queue-down")
            knowledge = client.upload_file(kb.id, io.BytesIO(b"# Notes\n\nKept."), file_name="n.md")
            assert knowledge.parse_status == v1.ParseStatus.FAILED
            assert "could not enqueue processing" in knowledge.error_message
            stored = client.get_knowledge(knowledge.id)
            assert stored.parse_status == v1.ParseStatus.FAILED
        files = [p for p in (tmp_path / "files").rglob("*.md") if ".staging" not in p.parts]
        assert len(files) == 1 and files[0].read_bytes() == b"# Notes\n\nKept."
    finally:
        api.stop()
