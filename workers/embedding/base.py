"""The embedding provider protocol and its errors."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from core.errors import SluiceError
from workers.net.provider_http import retryable_status


class EmbeddingError(SluiceError):
    """Embedding failed (bad configuration, model not loadable, provider error)."""

    component = "embedding model"


class EmbeddingProviderError(EmbeddingError):
    """An embedding endpoint answered with an error or with something we cannot read
    (``status`` None: it could not be reached). ``endpoint`` and ``model`` name what was
    asked, when known."""

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        body: str = "",
        endpoint: str = "",
        model: str = "",
    ) -> None:
        super().__init__(message)
        self.status = status
        self.body = body
        self.endpoint = endpoint
        self.model = model

    @property
    def final(self) -> bool:
        """The endpoint refused the request itself (bad credentials, an unknown model): a
        4xx that the provider client does not retry (provider_http.retryable_status) will be
        answered the same way again until the configuration changes."""
        return (
            self.status is not None
            and 400 <= self.status < 500
            and not retryable_status(self.status)
        )


class EmbeddingEndpointRefused(EmbeddingError):
    """The SSRF policy refuses the embedding endpoint: nothing was sent, and nothing will be
    until the configuration changes (``reason`` names the rule)."""

    def __init__(self, url: str, reason: str) -> None:
        super().__init__(f"the embedding endpoint {url} is refused by the SSRF policy: {reason}")
        self.url = url
        self.reason = reason


class Embedder(Protocol):
    """Turns texts into L2-normalised vectors of `dimension` floats.

    Implementations are safe to share between threads."""

    @property
    def model_key(self) -> str:
        """`{provider}/{model}/{dimension}`: identifies the vector space (one index per key)."""
        ...

    @property
    def dimension(self) -> int: ...

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        """One vector per text, in the order given."""
        ...

    def embed_query(self, text: str) -> list[float]: ...


@dataclass(frozen=True)
class PreparedImage:
    """A picture in a form and size an embedding endpoint takes (``image_prep``)."""

    mime_type: str
    data: bytes


@runtime_checkable
class ImageEmbedder(Protocol):
    """An embedder that also embeds pictures, into the same space as its texts."""

    def embed_images(self, images: Sequence[PreparedImage]) -> list[list[float]]:
        """One L2-normalised vector per image, in the order given."""
        ...


def image_embedder(embedder: Embedder, accepts_images: bool) -> ImageEmbedder | None:
    """``embedder`` as an image embedder when its model takes images (the configuration
    says so: ModelConfig.accepts_images) and its protocol can send them; else None."""
    if accepts_images and isinstance(embedder, ImageEmbedder):
        return embedder
    return None
