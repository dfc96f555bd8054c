"""The docreader's errors and the gRPC status each one becomes.

- UnsupportedFormatError → INVALID_ARGUMENT: a file type the chosen engine does not read.
- ParseError → INVALID_ARGUMENT: the bytes are not a valid file of the declared type; that is
  a bad argument from the caller, not a server fault.
- InvalidRequestError → INVALID_ARGUMENT: no source, frames out of order, a bad storage
  reference, an unknown engine name.
- SourceNotFoundError → NOT_FOUND: the storage reference names no file.
- EngineUnavailableError → FAILED_PRECONDITION: the engine exists but cannot run here (e.g.
  its package is not installed).
- StorageNotConfiguredError → FAILED_PRECONDITION: a storage_ref, but this docreader was
  started without a storage base directory.
- UnsupportedSourceError → UNIMPLEMENTED: a source kind this build does not read (URLs).
- ResultTooLargeError → RESOURCE_EXHAUSTED: one result frame would exceed the message limit.
- InputTooLargeError → RESOURCE_EXHAUSTED: a ReadUpload sends more bytes than the input cap.

DATA_LOSS is deliberately not used for unreadable documents: it means the server lost or
corrupted data and is commonly alerted on, while a malformed upload is the caller's input.
Any other exception is a bug and becomes INTERNAL. The worker turns every non-OK status into a
failed docreader span carrying the status message, so messages name the file and the cause.
"""

from __future__ import annotations

from typing import ClassVar

import grpc

from core.errors import SluiceError


class DocReaderError(SluiceError):
    status_code: ClassVar[grpc.StatusCode] = grpc.StatusCode.INTERNAL


class UnsupportedFormatError(DocReaderError):
    status_code = grpc.StatusCode.INVALID_ARGUMENT


class ParseError(DocReaderError):
    status_code = grpc.StatusCode.INVALID_ARGUMENT


class InvalidRequestError(DocReaderError):
    status_code = grpc.StatusCode.INVALID_ARGUMENT


class SourceNotFoundError(DocReaderError):
    status_code = grpc.StatusCode.NOT_FOUND


class EngineUnavailableError(DocReaderError):
    status_code = grpc.StatusCode.FAILED_PRECONDITION


class StorageNotConfiguredError(DocReaderError):
    status_code = grpc.StatusCode.FAILED_PRECONDITION


class UnsupportedSourceError(DocReaderError):
    status_code = grpc.StatusCode.UNIMPLEMENTED


class ResultTooLargeError(DocReaderError):
    status_code = grpc.StatusCode.RESOURCE_EXHAUSTED


class InputTooLargeError(DocReaderError):
    status_code = grpc.StatusCode.RESOURCE_EXHAUSTED


class ParseCancelled(DocReaderError):
    """The caller went away (cancelled or timed out) while its parse was running."""

    status_code = grpc.StatusCode.CANCELLED
