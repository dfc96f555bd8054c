"""The check every CreateFromURL passes before anything is written: the URL against the SSRF
policy. The API handler and the ingest service each call it (two of the spec's three lines;
the worker checks again right before it fetches), so a service reached some other way is
still guarded. Both call it only once the caller's access to the knowledge base is
established: a refusal tells the rule, which nobody without access should learn anything
from."""

from __future__ import annotations

from core.errors import InvalidArgument
from core.ssrf.guard import Resolver, ValidatedUrl, validate_url
from core.ssrf.hosts import SsrfBlocked
from workers.settings import Settings

# Longer is no URL anyone means to import (browsers and servers stop at about this much).
MAX_URL_CHARS = 8 * 1024


def checked_import_url(
    url: str, settings: Settings, *, field: str = "url", resolver: Resolver | None = None
) -> ValidatedUrl:
    """The URL's verdict under the settings' policy (its host resolved by ``resolver``, the
    system's by default); INVALID_ARGUMENT naming the rule when it is refused."""
    url = url.strip()
    if not url:
        raise InvalidArgument.field(field, "is required")
    if len(url) > MAX_URL_CHARS:
        raise InvalidArgument.field(field, f"is longer than {MAX_URL_CHARS} characters")
    try:
        return validate_url(url, settings.url_policy, resolver=resolver)
    except SsrfBlocked as exc:
        raise url_refused(field, exc.reason) from exc


def url_refused(field: str, rule: str, *, kind: str = "URL_REFUSED") -> InvalidArgument:
    """A URL the SSRF policy refuses: a field violation naming the rule, plus ``kind``
    (URL_REFUSED, MODEL_ENDPOINT_REFUSED; the rule in its metadata), so a client can tell
    the policy's verdict from a missing field."""
    return InvalidArgument(
        [(field, f"refused by the SSRF policy: {rule}")],
        reason=kind,
        metadata={"field": field, "rule": rule},
    )
