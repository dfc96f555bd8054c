"""The `sluice` exit codes, and the one-line message and code of every error a command can
end with (the README's CLI section lists the same table)."""

from __future__ import annotations

import sys
from typing import TextIO

import grpc

from sluice_client._output import error_lines
from sluice_client.errors import NotFound, SluiceError, SluiceRpcError, WaitTimeoutError

OK = 0
# Some of the work failed: a document of an ingest, a watched knowledge (failed or
# cancelled), a knowledge a batch delete left.
FAILED = 1
# The command line is wrong (Typer's own usage errors use 2 too) or a local file is missing.
USAGE = 2
# The server cannot be reached, or did not answer or finish in time.
UNAVAILABLE = 3
NOT_FOUND = 4
# The server refused the request (invalid argument, already exists, permission, ...).
REFUSED = 5
INTERRUPTED = 130
# 128 + SIGPIPE, what a shell reports for a command whose reader (`| head`) went away.
BROKEN_PIPE = 141

_UNREACHABLE = frozenset({grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED})


def _rpc_error(error: SluiceRpcError, target: str, err: TextIO) -> int:
    lines = error_lines(error)
    if error.code in _UNREACHABLE:
        lines[0] = (
            f"error: {error.code.name}: the Sluice server at {target} (--target, "
            f"SLUICE_TARGET) did not answer: {error.message}"
        )
    for line in lines:
        print(line, file=err)
    if error.code in _UNREACHABLE:
        return UNAVAILABLE
    return NOT_FOUND if isinstance(error, NotFound) else REFUSED


def report(error: BaseException, target: str) -> int:
    """Prints `error` as one line (plus a line per field violation) to stderr; its code."""
    err = sys.stderr
    if isinstance(error, SluiceRpcError):
        return _rpc_error(error, target, err)
    if isinstance(error, WaitTimeoutError):
        print(f"error: {error}", file=err)
        return UNAVAILABLE
    if isinstance(error, FileNotFoundError | IsADirectoryError | NotADirectoryError):
        print(f"error: No such file: {error.filename}", file=err)
        return USAGE
    if isinstance(error, OSError):
        print(f"error: {error.strerror or error}: {error.filename or ''}".rstrip(": "), file=err)
        return USAGE
    print(f"error: {error}", file=err)
    return USAGE


HANDLED: tuple[type[BaseException], ...] = (SluiceError, OSError, ValueError)
