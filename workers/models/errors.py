"""How a chat or vision model call fails, in the project's error tree: ``ModelUnusable``
(a FailedPrecondition) is final — the endpoint refused by the SSRF policy, bad credentials,
a model the endpoint does not have, a request it rejects, a configuration naming no usable
endpoint — and fails the step at once; ``ModelUnavailable`` (an Unavailable) is an outage
that a later try may get past: rate limits, server errors, timeouts, unreachable
endpoints, answers we cannot read."""

from __future__ import annotations

from core.errors import FailedPrecondition, SluiceError, Unavailable
from workers.net.provider_endpoint import ProviderCallError

# The span error codes of final failures (``ModelUnusable.code``).
ENDPOINT_REFUSED = "MODEL_ENDPOINT_REFUSED"
UNAUTHORIZED = "MODEL_UNAUTHORIZED"
NOT_FOUND = "MODEL_NOT_FOUND"
REQUEST_REJECTED = "MODEL_REQUEST_REJECTED"
MISCONFIGURED = "MODEL_MISCONFIGURED"
# ...and of retryable ones.
UNAVAILABLE = "MODEL_UNAVAILABLE"


class ModelError(SluiceError):
    """A chat or vision model failed; ``code`` names how, for the span."""

    retryable: bool = True
    code: str = UNAVAILABLE


class ModelUnusable(ModelError, FailedPrecondition):
    """Every try would fail the same way until the configuration changes. ``subject``
    names the model (and its endpoint)."""

    retryable = False

    def __init__(self, code: str, subject: str, message: str) -> None:
        FailedPrecondition.__init__(self, code, subject, message)
        self.code = code


class ModelUnavailable(ModelError, Unavailable):
    """The model could not answer usably this time; ``status`` is the HTTP status of the
    last answer (200 for one we cannot read), None when there was none."""

    retryable = True

    def __init__(self, message: str, *, status: int | None = None) -> None:
        Unavailable.__init__(self, "model provider", message)
        self.status = status


def model_error(exc: ProviderCallError, subject: str) -> ModelError:
    """The kind of ``exc``, a failed call to the model ``subject``."""
    if exc.refused:
        return ModelUnusable(ENDPOINT_REFUSED, subject, str(exc))
    if not exc.final:
        return ModelUnavailable(str(exc), status=exc.status)
    if exc.status in (401, 403):
        return ModelUnusable(UNAUTHORIZED, subject, f"{exc} — check the api_key")
    if exc.status == 404:
        return ModelUnusable(NOT_FOUND, subject, f"{exc} — is the model still served there?")
    return ModelUnusable(REQUEST_REJECTED, subject, str(exc))
