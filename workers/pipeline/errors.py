"""Why a pipeline stage stopped. Each carries the span error code the timeline shows."""

from __future__ import annotations


class StageError(Exception):
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


class ChunkingFailed(StageError):
    code = "CHUNKING_FAILED"


class EmbeddingFailed(StageError):
    code = "EMBEDDING_FAILED"


class Superseded(Exception):
    """A newer attempt (reparse), a cancel or a delete took the knowledge over: stop quietly."""
