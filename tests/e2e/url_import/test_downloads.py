"""CreateFromURL end to end over real gRPC: files and web pages fetched by the worker from
the content server, processed like uploads and found by Search; downloads that are too big or
of a refused type fail and store nothing; the same URL again is ALREADY_EXISTS."""

from __future__ import annotations

import hashlib
import time
import uuid

import pytest
from sluice_client import (
    AlreadyExists,
    SluiceClient,
)
from sluice_client._proto.sluice import v1

from core.extensions import VIDEO_NOT_SUPPORTED
from tests.e2e.stacks import Stack
from tests.e2e.url_import.content import (
    ARTICLE_SENTENCE,
    ARTICLE_TITLE,
    CYRILLIC_SENTENCE,
    DOCX_SENTENCES,
    DOWNLOAD_CAP,
    GULL_PAGE_PATH,
    GULL_SENTENCE,
    PDF_SENTENCES,
    TOWER_PNG_PATH,
    WAIT_S,
    Servers,
    completed,
    docreader_span,
    finished,
    found_in,
    stored_files_of,
)


def test_a_pdf_url_is_downloaded_processed_like_an_upload_and_found(
    client: SluiceClient, kb: v1.KnowledgeBase, servers: Servers, stack: Stack
) -> None:
    url = servers.url("/docs/kestrel-timetable.pdf")
    created = client.create_from_url(kb.id, url)
    assert (created.type, created.source, created.parse_status) == (
        v1.KnowledgeType.URL,
        url,
        v1.ParseStatus.PENDING,
    )
    assert (created.file_name, created.file_type) == ("kestrel-timetable.pdf", "pdf")

    done = completed(client, created)
    assert done.file_size == len(servers.pdf)
    assert done.file_hash == hashlib.md5(servers.pdf).hexdigest()
    assert done.title == "kestrel-timetable.pdf"
    span = docreader_span(client, done.id)
    assert span.input is not None and span.input.to_dict()["url"] == url
    assert span.output is not None
    fetch = span.output.to_dict()
    assert (fetch["url"], fetch["final_url"], fetch["http_status"]) == (url, url, 200)
    assert (fetch["bytes_fetched"], fetch["content_type"]) == (len(servers.pdf), "application/pdf")
    assert found_in(client, kb, "How many ferry crossings on Sundays?", PDF_SENTENCES[0]) == done.id
    (stored,) = stored_files_of(stack, done.id)
    assert stored.read_bytes() == servers.pdf

    # A reparse fetches the URL again and its download replaces the previous one.
    fetched = servers.content.paths.count("/docs/kestrel-timetable.pdf")
    reparsed = completed(client, client.reparse(done.id))
    assert reparsed.attempt == 2
    assert servers.content.paths.count("/docs/kestrel-timetable.pdf") == fetched + 1
    (restored,) = stored_files_of(stack, done.id)
    assert restored != stored and restored.read_bytes() == servers.pdf
    # The download is catalogued like an upload: a grant streams it back.
    grant = client.create_access_grant(knowledge_id=done.id)
    frames = list(client.read_resource(grant.token))
    assert b"".join(frame.data or b"" for frame in frames[1:]) == servers.pdf


def test_a_named_download_from_a_url_without_extension_is_a_docx(
    client: SluiceClient, kb: v1.KnowledgeBase, servers: Servers, stack: Stack
) -> None:
    created = client.create_from_url(
        kb.id, servers.url("/files/get?id=42"), file_name="Marram Survey.docx"
    )
    assert (created.file_name, created.file_type) == ("Marram Survey.docx", "docx")
    done = completed(client, created)
    assert done.file_hash == hashlib.md5(servers.docx).hexdigest()
    assert found_in(client, kb, "What did the dune survey count?", DOCX_SENTENCES[0]) == done.id
    assert len(stored_files_of(stack, done.id)) == 1
    client.delete_knowledge(done.id)
    assert stored_files_of(stack, done.id) == [], "the download goes with its knowledge"


def test_a_download_named_csv_by_its_server_gets_the_table_summary(
    client: SluiceClient, kb: v1.KnowledgeBase, servers: Servers
) -> None:
    created = client.create_from_url(kb.id, servers.url("/exports/harbours.txt"))
    assert created.file_type == "txt"
    done = completed(client, created)
    assert (done.file_name, done.file_type) == ("harbours.csv", "csv")
    deadline = time.monotonic() + WAIT_S
    while True:
        chunk_types = {chunk.chunk_type for chunk in client.list_chunks(done.id)}
        if v1.ChunkType.TABLE_SUMMARY in chunk_types:
            break
        assert time.monotonic() < deadline, f"no table summary among {chunk_types}"
        time.sleep(0.2)
    assert v1.ChunkType.TABLE_COLUMN in chunk_types


def test_a_web_page_becomes_its_main_content_titled_by_its_title(
    client: SluiceClient, kb: v1.KnowledgeBase, servers: Servers
) -> None:
    url = servers.url("/articles/tern-island")
    created = client.create_from_url(kb.id, url)
    assert (created.file_type, created.file_name, created.title) == ("url", "", url)
    done = completed(client, created)
    assert done.title == ARTICLE_TITLE
    text = "\n".join(chunk.content for chunk in client.list_chunks(done.id))
    assert ARTICLE_SENTENCE in text
    assert "Subscribe to our newsletter" not in text and "Cookie settings" not in text
    # The page's relative image link was fetched against the page's URL and stored.
    assert "/img/lens.png" in servers.content.paths
    assert "](../img/lens.png)" not in text and "![The clockwork lens](" in text
    fetch = docreader_span(client, done.id).output
    assert fetch is not None and fetch.to_dict()["content_type"] == "text/html"
    assert found_in(client, kb, "How often is the clockwork lens wound?", ARTICLE_SENTENCE) == (
        done.id
    )


def test_a_given_title_is_kept_and_a_charset_from_the_header_is_honoured(
    client: SluiceClient, kb: v1.KnowledgeBase, servers: Servers
) -> None:
    created = client.create_from_url(kb.id, servers.url("/articles/chaek"), title="Gull Island")
    done = completed(client, created)
    assert done.title == "Gull Island"
    text = "\n".join(chunk.content for chunk in client.list_chunks(done.id))
    assert CYRILLIC_SENTENCE in text


def test_a_page_at_a_non_ascii_url_with_non_ascii_image_links_is_imported(
    client: SluiceClient, kb: v1.KnowledgeBase, servers: Servers
) -> None:
    """Cyrillic in the URL and in a page-relative <img src> go out percent-encoded."""
    url = servers.url("/статьи/бакланий")
    created = client.create_from_url(kb.id, url)
    assert created.source == servers.url(GULL_PAGE_PATH)
    done = completed(client, created)
    assert done.title == "Бакланий"
    assert GULL_SENTENCE in "\n".join(chunk.content for chunk in client.list_chunks(done.id))
    assert TOWER_PNG_PATH in servers.content.paths, "the page's image was fetched"
    fetch = docreader_span(client, done.id).output
    assert fetch is not None and fetch.to_dict()["remote_images_fetched"] == 1


@pytest.mark.parametrize("path", ["/big/unannounced.pdf", "/big/announced.pdf"])
def test_an_oversize_download_fails_with_a_size_error_and_stores_nothing(
    client: SluiceClient, kb: v1.KnowledgeBase, servers: Servers, stack: Stack, path: str
) -> None:
    done = finished(client, client.create_from_url(kb.id, servers.url(path)))
    assert done.parse_status == v1.ParseStatus.FAILED
    assert f"over the {DOWNLOAD_CAP}-byte cap" in done.error_message
    span = docreader_span(client, done.id)
    assert span.status == v1.SpanStatus.FAILED and span.error_code == "URL_FETCH_FAILED"
    assert f"over the {DOWNLOAD_CAP}-byte cap" in span.error_message
    assert "will retry" not in span.error_message, "a size error is not retried"
    assert done.file_size == 0 and done.file_hash == ""
    assert stored_files_of(stack, done.id) == []
    assert list((stack.storage_dir / ".staging").glob("*.part")) == []


def test_a_body_shorter_than_its_content_length_fails_after_retries_and_stores_nothing(
    client: SluiceClient, kb: v1.KnowledgeBase, servers: Servers, stack: Stack
) -> None:
    pdf = len(servers.pdf)
    done = finished(client, client.create_from_url(kb.id, servers.url("/cut/kestrel.pdf")))
    assert done.parse_status == v1.ParseStatus.FAILED
    cut = f"the connection closed after {pdf - 5} of the {pdf} bytes the server announced"
    assert cut in done.error_message
    span = docreader_span(client, done.id)
    assert (span.status, span.error_code) == (v1.SpanStatus.FAILED, "URL_FETCH_FAILED")
    fetched = [path for path, _ in servers.content.requests if path == "/cut/kestrel.pdf"]
    assert len(fetched) > 1, "a broken download is retried"
    assert done.file_size == 0 and done.file_hash == ""
    assert stored_files_of(stack, done.id) == []
    assert list((stack.storage_dir / ".staging").glob("*.part")) == []


def test_an_empty_download_fails_as_an_empty_document_and_stores_nothing(
    client: SluiceClient, kb: v1.KnowledgeBase, servers: Servers, stack: Stack
) -> None:
    done = finished(client, client.create_from_url(kb.id, servers.url("/void/report.pdf")))
    assert done.parse_status == v1.ParseStatus.FAILED
    assert "empty document: the server sent no bytes" in done.error_message
    span = docreader_span(client, done.id)
    assert (span.status, span.error_code) == (v1.SpanStatus.FAILED, "EMPTY_DOCUMENT")
    assert done.file_size == 0 and stored_files_of(stack, done.id) == []


@pytest.mark.parametrize(
    ("path", "file_type", "message"),
    [
        (
            "/tools/manual.pdf",
            "",
            "the download is a Windows executable, not a pdf file: file type 'exe' is not "
            "supported",
        ),
        ("/media/briefing.pdf", "", f"the server sent video/mp4: {VIDEO_NOT_SUPPORTED}"),
        ("/download?id=9", "pdf", "file type 'exe' is not supported"),
    ],
)
def test_a_download_of_a_refused_type_fails_with_the_gates_message(
    client: SluiceClient,
    kb: v1.KnowledgeBase,
    servers: Servers,
    stack: Stack,
    path: str,
    file_type: str,
    message: str,
) -> None:
    done = finished(client, client.create_from_url(kb.id, servers.url(path), file_type=file_type))
    assert done.parse_status == v1.ParseStatus.FAILED
    assert message in done.error_message
    span = docreader_span(client, done.id)
    assert (span.status, span.error_code) == (v1.SpanStatus.FAILED, "UNSUPPORTED_FILE_TYPE")
    assert stored_files_of(stack, done.id) == []


def test_the_same_url_again_is_already_exists_with_the_existing_knowledge(
    client: SluiceClient, kb: v1.KnowledgeBase, servers: Servers
) -> None:
    url = servers.url("/dedup/notes.pdf")
    existing = client.create_from_url(kb.id, url)
    respelled = url.replace("http://localhost", "HTTP://LocalHost") + "#page=2"
    with pytest.raises(AlreadyExists) as refused:
        client.create_from_url(kb.id, respelled, title="again")
    assert refused.value.existing_knowledge_id == existing.id
    assert existing.id in refused.value.message
    completed(client, existing)
    with pytest.raises(AlreadyExists):
        client.create_from_url(kb.id, url)
    # A failed import does not count: the same URL may be imported again.
    missing = servers.url("/dedup/missing.pdf")
    failed = finished(client, client.create_from_url(kb.id, missing))
    assert failed.parse_status == v1.ParseStatus.FAILED and "HTTP 404" in failed.error_message
    again = client.create_from_url(kb.id, missing)
    assert again.id != failed.id
    finished(client, again)
    # Another knowledge base may import it too.
    other = client.create_knowledge_base(f"urls-other-{uuid.uuid4().hex[:8]}")
    assert client.create_from_url(other.id, url).id != existing.id
