"""The SSRF defence of CreateFromURL end to end: every trick refused at the API with the rule
it broke while the canary never sees a request, a redirect to the canary refused by the
worker, and (on the full stack, where API and workers are separate processes) a URL the
workers' policy refuses failing its document with the reason."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import grpc
import pytest
from google.rpc import error_details_pb2
from sluice_client import (
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    SluiceClient,
)
from sluice_client._proto.sluice import v1

from core.extensions import VIDEO_NOT_SUPPORTED
from tests.e2e.stacks import Stack, full_stack
from tests.e2e.url_import.content import (
    ALLOWED_HOST,
    STAGES_ENV,
    WAIT_S,
    Servers,
    docreader_span,
    finished,
)

SSRF_CASES = [
    ("http://127.0.0.1:{canary}/secret", "127.0.0.1 is a loopback address"),
    ("http://2130706433:{canary}/decimal", "2130706433 is a loopback address"),
    ("http://0177.0.0.1:{canary}/octal", "is a loopback address"),
    ("http://0x7f.0x0.0x0.0x1:{canary}/hex", "is a loopback address"),
    ("http://0x7f000001:{canary}/hex-whole", "is a loopback address"),
    ("http://127.1:{canary}/short", "is a loopback address"),
    ("http://0.0.0.0:{canary}/unspecified", "unspecified"),
    ("http://[::]:{canary}/", "the unspecified address"),
    ("http://[::1]:{canary}/", "a loopback address"),
    ("http://[::ffff:127.0.0.1]:{canary}/mapped", "IPv4-mapped address of 127.0.0.1"),
    ("http://[::ffff:7f00:1]:{canary}/mapped-hex", "IPv4-mapped address of 127.0.0.1"),
    ("http://[::127.0.0.1]:{canary}/compatible", "IPv4-compatible address"),
    ("http://10.0.0.7/", "a private address"),
    ("http://172.16.5.4/", "a private address"),
    ("http://192.168.1.1/", "a private address"),
    ("http://[fd12:3456::1]/", "unique local (private) address"),
    ("http://169.254.169.254/latest/meta-data/", "a link-local address"),
    ("http://[fe80::1]/", "a link-local address"),
    ("http://100.64.0.1/", "a carrier-grade NAT address"),
    ("http://224.0.0.1/", "a multicast address"),
    ("http://[ff02::1]/", "a multicast address"),
    ("http://240.0.0.1/", "a reserved address"),
    ("http://192.0.2.10/", "a documentation address"),
    ("http://localhost@127.0.0.1:{canary}/userinfo", "credentials"),
    ("http://localhost:{content}\\@127.0.0.1:{canary}/", "credentials"),
    ("http://127.0.0.1:{canary}/#@localhost:{content}/", "127.0.0.1 is a loopback address"),
    ("http://127.0.0.1:{canary}#@localhost:{content}/", "127.0.0.1 is a loopback address"),
    ("http://localhost:22/", "port 22 is blocked"),
    ("http://localhost:6379/", "port 6379 is blocked"),
    ("ftp://localhost:{content}/docs/kestrel-timetable.pdf", "scheme 'ftp' is not allowed"),
    ("file:///etc/passwd", "scheme 'file' is not allowed"),
    ("gopher://localhost:{content}/", "scheme 'gopher' is not allowed"),
    ("http://local host/", "whitespace"),
]


@pytest.mark.parametrize(("template", "reason"), SSRF_CASES)
def test_every_ssrf_trick_is_refused_at_the_api_and_never_reaches_the_canary(
    client: SluiceClient, kb: v1.KnowledgeBase, servers: Servers, template: str, reason: str
) -> None:
    url = template.format(canary=servers.canary.port, content=servers.content.port)
    before = len(list(client.list_knowledge(kb.id)))
    with pytest.raises(InvalidArgument) as refused:
        client.create_from_url(kb.id, url)
    error = refused.value
    assert error.code == grpc.StatusCode.INVALID_ARGUMENT
    assert reason in error.message
    ((field, description),) = error.field_violations
    assert field == "url" and reason in description
    info = next(d for d in error.details if isinstance(d, error_details_pb2.ErrorInfo))
    assert info.reason == "URL_REFUSED" and reason in info.metadata["rule"]
    assert len(list(client.list_knowledge(kb.id))) == before, "nothing was created"
    assert servers.canary.requests == []


def test_a_redirect_to_the_canary_is_refused_before_it_is_followed(
    client: SluiceClient, kb: v1.KnowledgeBase, servers: Servers
) -> None:
    done = finished(client, client.create_from_url(kb.id, servers.url("/go/secret")))
    assert done.parse_status == v1.ParseStatus.FAILED
    assert "URL refused: 127.0.0.1 is a loopback address" in done.error_message
    span = docreader_span(client, done.id)
    assert (span.status, span.error_code) == (v1.SpanStatus.FAILED, "URL_REFUSED")
    assert "will retry" not in span.error_message
    assert ("/go/secret", f"{ALLOWED_HOST}:{servers.content.port}") in servers.content.requests
    assert servers.canary.requests == []


@pytest.mark.parametrize(
    ("url_path", "options", "error", "message"),
    [
        ("/media/clip.mp4", {}, InvalidArgument, VIDEO_NOT_SUPPORTED),
        ("/page", {"file_type": "exe"}, InvalidArgument, "file type 'exe' is not supported"),
        ("/page", {"file_name": "setup.exe"}, InvalidArgument, "file type 'exe'"),
        ("/audio/briefing.mp3", {}, FailedPrecondition, "audio files need an ASR model"),
        ("/img/chart.png", {"enable_multimodel": True}, FailedPrecondition, "needs a VLM model"),
        ("", {}, InvalidArgument, "url: is required"),
    ],
)
def test_the_gate_and_the_upload_prechecks_apply_before_anything_is_created(
    client: SluiceClient,
    kb: v1.KnowledgeBase,
    servers: Servers,
    url_path: str,
    options: dict[str, object],
    error: type[Exception],
    message: str,
) -> None:
    url = servers.url(url_path) if url_path else ""
    requests = len(servers.content.requests)
    with pytest.raises(error, match=message):
        client.create_from_url(kb.id, url, **options)  # type: ignore[arg-type]
    assert len(servers.content.requests) == requests, "the API itself never fetches"


def test_a_caller_without_the_knowledge_base_learns_nothing_of_the_url(
    client: SluiceClient,
) -> None:
    with pytest.raises(NotFound) as refused:
        client.create_from_url("no-such-kb", "http://10.0.0.7/")
    assert "10.0.0.7" not in refused.value.message


# --- the worker's own check: API and workers disagree on the allow list ---------------------


@pytest.fixture(scope="module")
def split_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """Full mode whose API allow-lists the content server but whose workers do not: a URL
    allowed when it was created is no longer allowed when it is fetched."""
    with full_stack(
        tmp_path_factory.mktemp("url-import-full"),
        workers=1,
        extra_env=STAGES_ENV,
        worker_env={"SLUICE_SSRF_ALLOW_HOSTS": ""},
    ) as running:
        yield running


def test_a_url_the_workers_policy_refuses_fails_the_document_with_the_reason(
    split_stack: Stack, servers: Servers
) -> None:
    with SluiceClient(split_stack.target) as client:
        kb = client.create_knowledge_base(f"urls-split-{uuid.uuid4().hex[:8]}")
        requests = len(servers.content.requests)
        created = client.create_from_url(kb.id, servers.url("/docs/kestrel-timetable.pdf"))
        assert created.parse_status == v1.ParseStatus.PENDING, "the API allowed it"
        done = client.wait_until_done(created.id, WAIT_S)
        assert done.parse_status == v1.ParseStatus.FAILED
        assert "URL refused: localhost resolves to a loopback address" in done.error_message
        assert "127.0.0.1" not in done.error_message, "the resolved address is not told"
        span = docreader_span(client, done.id)
        assert (span.status, span.error_code) == (v1.SpanStatus.FAILED, "URL_REFUSED")
        assert "URL refused: localhost resolves to" in span.error_message
    assert len(servers.content.requests) == requests, "the worker sent nothing"


def test_long_urls_titles_and_channels_fit_the_columns_on_postgresql(
    split_stack: Stack, servers: Servers
) -> None:
    """A long URL's placeholder title is cut to the column; a title, channel or URL over
    its limit is INVALID_ARGUMENT naming the field, not a database error."""
    with SluiceClient(split_stack.target) as client:
        kb = client.create_knowledge_base(f"urls-long-{uuid.uuid4().hex[:8]}")
        url = servers.url("/long-page?q=" + "q" * 3000)
        created = client.create_from_url(kb.id, url)
        assert created.parse_status == v1.ParseStatus.PENDING
        assert created.title == url[:1024]
        for options, field in [
            ({"url": servers.url("/x?" + "q" * 8200)}, "url"),
            ({"title": "t" * 1025}, "title"),
            ({"channel": "c" * 65}, "channel"),
        ]:
            request: dict[str, str] = {"url": servers.url("/other-page"), **options}
            with pytest.raises(InvalidArgument) as refused:
                client.create_from_url(kb.id, **request)  # type: ignore[arg-type]
            assert [name for name, _ in refused.value.field_violations] == [field]
        client.wait_until_done(created.id, WAIT_S)
