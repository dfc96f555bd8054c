"""Why a pipeline stage stopped. Each carries the span error code the timeline shows."""

from __future__ import annotations


class StageError(Exception):
    """A stage failed; ``code`` goes to the span, ``str(exc)`` to error_message."""

    code = "STAGE_FAILED"

    def __init__(self, stage: str, message: str) -> None:
        super().__init__(message)
        self.stage = stage


class DocReaderFailed(StageError):
    code = "DOCREADER_FAILED"


class ChunkingFailed(StageError):
    code = "CHUNKING_FAILED"


class EmbeddingFailed(StageError):
    code = "EMBEDDING_FAILED"


class Superseded(Exception):
    """A newer attempt (reparse), a cancel or a delete took the knowledge over: stop quietly."""
