"""A real HTTP server speaking OpenAI's transcription protocol (``POST /v1/audio/
transcriptions``, multipart), for the ASR client's tests and the end-to-end audio path. What it
"hears" is the uploaded WAV's length, so its answer depends on the bytes it was sent."""

from __future__ import annotations

import io
import json
import threading
import wave
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email import policy
from email.parser import BytesParser
from http.server import BaseHTTPRequestHandler
from typing import Any, cast

from tests.support.http_server import BackgroundHttpServer

MODEL = "whisper-test"


def wav_bytes(frames: int, rate: int = 8000) -> bytes:
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as writer:
        writer.setnchannels(1)
        writer.setsampwidth(2)
        writer.setframerate(rate)
        writer.writeframes(b"\x10\x00" * frames)
    return buffer.getvalue()


def heard(audio: bytes) -> str:
    """What the fake model "hears": the WAV's length, so the answer depends on the upload."""
    with wave.open(io.BytesIO(audio), "rb") as reader:
        return f"{reader.getnframes()} frames at {reader.getframerate()} Hz"


@dataclass
class Reply:
    status: int
    body: str
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Upload:
    fields: dict[str, str]
    file_name: str | None
    file_type: str
    audio: bytes
    authorization: str | None


@dataclass
class FakeOpenAI:
    url: str = ""
    planned: deque[Reply] = field(default_factory=deque)
    uploads: list[Upload] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


def parse_form(content_type: str, body: bytes) -> Upload:
    message = BytesParser(policy=policy.HTTP).parsebytes(
        f"Content-Type: {content_type}\r\n\r\n".encode() + body
    )
    assert message.get_content_type() == "multipart/form-data"
    fields: dict[str, str] = {}
    upload = Upload(fields, None, "", b"", None)
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        data = cast(bytes, part.get_payload(decode=True))
        if name == "file":
            upload.file_name = part.get_filename()
            upload.file_type = part.get_content_type()
            upload.audio = data
        else:
            fields[str(name)] = data.decode("utf-8")
    return upload


def make_handler(state: FakeOpenAI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            upload = parse_form(self.headers.get("Content-Type", ""), body)
            upload.authorization = self.headers.get("Authorization")
            with state.lock:
                state.uploads.append(upload)
                reply = state.planned.popleft() if state.planned else None
            if reply is None:
                reply = self.answer(upload)
            payload = reply.body.encode("utf-8")
            self.send_response(reply.status)
            self.send_header("Content-Length", str(len(payload)))
            for name, value in reply.headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(payload)

        def answer(self, upload: Upload) -> Reply:
            if self.path != "/v1/audio/transcriptions":
                return error_reply(404, f"no route {self.path}")
            if upload.fields.get("model") != MODEL:
                return error_reply(404, f"model {upload.fields.get('model')!r} does not exist")
            text = heard(upload.audio)
            if upload.fields.get("response_format") == "text":
                return Reply(200, text + "\n", {"Content-Type": "text/plain; charset=utf-8"})
            return Reply(200, json.dumps({"text": text}), {"Content-Type": "application/json"})

        def log_message(self, format: str, *args: Any) -> None:
            pass  # keep test output clean

    return Handler


def error_reply(status: int, message: str, **headers: str) -> Reply:
    body = json.dumps({"error": {"message": message, "type": "invalid_request_error"}})
    return Reply(status, body, {"Content-Type": "application/json", **headers})


@contextmanager
def serve_openai_asr() -> Iterator[FakeOpenAI]:
    state = FakeOpenAI()
    with BackgroundHttpServer(make_handler(state)) as server:
        state.url = server.url("/v1")
        yield state
