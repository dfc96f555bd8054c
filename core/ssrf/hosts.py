"""Reading the host of a URL the way the system resolver would: names IDNA-encoded and
lower-case, numeric hosts as ``inet_aton`` reads them ("2130706433", "0177.0.0.1", "0x7f.1"
and "127.1" are all 127.0.0.1), IPv6 literals without brackets. The URL guard and the
allow-list both spell hosts this way, so an entry and a URL naming the same host compare
equal.
"""

from __future__ import annotations

import ipaddress
import re

from core.errors import SluiceError

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

_HOST_NAME = re.compile(r"^[a-z0-9_-]+(?:\.[a-z0-9_-]+)*$")
_NUMERIC_LABEL = re.compile(r"^(?:[0-9]+|0x[0-9a-f]*)$")


class SsrfBlocked(SluiceError, ValueError):
    """The URL must not be fetched; ``reason`` says which rule refused it."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def normalize_host(host: str) -> str:
    """Lower-case, IDNA-encoded, one trailing dot dropped; SsrfBlocked if it is no host."""
    host = host.strip().lower()
    if host.endswith("."):
        host = host[:-1]
    if not host:
        raise SsrfBlocked("the URL has no host")
    if ":" in host:  # an IPv6 literal; parse_ip_literal checks it
        return host
    if not host.isascii():
        try:
            host = host.encode("idna").decode("ascii")
        except UnicodeError as exc:
            raise SsrfBlocked(f"invalid international host name: {exc}") from exc
    if not _HOST_NAME.match(host):
        raise SsrfBlocked(f"invalid characters in host {host!r}")
    return host


def parse_ip_literal(host: str) -> IPAddress | None:
    """The address a normalized host spells, or None for a name to resolve.

    A host whose last label is a number can only be an IPv4 address (no top-level domain is
    numeric); if ``inet_aton`` would not accept it either, it is refused, not resolved."""
    if ":" in host:
        # A zone id ("fe80::1%25eth0") picks a local interface: nothing a public URL needs.
        if "%" in host:
            raise SsrfBlocked(f"the IPv6 address {host!r} carries a zone id")
        try:
            return ipaddress.IPv6Address(host)
        except ValueError as exc:
            raise SsrfBlocked(f"malformed IPv6 literal {host!r}") from exc
    if not _NUMERIC_LABEL.match(host.rsplit(".", 1)[-1]):
        return None
    address = _inet_aton(host)
    if address is None:
        raise SsrfBlocked(f"malformed IPv4 literal {host!r}")
    return address


def _inet_aton(host: str) -> ipaddress.IPv4Address | None:
    """IPv4 in any form inet_aton accepts: 1 to 4 parts, each decimal, 0-octal or 0x-hex;
    the last part fills the bytes left ("127.1" is 127.0.0.1, "2130706433" too)."""
    parts = host.split(".")
    if len(parts) > 4:
        return None
    values = [_inet_number(part) for part in parts]
    if any(value is None for value in values):
        return None
    numbers = [value for value in values if value is not None]
    *head, last = numbers
    if any(value > 0xFF for value in head) or last >= 1 << (8 * (5 - len(numbers))):
        return None
    number = last
    for index, value in enumerate(head):
        number |= value << (8 * (3 - index))
    return ipaddress.IPv4Address(number)


def _inet_number(part: str) -> int | None:
    if part.startswith("0x"):
        digits, base, alphabet = part[2:], 16, "0123456789abcdef"
    elif len(part) > 1 and part.startswith("0"):
        digits, base, alphabet = part[1:], 8, "01234567"
    else:
        digits, base, alphabet = part, 10, "0123456789"
    if (not digits and base != 16) or any(char not in alphabet for char in digits):
        return None
    return int(digits or "0", base)
