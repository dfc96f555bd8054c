from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ReadConfig(_message.Message):
    __slots__ = ("engine", "engine_options", "enable_ocr", "first_row_header", "ocr_languages")
    class EngineOptionsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    ENGINE_FIELD_NUMBER: _ClassVar[int]
    ENGINE_OPTIONS_FIELD_NUMBER: _ClassVar[int]
    ENABLE_OCR_FIELD_NUMBER: _ClassVar[int]
    FIRST_ROW_HEADER_FIELD_NUMBER: _ClassVar[int]
    OCR_LANGUAGES_FIELD_NUMBER: _ClassVar[int]
    engine: str
    engine_options: _containers.ScalarMap[str, str]
    enable_ocr: bool
    first_row_header: bool
    ocr_languages: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, engine: _Optional[str] = ..., engine_options: _Optional[_Mapping[str, str]] = ..., enable_ocr: _Optional[bool] = ..., first_row_header: _Optional[bool] = ..., ocr_languages: _Optional[_Iterable[str]] = ...) -> None: ...

class ReadRequest(_message.Message):
    __slots__ = ("file_content", "storage_ref", "url", "file_name", "file_type", "config", "request_id")
    FILE_CONTENT_FIELD_NUMBER: _ClassVar[int]
    STORAGE_REF_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    FILE_NAME_FIELD_NUMBER: _ClassVar[int]
    FILE_TYPE_FIELD_NUMBER: _ClassVar[int]
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    file_content: bytes
    storage_ref: str
    url: str
    file_name: str
    file_type: str
    config: ReadConfig
    request_id: str
    def __init__(self, file_content: _Optional[bytes] = ..., storage_ref: _Optional[str] = ..., url: _Optional[str] = ..., file_name: _Optional[str] = ..., file_type: _Optional[str] = ..., config: _Optional[_Union[ReadConfig, _Mapping]] = ..., request_id: _Optional[str] = ...) -> None: ...

class ImageRef(_message.Message):
    __slots__ = ("ref", "data", "mime_type", "width", "height", "is_original", "page")
    REF_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    MIME_TYPE_FIELD_NUMBER: _ClassVar[int]
    WIDTH_FIELD_NUMBER: _ClassVar[int]
    HEIGHT_FIELD_NUMBER: _ClassVar[int]
    IS_ORIGINAL_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    ref: str
    data: bytes
    mime_type: str
    width: int
    height: int
    is_original: bool
    page: int
    def __init__(self, ref: _Optional[str] = ..., data: _Optional[bytes] = ..., mime_type: _Optional[str] = ..., width: _Optional[int] = ..., height: _Optional[int] = ..., is_original: _Optional[bool] = ..., page: _Optional[int] = ...) -> None: ...

class ReadResult(_message.Message):
    __slots__ = ("markdown_content", "image_refs", "metadata", "is_audio", "audio_data", "detected_file_type")
    class MetadataEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    MARKDOWN_CONTENT_FIELD_NUMBER: _ClassVar[int]
    IMAGE_REFS_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    IS_AUDIO_FIELD_NUMBER: _ClassVar[int]
    AUDIO_DATA_FIELD_NUMBER: _ClassVar[int]
    DETECTED_FILE_TYPE_FIELD_NUMBER: _ClassVar[int]
    markdown_content: str
    image_refs: _containers.RepeatedCompositeFieldContainer[ImageRef]
    metadata: _containers.ScalarMap[str, str]
    is_audio: bool
    audio_data: bytes
    detected_file_type: str
    def __init__(self, markdown_content: _Optional[str] = ..., image_refs: _Optional[_Iterable[_Union[ImageRef, _Mapping]]] = ..., metadata: _Optional[_Mapping[str, str]] = ..., is_audio: _Optional[bool] = ..., audio_data: _Optional[bytes] = ..., detected_file_type: _Optional[str] = ...) -> None: ...

class ReadResponse(_message.Message):
    __slots__ = ("result",)
    RESULT_FIELD_NUMBER: _ClassVar[int]
    result: ReadResult
    def __init__(self, result: _Optional[_Union[ReadResult, _Mapping]] = ...) -> None: ...

class ReadMeta(_message.Message):
    __slots__ = ("metadata", "is_audio", "image_count", "markdown_bytes", "detected_file_type")
    class MetadataEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    METADATA_FIELD_NUMBER: _ClassVar[int]
    IS_AUDIO_FIELD_NUMBER: _ClassVar[int]
    IMAGE_COUNT_FIELD_NUMBER: _ClassVar[int]
    MARKDOWN_BYTES_FIELD_NUMBER: _ClassVar[int]
    DETECTED_FILE_TYPE_FIELD_NUMBER: _ClassVar[int]
    metadata: _containers.ScalarMap[str, str]
    is_audio: bool
    image_count: int
    markdown_bytes: int
    detected_file_type: str
    def __init__(self, metadata: _Optional[_Mapping[str, str]] = ..., is_audio: _Optional[bool] = ..., image_count: _Optional[int] = ..., markdown_bytes: _Optional[int] = ..., detected_file_type: _Optional[str] = ...) -> None: ...

class ReadStreamResponse(_message.Message):
    __slots__ = ("meta", "image", "audio_chunk", "markdown_chunk")
    META_FIELD_NUMBER: _ClassVar[int]
    IMAGE_FIELD_NUMBER: _ClassVar[int]
    AUDIO_CHUNK_FIELD_NUMBER: _ClassVar[int]
    MARKDOWN_CHUNK_FIELD_NUMBER: _ClassVar[int]
    meta: ReadMeta
    image: ImageRef
    audio_chunk: bytes
    markdown_chunk: str
    def __init__(self, meta: _Optional[_Union[ReadMeta, _Mapping]] = ..., image: _Optional[_Union[ImageRef, _Mapping]] = ..., audio_chunk: _Optional[bytes] = ..., markdown_chunk: _Optional[str] = ...) -> None: ...

class ReadUploadRequest(_message.Message):
    __slots__ = ("header", "data")
    HEADER_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    header: ReadRequest
    data: bytes
    def __init__(self, header: _Optional[_Union[ReadRequest, _Mapping]] = ..., data: _Optional[bytes] = ...) -> None: ...

class ReadStreamRequest(_message.Message):
    __slots__ = ("request",)
    REQUEST_FIELD_NUMBER: _ClassVar[int]
    request: ReadRequest
    def __init__(self, request: _Optional[_Union[ReadRequest, _Mapping]] = ...) -> None: ...

class ReadUploadResponse(_message.Message):
    __slots__ = ("meta", "image", "audio_chunk", "markdown_chunk")
    META_FIELD_NUMBER: _ClassVar[int]
    IMAGE_FIELD_NUMBER: _ClassVar[int]
    AUDIO_CHUNK_FIELD_NUMBER: _ClassVar[int]
    MARKDOWN_CHUNK_FIELD_NUMBER: _ClassVar[int]
    meta: ReadMeta
    image: ImageRef
    audio_chunk: bytes
    markdown_chunk: str
    def __init__(self, meta: _Optional[_Union[ReadMeta, _Mapping]] = ..., image: _Optional[_Union[ImageRef, _Mapping]] = ..., audio_chunk: _Optional[bytes] = ..., markdown_chunk: _Optional[str] = ...) -> None: ...

class ListEnginesRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class Engine(_message.Message):
    __slots__ = ("name", "description", "file_types", "available", "unavailable_reason", "unavailable_file_types", "max_input_bytes")
    class UnavailableFileTypesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    class MaxInputBytesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    FILE_TYPES_FIELD_NUMBER: _ClassVar[int]
    AVAILABLE_FIELD_NUMBER: _ClassVar[int]
    UNAVAILABLE_REASON_FIELD_NUMBER: _ClassVar[int]
    UNAVAILABLE_FILE_TYPES_FIELD_NUMBER: _ClassVar[int]
    MAX_INPUT_BYTES_FIELD_NUMBER: _ClassVar[int]
    name: str
    description: str
    file_types: _containers.RepeatedScalarFieldContainer[str]
    available: bool
    unavailable_reason: str
    unavailable_file_types: _containers.ScalarMap[str, str]
    max_input_bytes: _containers.ScalarMap[str, int]
    def __init__(self, name: _Optional[str] = ..., description: _Optional[str] = ..., file_types: _Optional[_Iterable[str]] = ..., available: _Optional[bool] = ..., unavailable_reason: _Optional[str] = ..., unavailable_file_types: _Optional[_Mapping[str, str]] = ..., max_input_bytes: _Optional[_Mapping[str, int]] = ...) -> None: ...

class ListEnginesResponse(_message.Message):
    __slots__ = ("engines", "ocr_languages")
    ENGINES_FIELD_NUMBER: _ClassVar[int]
    OCR_LANGUAGES_FIELD_NUMBER: _ClassVar[int]
    engines: _containers.RepeatedCompositeFieldContainer[Engine]
    ocr_languages: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, engines: _Optional[_Iterable[_Union[Engine, _Mapping]]] = ..., ocr_languages: _Optional[_Iterable[str]] = ...) -> None: ...
