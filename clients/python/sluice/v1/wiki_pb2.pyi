import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class WikiPageSummary(_message.Message):
    __slots__ = ("id", "knowledge_base_id", "slug", "title", "version", "source_count", "updated_at")
    ID_FIELD_NUMBER: _ClassVar[int]
    KNOWLEDGE_BASE_ID_FIELD_NUMBER: _ClassVar[int]
    SLUG_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    SOURCE_COUNT_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    id: str
    knowledge_base_id: str
    slug: str
    title: str
    version: int
    source_count: int
    updated_at: _timestamp_pb2.Timestamp
    def __init__(self, id: _Optional[str] = ..., knowledge_base_id: _Optional[str] = ..., slug: _Optional[str] = ..., title: _Optional[str] = ..., version: _Optional[int] = ..., source_count: _Optional[int] = ..., updated_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class WikiPageSource(_message.Message):
    __slots__ = ("knowledge_id", "title", "attempt", "ingested_at")
    KNOWLEDGE_ID_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    ATTEMPT_FIELD_NUMBER: _ClassVar[int]
    INGESTED_AT_FIELD_NUMBER: _ClassVar[int]
    knowledge_id: str
    title: str
    attempt: int
    ingested_at: _timestamp_pb2.Timestamp
    def __init__(self, knowledge_id: _Optional[str] = ..., title: _Optional[str] = ..., attempt: _Optional[int] = ..., ingested_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class WikiPageLink(_message.Message):
    __slots__ = ("slug", "page_id", "title")
    SLUG_FIELD_NUMBER: _ClassVar[int]
    PAGE_ID_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    slug: str
    page_id: str
    title: str
    def __init__(self, slug: _Optional[str] = ..., page_id: _Optional[str] = ..., title: _Optional[str] = ...) -> None: ...

class WikiPage(_message.Message):
    __slots__ = ("id", "tenant_id", "knowledge_base_id", "slug", "title", "content", "version", "created_at", "updated_at", "sources", "links")
    ID_FIELD_NUMBER: _ClassVar[int]
    TENANT_ID_FIELD_NUMBER: _ClassVar[int]
    KNOWLEDGE_BASE_ID_FIELD_NUMBER: _ClassVar[int]
    SLUG_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    SOURCES_FIELD_NUMBER: _ClassVar[int]
    LINKS_FIELD_NUMBER: _ClassVar[int]
    id: str
    tenant_id: str
    knowledge_base_id: str
    slug: str
    title: str
    content: str
    version: int
    created_at: _timestamp_pb2.Timestamp
    updated_at: _timestamp_pb2.Timestamp
    sources: _containers.RepeatedCompositeFieldContainer[WikiPageSource]
    links: _containers.RepeatedCompositeFieldContainer[WikiPageLink]
    def __init__(self, id: _Optional[str] = ..., tenant_id: _Optional[str] = ..., knowledge_base_id: _Optional[str] = ..., slug: _Optional[str] = ..., title: _Optional[str] = ..., content: _Optional[str] = ..., version: _Optional[int] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., updated_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., sources: _Optional[_Iterable[_Union[WikiPageSource, _Mapping]]] = ..., links: _Optional[_Iterable[_Union[WikiPageLink, _Mapping]]] = ...) -> None: ...

class ListWikiPagesRequest(_message.Message):
    __slots__ = ("knowledge_base_id", "query", "page_size", "page_token")
    KNOWLEDGE_BASE_ID_FIELD_NUMBER: _ClassVar[int]
    QUERY_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    knowledge_base_id: str
    query: str
    page_size: int
    page_token: str
    def __init__(self, knowledge_base_id: _Optional[str] = ..., query: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListWikiPagesResponse(_message.Message):
    __slots__ = ("pages", "next_page_token", "total")
    PAGES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    pages: _containers.RepeatedCompositeFieldContainer[WikiPageSummary]
    next_page_token: str
    total: int
    def __init__(self, pages: _Optional[_Iterable[_Union[WikiPageSummary, _Mapping]]] = ..., next_page_token: _Optional[str] = ..., total: _Optional[int] = ...) -> None: ...

class WikiPageSlug(_message.Message):
    __slots__ = ("knowledge_base_id", "slug")
    KNOWLEDGE_BASE_ID_FIELD_NUMBER: _ClassVar[int]
    SLUG_FIELD_NUMBER: _ClassVar[int]
    knowledge_base_id: str
    slug: str
    def __init__(self, knowledge_base_id: _Optional[str] = ..., slug: _Optional[str] = ...) -> None: ...

class GetWikiPageRequest(_message.Message):
    __slots__ = ("id", "slug")
    ID_FIELD_NUMBER: _ClassVar[int]
    SLUG_FIELD_NUMBER: _ClassVar[int]
    id: str
    slug: WikiPageSlug
    def __init__(self, id: _Optional[str] = ..., slug: _Optional[_Union[WikiPageSlug, _Mapping]] = ...) -> None: ...

class GetWikiPageResponse(_message.Message):
    __slots__ = ("page",)
    PAGE_FIELD_NUMBER: _ClassVar[int]
    page: WikiPage
    def __init__(self, page: _Optional[_Union[WikiPage, _Mapping]] = ...) -> None: ...
