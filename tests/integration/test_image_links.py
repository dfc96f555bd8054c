"""with_image_urls over a real catalog (SQLite) and local storage: the resource references
of a response become URLs of where the files are now, all read in one catalog query, and a
reference the content's tenant cannot open gives way to its alt text."""

from __future__ import annotations

import urllib.request
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import event

from server.services.image_links import with_image_urls
from storage.db.repositories.resources import KNOWLEDGE_IMAGE
from workers.context import WorkerContext

PNG = b"\x89PNG\r\n\x1a\n" + b"picture bytes " * 64


def _image(ctx: WorkerContext, tenant_id: str, owner_id: str, data: bytes = PNG) -> str:
    path = ctx.files.save_bytes(tenant_id, f"{owner_id}.png", data)
    return ctx.catalog.register(
        path,
        tenant_id=tenant_id,
        size=len(data),
        content_type="image/png",
        owner_type=KNOWLEDGE_IMAGE,
        owner_id=owner_id,
    ).ref


@pytest.fixture
def catalog_queries(ctx: WorkerContext) -> Iterator[list[str]]:
    """The statements on the catalog's table run while the test does."""
    seen: list[str] = []

    def record(_conn: Any, _cursor: Any, statement: str, *_rest: Any) -> None:
        if "storage_resources" in statement:
            seen.append(statement)

    event.listen(ctx.db.engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        event.remove(ctx.db.engine, "before_cursor_execute", record)


def _opened(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=10) as response:
        return bytes(response.read())


def test_references_become_urls_of_the_files_as_they_are_now(
    ctx: WorkerContext, catalog_queries: list[str]
) -> None:
    tenant = ctx.tenants.create_tenant("owner").id
    other = ctx.tenants.create_tenant("other").id
    figure = _image(ctx, tenant, str(uuid.uuid4()))
    chart = _image(ctx, tenant, str(uuid.uuid4()), PNG + b"chart")
    foreign = _image(ctx, other, str(uuid.uuid4()))
    deleted_owner = str(uuid.uuid4())
    deleted = _image(ctx, tenant, deleted_owner)
    ctx.catalog.mark_deleted([KNOWLEDGE_IMAGE], [deleted_owner])
    unknown = f"resource://{uuid.uuid4()}"
    # The chart moves to another file: its reference follows.
    moved = ctx.files.save_bytes(tenant, "moved.png", PNG + b"chart")
    ctx.catalog.relocate(chart, moved)
    url = {ref: ctx.files.url(ctx.catalog.get(ref).path) for ref in (figure, chart, foreign)}
    catalog_queries.clear()

    contents = with_image_urls(
        ctx.catalog,
        ctx.files,
        [
            (tenant, f"![figure]({figure}) and <img src='{chart}' alt='chart'>"),
            (tenant, f"![foreign]({foreign}) ![deleted]({deleted}) ![unknown]({unknown}) end"),
            (other, f"![foreign]({foreign}) ![figure]({figure})"),
            (tenant, "No images, nothing to resolve."),
        ],
    )

    assert contents == [
        f"![figure]({url[figure]}) and <img src='{url[chart]}' alt='chart'>",
        "foreign deleted unknown end",
        f"![foreign]({url[foreign]}) figure",
        "No images, nothing to resolve.",
    ]
    assert len(catalog_queries) == 1, catalog_queries
    assert url[chart] == ctx.files.url(moved)
    assert _opened(url[figure]) == PNG and _opened(url[chart]) == PNG + b"chart"


def test_a_response_without_references_asks_the_catalog_nothing(
    ctx: WorkerContext, catalog_queries: list[str]
) -> None:
    texts = [("t", "![remote](https://example.com/a.png)"), ("t", "plain text")]
    assert with_image_urls(ctx.catalog, ctx.files, texts) == [text for _, text in texts]
    assert catalog_queries == []
