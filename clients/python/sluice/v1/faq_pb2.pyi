import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from sluice.v1 import knowledge_base_pb2 as _knowledge_base_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class AnswerStrategy(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ANSWER_STRATEGY_UNSPECIFIED: _ClassVar[AnswerStrategy]
    ANSWER_STRATEGY_ALL: _ClassVar[AnswerStrategy]
    ANSWER_STRATEGY_RANDOM: _ClassVar[AnswerStrategy]

class EnabledFilter(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ENABLED_FILTER_UNSPECIFIED: _ClassVar[EnabledFilter]
    ENABLED_FILTER_ENABLED: _ClassVar[EnabledFilter]
    ENABLED_FILTER_DISABLED: _ClassVar[EnabledFilter]

class FAQImportMode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    FAQ_IMPORT_MODE_UNSPECIFIED: _ClassVar[FAQImportMode]
    FAQ_IMPORT_MODE_APPEND: _ClassVar[FAQImportMode]
    FAQ_IMPORT_MODE_REPLACE: _ClassVar[FAQImportMode]

class FAQFileFormat(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    FAQ_FILE_FORMAT_UNSPECIFIED: _ClassVar[FAQFileFormat]
    FAQ_FILE_FORMAT_CSV: _ClassVar[FAQFileFormat]
    FAQ_FILE_FORMAT_JSON: _ClassVar[FAQFileFormat]
    FAQ_FILE_FORMAT_XLSX: _ClassVar[FAQFileFormat]
ANSWER_STRATEGY_UNSPECIFIED: AnswerStrategy
ANSWER_STRATEGY_ALL: AnswerStrategy
ANSWER_STRATEGY_RANDOM: AnswerStrategy
ENABLED_FILTER_UNSPECIFIED: EnabledFilter
ENABLED_FILTER_ENABLED: EnabledFilter
ENABLED_FILTER_DISABLED: EnabledFilter
FAQ_IMPORT_MODE_UNSPECIFIED: FAQImportMode
FAQ_IMPORT_MODE_APPEND: FAQImportMode
FAQ_IMPORT_MODE_REPLACE: FAQImportMode
FAQ_FILE_FORMAT_UNSPECIFIED: FAQFileFormat
FAQ_FILE_FORMAT_CSV: FAQFileFormat
FAQ_FILE_FORMAT_JSON: FAQFileFormat
FAQ_FILE_FORMAT_XLSX: FAQFileFormat

class FAQEntryContent(_message.Message):
    __slots__ = ("standard_question", "similar_questions", "negative_questions", "answers", "answer_strategy", "tag_id")
    STANDARD_QUESTION_FIELD_NUMBER: _ClassVar[int]
    SIMILAR_QUESTIONS_FIELD_NUMBER: _ClassVar[int]
    NEGATIVE_QUESTIONS_FIELD_NUMBER: _ClassVar[int]
    ANSWERS_FIELD_NUMBER: _ClassVar[int]
    ANSWER_STRATEGY_FIELD_NUMBER: _ClassVar[int]
    TAG_ID_FIELD_NUMBER: _ClassVar[int]
    standard_question: str
    similar_questions: _containers.RepeatedScalarFieldContainer[str]
    negative_questions: _containers.RepeatedScalarFieldContainer[str]
    answers: _containers.RepeatedScalarFieldContainer[str]
    answer_strategy: AnswerStrategy
    tag_id: str
    def __init__(self, standard_question: _Optional[str] = ..., similar_questions: _Optional[_Iterable[str]] = ..., negative_questions: _Optional[_Iterable[str]] = ..., answers: _Optional[_Iterable[str]] = ..., answer_strategy: _Optional[_Union[AnswerStrategy, str]] = ..., tag_id: _Optional[str] = ...) -> None: ...

class FAQEntry(_message.Message):
    __slots__ = ("id", "knowledge_base_id", "knowledge_id", "content", "enabled", "indexed", "content_hash", "created_at", "updated_at")
    ID_FIELD_NUMBER: _ClassVar[int]
    KNOWLEDGE_BASE_ID_FIELD_NUMBER: _ClassVar[int]
    KNOWLEDGE_ID_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    ENABLED_FIELD_NUMBER: _ClassVar[int]
    INDEXED_FIELD_NUMBER: _ClassVar[int]
    CONTENT_HASH_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    id: str
    knowledge_base_id: str
    knowledge_id: str
    content: FAQEntryContent
    enabled: bool
    indexed: bool
    content_hash: str
    created_at: _timestamp_pb2.Timestamp
    updated_at: _timestamp_pb2.Timestamp
    def __init__(self, id: _Optional[str] = ..., knowledge_base_id: _Optional[str] = ..., knowledge_id: _Optional[str] = ..., content: _Optional[_Union[FAQEntryContent, _Mapping]] = ..., enabled: _Optional[bool] = ..., indexed: _Optional[bool] = ..., content_hash: _Optional[str] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., updated_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class CreateFAQEntryRequest(_message.Message):
    __slots__ = ("knowledge_base_id", "content", "disabled")
    KNOWLEDGE_BASE_ID_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    DISABLED_FIELD_NUMBER: _ClassVar[int]
    knowledge_base_id: str
    content: FAQEntryContent
    disabled: bool
    def __init__(self, knowledge_base_id: _Optional[str] = ..., content: _Optional[_Union[FAQEntryContent, _Mapping]] = ..., disabled: _Optional[bool] = ...) -> None: ...

class CreateFAQEntryResponse(_message.Message):
    __slots__ = ("entry",)
    ENTRY_FIELD_NUMBER: _ClassVar[int]
    entry: FAQEntry
    def __init__(self, entry: _Optional[_Union[FAQEntry, _Mapping]] = ...) -> None: ...

class GetFAQEntryRequest(_message.Message):
    __slots__ = ("knowledge_base_id", "id")
    KNOWLEDGE_BASE_ID_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    knowledge_base_id: str
    id: str
    def __init__(self, knowledge_base_id: _Optional[str] = ..., id: _Optional[str] = ...) -> None: ...

class GetFAQEntryResponse(_message.Message):
    __slots__ = ("entry",)
    ENTRY_FIELD_NUMBER: _ClassVar[int]
    entry: FAQEntry
    def __init__(self, entry: _Optional[_Union[FAQEntry, _Mapping]] = ...) -> None: ...

class ListFAQEntriesRequest(_message.Message):
    __slots__ = ("knowledge_base_id", "page_size", "page_token", "tag_id", "enabled")
    KNOWLEDGE_BASE_ID_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    TAG_ID_FIELD_NUMBER: _ClassVar[int]
    ENABLED_FIELD_NUMBER: _ClassVar[int]
    knowledge_base_id: str
    page_size: int
    page_token: str
    tag_id: str
    enabled: EnabledFilter
    def __init__(self, knowledge_base_id: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., tag_id: _Optional[str] = ..., enabled: _Optional[_Union[EnabledFilter, str]] = ...) -> None: ...

class ListFAQEntriesResponse(_message.Message):
    __slots__ = ("entries", "next_page_token", "total")
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    entries: _containers.RepeatedCompositeFieldContainer[FAQEntry]
    next_page_token: str
    total: int
    def __init__(self, entries: _Optional[_Iterable[_Union[FAQEntry, _Mapping]]] = ..., next_page_token: _Optional[str] = ..., total: _Optional[int] = ...) -> None: ...

class UpdateFAQEntryRequest(_message.Message):
    __slots__ = ("knowledge_base_id", "id", "content")
    KNOWLEDGE_BASE_ID_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    knowledge_base_id: str
    id: str
    content: FAQEntryContent
    def __init__(self, knowledge_base_id: _Optional[str] = ..., id: _Optional[str] = ..., content: _Optional[_Union[FAQEntryContent, _Mapping]] = ...) -> None: ...

class UpdateFAQEntryResponse(_message.Message):
    __slots__ = ("entry",)
    ENTRY_FIELD_NUMBER: _ClassVar[int]
    entry: FAQEntry
    def __init__(self, entry: _Optional[_Union[FAQEntry, _Mapping]] = ...) -> None: ...

class DeleteFAQEntriesRequest(_message.Message):
    __slots__ = ("knowledge_base_id", "ids")
    KNOWLEDGE_BASE_ID_FIELD_NUMBER: _ClassVar[int]
    IDS_FIELD_NUMBER: _ClassVar[int]
    knowledge_base_id: str
    ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, knowledge_base_id: _Optional[str] = ..., ids: _Optional[_Iterable[str]] = ...) -> None: ...

class DeleteFAQEntriesResponse(_message.Message):
    __slots__ = ("deleted",)
    DELETED_FIELD_NUMBER: _ClassVar[int]
    deleted: int
    def __init__(self, deleted: _Optional[int] = ...) -> None: ...

class SetFAQEntriesEnabledRequest(_message.Message):
    __slots__ = ("knowledge_base_id", "ids", "enabled")
    KNOWLEDGE_BASE_ID_FIELD_NUMBER: _ClassVar[int]
    IDS_FIELD_NUMBER: _ClassVar[int]
    ENABLED_FIELD_NUMBER: _ClassVar[int]
    knowledge_base_id: str
    ids: _containers.RepeatedScalarFieldContainer[str]
    enabled: bool
    def __init__(self, knowledge_base_id: _Optional[str] = ..., ids: _Optional[_Iterable[str]] = ..., enabled: _Optional[bool] = ...) -> None: ...

class SetFAQEntriesEnabledResponse(_message.Message):
    __slots__ = ("updated",)
    UPDATED_FIELD_NUMBER: _ClassVar[int]
    updated: int
    def __init__(self, updated: _Optional[int] = ...) -> None: ...

class FAQImportOptions(_message.Message):
    __slots__ = ("knowledge_base_id", "mode", "dry_run")
    KNOWLEDGE_BASE_ID_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    DRY_RUN_FIELD_NUMBER: _ClassVar[int]
    knowledge_base_id: str
    mode: FAQImportMode
    dry_run: bool
    def __init__(self, knowledge_base_id: _Optional[str] = ..., mode: _Optional[_Union[FAQImportMode, str]] = ..., dry_run: _Optional[bool] = ...) -> None: ...

class ImportFAQEntriesRequest(_message.Message):
    __slots__ = ("options", "entries")
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    options: FAQImportOptions
    entries: _containers.RepeatedCompositeFieldContainer[FAQEntryContent]
    def __init__(self, options: _Optional[_Union[FAQImportOptions, _Mapping]] = ..., entries: _Optional[_Iterable[_Union[FAQEntryContent, _Mapping]]] = ...) -> None: ...

class ImportFAQFileHeader(_message.Message):
    __slots__ = ("options", "file_name", "format")
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    FILE_NAME_FIELD_NUMBER: _ClassVar[int]
    FORMAT_FIELD_NUMBER: _ClassVar[int]
    options: FAQImportOptions
    file_name: str
    format: FAQFileFormat
    def __init__(self, options: _Optional[_Union[FAQImportOptions, _Mapping]] = ..., file_name: _Optional[str] = ..., format: _Optional[_Union[FAQFileFormat, str]] = ...) -> None: ...

class ImportFAQFileRequest(_message.Message):
    __slots__ = ("header", "data")
    HEADER_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    header: ImportFAQFileHeader
    data: bytes
    def __init__(self, header: _Optional[_Union[ImportFAQFileHeader, _Mapping]] = ..., data: _Optional[bytes] = ...) -> None: ...

class FAQImportProgress(_message.Message):
    __slots__ = ("job_id", "knowledge_base_id", "status", "mode", "dry_run", "total", "processed", "succeeded", "failed", "partially_failed", "skipped", "error_message", "has_failures", "created_at", "updated_at", "deleted")
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    KNOWLEDGE_BASE_ID_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    DRY_RUN_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    PROCESSED_FIELD_NUMBER: _ClassVar[int]
    SUCCEEDED_FIELD_NUMBER: _ClassVar[int]
    FAILED_FIELD_NUMBER: _ClassVar[int]
    PARTIALLY_FAILED_FIELD_NUMBER: _ClassVar[int]
    SKIPPED_FIELD_NUMBER: _ClassVar[int]
    ERROR_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    HAS_FAILURES_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    DELETED_FIELD_NUMBER: _ClassVar[int]
    job_id: str
    knowledge_base_id: str
    status: _knowledge_base_pb2.JobStatus
    mode: FAQImportMode
    dry_run: bool
    total: int
    processed: int
    succeeded: int
    failed: int
    partially_failed: int
    skipped: int
    error_message: str
    has_failures: bool
    created_at: _timestamp_pb2.Timestamp
    updated_at: _timestamp_pb2.Timestamp
    deleted: int
    def __init__(self, job_id: _Optional[str] = ..., knowledge_base_id: _Optional[str] = ..., status: _Optional[_Union[_knowledge_base_pb2.JobStatus, str]] = ..., mode: _Optional[_Union[FAQImportMode, str]] = ..., dry_run: _Optional[bool] = ..., total: _Optional[int] = ..., processed: _Optional[int] = ..., succeeded: _Optional[int] = ..., failed: _Optional[int] = ..., partially_failed: _Optional[int] = ..., skipped: _Optional[int] = ..., error_message: _Optional[str] = ..., has_failures: _Optional[bool] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., updated_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., deleted: _Optional[int] = ...) -> None: ...

class ImportFAQEntriesResponse(_message.Message):
    __slots__ = ("progress",)
    PROGRESS_FIELD_NUMBER: _ClassVar[int]
    progress: FAQImportProgress
    def __init__(self, progress: _Optional[_Union[FAQImportProgress, _Mapping]] = ...) -> None: ...

class ImportFAQFileResponse(_message.Message):
    __slots__ = ("progress",)
    PROGRESS_FIELD_NUMBER: _ClassVar[int]
    progress: FAQImportProgress
    def __init__(self, progress: _Optional[_Union[FAQImportProgress, _Mapping]] = ...) -> None: ...

class GetFAQImportProgressRequest(_message.Message):
    __slots__ = ("job_id",)
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    job_id: str
    def __init__(self, job_id: _Optional[str] = ...) -> None: ...

class GetFAQImportProgressResponse(_message.Message):
    __slots__ = ("progress",)
    PROGRESS_FIELD_NUMBER: _ClassVar[int]
    progress: FAQImportProgress
    def __init__(self, progress: _Optional[_Union[FAQImportProgress, _Mapping]] = ...) -> None: ...

class WatchFAQImportRequest(_message.Message):
    __slots__ = ("job_id",)
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    job_id: str
    def __init__(self, job_id: _Optional[str] = ...) -> None: ...

class WatchFAQImportResponse(_message.Message):
    __slots__ = ("progress",)
    PROGRESS_FIELD_NUMBER: _ClassVar[int]
    progress: FAQImportProgress
    def __init__(self, progress: _Optional[_Union[FAQImportProgress, _Mapping]] = ...) -> None: ...

class ExportFAQImportFailuresRequest(_message.Message):
    __slots__ = ("job_id",)
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    job_id: str
    def __init__(self, job_id: _Optional[str] = ...) -> None: ...

class ExportFAQImportFailuresResponse(_message.Message):
    __slots__ = ("data",)
    DATA_FIELD_NUMBER: _ClassVar[int]
    data: bytes
    def __init__(self, data: _Optional[bytes] = ...) -> None: ...
