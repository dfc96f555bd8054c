"""The string values stored in status and type columns (lower-case, as the spec names them).

They are ``StrEnum`` members, so they compare equal to, and are stored as, plain strings:
code compares and writes the members, the columns hold the same strings as before.
"""

from __future__ import annotations

from enum import StrEnum


class ParseStatus(StrEnum):
    PENDING = "pending"
    PROCESSING = "processing"
    FINALIZING = "finalizing"
    COMPLETED = "completed"
    FAILED = "failed"
    CANCELLED = "cancelled"
    DELETING = "deleting"
    DRAFT = "draft"


class EnableStatus(StrEnum):
    ENABLED = "enabled"
    DISABLED = "disabled"


class SummaryStatus(StrEnum):
    NONE = "none"
    PENDING = "pending"
    PROCESSING = "processing"
    COMPLETED = "completed"
    FAILED = "failed"


class JobStatus(StrEnum):
    """FAQ import and knowledge base clone jobs (``faq_import_jobs.status``,
    ``kb_clone_jobs.status``), as the API's JobStatus names them."""

    PENDING = "pending"
    PROCESSING = "processing"
    COMPLETED = "completed"
    FAILED = "failed"


class KnowledgeType(StrEnum):
    FILE = "file"
    URL = "url"
    MANUAL = "manual"
    FAQ = "faq"


class KnowledgeBaseType(StrEnum):
    DOCUMENT = "document"
    FAQ = "faq"


class ChunkType(StrEnum):
    TEXT = "text"
    PARENT_TEXT = "parent_text"
    SUMMARY = "summary"
    IMAGE_CAPTION = "image_caption"
    IMAGE_OCR = "image_ocr"
    IMAGE_VECTOR = "image_vector"
    TABLE_SUMMARY = "table_summary"
    TABLE_COLUMN = "table_column"
    # A question generated for a text chunk (parent_chunk_id), indexed to find that chunk.
    QUESTION = "question"
    FAQ = "faq"


class SpanKind(StrEnum):
    ROOT = "root"
    STAGE = "stage"
    STEP = "step"


class Stage(StrEnum):
    NONE = ""
    DOCREADER = "docreader"
    CHUNKING = "chunking"
    EMBEDDING = "embedding"
    MULTIMODAL = "multimodal"
    POSTPROCESS = "postprocess"


class SpanStatus(StrEnum):
    PENDING = "pending"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"
    SKIPPED = "skipped"
    CANCELLED = "cancelled"


# A round is under way in these states (housekeeping looks for stalled ones among them).
IN_FLIGHT: tuple[ParseStatus, ...] = (
    ParseStatus.PENDING,
    ParseStatus.PROCESSING,
    ParseStatus.FINALIZING,
)
# A round ended in these states; watchers stop once a knowledge reaches one.
TERMINAL: frozenset[str] = frozenset(
    {ParseStatus.COMPLETED, ParseStatus.FAILED, ParseStatus.CANCELLED}
)
# Rows in these states are invisible to duplicate detection (spec: «Механизм дедупликации»).
DEDUP_IGNORED: frozenset[str] = frozenset({ParseStatus.FAILED, ParseStatus.DELETING})
OPEN_SPAN_STATUSES: frozenset[str] = frozenset({SpanStatus.PENDING, SpanStatus.RUNNING})
