"""Sluice's Python client: `SluiceClient`, its errors, and the `v1` message classes."""

from sluice_client._channel import TlsOptions
from sluice_client._proto.sluice import v1
from sluice_client.client import SluiceClient
from sluice_client.errors import (
    AlreadyExists,
    DataLoss,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    ProtocolError,
    ResourceExhausted,
    SluiceError,
    SluiceRpcError,
    Unauthenticated,
    Unavailable,
    Unimplemented,
    WaitTimeoutError,
)

__all__ = [
    "AlreadyExists",
    "DataLoss",
    "FailedPrecondition",
    "InvalidArgument",
    "NotFound",
    "PermissionDenied",
    "ProtocolError",
    "ResourceExhausted",
    "SluiceClient",
    "SluiceError",
    "SluiceRpcError",
    "TlsOptions",
    "Unauthenticated",
    "Unavailable",
    "Unimplemented",
    "WaitTimeoutError",
    "v1",
]
