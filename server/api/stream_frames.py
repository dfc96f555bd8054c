"""The client streams that carry a file (CreateFromFile, ImportFAQFile): a header frame,
then data frames. One reading of their frames, so both refuse a stream alike: a first frame
that is not the header, a later frame that is not data (INVALID_ARGUMENT), and a file over
the limit as soon as its bytes pass it (RESOURCE_EXHAUSTED, before anything more is read)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Literal, Protocol, TypeVar

from core.errors import InvalidArgument, ResourceExhausted


class Frame(Protocol):
    """A request of such a stream: its ``frame`` oneof is ``header`` or ``data``."""

    def WhichOneof(self, oneof_group: Literal["frame"]) -> str | None: ...
    @property
    def data(self) -> bytes: ...


_F = TypeVar("_F", bound=Frame)


async def header_frame(frames: AsyncIterator[_F]) -> _F:
    """The first frame, which must be the header."""
    first = await anext(frames, None)
    if first is None or first.WhichOneof("frame") != "header":
        raise InvalidArgument.field("frame", "the first frame must be a header")
    return first


class DataFrames:
    """The bytes of the data frames that follow the header; ``received`` counts them."""

    def __init__(self, frames: AsyncIterator[Frame], max_bytes: int) -> None:
        self._frames = frames
        self._max_bytes = max_bytes
        self.received = 0

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for frame in self._frames:
            if frame.WhichOneof("frame") != "data":
                raise InvalidArgument.field("frame", "only data frames may follow the header")
            self.received += len(frame.data)
            if self.received > self._max_bytes:
                raise ResourceExhausted(
                    "file_size", f"file is larger than the limit of {self._max_bytes} bytes"
                )
            yield frame.data
