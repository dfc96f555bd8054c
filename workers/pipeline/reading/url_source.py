"""A URL knowledge's content, fetched by the worker right before the docreader reads it
(spec: «Импорт по URL»; convert() checks the URL against the SSRF policy once more at this
point — the third line against TOCTOU, after the API handler and the service).

``source`` is fetched under the settings' SSRF policy through safe_fetch (validated, pinned
addresses; every redirect validated again, a bounded number of them), within the URL import
time limits. Then, as creation planned it:

- a **file download** streams to storage through FileService as it arrives, never whole in
  memory, capped at ``url_download_max_bytes``; the gate judges the response's headers and
  first bytes before anything is stored (download_gate). A download that turns out to be
  another type than planned passes the model pre-check creation ran for the planned one (an
  MP3 needs an ASR model). The committed file becomes the knowledge's original — name, type,
  size, hash, path — and is read like an uploaded file; the file an earlier round downloaded
  is replaced.
- a **web page** is read into memory, capped at ``url_page_max_bytes``, and handed to the
  docreader as an HTML document, so the docreader never touches the network. A charset the
  server declared only in its Content-Type travels as a UTF-8 byte-order mark, which the
  docreader's HTML loader honours first, as a browser honours the header. The page's
  <title> replaces the placeholder title creation gave it (its URL, ``placeholder_title``)
  unless the caller gave one.

What the fetch did (URL, final URL, status, bytes, content type) is returned for the span.
"""

from __future__ import annotations

import codecs
import contextlib
import logging
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

from core.effective_config import EffectiveConfig
from core.extensions import WEB_PAGE_TYPE, UnsupportedFileType
from core.model_prechecks import missing_model
from core.ssrf.guard import Resolver
from core.ssrf.hosts import SsrfBlocked
from core.statuses import ParseStatus, Stage
from storage.db.models import Knowledge
from storage.db.models.knowledge import TITLE_MAX_CHARS
from storage.db.repositories.resources import KNOWLEDGE_ORIGINAL
from storage.files.base import StoredFile
from storage.files.keys import content_type_of
from storage.files.resource_catalog import UnknownResource, is_resource_ref
from workers.docreader_client import DocReaderCallError, DocReaderClient
from workers.net.safe_fetch import FetchError, StreamedResponse, open_stream
from workers.pipeline.download_gate import (
    MAGIC_HEAD_BYTES,
    DownloadName,
    check_first_bytes,
    check_page_type,
    checked_download,
)
from workers.pipeline.reading.parts import OutboundRules, ReadingParts
from workers.pipeline.round.checkpoint import ROUND_STATUSES
from workers.pipeline.round.errors import (
    EmptyDocument,
    ModelMissing,
    Superseded,
    UnsupportedDownload,
    UrlFetchFailed,
    UrlRefused,
)

log = logging.getLogger(__name__)

STAGE = Stage.DOCREADER
# The name and type a web page is handed to the docreader under.
PAGE_FILE_NAME = "page.html"
PAGE_FILE_TYPE = "html"
_PAGE_ACCEPT = "text/html,application/xhtml+xml;q=0.9,*/*;q=0.1"
_BOMS = (codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)


@dataclass(frozen=True)
class UrlFetch:
    url: str
    final_url: str
    http_status: int
    content_type: str
    bytes: int

    def span_fields(self) -> dict[str, Any]:
        return {
            "url": self.url,
            "final_url": self.final_url,
            "http_status": self.http_status,
            "content_type": self.content_type,
            "bytes_fetched": self.bytes,
        }


@dataclass(frozen=True)
class FetchedUrl:
    fetch: UrlFetch
    # The row as the docreader reads it: a download's file fields are set.
    knowledge: Knowledge
    # A web page's HTML; None for a download (read from storage like an upload).
    page: bytes | None = None


def placeholder_title(source: str) -> str:
    """The title a URL knowledge has until its page's <title> is read: its URL, cut to fit."""
    return source[:TITLE_MAX_CHARS]


def fetch_url_knowledge(
    parts: ReadingParts,
    knowledge: Knowledge,
    attempt: int,
    *,
    config: EffectiveConfig,
    should_stop: Callable[[], bool],
    resolver: Resolver | None = None,
) -> FetchedUrl:
    """Fetch ``knowledge.source`` for round ``attempt`` (processed under ``config``): a
    StageError of the docreader stage saying why it failed, or Superseded when the round
    must stop. ``resolver`` replaces the system's DNS resolver."""
    try:
        if knowledge.file_type == WEB_PAGE_TYPE:
            return _fetch_page(parts, knowledge, should_stop, resolver)
        return _download(parts, knowledge, attempt, config, should_stop, resolver)
    except SsrfBlocked as exc:
        raise UrlRefused(STAGE, f"URL refused: {exc.reason}", permanent=True) from exc
    except FetchError as exc:
        raise UrlFetchFailed(
            STAGE, f"fetching the URL failed: {exc.reason}", permanent=exc.permanent
        ) from exc
    except UnsupportedFileType as exc:
        raise UnsupportedDownload(STAGE, str(exc), permanent=True) from exc


def record_page_title(
    parts: ReadingParts, knowledge: Knowledge, attempt: int, metadata: Mapping[str, str]
) -> None:
    """A web page's <title> (from the docreader's metadata) becomes the knowledge's title,
    unless the caller gave one: creation stores the URL as a placeholder title."""
    title = " ".join(metadata.get("title", "").split())[:TITLE_MAX_CHARS]
    is_placeholder = knowledge.title == placeholder_title(knowledge.source)
    if knowledge.file_type == WEB_PAGE_TYPE and title and is_placeholder:
        parts.knowledges.update_fields(knowledge.id, attempt=attempt, title=title)


def _open(
    rules: OutboundRules, url: str, max_bytes: int, accept: str, resolver: Resolver | None
) -> AbstractContextManager[StreamedResponse]:
    return open_stream(
        url,
        rules.url_policy,
        max_bytes=max_bytes,
        timeout_s=rules.outbound.url_import_timeout_s,
        connect_timeout_s=rules.outbound.url_connect_timeout_s,
        accept=accept,
        resolver=resolver,
    )


def _fetch_page(
    parts: ReadingParts,
    knowledge: Knowledge,
    should_stop: Callable[[], bool],
    resolver: Resolver | None,
) -> FetchedUrl:
    url = knowledge.source
    rules = parts.settings
    with _open(rules, url, rules.outbound.url_page_max_bytes, _PAGE_ACCEPT, resolver) as response:
        check_page_type(response.content_type)
        html = b"".join(_pieces(response, should_stop, knowledge.id))
    fetch = _fetch_record(url, response)
    return FetchedUrl(fetch, knowledge, page=_with_declared_charset(html, response.charset))


def _download(
    parts: ReadingParts,
    knowledge: Knowledge,
    attempt: int,
    config: EffectiveConfig,
    should_stop: Callable[[], bool],
    resolver: Resolver | None,
) -> FetchedUrl:
    url = knowledge.source
    planned = DownloadName(knowledge.file_name, knowledge.file_type)
    rules = parts.settings
    with _open(rules, url, rules.outbound.url_download_max_bytes, "*/*", resolver) as response:
        name = checked_download(
            planned,
            final_url=response.final_url,
            content_disposition=response.content_disposition,
            content_type=response.content_type,
        )
        if name.file_type != planned.file_type:
            _check_models(knowledge, name.file_type, config)
        response.limit_to(_docreader_cap(parts.docreader, config, name.file_type))
        stored = _store(parts, knowledge, name, _pieces(response, should_stop, knowledge.id))
    return FetchedUrl(
        _fetch_record(url, response), _record_download(parts, knowledge, attempt, name, stored)
    )


def _docreader_cap(docreader: DocReaderClient, config: EffectiveConfig, file_type: str) -> int:
    """The largest file of this type the docreader's chosen engine reads: downloading more
    would only store what it refuses. No cap when it has none, or cannot say right now
    (the read itself will then fail or succeed on its own)."""
    engine = config.parser_choice(file_type).engine
    try:
        engines = docreader.list_engines()
    except DocReaderCallError as exc:
        log.warning("docreader engines unknown (%s); download capped by settings only", exc)
        return sys.maxsize
    caps = next((e.max_input_bytes for e in engines if e.name == engine), {})
    return caps.get(file_type, sys.maxsize)


def _check_models(knowledge: Knowledge, file_type: str, config: EffectiveConfig) -> None:
    """The pre-check creation ran for the planned type, for the type that came instead;
    multimodal as creation decided it for this knowledge."""
    missing = missing_model(
        file_type,
        bool(knowledge.enable_multimodel),
        asr_model=config.asr_model,
        vlm_model=config.vlm_model,
    )
    if missing is not None:
        raise ModelMissing(
            STAGE, f"the download is a {file_type} file: {missing.message}", missing.reason
        )


def _pieces(
    response: StreamedResponse, should_stop: Callable[[], bool], knowledge_id: str
) -> Iterator[bytes]:
    """The body, asking between pieces whether the round must stop."""
    for piece in response.chunks():
        if should_stop():
            raise Superseded(knowledge_id)
        yield piece


def _store(
    parts: ReadingParts, knowledge: Knowledge, name: DownloadName, pieces: Iterator[bytes]
) -> StoredFile:
    """Stream the body to storage; its first bytes are held back until the gate passed them,
    and anything refused or broken is aborted, so nothing of it stays behind."""
    files = parts.files_for_knowledge_base(knowledge.knowledge_base_id)
    upload = files.begin_upload(knowledge.tenant_id, knowledge.id, name.file_name)
    try:
        head: bytes | None = b""
        for piece in pieces:
            if head is not None:
                head += piece
                if len(head) < MAGIC_HEAD_BYTES:
                    continue
                check_first_bytes(head, name.file_type)
                piece, head = head, None
            upload.write(piece)
        if head is not None:  # a body shorter than the head
            check_first_bytes(head, name.file_type)
            upload.write(head)
        if upload.size == 0:
            raise EmptyDocument(STAGE, "the server sent no bytes")
        return upload.commit()
    except BaseException:
        upload.abort()
        raise


def _record_download(
    parts: ReadingParts, knowledge: Knowledge, attempt: int, name: DownloadName, stored: StoredFile
) -> Knowledge:
    """Make the stored file the knowledge's original while the round is still current; the
    previous round's download goes. Like an upload's, the original is catalogued and the row
    keeps its stable reference. A round no longer current (Superseded) or a failure to
    record it (the database down) removes the file and its record again."""
    with parts.catalog.registered(
        stored.path,
        tenant_id=knowledge.tenant_id,
        size=stored.size,
        content_type=content_type_of(name.file_name),
        owner_type=KNOWLEDGE_ORIGINAL,
        owner_id=knowledge.id,
    ) as original:
        fields: dict[str, Any] = {
            "file_name": name.file_name,
            "file_type": name.file_type,
            "file_size": stored.size,
            "file_hash": stored.md5,
            "file_path": original.ref,
            "storage_size": stored.size,
        }
        if knowledge.title == knowledge.file_name:  # the title was only the planned file name
            fields["title"] = name.file_name
        if not parts.knowledges.transition(
            knowledge.id,
            from_statuses=ROUND_STATUSES,
            to_status=ParseStatus.PROCESSING,
            attempt=attempt,
            **fields,
        ):
            raise Superseded(knowledge.id)
    # Recorded: the row refers to the file now, whatever happens next.
    row = parts.knowledges.get(knowledge.id, None)
    if row is None:  # deleted right after; the deletion takes this file with the rest
        raise Superseded(knowledge.id)
    _discard_previous(parts, knowledge.file_path)
    return row


def _discard_previous(parts: ReadingParts, path_or_ref: str) -> None:
    """The previous round's download: its catalogue record and file (or a plain path's)."""
    if not path_or_ref:
        return
    if is_resource_ref(path_or_ref):
        # Already forgotten, e.g. by a try of this round that failed after discarding it.
        with contextlib.suppress(UnknownResource):
            parts.catalog.discard(path_or_ref)
    else:
        parts.files.delete(path_or_ref)


def _fetch_record(url: str, response: StreamedResponse) -> UrlFetch:
    return UrlFetch(
        url, response.final_url, response.status, response.content_type, response.received
    )


def _with_declared_charset(html: bytes, charset: str) -> bytes:
    """The page as UTF-8 behind a byte-order mark when the server declared a charset it
    decodes with; as sent otherwise (the docreader's own detection decides)."""
    if not charset or html.startswith(_BOMS):
        return html
    try:
        text = html.decode(charset)
    except (LookupError, UnicodeDecodeError):
        return html
    return codecs.BOM_UTF8 + text.encode("utf-8")
