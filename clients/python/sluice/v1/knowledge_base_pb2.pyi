import datetime

from google.protobuf import field_mask_pb2 as _field_mask_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from sluice.v1 import config_pb2 as _config_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class KnowledgeBaseType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    KNOWLEDGE_BASE_TYPE_UNSPECIFIED: _ClassVar[KnowledgeBaseType]
    KNOWLEDGE_BASE_TYPE_DOCUMENT: _ClassVar[KnowledgeBaseType]
    KNOWLEDGE_BASE_TYPE_FAQ: _ClassVar[KnowledgeBaseType]

class JobStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    JOB_STATUS_UNSPECIFIED: _ClassVar[JobStatus]
    JOB_STATUS_PENDING: _ClassVar[JobStatus]
    JOB_STATUS_PROCESSING: _ClassVar[JobStatus]
    JOB_STATUS_COMPLETED: _ClassVar[JobStatus]
    JOB_STATUS_FAILED: _ClassVar[JobStatus]
KNOWLEDGE_BASE_TYPE_UNSPECIFIED: KnowledgeBaseType
KNOWLEDGE_BASE_TYPE_DOCUMENT: KnowledgeBaseType
KNOWLEDGE_BASE_TYPE_FAQ: KnowledgeBaseType
JOB_STATUS_UNSPECIFIED: JobStatus
JOB_STATUS_PENDING: JobStatus
JOB_STATUS_PROCESSING: JobStatus
JOB_STATUS_COMPLETED: JobStatus
JOB_STATUS_FAILED: JobStatus

class KnowledgeBase(_message.Message):
    __slots__ = ("id", "tenant_id", "name", "description", "type", "config", "knowledge_count", "created_at", "updated_at", "profile")
    ID_FIELD_NUMBER: _ClassVar[int]
    TENANT_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    KNOWLEDGE_COUNT_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    PROFILE_FIELD_NUMBER: _ClassVar[int]
    id: str
    tenant_id: str
    name: str
    description: str
    type: KnowledgeBaseType
    config: _config_pb2.KnowledgeBaseConfig
    knowledge_count: int
    created_at: _timestamp_pb2.Timestamp
    updated_at: _timestamp_pb2.Timestamp
    profile: KnowledgeBaseProfile
    def __init__(self, id: _Optional[str] = ..., tenant_id: _Optional[str] = ..., name: _Optional[str] = ..., description: _Optional[str] = ..., type: _Optional[_Union[KnowledgeBaseType, str]] = ..., config: _Optional[_Union[_config_pb2.KnowledgeBaseConfig, _Mapping]] = ..., knowledge_count: _Optional[int] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., updated_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., profile: _Optional[_Union[KnowledgeBaseProfile, _Mapping]] = ...) -> None: ...

class KnowledgeBaseProfile(_message.Message):
    __slots__ = ("description", "generated_at")
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    GENERATED_AT_FIELD_NUMBER: _ClassVar[int]
    description: str
    generated_at: _timestamp_pb2.Timestamp
    def __init__(self, description: _Optional[str] = ..., generated_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class CreateKnowledgeBaseRequest(_message.Message):
    __slots__ = ("name", "description", "type", "config")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    name: str
    description: str
    type: KnowledgeBaseType
    config: _config_pb2.KnowledgeBaseConfig
    def __init__(self, name: _Optional[str] = ..., description: _Optional[str] = ..., type: _Optional[_Union[KnowledgeBaseType, str]] = ..., config: _Optional[_Union[_config_pb2.KnowledgeBaseConfig, _Mapping]] = ...) -> None: ...

class CreateKnowledgeBaseResponse(_message.Message):
    __slots__ = ("knowledge_base",)
    KNOWLEDGE_BASE_FIELD_NUMBER: _ClassVar[int]
    knowledge_base: KnowledgeBase
    def __init__(self, knowledge_base: _Optional[_Union[KnowledgeBase, _Mapping]] = ...) -> None: ...

class GetKnowledgeBaseRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class GetKnowledgeBaseResponse(_message.Message):
    __slots__ = ("knowledge_base",)
    KNOWLEDGE_BASE_FIELD_NUMBER: _ClassVar[int]
    knowledge_base: KnowledgeBase
    def __init__(self, knowledge_base: _Optional[_Union[KnowledgeBase, _Mapping]] = ...) -> None: ...

class ListKnowledgeBasesRequest(_message.Message):
    __slots__ = ("page_size", "page_token")
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    page_size: int
    page_token: str
    def __init__(self, page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListKnowledgeBasesResponse(_message.Message):
    __slots__ = ("knowledge_bases", "next_page_token")
    KNOWLEDGE_BASES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    knowledge_bases: _containers.RepeatedCompositeFieldContainer[KnowledgeBase]
    next_page_token: str
    def __init__(self, knowledge_bases: _Optional[_Iterable[_Union[KnowledgeBase, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class UpdateKnowledgeBaseRequest(_message.Message):
    __slots__ = ("id", "name", "description", "config", "update_mask")
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    UPDATE_MASK_FIELD_NUMBER: _ClassVar[int]
    id: str
    name: str
    description: str
    config: _config_pb2.KnowledgeBaseConfig
    update_mask: _field_mask_pb2.FieldMask
    def __init__(self, id: _Optional[str] = ..., name: _Optional[str] = ..., description: _Optional[str] = ..., config: _Optional[_Union[_config_pb2.KnowledgeBaseConfig, _Mapping]] = ..., update_mask: _Optional[_Union[_field_mask_pb2.FieldMask, _Mapping]] = ...) -> None: ...

class UpdateKnowledgeBaseResponse(_message.Message):
    __slots__ = ("knowledge_base",)
    KNOWLEDGE_BASE_FIELD_NUMBER: _ClassVar[int]
    knowledge_base: KnowledgeBase
    def __init__(self, knowledge_base: _Optional[_Union[KnowledgeBase, _Mapping]] = ...) -> None: ...

class DeleteKnowledgeBaseRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class DeleteKnowledgeBaseResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GenerateKnowledgeBaseProfileRequest(_message.Message):
    __slots__ = ("knowledge_base_id",)
    KNOWLEDGE_BASE_ID_FIELD_NUMBER: _ClassVar[int]
    knowledge_base_id: str
    def __init__(self, knowledge_base_id: _Optional[str] = ...) -> None: ...

class GenerateKnowledgeBaseProfileResponse(_message.Message):
    __slots__ = ("job_id",)
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    job_id: str
    def __init__(self, job_id: _Optional[str] = ...) -> None: ...

class CloneKnowledgeBaseRequest(_message.Message):
    __slots__ = ("source_id", "target_id", "target_name")
    SOURCE_ID_FIELD_NUMBER: _ClassVar[int]
    TARGET_ID_FIELD_NUMBER: _ClassVar[int]
    TARGET_NAME_FIELD_NUMBER: _ClassVar[int]
    source_id: str
    target_id: str
    target_name: str
    def __init__(self, source_id: _Optional[str] = ..., target_id: _Optional[str] = ..., target_name: _Optional[str] = ...) -> None: ...

class CloneKnowledgeBaseResponse(_message.Message):
    __slots__ = ("job_id", "target_id")
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    TARGET_ID_FIELD_NUMBER: _ClassVar[int]
    job_id: str
    target_id: str
    def __init__(self, job_id: _Optional[str] = ..., target_id: _Optional[str] = ...) -> None: ...

class GetCloneProgressRequest(_message.Message):
    __slots__ = ("job_id",)
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    job_id: str
    def __init__(self, job_id: _Optional[str] = ...) -> None: ...

class CloneProgress(_message.Message):
    __slots__ = ("job_id", "status", "total", "done", "error_message", "source_id", "target_id", "added", "removed", "skipped", "failed")
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    DONE_FIELD_NUMBER: _ClassVar[int]
    ERROR_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    SOURCE_ID_FIELD_NUMBER: _ClassVar[int]
    TARGET_ID_FIELD_NUMBER: _ClassVar[int]
    ADDED_FIELD_NUMBER: _ClassVar[int]
    REMOVED_FIELD_NUMBER: _ClassVar[int]
    SKIPPED_FIELD_NUMBER: _ClassVar[int]
    FAILED_FIELD_NUMBER: _ClassVar[int]
    job_id: str
    status: JobStatus
    total: int
    done: int
    error_message: str
    source_id: str
    target_id: str
    added: int
    removed: int
    skipped: int
    failed: int
    def __init__(self, job_id: _Optional[str] = ..., status: _Optional[_Union[JobStatus, str]] = ..., total: _Optional[int] = ..., done: _Optional[int] = ..., error_message: _Optional[str] = ..., source_id: _Optional[str] = ..., target_id: _Optional[str] = ..., added: _Optional[int] = ..., removed: _Optional[int] = ..., skipped: _Optional[int] = ..., failed: _Optional[int] = ...) -> None: ...

class GetCloneProgressResponse(_message.Message):
    __slots__ = ("progress",)
    PROGRESS_FIELD_NUMBER: _ClassVar[int]
    progress: CloneProgress
    def __init__(self, progress: _Optional[_Union[CloneProgress, _Mapping]] = ...) -> None: ...

class WatchCloneProgressRequest(_message.Message):
    __slots__ = ("job_id",)
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    job_id: str
    def __init__(self, job_id: _Optional[str] = ...) -> None: ...

class WatchCloneProgressResponse(_message.Message):
    __slots__ = ("progress",)
    PROGRESS_FIELD_NUMBER: _ClassVar[int]
    progress: CloneProgress
    def __init__(self, progress: _Optional[_Union[CloneProgress, _Mapping]] = ...) -> None: ...
