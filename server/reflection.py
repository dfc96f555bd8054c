"""Server reflection (grpc.reflection.v1alpha, what grpcurl asks) that answers with the
proto files' comments.

grpcio-reflection's servicer serializes the descriptors the generated code registered, and
those carry no source_code_info, so `grpcurl describe` showed bare fields: the limits in
the field comments (page sizes, top_k, frame sizes) were lost. `make proto` also writes
`buf build`'s descriptor set of proto/ (comments included) next to the generated code
(sluice/descriptors.binpb, under `make proto-check`'s drift check); this servicer answers
with those files. Which names exist, and every file outside that set (google/protobuf,
grpc.health, this service's own proto), still comes from the process's descriptor pool, so
a process serves only what it registered and every dependency resolves.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Iterator
from importlib import resources
from typing import Any

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool
from google.protobuf.descriptor import FileDescriptor
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

SERVICE_NAME: str = reflection_pb2.DESCRIPTOR.services_by_name["ServerReflection"].full_name
DESCRIPTOR_SET = "descriptors.binpb"


def commented_files() -> dict[str, bytes]:
    """proto/'s files by name, each a serialized FileDescriptorProto with its comments."""
    data = resources.files("sluice").joinpath(DESCRIPTOR_SET).read_bytes()
    files = descriptor_pb2.FileDescriptorSet.FromString(data).file
    return {f.name: f.SerializeToString() for f in files}


def _error(request: Any, code: grpc.StatusCode) -> Any:
    return reflection_pb2.ServerReflectionResponse(
        error_response=reflection_pb2.ErrorResponse(
            error_code=code.value[0], error_message=code.value[1]
        ),
        original_request=request,
    )


class ReflectionAnswers:
    """One answer per request of the ServerReflectionInfo stream."""

    def __init__(self, service_names: Iterable[str]) -> None:
        self._service_names = sorted(service_names)
        self._pool = descriptor_pool.Default()
        self._commented = commented_files()

    def _serialized(self, file: FileDescriptor) -> bytes:
        commented = self._commented.get(file.name)
        if commented is not None:
            return commented
        proto = descriptor_pb2.FileDescriptorProto()
        file.CopyToProto(proto)
        return proto.SerializeToString()

    def _files(self, request: Any, file: FileDescriptor) -> Any:
        # The file and all it imports, transitively, as grpcio-reflection sends them: a
        # client then needs no second round trip to build the descriptor.
        seen: dict[str, FileDescriptor] = {}
        pending = [file]
        while pending:
            current = pending.pop()
            if current.name not in seen:
                seen[current.name] = current
                pending.extend(current.dependencies)
        return reflection_pb2.ServerReflectionResponse(
            file_descriptor_response=reflection_pb2.FileDescriptorResponse(
                file_descriptor_proto=[self._serialized(f) for f in seen.values()]
            ),
            original_request=request,
        )

    def answer(self, request: Any) -> Any:
        pool = self._pool
        kind = request.WhichOneof("message_request")
        try:
            if kind == "file_by_filename":
                return self._files(request, pool.FindFileByName(request.file_by_filename))
            if kind == "file_containing_symbol":
                symbol = request.file_containing_symbol
                return self._files(request, pool.FindFileContainingSymbol(symbol))
            if kind == "file_containing_extension":
                wanted = request.file_containing_extension
                message = pool.FindMessageTypeByName(wanted.containing_type)
                extension = pool.FindExtensionByNumber(message, wanted.extension_number)
                return self._files(request, pool.FindFileContainingSymbol(extension.full_name))
            if kind == "all_extension_numbers_of_type":
                message = pool.FindMessageTypeByName(request.all_extension_numbers_of_type)
                numbers = sorted(e.number for e in pool.FindAllExtensions(message))
                return reflection_pb2.ServerReflectionResponse(
                    all_extension_numbers_response=reflection_pb2.ExtensionNumberResponse(
                        base_type_name=message.full_name, extension_number=numbers
                    ),
                    original_request=request,
                )
            if kind == "list_services":
                return reflection_pb2.ServerReflectionResponse(
                    list_services_response=reflection_pb2.ListServiceResponse(
                        service=[
                            reflection_pb2.ServiceResponse(name=name)
                            for name in self._service_names
                        ]
                    ),
                    original_request=request,
                )
        except KeyError:
            return _error(request, grpc.StatusCode.NOT_FOUND)
        return _error(request, grpc.StatusCode.INVALID_ARGUMENT)


class ReflectionServicer(reflection_pb2_grpc.ServerReflectionServicer):  # type: ignore[misc]
    """For grpc.Server (the docreader)."""

    def __init__(self, service_names: Iterable[str]) -> None:
        self._answers = ReflectionAnswers(service_names)

    def ServerReflectionInfo(
        self, request_iterator: Iterator[Any], context: grpc.ServicerContext
    ) -> Iterator[Any]:
        for request in request_iterator:
            yield self._answers.answer(request)


class AsyncReflectionServicer(reflection_pb2_grpc.ServerReflectionServicer):  # type: ignore[misc]
    """For grpc.aio.Server (the API)."""

    def __init__(self, service_names: Iterable[str]) -> None:
        self._answers = ReflectionAnswers(service_names)

    async def ServerReflectionInfo(
        self, request_iterator: AsyncIterator[Any], context: grpc.aio.ServicerContext[Any, Any]
    ) -> AsyncIterator[Any]:
        async for request in request_iterator:
            yield self._answers.answer(request)


def enable_server_reflection(
    service_names: Iterable[str], server: grpc.Server | grpc.aio.Server
) -> None:
    """Like grpc_reflection's function of that name, with the comments served."""
    servicer = (
        AsyncReflectionServicer(service_names)
        if isinstance(server, grpc.aio.Server)
        else ReflectionServicer(service_names)
    )
    reflection_pb2_grpc.add_ServerReflectionServicer_to_server(servicer, server)
