from sluice.v1 import graph_pb2 as _graph_pb2
from sluice.v1 import knowledge_pb2 as _knowledge_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class SearchMode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SEARCH_MODE_UNSPECIFIED: _ClassVar[SearchMode]
    SEARCH_MODE_VECTOR: _ClassVar[SearchMode]
    SEARCH_MODE_KEYWORD: _ClassVar[SearchMode]
    SEARCH_MODE_HYBRID: _ClassVar[SearchMode]
SEARCH_MODE_UNSPECIFIED: SearchMode
SEARCH_MODE_VECTOR: SearchMode
SEARCH_MODE_KEYWORD: SearchMode
SEARCH_MODE_HYBRID: SearchMode

class SearchRequest(_message.Message):
    __slots__ = ("query", "knowledge_base_ids", "top_k", "mode", "knowledge_ids", "graph_expansion")
    QUERY_FIELD_NUMBER: _ClassVar[int]
    KNOWLEDGE_BASE_IDS_FIELD_NUMBER: _ClassVar[int]
    TOP_K_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    KNOWLEDGE_IDS_FIELD_NUMBER: _ClassVar[int]
    GRAPH_EXPANSION_FIELD_NUMBER: _ClassVar[int]
    query: str
    knowledge_base_ids: _containers.RepeatedScalarFieldContainer[str]
    top_k: int
    mode: SearchMode
    knowledge_ids: _containers.RepeatedScalarFieldContainer[str]
    graph_expansion: GraphExpansion
    def __init__(self, query: _Optional[str] = ..., knowledge_base_ids: _Optional[_Iterable[str]] = ..., top_k: _Optional[int] = ..., mode: _Optional[_Union[SearchMode, str]] = ..., knowledge_ids: _Optional[_Iterable[str]] = ..., graph_expansion: _Optional[_Union[GraphExpansion, _Mapping]] = ...) -> None: ...

class GraphExpansion(_message.Message):
    __slots__ = ("hops", "max_results")
    HOPS_FIELD_NUMBER: _ClassVar[int]
    MAX_RESULTS_FIELD_NUMBER: _ClassVar[int]
    hops: int
    max_results: int
    def __init__(self, hops: _Optional[int] = ..., max_results: _Optional[int] = ...) -> None: ...

class GraphMatch(_message.Message):
    __slots__ = ("hops", "entities")
    HOPS_FIELD_NUMBER: _ClassVar[int]
    ENTITIES_FIELD_NUMBER: _ClassVar[int]
    hops: int
    entities: _containers.RepeatedCompositeFieldContainer[_graph_pb2.Entity]
    def __init__(self, hops: _Optional[int] = ..., entities: _Optional[_Iterable[_Union[_graph_pb2.Entity, _Mapping]]] = ...) -> None: ...

class SearchResult(_message.Message):
    __slots__ = ("chunk_id", "knowledge_id", "knowledge_base_id", "content", "score", "chunk_index", "knowledge_title", "matched_chunk_id", "matched_chunk_type", "matched_content", "graph_match", "faq")
    CHUNK_ID_FIELD_NUMBER: _ClassVar[int]
    KNOWLEDGE_ID_FIELD_NUMBER: _ClassVar[int]
    KNOWLEDGE_BASE_ID_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    CHUNK_INDEX_FIELD_NUMBER: _ClassVar[int]
    KNOWLEDGE_TITLE_FIELD_NUMBER: _ClassVar[int]
    MATCHED_CHUNK_ID_FIELD_NUMBER: _ClassVar[int]
    MATCHED_CHUNK_TYPE_FIELD_NUMBER: _ClassVar[int]
    MATCHED_CONTENT_FIELD_NUMBER: _ClassVar[int]
    GRAPH_MATCH_FIELD_NUMBER: _ClassVar[int]
    FAQ_FIELD_NUMBER: _ClassVar[int]
    chunk_id: str
    knowledge_id: str
    knowledge_base_id: str
    content: str
    score: float
    chunk_index: int
    knowledge_title: str
    matched_chunk_id: str
    matched_chunk_type: _knowledge_pb2.ChunkType
    matched_content: str
    graph_match: GraphMatch
    faq: FAQMatch
    def __init__(self, chunk_id: _Optional[str] = ..., knowledge_id: _Optional[str] = ..., knowledge_base_id: _Optional[str] = ..., content: _Optional[str] = ..., score: _Optional[float] = ..., chunk_index: _Optional[int] = ..., knowledge_title: _Optional[str] = ..., matched_chunk_id: _Optional[str] = ..., matched_chunk_type: _Optional[_Union[_knowledge_pb2.ChunkType, str]] = ..., matched_content: _Optional[str] = ..., graph_match: _Optional[_Union[GraphMatch, _Mapping]] = ..., faq: _Optional[_Union[FAQMatch, _Mapping]] = ...) -> None: ...

class FAQMatch(_message.Message):
    __slots__ = ("entry_id", "standard_question", "answers")
    ENTRY_ID_FIELD_NUMBER: _ClassVar[int]
    STANDARD_QUESTION_FIELD_NUMBER: _ClassVar[int]
    ANSWERS_FIELD_NUMBER: _ClassVar[int]
    entry_id: str
    standard_question: str
    answers: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, entry_id: _Optional[str] = ..., standard_question: _Optional[str] = ..., answers: _Optional[_Iterable[str]] = ...) -> None: ...

class SearchResponse(_message.Message):
    __slots__ = ("results",)
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    results: _containers.RepeatedCompositeFieldContainer[SearchResult]
    def __init__(self, results: _Optional[_Iterable[_Union[SearchResult, _Mapping]]] = ...) -> None: ...
