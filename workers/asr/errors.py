"""The error every ASR failure becomes: bad configuration, unreachable endpoint, HTTP error."""

from __future__ import annotations

from core.errors import SluiceError


class AsrError(SluiceError):
    """``status`` is the HTTP status the endpoint answered, None when there was no answer;
    ``refused``: the SSRF policy refuses the endpoint, so nothing was (or will be) sent."""

    def __init__(self, message: str, status: int | None = None, *, refused: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.refused = refused
