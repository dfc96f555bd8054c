"""The baseline of bench.upload_stream: a bare grpcio server with one client-stream RPC.

It serves `sluice.v1.KnowledgeService/CreateFromFile` (same method, same messages and message
limits as the API, so the client code is byte for byte the same) and does only the essential
work of an upload: MD5 of the bytes and the bytes written to a file, fsynced at the end as the
API's local storage does. No database, no dedup, no queue, no asyncio.

    .venv/bin/python -m bench.bare_upload_server --address 127.0.0.1:0 --dir /tmp/x
"""

from __future__ import annotations

import argparse
import hashlib
import os
import tempfile
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import grpc
from sluice.v1.knowledge_pb2 import CreateFromFileRequest, CreateFromFileResponse, Knowledge

from workers.settings_groups import ApiSettings

SERVICE = "sluice.v1.KnowledgeService"


def _create_from_file(
    directory: Path,
) -> grpc.RpcMethodHandler[CreateFromFileRequest, CreateFromFileResponse]:
    def handle(
        frames: Iterator[CreateFromFileRequest], context: grpc.ServicerContext
    ) -> CreateFromFileResponse:
        md5 = hashlib.md5(usedforsecurity=False)
        size = 0
        file_name = ""
        descriptor, path = tempfile.mkstemp(dir=directory, suffix=".part")
        with os.fdopen(descriptor, "wb") as out:
            for frame in frames:
                if frame.WhichOneof("frame") == "header":
                    file_name = frame.header.file_name
                    continue
                out.write(frame.data)
                md5.update(frame.data)
                size += len(frame.data)
            out.flush()
            os.fsync(out.fileno())
        return CreateFromFileResponse(
            knowledge=Knowledge(
                id=Path(path).name, file_name=file_name, file_size=size, file_hash=md5.hexdigest()
            )
        )

    return grpc.stream_unary_rpc_method_handler(
        handle,
        request_deserializer=CreateFromFileRequest.FromString,
        response_serializer=CreateFromFileResponse.SerializeToString,
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench.bare_upload_server", description=__doc__)
    parser.add_argument("--address", default="127.0.0.1:0")
    parser.add_argument("--dir", type=Path, required=True, help="where uploads are written")
    args = parser.parse_args(argv)
    limit = ApiSettings().max_message_bytes
    server = grpc.server(
        ThreadPoolExecutor(max_workers=4),
        options=[
            ("grpc.max_receive_message_length", limit),
            ("grpc.max_send_message_length", limit),
        ],
    )
    handler = grpc.method_handlers_generic_handler(
        SERVICE, {"CreateFromFile": _create_from_file(args.dir)}
    )
    server.add_generic_rpc_handlers((handler,))
    port = server.add_insecure_port(args.address)
    server.start()
    host = args.address.rsplit(":", 1)[0]
    print(f"bare upload server listening on {host}:{port}", flush=True)
    server.wait_for_termination()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
