"""upload_file streams one header frame, then the file in chunk_size pieces."""

from __future__ import annotations

import hashlib
import io
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from sluice.v1 import common_pb2, knowledge_pb2, knowledge_pb2_grpc
from sluice_client import SluiceClient, v1

from .conftest import Serve

MIB = 1 << 20


class RecordingUpload(knowledge_pb2_grpc.KnowledgeServiceServicer):
    """Checks the frame order as a server must, and records what arrived.

    The generated .pyi marks every RPC abstract; at run time the base answers UNIMPLEMENTED
    for those not overridden, so instances are made through `recording_upload()`.
    """

    def __init__(self) -> None:
        self.calls = 0
        self.header = knowledge_pb2.FileHeader()
        self.data_sizes: list[int] = []
        self.authorization: str | None = None

    def CreateFromFile(
        self,
        request_iterator: Iterator[knowledge_pb2.CreateFromFileRequest],
        context: grpc.ServicerContext,
    ) -> knowledge_pb2.CreateFromFileResponse:
        self.calls += 1
        metadata = dict(context.invocation_metadata())
        self.authorization = str(metadata["authorization"]) if "authorization" in metadata else None
        digest = hashlib.md5()
        for index, frame in enumerate(request_iterator):
            expected = "header" if index == 0 else "data"
            if frame.WhichOneof("frame") != expected:
                context.abort(grpc.StatusCode.INVALID_ARGUMENT, f"frame {index} must be {expected}")
            if index == 0:
                self.header = frame.header
            else:
                self.data_sizes.append(len(frame.data))
                digest.update(frame.data)
        return knowledge_pb2.CreateFromFileResponse(
            knowledge=knowledge_pb2.Knowledge(
                id="k-1",
                knowledge_base_id=self.header.knowledge_base_id,
                file_name=self.header.file_name,
                file_size=sum(self.data_sizes),
                file_hash=digest.hexdigest(),
                metadata=self.header.metadata,
                parse_status=common_pb2.PARSE_STATUS_PENDING,
            )
        )


def recording_upload() -> RecordingUpload:
    return RecordingUpload()  # type: ignore[abstract]


def test_upload_of_a_path_sends_the_header_then_the_file_in_pieces(
    serve: Serve, tmp_path: Path
) -> None:
    content = bytes(range(256)) * (5 * MIB // 2 // 256)  # 2.5 MiB
    path = tmp_path / "report.pdf"
    path.write_bytes(content)
    servicer = recording_upload()
    target = serve(servicer)

    with SluiceClient(target, api_key="secret") as client:
        knowledge = client.upload_file(
            "kb-1",
            path,
            metadata={"team": "docs"},
            tag_ids=["t1", "t2"],
            enable_multimodel=True,
            process_config=v1.ProcessConfig(chunking=v1.ChunkingConfig(chunk_size=300)),
        )

    assert servicer.data_sizes == [MIB, MIB, MIB // 2]
    header = servicer.header
    assert header.knowledge_base_id == "kb-1"
    assert header.file_name == "report.pdf"
    assert dict(header.metadata) == {"team": "docs"}
    assert list(header.tag_ids) == ["t1", "t2"]
    assert header.HasField("enable_multimodel") and header.enable_multimodel
    assert header.process_config.chunking.chunk_size == 300
    assert servicer.authorization == "Bearer secret"
    assert knowledge.id == "k-1"
    assert knowledge.file_size == len(content)
    assert knowledge.file_hash == hashlib.md5(content).hexdigest()
    assert knowledge.metadata == {"team": "docs"}
    assert knowledge.parse_status == v1.ParseStatus.PENDING


def test_upload_of_a_stream_uses_the_given_name_and_leaves_the_stream_open(serve: Serve) -> None:
    servicer = recording_upload()
    stream = io.BytesIO(b"# Title\n\nten bytes!")

    with SluiceClient(serve(servicer)) as client:
        knowledge = client.upload_file("kb-1", stream, file_name="notes.md", chunk_size=8)

    assert servicer.data_sizes == [8, 8, 3]
    assert servicer.header.file_name == "notes.md"
    assert not servicer.header.HasField("enable_multimodel")
    assert servicer.authorization is None
    assert knowledge.file_hash == hashlib.md5(b"# Title\n\nten bytes!").hexdigest()
    assert not stream.closed


def test_upload_of_an_empty_file_sends_only_the_header(serve: Serve, tmp_path: Path) -> None:
    path = tmp_path / "empty.txt"
    path.write_bytes(b"")
    servicer = recording_upload()

    with SluiceClient(serve(servicer)) as client:
        knowledge = client.upload_file("kb-1", str(path))

    assert servicer.calls == 1
    assert servicer.data_sizes == []
    assert knowledge.file_name == "empty.txt"


def test_upload_fails_before_any_rpc_when_the_source_is_unusable(
    serve: Serve, tmp_path: Path
) -> None:
    servicer = recording_upload()
    with SluiceClient(serve(servicer)) as client:
        with pytest.raises(FileNotFoundError):
            client.upload_file("kb-1", tmp_path / "missing.pdf")
        with pytest.raises(ValueError, match="file_name"):
            client.upload_file("kb-1", io.BytesIO(b"unnamed"))
        with pytest.raises(ValueError, match="chunk_size"):
            client.upload_file("kb-1", io.BytesIO(b"x"), file_name="x.txt", chunk_size=0)
    assert servicer.calls == 0
