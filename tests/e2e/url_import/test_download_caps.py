"""A URL download is never bigger than what the docreader reads for its type.

The settings' cap is set high here (1 GiB) and the docreader's input cap to 100 MiB: a text
file is still capped at the docreader's 64 MiB text limit, a PDF at its 100 MiB, so the same
announced size is refused for one type before a byte is stored and fetched for the other.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sluice_client import SluiceClient
from sluice_client._proto.sluice import v1

from server.docreader.safety.limits import ParseLimits
from tests.e2e.stacks import Stack, lite_stack
from tests.e2e.url_import.content import (
    STAGES_ENV,
    Servers,
    docreader_span,
    finished,
    reply,
    stored_files_of,
)

TEXT_CAP = ParseLimits().max_text_bytes
ANNOUNCED = TEXT_CAP + 1


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    env = {
        **STAGES_ENV,
        "SLUICE_URL_DOWNLOAD_MAX_BYTES": str(1 << 30),
        "SLUICE_DOCREADER_MAX_INPUT_MB": "100",
    }
    with lite_stack(tmp_path_factory.mktemp("url-caps-lite"), env) as running:
        yield running


@pytest.mark.parametrize(
    ("path", "content_type", "message"),
    [
        (
            "/caps/notes.txt",
            "text/plain",
            f"the body is {ANNOUNCED} bytes, over the {TEXT_CAP}-byte cap",
        ),
        (
            "/caps/report.pdf",
            "application/pdf",
            f"the connection closed after 9 of the {ANNOUNCED} bytes",
        ),
    ],
    ids=["text: refused by the docreader's text limit", "pdf: under its limit, fetched"],
)
def test_the_download_cap_is_what_the_docreader_reads_for_the_type(
    client: SluiceClient,
    kb: v1.KnowledgeBase,
    servers: Servers,
    stack: Stack,
    path: str,
    content_type: str,
    message: str,
) -> None:
    # Announces more than the text limit but sends only 9 bytes: a fetch that gets past the
    # size check ends as a truncated body.
    servers.content.routes[path] = reply(
        200, b"%PDF-1.4\n", {"Content-Type": content_type, "Content-Length": str(ANNOUNCED)}
    )
    done = finished(client, client.create_from_url(kb.id, servers.url(path)))
    assert done.parse_status == v1.ParseStatus.FAILED
    assert message in done.error_message
    assert docreader_span(client, done.id).error_code == "URL_FETCH_FAILED"
    assert stored_files_of(stack, done.id) == []
