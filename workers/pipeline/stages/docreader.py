"""Stage docreader: the stored file (a URL knowledge's is fetched first) → Markdown, its
images stored and linked, an audio file transcribed. A manual knowledge is Markdown already.
The docreader call is cancelled as soon as the round must stop, however long the parse
would still take."""

from __future__ import annotations

import io
from collections.abc import Mapping
from typing import Any, BinaryIO

from core.statuses import KnowledgeType, Stage
from storage.db.models import Knowledge
from workers.docreader_client import DocReaderCallError, DocReaderCancelled, ReadConfig
from workers.pipeline.reading.images import DocumentImages
from workers.pipeline.reading.parts import ReadingParts
from workers.pipeline.reading.transcription import transcribe
from workers.pipeline.reading.url_source import (
    PAGE_FILE_NAME,
    PAGE_FILE_TYPE,
    FetchedUrl,
    fetch_url_knowledge,
    record_page_title,
)
from workers.pipeline.round.checkpoint import RoundCheckpoint
from workers.pipeline.round.errors import DocReaderFailed, EmptyDocument, Superseded
from workers.pipeline.round.runner import Progress, Skip
from workers.pipeline.stages.work import DocumentWork

# The docreader answers these for the file itself (malformed, unsupported, an engine that
# cannot run here): the same file fails the same way on every attempt.
_PERMANENT_DOCREADER_CODES = frozenset(
    {"INVALID_ARGUMENT", "FAILED_PRECONDITION", "RESOURCE_EXHAUSTED", "UNIMPLEMENTED"}
)


class DocReaderStage:
    name = Stage.DOCREADER

    def __init__(self, parts: ReadingParts, checkpoint: RoundCheckpoint) -> None:
        self._parts = parts
        self._checkpoint = checkpoint

    def start(self, work: DocumentWork) -> Mapping[str, Any] | Skip:
        knowledge = work.knowledge
        if knowledge.type == KnowledgeType.MANUAL:
            work.markdown = str(knowledge.content or "")
            return Skip("manual knowledge is Markdown already")
        is_url = knowledge.type == KnowledgeType.URL
        return {
            "file_name": knowledge.file_name,
            "file_type": knowledge.file_type,
            "is_url": is_url,
            **({"url": knowledge.source} if is_url else {}),
            "engine": work.config.parser_choice(knowledge.file_type).engine,
        }

    def run(self, work: DocumentWork, progress: Progress) -> Mapping[str, Any]:
        parts, checkpoint, config = self._parts, self._checkpoint, work.config
        knowledge = work.knowledge
        fetched: FetchedUrl | None = None
        if knowledge.type == KnowledgeType.URL:
            fetched = fetch_url_knowledge(
                parts, knowledge, work.attempt, config=config, should_stop=checkpoint.should_stop
            )
            progress(fetched.fetch.span_fields())
            knowledge = work.knowledge = fetched.knowledge
        # A download may turn out to be another type than planned; a page's type is "url".
        choice = config.parser_choice(knowledge.file_type)
        page_url = (
            fetched.fetch.final_url if fetched is not None and fetched.page is not None else ""
        )
        images = DocumentImages(parts, knowledge, before_fetch=checkpoint.check, base_url=page_url)
        source, file_name, file_type = self._source(knowledge, fetched)
        try:
            with source as stream:
                outcome = parts.docreader.read_file(
                    stream,
                    file_name=file_name,
                    file_type=file_type,
                    config=ReadConfig(
                        engine=choice.engine,
                        options=choice.engine_options,
                        enable_ocr=choice.switch("enable_ocr"),
                        first_row_header=choice.switch("first_row_header"),
                        ocr_languages=config.ocr_languages,
                    ),
                    should_stop=checkpoint.should_stop,
                    on_image=images.add,
                )
        except DocReaderCancelled as exc:
            raise Superseded(knowledge.id) from exc
        except DocReaderCallError as exc:
            raise DocReaderFailed(
                self.name,
                f"{exc.code_name}: {exc.message}",
                permanent=exc.code_name in _PERMANENT_DOCREADER_CODES,
            ) from exc
        checkpoint.check()
        markdown = outcome.markdown
        if outcome.is_audio:
            markdown = transcribe(config, outcome, knowledge.file_name, parts.settings.url_policy)
            checkpoint.check()
        stored = images.finish(markdown)
        if not stored.markdown.strip() and not stored.stored:
            name = file_name if fetched is None or fetched.page is None else "the page"
            raise EmptyDocument(self.name, f"{name} has no text or images to index")
        if fetched is not None:
            record_page_title(parts, knowledge, work.attempt, outcome.metadata)
        work.markdown = stored.markdown
        return {
            **(fetched.fetch.span_fields() if fetched is not None else {}),
            "total_text_chars": len(stored.markdown),
            "image_count": len(stored.stored),
            "icons_dropped": stored.icons_dropped,
            "invalid_images_dropped": stored.invalid_dropped,
            "remote_images_fetched": stored.remote_fetched,
            "remote_images_refused": stored.remote_refused,
            "remote_images_failed": stored.remote_failed,
            "engine": choice.engine,
            "detected_file_type": outcome.detected_file_type,
            "transcribed": outcome.is_audio,
            **{f"meta_{k}": v for k, v in outcome.metadata.items()},
        }

    def _source(
        self, knowledge: Knowledge, fetched: FetchedUrl | None
    ) -> tuple[BinaryIO, str, str]:
        """What the docreader reads, under which name and type: a fetched web page, else the
        knowledge's stored file (its file_path a resource:// reference, or a plain path)."""
        if fetched is not None and fetched.page is not None:
            return io.BytesIO(fetched.page), PAGE_FILE_NAME, PAGE_FILE_TYPE
        stored = self._parts.catalog.open(knowledge.file_path)
        return stored, knowledge.file_name, knowledge.file_type
