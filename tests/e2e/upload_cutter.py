"""A CreateFromFile client that never finishes its upload, run as its own process.

``python -m tests.e2e.upload_cutter TARGET KB_ID FILE CUT HOW [FRAME_BYTES]`` sends the
header, then FILE's first CUT bytes in frames, prints ``SENT`` and then, instead of
half-closing the stream:

- ``cancel``: cancels the call;
- ``deadline``: waits until the call's deadline passes;
- ``hang``: waits forever (the test kills this process, so its socket just closes);
- ``oversize``: sends one frame of FRAME_BYTES bytes, which the server's gRPC refuses.

It prints the status code the call ended with (``hang`` never gets there).
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator

import grpc
from sluice.v1 import knowledge_pb2, knowledge_pb2_grpc

FRAME = 64 << 10
# Long enough for the frames already sent to reach the server before the call is cut.
SETTLE_S = 0.5
DEADLINE_S = 3.0


def frames(
    kb_id: str, file_name: str, body: bytes, how: str, oversize: int, sent: threading.Event
) -> Iterator[knowledge_pb2.CreateFromFileRequest]:
    yield knowledge_pb2.CreateFromFileRequest(
        header=knowledge_pb2.FileHeader(knowledge_base_id=kb_id, file_name=file_name)
    )
    for start in range(0, len(body), FRAME):
        yield knowledge_pb2.CreateFromFileRequest(data=body[start : start + FRAME])
    sent.set()
    if how == "oversize":
        yield knowledge_pb2.CreateFromFileRequest(data=b"x" * oversize)
    # Never half-closes: the call ends by cancel, deadline or the process being killed.
    threading.Event().wait()


def main() -> None:
    target, kb_id, path, cut, how = sys.argv[1:6]
    oversize = int(sys.argv[6]) if len(sys.argv) > 6 else 0
    with open(path, "rb") as source:
        body = source.read()[: int(cut)]
    sent = threading.Event()
    with grpc.insecure_channel(target) as channel:
        stub = knowledge_pb2_grpc.KnowledgeServiceStub(channel)
        request = frames(kb_id, path.rsplit("/", 1)[-1], body, how, oversize, sent)
        timeout = DEADLINE_S if how == "deadline" else None
        call = stub.CreateFromFile.future(request, timeout=timeout)
        sent.wait()
        print("SENT", flush=True)
        time.sleep(SETTLE_S)
        if how == "cancel":
            call.cancel()
        try:
            call.result()
            print("ENDED OK", flush=True)
        except grpc.FutureCancelledError:
            print("ENDED CANCELLED", flush=True)
        except grpc.RpcError as error:
            print(f"ENDED {error.code().name}", flush=True)


if __name__ == "__main__":
    main()
