from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Entity(_message.Message):
    __slots__ = ("id", "knowledge_base_id", "name", "type", "description", "chunk_count", "knowledge_count")
    ID_FIELD_NUMBER: _ClassVar[int]
    KNOWLEDGE_BASE_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    CHUNK_COUNT_FIELD_NUMBER: _ClassVar[int]
    KNOWLEDGE_COUNT_FIELD_NUMBER: _ClassVar[int]
    id: str
    knowledge_base_id: str
    name: str
    type: str
    description: str
    chunk_count: int
    knowledge_count: int
    def __init__(self, id: _Optional[str] = ..., knowledge_base_id: _Optional[str] = ..., name: _Optional[str] = ..., type: _Optional[str] = ..., description: _Optional[str] = ..., chunk_count: _Optional[int] = ..., knowledge_count: _Optional[int] = ...) -> None: ...

class Relation(_message.Message):
    __slots__ = ("id", "knowledge_base_id", "source_entity_id", "target_entity_id", "relation", "description", "weight", "source_count")
    ID_FIELD_NUMBER: _ClassVar[int]
    KNOWLEDGE_BASE_ID_FIELD_NUMBER: _ClassVar[int]
    SOURCE_ENTITY_ID_FIELD_NUMBER: _ClassVar[int]
    TARGET_ENTITY_ID_FIELD_NUMBER: _ClassVar[int]
    RELATION_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    WEIGHT_FIELD_NUMBER: _ClassVar[int]
    SOURCE_COUNT_FIELD_NUMBER: _ClassVar[int]
    id: str
    knowledge_base_id: str
    source_entity_id: str
    target_entity_id: str
    relation: str
    description: str
    weight: float
    source_count: int
    def __init__(self, id: _Optional[str] = ..., knowledge_base_id: _Optional[str] = ..., source_entity_id: _Optional[str] = ..., target_entity_id: _Optional[str] = ..., relation: _Optional[str] = ..., description: _Optional[str] = ..., weight: _Optional[float] = ..., source_count: _Optional[int] = ...) -> None: ...

class ListEntitiesRequest(_message.Message):
    __slots__ = ("knowledge_base_id", "name_contains", "type", "page_size", "page_token")
    KNOWLEDGE_BASE_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_CONTAINS_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    knowledge_base_id: str
    name_contains: str
    type: str
    page_size: int
    page_token: str
    def __init__(self, knowledge_base_id: _Optional[str] = ..., name_contains: _Optional[str] = ..., type: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListEntitiesResponse(_message.Message):
    __slots__ = ("entities", "next_page_token", "total")
    ENTITIES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    entities: _containers.RepeatedCompositeFieldContainer[Entity]
    next_page_token: str
    total: int
    def __init__(self, entities: _Optional[_Iterable[_Union[Entity, _Mapping]]] = ..., next_page_token: _Optional[str] = ..., total: _Optional[int] = ...) -> None: ...

class GetEntityRequest(_message.Message):
    __slots__ = ("entity_id",)
    ENTITY_ID_FIELD_NUMBER: _ClassVar[int]
    entity_id: str
    def __init__(self, entity_id: _Optional[str] = ...) -> None: ...

class GetEntityResponse(_message.Message):
    __slots__ = ("entity",)
    ENTITY_FIELD_NUMBER: _ClassVar[int]
    entity: Entity
    def __init__(self, entity: _Optional[_Union[Entity, _Mapping]] = ...) -> None: ...

class GetNeighbourhoodRequest(_message.Message):
    __slots__ = ("entity_id", "depth", "max_entities")
    ENTITY_ID_FIELD_NUMBER: _ClassVar[int]
    DEPTH_FIELD_NUMBER: _ClassVar[int]
    MAX_ENTITIES_FIELD_NUMBER: _ClassVar[int]
    entity_id: str
    depth: int
    max_entities: int
    def __init__(self, entity_id: _Optional[str] = ..., depth: _Optional[int] = ..., max_entities: _Optional[int] = ...) -> None: ...

class GetNeighbourhoodResponse(_message.Message):
    __slots__ = ("center", "entities", "relations", "truncated")
    CENTER_FIELD_NUMBER: _ClassVar[int]
    ENTITIES_FIELD_NUMBER: _ClassVar[int]
    RELATIONS_FIELD_NUMBER: _ClassVar[int]
    TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    center: Entity
    entities: _containers.RepeatedCompositeFieldContainer[Entity]
    relations: _containers.RepeatedCompositeFieldContainer[Relation]
    truncated: bool
    def __init__(self, center: _Optional[_Union[Entity, _Mapping]] = ..., entities: _Optional[_Iterable[_Union[Entity, _Mapping]]] = ..., relations: _Optional[_Iterable[_Union[Relation, _Mapping]]] = ..., truncated: _Optional[bool] = ...) -> None: ...

class GetRelationSourcesRequest(_message.Message):
    __slots__ = ("relation_id", "page_size", "page_token")
    RELATION_ID_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    relation_id: str
    page_size: int
    page_token: str
    def __init__(self, relation_id: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class RelationSource(_message.Message):
    __slots__ = ("chunk_id", "knowledge_id", "knowledge_title", "chunk_index", "content", "description")
    CHUNK_ID_FIELD_NUMBER: _ClassVar[int]
    KNOWLEDGE_ID_FIELD_NUMBER: _ClassVar[int]
    KNOWLEDGE_TITLE_FIELD_NUMBER: _ClassVar[int]
    CHUNK_INDEX_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    chunk_id: str
    knowledge_id: str
    knowledge_title: str
    chunk_index: int
    content: str
    description: str
    def __init__(self, chunk_id: _Optional[str] = ..., knowledge_id: _Optional[str] = ..., knowledge_title: _Optional[str] = ..., chunk_index: _Optional[int] = ..., content: _Optional[str] = ..., description: _Optional[str] = ...) -> None: ...

class GetRelationSourcesResponse(_message.Message):
    __slots__ = ("relation", "sources", "next_page_token", "total")
    RELATION_FIELD_NUMBER: _ClassVar[int]
    SOURCES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    relation: Relation
    sources: _containers.RepeatedCompositeFieldContainer[RelationSource]
    next_page_token: str
    total: int
    def __init__(self, relation: _Optional[_Union[Relation, _Mapping]] = ..., sources: _Optional[_Iterable[_Union[RelationSource, _Mapping]]] = ..., next_page_token: _Optional[str] = ..., total: _Optional[int] = ...) -> None: ...
