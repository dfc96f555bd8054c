"""Client of the docreader service; workers reach the docreader only through this contract.

``read`` sends inline bytes or a storage reference and receives the ReadStream frames;
``read_file`` streams a file of any size as ReadUpload frames of 1 MiB. The Markdown comes in
pieces and each image in its own frame, so nothing is capped by the gRPC message limit but a
single image. With ``on_image`` each image is handed over as its frame arrives instead of
being collected, so a document with thousands of images passes in bounded memory. Every gRPC
failure becomes ``DocReaderCallError``.

A parse can take minutes, so a caller may pass ``should_stop``: while the frames are awaited
it is polled every ``STOP_POLL_S``, and once it answers True the call is cancelled (the
docreader sees the cancellation too) and ``DocReaderCancelled`` is raised.
"""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import BinaryIO, cast

import grpc
from sluice.docreader.v1 import docreader_pb2, docreader_pb2_grpc

from core.errors import SluiceError
from core.tls import ClientTls
from workers.observability.tracing_grpc import traced_channel

UPLOAD_FRAME_BYTES = 1 << 20
STOP_POLL_S = 0.25
# A cancelled call ends its frame iterator at once; this only bounds a misbehaving one.
_CANCEL_JOIN_S = 5.0

_StreamFrame = docreader_pb2.ReadStreamResponse | docreader_pb2.ReadUploadResponse


StopCheck = Callable[[], bool]
# Frames read ahead of the consumer; bounded so a slow consumer holds few images.
_READ_AHEAD_FRAMES = 4


class DocReaderCallError(SluiceError):
    """A docreader call failed; ``code_name`` is the gRPC status name, e.g. INVALID_ARGUMENT."""

    def __init__(self, code_name: str, message: str) -> None:
        super().__init__(f"{code_name}: {message}")
        self.code_name = code_name
        self.message = message


class DocReaderCancelled(SluiceError):
    """The caller's ``should_stop`` answered True; the call was cancelled."""


@dataclass(frozen=True)
class DocumentImage:
    ref: str
    data: bytes
    mime_type: str
    width: int
    height: int
    is_original: bool
    page: int


@dataclass(frozen=True)
class ReadConfig:
    """How the docreader should read: engine, its options, the two switches and the OCR
    languages."""

    engine: str = ""
    options: Mapping[str, str] = field(default_factory=dict)
    enable_ocr: bool = True
    first_row_header: bool = True
    # Tesseract languages; empty: the docreader detects them per document.
    ocr_languages: tuple[str, ...] = ()


ImageHandler = Callable[[DocumentImage], None]


@dataclass(frozen=True)
class ReadOutcome:
    markdown: str
    images: tuple[DocumentImage, ...] = ()
    metadata: dict[str, str] = field(default_factory=dict)
    is_audio: bool = False
    audio_data: bytes = b""
    # The type the docreader read the file as (magic bytes win over the extension).
    detected_file_type: str = ""


@dataclass(frozen=True)
class EngineInfo:
    name: str
    description: str
    file_types: tuple[str, ...]
    available: bool
    unavailable_reason: str
    # File types the engine would read but cannot here, with the reason.
    unavailable_file_types: Mapping[str, str] = field(default_factory=dict)
    # File type → the largest file the engine reads of it (absent: no cap).
    max_input_bytes: Mapping[str, int] = field(default_factory=dict)


def open_channel(
    target: str, tls: ClientTls | None, options: list[tuple[str, int]]
) -> grpc.Channel:
    # Traced (workers.observability): a CLIENT span per call, the docreader's its child.
    if tls is None:
        return traced_channel(grpc.insecure_channel(target, options=options), target)
    credentials = grpc.ssl_channel_credentials(tls.ca, tls.private_key, tls.cert_chain)
    return traced_channel(grpc.secure_channel(target, credentials, options=options), target)


class DocReaderClient:
    """With ``tls`` the channel is TLS (verified against its CA, with its client certificate
    for a docreader that requires one); without, plaintext."""

    def __init__(
        self,
        target: str,
        *,
        timeout_s: float,
        max_message_bytes: int,
        tls: ClientTls | None = None,
    ) -> None:
        self._timeout_s = timeout_s
        self._channel = open_channel(
            target,
            tls,
            [
                ("grpc.max_send_message_length", max_message_bytes),
                ("grpc.max_receive_message_length", max_message_bytes),
                # Pings keep idle-looking connections alive through a long parse.
                ("grpc.keepalive_time_ms", 30_000),
                ("grpc.keepalive_timeout_ms", 20_000),
                ("grpc.keepalive_permit_without_calls", 1),
                ("grpc.http2.max_pings_without_data", 0),
            ],
        )
        self._stub = docreader_pb2_grpc.DocReaderServiceStub(self._channel)

    def read(
        self,
        content: bytes | None = None,
        *,
        storage_ref: str | None = None,
        file_name: str,
        file_type: str,
        config: ReadConfig | None = None,
        should_stop: StopCheck | None = None,
        on_image: ImageHandler | None = None,
    ) -> ReadOutcome:
        """Read inline ``content`` or the file behind ``storage_ref`` (exactly one of them)."""
        if (content is None) == (storage_ref is None):
            raise ValueError("give exactly one of content and storage_ref")
        request = _request(file_name, file_type, config or ReadConfig())
        if content is not None:
            request.file_content = content
        else:
            request.storage_ref = str(storage_ref)
        return self._call(
            lambda: self._stub.ReadStream(
                docreader_pb2.ReadStreamRequest(request=request), timeout=self._timeout_s
            ),
            should_stop,
            on_image,
        )

    def read_file(
        self,
        source: str | os.PathLike[str] | BinaryIO,
        *,
        file_name: str | None = None,
        file_type: str | None = None,
        config: ReadConfig | None = None,
        should_stop: StopCheck | None = None,
        on_image: ImageHandler | None = None,
    ) -> ReadOutcome:
        """Upload a file (a path, or a binary stream read from its current position).

        For a path, ``file_name`` and ``file_type`` default to its name and extension.
        """
        chosen = config or ReadConfig()
        if isinstance(source, str | os.PathLike):
            path = Path(source)
            name = file_name if file_name is not None else path.name
            kind = file_type if file_type is not None else path.suffix.lstrip(".").lower()
            with path.open("rb") as stream:
                return self._upload(stream, _request(name, kind, chosen), should_stop, on_image)
        if file_name is None or file_type is None:
            raise ValueError("file_name and file_type are required when reading a stream")
        return self._upload(source, _request(file_name, file_type, chosen), should_stop, on_image)

    def list_engines(self) -> list[EngineInfo]:
        try:
            response = self._stub.ListEngines(
                docreader_pb2.ListEnginesRequest(), timeout=self._timeout_s
            )
        except grpc.RpcError as err:
            raise _call_error(err) from err
        return [
            EngineInfo(
                name=engine.name,
                description=engine.description,
                file_types=tuple(engine.file_types),
                available=engine.available,
                unavailable_reason=engine.unavailable_reason,
                unavailable_file_types=dict(engine.unavailable_file_types),
                max_input_bytes=dict(engine.max_input_bytes),
            )
            for engine in response.engines
        ]

    def close(self) -> None:
        self._channel.close()

    def __enter__(self) -> DocReaderClient:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def _upload(
        self,
        stream: BinaryIO,
        header: docreader_pb2.ReadRequest,
        should_stop: StopCheck | None,
        on_image: ImageHandler | None,
    ) -> ReadOutcome:
        def frames() -> Iterator[docreader_pb2.ReadUploadRequest]:
            yield docreader_pb2.ReadUploadRequest(header=header)
            while chunk := stream.read(UPLOAD_FRAME_BYTES):
                yield docreader_pb2.ReadUploadRequest(data=chunk)

        return self._call(
            lambda: self._stub.ReadUpload(frames(), timeout=self._timeout_s),
            should_stop,
            on_image,
        )

    def _call(
        self,
        start: Callable[[], Iterable[_StreamFrame]],
        should_stop: StopCheck | None,
        on_image: ImageHandler | None,
    ) -> ReadOutcome:
        try:
            call = start()
        except grpc.RpcError as err:
            raise _call_error(err) from err
        stoppable = None if should_stop is None else _frames_unless_stopped(call, should_stop)
        try:
            return _assemble(call if stoppable is None else stoppable, on_image)
        except grpc.RpcError as err:
            raise _call_error(err) from err
        finally:
            # However the frames stopped being read (done, stopped, or on_image failed), the
            # call ends now: the docreader must not go on parsing for nobody.
            if stoppable is not None:
                stoppable.close()
            cast(grpc.RpcContext, call).cancel()


def _request(file_name: str, file_type: str, config: ReadConfig) -> docreader_pb2.ReadRequest:
    return docreader_pb2.ReadRequest(
        file_name=file_name,
        file_type=file_type,
        config=docreader_pb2.ReadConfig(
            engine=config.engine,
            engine_options=dict(config.options),
            enable_ocr=config.enable_ocr,
            ocr_languages=config.ocr_languages,
            first_row_header=config.first_row_header,
        ),
    )


_END = object()


def _frames_unless_stopped(
    frames: Iterable[_StreamFrame], should_stop: StopCheck
) -> Generator[_StreamFrame, None, None]:
    """The frames, read on a helper thread while this one polls ``should_stop``: a blocked
    read cannot be interrupted, but cancelling the call ends it at once. ``should_stop`` and
    everything done with the frames stay on the caller's thread (it may depend on
    thread-local task context)."""
    handoff: queue.Queue[object] = queue.Queue(maxsize=_READ_AHEAD_FRAMES)
    finished = threading.Event()

    def read_frames() -> None:
        try:
            for frame in frames:
                if not _put(handoff, frame, finished):
                    return
            _put(handoff, _END, finished)
        except BaseException as exc:  # handed to the caller's thread below
            _put(handoff, exc, finished)

    reader = threading.Thread(target=read_frames, name="docreader-frames", daemon=True)
    reader.start()
    try:
        while True:
            if should_stop():
                raise DocReaderCancelled("the docreader call was cancelled: the caller stopped")
            try:
                item = handoff.get(timeout=STOP_POLL_S)
            except queue.Empty:
                continue
            if item is _END:
                return
            if isinstance(item, BaseException):
                raise item
            yield cast(_StreamFrame, item)
    finally:
        finished.set()
        if reader.is_alive():  # stopped, or the consumer failed: end the call too
            cast(grpc.RpcContext, frames).cancel()
            reader.join(_CANCEL_JOIN_S)


def _put(handoff: queue.Queue[object], item: object, finished: threading.Event) -> bool:
    """Hand ``item`` over unless the consumer has gone; False once it has."""
    while not finished.is_set():
        try:
            handoff.put(item, timeout=STOP_POLL_S)
            return True
        except queue.Full:
            continue
    return False


def _assemble(frames: Iterable[_StreamFrame], on_image: ImageHandler | None) -> ReadOutcome:
    meta: docreader_pb2.ReadMeta | None = None
    markdown: list[str] = []
    images: list[DocumentImage] = []
    image_count = 0
    audio = bytearray()
    for frame in frames:
        kind = frame.WhichOneof("frame")
        if kind == "meta":
            meta = frame.meta
        elif meta is None:
            raise DocReaderCallError("DATA_LOSS", f"the docreader sent {kind} before meta")
        elif kind == "markdown_chunk":
            markdown.append(frame.markdown_chunk)
        elif kind == "image":
            image_count += 1
            if on_image is None:
                images.append(_image(frame.image))
            else:
                on_image(_image(frame.image))
        elif kind == "audio_chunk":
            audio.extend(frame.audio_chunk)
    if meta is None:
        raise DocReaderCallError("DATA_LOSS", "the docreader sent no meta frame")
    if image_count != meta.image_count:
        raise DocReaderCallError(
            "DATA_LOSS", f"the docreader announced {meta.image_count} images, sent {image_count}"
        )
    text = "".join(markdown)
    if len(text.encode("utf-8")) != meta.markdown_bytes:
        raise DocReaderCallError(
            "DATA_LOSS",
            f"the docreader announced {meta.markdown_bytes} bytes of Markdown, "
            "sent a different amount",
        )
    return ReadOutcome(
        markdown=text,
        images=tuple(images),
        metadata=dict(meta.metadata),
        is_audio=meta.is_audio,
        audio_data=bytes(audio),
        detected_file_type=meta.detected_file_type,
    )


def _image(ref: docreader_pb2.ImageRef) -> DocumentImage:
    return DocumentImage(
        ref=ref.ref,
        data=ref.data,
        mime_type=ref.mime_type,
        width=ref.width,
        height=ref.height,
        is_original=ref.is_original,
        page=ref.page,
    )


def _call_error(err: grpc.RpcError) -> DocReaderCallError:
    if isinstance(err, grpc.Call):
        return DocReaderCallError(err.code().name, err.details() or "")
    return DocReaderCallError("UNKNOWN", str(err))
