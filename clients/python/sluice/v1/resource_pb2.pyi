import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ResourceKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    RESOURCE_KIND_UNSPECIFIED: _ClassVar[ResourceKind]
    RESOURCE_KIND_ORIGINAL: _ClassVar[ResourceKind]
    RESOURCE_KIND_IMAGE: _ClassVar[ResourceKind]
RESOURCE_KIND_UNSPECIFIED: ResourceKind
RESOURCE_KIND_ORIGINAL: ResourceKind
RESOURCE_KIND_IMAGE: ResourceKind

class Resource(_message.Message):
    __slots__ = ("ref", "kind", "knowledge_id", "content_type", "size", "file_name", "created_at")
    REF_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    KNOWLEDGE_ID_FIELD_NUMBER: _ClassVar[int]
    CONTENT_TYPE_FIELD_NUMBER: _ClassVar[int]
    SIZE_FIELD_NUMBER: _ClassVar[int]
    FILE_NAME_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    ref: str
    kind: ResourceKind
    knowledge_id: str
    content_type: str
    size: int
    file_name: str
    created_at: _timestamp_pb2.Timestamp
    def __init__(self, ref: _Optional[str] = ..., kind: _Optional[_Union[ResourceKind, str]] = ..., knowledge_id: _Optional[str] = ..., content_type: _Optional[str] = ..., size: _Optional[int] = ..., file_name: _Optional[str] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ListResourcesRequest(_message.Message):
    __slots__ = ("knowledge_id",)
    KNOWLEDGE_ID_FIELD_NUMBER: _ClassVar[int]
    knowledge_id: str
    def __init__(self, knowledge_id: _Optional[str] = ...) -> None: ...

class ListResourcesResponse(_message.Message):
    __slots__ = ("resources",)
    RESOURCES_FIELD_NUMBER: _ClassVar[int]
    resources: _containers.RepeatedCompositeFieldContainer[Resource]
    def __init__(self, resources: _Optional[_Iterable[_Union[Resource, _Mapping]]] = ...) -> None: ...

class CreateAccessGrantRequest(_message.Message):
    __slots__ = ("knowledge_id", "resource_ref", "ttl_seconds")
    KNOWLEDGE_ID_FIELD_NUMBER: _ClassVar[int]
    RESOURCE_REF_FIELD_NUMBER: _ClassVar[int]
    TTL_SECONDS_FIELD_NUMBER: _ClassVar[int]
    knowledge_id: str
    resource_ref: str
    ttl_seconds: int
    def __init__(self, knowledge_id: _Optional[str] = ..., resource_ref: _Optional[str] = ..., ttl_seconds: _Optional[int] = ...) -> None: ...

class CreateAccessGrantResponse(_message.Message):
    __slots__ = ("token", "expires_at", "resource")
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    RESOURCE_FIELD_NUMBER: _ClassVar[int]
    token: str
    expires_at: _timestamp_pb2.Timestamp
    resource: Resource
    def __init__(self, token: _Optional[str] = ..., expires_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., resource: _Optional[_Union[Resource, _Mapping]] = ...) -> None: ...

class ReadResourceRequest(_message.Message):
    __slots__ = ("token",)
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    token: str
    def __init__(self, token: _Optional[str] = ...) -> None: ...

class ReadResourceResponse(_message.Message):
    __slots__ = ("meta", "data")
    META_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    meta: Resource
    data: bytes
    def __init__(self, meta: _Optional[_Union[Resource, _Mapping]] = ..., data: _Optional[bytes] = ...) -> None: ...

class RevokeAccessGrantRequest(_message.Message):
    __slots__ = ("token", "resource_ref", "knowledge_id")
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    RESOURCE_REF_FIELD_NUMBER: _ClassVar[int]
    KNOWLEDGE_ID_FIELD_NUMBER: _ClassVar[int]
    token: str
    resource_ref: str
    knowledge_id: str
    def __init__(self, token: _Optional[str] = ..., resource_ref: _Optional[str] = ..., knowledge_id: _Optional[str] = ...) -> None: ...

class RevokeAccessGrantResponse(_message.Message):
    __slots__ = ("revoked",)
    REVOKED_FIELD_NUMBER: _ClassVar[int]
    revoked: int
    def __init__(self, revoked: _Optional[int] = ...) -> None: ...
