"""Why a pipeline stage stopped. Each carries the span error code the timeline shows."""

from __future__ import annotations

from core.errors import SluiceError
from workers.models.errors import ModelError


class StageError(SluiceError):
    """A stage failed; ``code`` goes to the span, ``str(exc)`` to error_message."""

    code = "STAGE_FAILED"

    def __init__(self, stage: str, message: str, *, permanent: bool = False) -> None:
        super().__init__(message)
        self.stage = stage
        # The same input fails the same way again (a malformed file, no ASR model):
        # retrying would only delay the verdict.
        self.permanent = permanent


class DocReaderFailed(StageError):
    code = "DOCREADER_FAILED"


class UrlRefused(StageError):
    """The SSRF policy refused a URL knowledge's fetch (the worker's own check)."""

    code = "URL_REFUSED"


class UrlFetchFailed(StageError):
    """A URL knowledge could not be fetched: network, HTTP status, size or time."""

    code = "URL_FETCH_FAILED"


class UnsupportedDownload(StageError):
    """What a URL download delivered is a type the extension gate refuses."""

    code = "UNSUPPORTED_FILE_TYPE"


class ModelMissing(StageError):
    """A URL download turned out to be a type that needs a model the configuration lacks
    (the upload pre-check's verdict, ``code`` its reason: ASR_MODEL_MISSING...)."""

    def __init__(self, stage: str, message: str, reason: str) -> None:
        super().__init__(stage, message, permanent=True)
        self.code = reason


class ModelEndpointRefused(StageError):
    """The SSRF policy refuses a model endpoint the configuration names (embedding, ASR):
    nothing was sent, and retrying would be refused the same way."""

    code = "MODEL_ENDPOINT_REFUSED"

    def __init__(self, stage: str, message: str) -> None:
        super().__init__(stage, message, permanent=True)


class ModelFailed(StageError):
    """A chat or vision model failed (workers.models.errors): a final verdict (the endpoint
    refused, bad credentials, a removed model...) fails the round at once, an outage is
    worth another try. ``code`` is the model error's (MODEL_UNAUTHORIZED...)."""

    def __init__(self, stage: str, error: ModelError) -> None:
        super().__init__(stage, str(error), permanent=not error.retryable)
        self.code = error.code


class EmptyDocument(StageError):
    """The document has nothing to index: no bytes, or only whitespace once read. The same
    file is as empty on every attempt, and nothing is invented to fill it."""

    code = "EMPTY_DOCUMENT"

    def __init__(self, stage: str, what: str) -> None:
        super().__init__(stage, f"empty document: {what}", permanent=True)


class ChunkingFailed(StageError):
    code = "CHUNKING_FAILED"


class EmbeddingFailed(StageError):
    code = "EMBEDDING_FAILED"


class Superseded(SluiceError):
    """A newer attempt (reparse), a cancel or a delete took the knowledge over: stop quietly."""


class TimeLimitExceeded(StageError):
    """The try's time limit passed while the stage ran. The limit strikes inside whatever
    call is running (RQ's alarm raised in a Milvus upsert comes back as an index error), so
    a stage that fails once its try's time is spent failed because of the limit."""

    code = "TIME_LIMIT_EXCEEDED"

    def __init__(self, stage: str, limit_s: int) -> None:
        super().__init__(stage, f"this try exceeded its {limit_s}s time limit")
