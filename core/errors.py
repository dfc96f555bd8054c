"""One error tree for all of Sluice, shaped like httpx's: one root, and below it the kinds
that say what a caller can do about a failure.

Services and components raise these (or their own subclasses of them); only the gRPC edge
(``server.api.errors``) turns them into status codes, so no layer below it knows gRPC.
Each kind carries its details as plain attributes (the fields at fault, the conflicting id,
the quota...), so a component's own error can be of a kind by setting them.

A component's root error (file storage, index, task queue, embedding model...) names the
component in ``component``: one that no kind refines is that component failing, which a
caller sees as the component being unavailable, never as an internal error.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence


class SluiceError(Exception):
    """The root of every error Sluice raises on purpose."""

    # Set on a component's root error: which part of Sluice failed, as a client may be told.
    component: str | None = None


class InvalidArgument(SluiceError):
    """The request is wrong: one (field, description) violation per field at fault, all at
    once so a client fixes every field in one go. ``reason`` and ``metadata`` name a policy
    that refused the value (the SSRF policy's rule, say); empty when none did."""

    def __init__(
        self,
        violations: Sequence[tuple[str, str]],
        *,
        reason: str = "",
        metadata: Mapping[str, str] | None = None,
    ) -> None:
        self.violations = list(violations)
        self.reason = reason
        self.metadata = dict(metadata or {})
        self.message = "; ".join(f"{field}: {description}" for field, description in violations)
        super().__init__(self.message)

    @classmethod
    def field(cls, field: str, description: str) -> InvalidArgument:
        return cls([(field, description)])


class NotFound(SluiceError):
    """The resource the request names does not exist, or is not the caller's to see."""

    def __init__(
        self,
        resource_type: str,
        resource_name: str,
        *,
        message: str | None = None,
        description: str = "",
    ) -> None:
        self.resource_type = resource_type
        self.resource_name = resource_name
        self.description = description
        self.message = message or f"{resource_type} {resource_name!r} not found"
        super().__init__(self.message)


class AlreadyExists(SluiceError):
    """A duplicate: ``resource_name`` names the one that exists and ``existing``, when given,
    is that resource as a read of it returns it (the edge sends it along, converted)."""

    def __init__(
        self, resource_type: str, resource_name: str, message: str, existing: object = None
    ) -> None:
        self.resource_type = resource_type
        self.resource_name = resource_name
        self.existing = existing
        self.message = message
        super().__init__(message)


class FailedPrecondition(SluiceError):
    """The system is not in a state the request needs (``kind`` says which, ``subject`` of
    what); retrying cannot help until that changes."""

    def __init__(self, kind: str, subject: str, message: str) -> None:
        self.kind = kind
        self.subject = subject
        self.message = message
        super().__init__(message)


class Aborted(SluiceError):
    """A concurrent change won a compare-and-set: the caller may re-read and retry."""

    def __init__(self, reason: str, subject: str, message: str) -> None:
        self.reason = reason
        self.subject = subject
        self.message = message
        super().__init__(message)


class ResourceExhausted(SluiceError):
    """A limit was exceeded: ``subject`` names the quota."""

    def __init__(self, subject: str, message: str) -> None:
        self.subject = subject
        self.message = message
        super().__init__(message)


class DataLoss(SluiceError):
    """What arrived is not what the client said it sent: ``reason`` names the check, its
    ``metadata`` the expected and received values."""

    def __init__(self, reason: str, message: str, metadata: Mapping[str, str]) -> None:
        self.reason = reason
        self.metadata = dict(metadata)
        self.message = message
        super().__init__(message)


class PermissionDenied(SluiceError):
    """A credential that opens nothing: ``reason`` says why, ``subject`` which credential."""

    def __init__(self, reason: str, subject: str, message: str) -> None:
        self.reason = reason
        self.subject = subject
        self.message = message
        super().__init__(message)


class Unimplemented(SluiceError):
    """A part of the contract that is not built yet; ``issue`` says where it lands."""

    def __init__(self, operation: str, issue: str) -> None:
        self.message = f"{operation} is not implemented yet ({issue})"
        super().__init__(self.message)


class Unavailable(SluiceError):
    """An outage of ``component`` (database, Redis, index, file storage, a model provider):
    retrying later may succeed. The message may hold internals (hosts, provider replies):
    it is for the log."""

    def __init__(self, component: str, message: str) -> None:
        self.component = component
        super().__init__(message)


class Internal(SluiceError):
    """A broken invariant: a bug or a corrupted record, never the caller's doing."""


def outage_of(exc: SluiceError) -> str | None:
    """The component whose outage ``exc`` is, None if it is not one: an Unavailable, or a
    component's root error that no other kind refines."""
    if isinstance(exc, _KINDS):
        return None
    return exc.component


_KINDS = (
    InvalidArgument,
    NotFound,
    AlreadyExists,
    FailedPrecondition,
    Aborted,
    ResourceExhausted,
    DataLoss,
    PermissionDenied,
    Unimplemented,
    Internal,
)
