"""A real HTTP server speaking OpenAI's chat-completions protocol (``POST /v1/chat/
completions``): text and ``image_url`` (data: URL) content parts, ``response_format``
json_schema. It records every request (so a test sees the prompt and the image that
arrived), counts the requests in flight (the concurrency tests), and answers as planned:
``fail(n)`` gives request ``n`` (1-based) an error status or a whole raw reply instead of
an answer (``fail_request(request)`` likewise, by what was asked), ``delay_s`` slows every
answer down, and ``answer(request)`` writes the assistant's text — by default an echo of
what was asked, or JSON matching the requested schema."""

from __future__ import annotations

import base64
import contextlib
import json
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.support.http_server import BackgroundHttpServer


@dataclass(frozen=True)
class RawReply:
    """A reply sent as is (a malformed answer, a custom error)."""

    status: int
    body: str
    headers: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ChatRequest:
    number: int
    path: str
    body: Mapping[str, Any]
    authorization: str | None

    @property
    def texts(self) -> list[str]:
        """Every text the messages carry, in order (plain contents and text parts)."""
        found: list[str] = []
        for message in self.body.get("messages", []):
            content = message.get("content")
            if isinstance(content, str):
                found.append(content)
            elif isinstance(content, list):
                found += [p["text"] for p in content if p.get("type") == "text"]
        return found

    @property
    def images(self) -> list[tuple[str, bytes]]:
        """(MIME type, bytes) of every image_url part sent as a base64 data: URL."""
        found: list[tuple[str, bytes]] = []
        for message in self.body.get("messages", []):
            content = message.get("content")
            for part in content if isinstance(content, list) else []:
                if part.get("type") == "image_url":
                    header, _, data = part["image_url"]["url"].partition(",")
                    mime = header.removeprefix("data:").removesuffix(";base64")
                    found.append((mime, base64.b64decode(data)))
        return found

    @property
    def schema(self) -> Mapping[str, Any] | None:
        response_format = self.body.get("response_format") or {}
        if response_format.get("type") != "json_schema":
            return None
        schema: Mapping[str, Any] = response_format["json_schema"]["schema"]
        return schema


def example_of(schema: Mapping[str, Any]) -> Any:
    """A value that matches a (simple) JSON schema (an enum's first value)."""
    if schema.get("enum"):
        return schema["enum"][0]
    kind = schema.get("type")
    if kind == "object":
        return {name: example_of(sub) for name, sub in schema.get("properties", {}).items()}
    if kind == "array":
        return [example_of(schema.get("items", {"type": "string"}))]
    return {"integer": 1, "number": 1.5, "boolean": True, "null": None}.get(
        str(kind), "example text"
    )


def echo_answer(request: ChatRequest) -> str:
    """JSON matching the schema asked for; else what was asked, with the images seen."""
    if request.schema is not None:
        return json.dumps(example_of(request.schema))
    seen = "".join(f" [{mime}, {len(data)} bytes]" for mime, data in request.images)
    return f"echo: {request.texts[-1] if request.texts else ''}{seen}"


class ChatServer(BackgroundHttpServer):
    def __init__(
        self,
        *,
        answer: Callable[[ChatRequest], str] = echo_answer,
        fail: Callable[[int], int | RawReply | None] = lambda n: None,
        fail_request: Callable[[ChatRequest], int | RawReply | None] = lambda r: None,
        delay_s: float = 0.0,
        host: str = "127.0.0.1",
    ) -> None:
        self.answer = answer
        self.fail = fail
        self.fail_request = fail_request
        self.delay_s = delay_s
        self.requests: list[ChatRequest] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        server = self

        class _Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with server._lock:
                    number = len(server.requests) + 1
                    request = ChatRequest(
                        number, self.path, json.loads(raw), self.headers.get("Authorization")
                    )
                    server.requests.append(request)
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                try:
                    time.sleep(server.delay_s)
                    reply = server._reply_to(request)
                finally:
                    # Answered once the reply is ready, before it is sent: the client may
                    # send its next request the moment the reply arrives, and that one must
                    # not be counted beside this one.
                    with server._lock:
                        server.in_flight -= 1
                # The client may have given up (a timeout test).
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self._reply(reply)

            def _reply(self, reply: RawReply) -> None:
                payload = reply.body.encode("utf-8")
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, format: str, *args: object) -> None:
                pass

        super().__init__(_Handler, host)

    def _reply_to(self, request: ChatRequest) -> RawReply:
        if request.path != "/v1/chat/completions":
            return _error(404, f"no route {request.path}")
        planned = self.fail(request.number)
        if planned is None:
            planned = self.fail_request(request)
        if isinstance(planned, RawReply):
            return planned
        if planned is not None:
            return _error(planned, f"planned failure {request.number} (secret-detail)")
        completion = {
            "id": f"chatcmpl-{request.number}",
            "object": "chat.completion",
            "model": request.body.get("model"),
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": self.answer(request)},
                    "finish_reason": "stop",
                }
            ],
        }
        return RawReply(200, json.dumps(completion))

    @property
    def base_url(self) -> str:
        return self.url("/v1")

    def __enter__(self) -> ChatServer:
        return self

    def log(self) -> list[ChatRequest]:
        with self._lock:
            return list(self.requests)


def _error(status: int, message: str) -> RawReply:
    body = {"error": {"message": message, "type": HTTPStatus(status).phrase, "code": status}}
    # Quick retries in tests: the client honours Retry-After.
    headers = {"Retry-After": "0"} if status in (429, 503) else {}
    return RawReply(status, json.dumps(body), headers)
