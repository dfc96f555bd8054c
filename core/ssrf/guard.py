"""SSRF guard: decides whether a URL may be fetched from inside the service, and where to.

Remote images and URL import share these rules, so they live in one place: http(s) only,
no credentials in the URL, no well-known service ports, and every address the host stands
for must be public. A host that looks numeric is read the way ``inet_aton`` (and so the
system resolver) reads it — "2130706433", "0177.0.0.1", "0x7f.1" and "127.1" are all
127.0.0.1 — and IPv6 forms that carry an IPv4 address (mapped, compatible, NAT64, 6to4) are
judged by that address. The addresses that passed are returned with the verdict: the caller
connects to exactly them, so a second DNS answer cannot swap in an internal address between
the check and the connection (DNS rebinding).

Hosts on the allow-list (``host`` or ``host:port`` entries, see url_policy) skip the address
checks only: scheme and credential rules still apply, and a blocked port stays blocked unless
an entry names it. A name is allowed by its spelling, never by what it resolves to — allowing
"127.0.0.1" does not allow "localhost".

A refusal's reason goes back to whoever asked for the URL, so it names the rule but never
what a name resolved to (that would map the internal network for them); the address is
logged here instead. What is validated comes out ASCII: the host IDNA-encoded, path and query
percent-encoded, as a request line must be.
"""

from __future__ import annotations

import ipaddress
import logging
import socket
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from urllib.parse import quote, urlsplit

from core.ssrf.hosts import IPAddress, SsrfBlocked, normalize_host, parse_ip_literal
from core.ssrf.url_policy import UrlPolicy

# host, port → the addresses it stands for (textual IPs), like getaddrinfo.
Resolver = Callable[[str, int], Sequence[str]]

_DEFAULT_PORTS = {"http": 80, "https": 443}
# Printable ASCII stays as it is (existing %-escapes included); the rest is percent-encoded.
_PRINTABLE_ASCII = "".join(chr(code) for code in range(0x21, 0x7F))

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ValidatedUrl:
    url: str
    scheme: str
    # Lower-case, IDNA-encoded, without brackets or a trailing dot.
    host: str
    port: int
    # What goes on the request line: path and query, percent-encoded to ASCII (the fragment
    # never leaves).
    target: str
    # Connect to these, in order, and to nothing else.
    addresses: tuple[str, ...]
    allow_listed: bool
    # One spelling per resource: scheme and host lower-case, the host IDNA-encoded or the
    # IP in its standard form, no default port, no fragment, "/" for an empty path — so
    # "HTTP://Example.COM:80/a#x" and "http://example.com/a" compare equal.
    normalized: str


def validate_url(
    url: str, policy: UrlPolicy | None = None, *, resolver: Resolver | None = None
) -> ValidatedUrl:
    """The URL's verdict: a ValidatedUrl, or SsrfBlocked naming the rule it broke.

    ``resolver`` defaults to the system resolver (``socket.getaddrinfo``)."""
    policy = policy or UrlPolicy()
    if any(char.isspace() or ord(char) < 0x20 or ord(char) == 0x7F for char in url):
        raise SsrfBlocked("the URL contains whitespace or control characters")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise SsrfBlocked(f"malformed URL: {exc}") from exc
    scheme = parts.scheme.lower()
    if scheme not in policy.allowed_schemes:
        allowed = ", ".join(policy.allowed_schemes)
        raise SsrfBlocked(f"scheme {scheme or '(none)'!r} is not allowed (only {allowed})")
    if "@" in parts.netloc:
        raise SsrfBlocked("the URL carries credentials (user@host)")
    if "\\" in parts.netloc:
        raise SsrfBlocked("the host contains a backslash")
    host = normalize_host(parts.hostname or "")
    port = _DEFAULT_PORTS[scheme] if port is None else port
    literal = parse_ip_literal(host)
    spelled = host if literal is None else str(literal)
    port_problem = policy.port_problem(spelled, port)
    if port_problem is not None:
        raise SsrfBlocked(port_problem)
    allow_listed = policy.lifts_address_checks(spelled, port)
    if literal is not None:
        addresses: list[IPAddress] = [literal]
    else:
        addresses = _resolve(host, port, resolver or system_resolver)
    if not allow_listed:
        for address in addresses:
            problem = address_problem(address)
            if problem is None:
                continue
            if literal is not None:
                raise SsrfBlocked(f"{host} is {problem}")
            log.warning("URL refused: %s resolves to %s, %s", host, address, problem)
            raise SsrfBlocked(f"{host} resolves to {address_problem(address, name_embedded=False)}")
    try:
        path, query = percent_encoded(parts.path or "/"), percent_encoded(parts.query)
    except UnicodeEncodeError as exc:  # a lone surrogate
        raise SsrfBlocked(f"malformed URL: {exc}") from exc
    target = path + (f"?{query}" if query else "")
    authority = _url_host(host, literal) + ("" if port == _DEFAULT_PORTS[scheme] else f":{port}")
    return ValidatedUrl(
        url=url,
        scheme=scheme,
        host=host,
        port=port,
        target=target,
        addresses=tuple(str(address) for address in addresses),
        allow_listed=allow_listed,
        normalized=f"{scheme}://{authority}{target}",
    )


def _url_host(host: str, literal: IPAddress | None) -> str:
    if literal is None:
        return host
    if isinstance(literal, ipaddress.IPv4Address):
        return str(literal)
    return f"[{literal}]"


def percent_encoded(text: str | bytes) -> str:
    """``text`` with everything beyond printable ASCII percent-encoded (a str as UTF-8) and
    the rest, existing escapes included, as it is: "/wiki/Москва" becomes
    "/wiki/%D0%9C%D0%BE%D1%81%D0%BA%D0%B2%D0%B0"."""
    return quote(text, safe=_PRINTABLE_ASCII)


def system_resolver(host: str, port: int) -> list[str]:
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return [str(info[4][0]) for info in infos]


def _resolve(host: str, port: int, resolver: Resolver) -> list[IPAddress]:
    try:
        answers = resolver(host, port)
    except (OSError, UnicodeError) as exc:
        raise SsrfBlocked(f"{host} cannot be resolved: {exc}") from exc
    addresses: list[IPAddress] = []
    for answer in answers:
        try:
            address = ipaddress.ip_address(answer)
        except ValueError as exc:
            log.warning("URL refused: %s resolves to %r, not an IP address", host, answer)
            raise SsrfBlocked(f"{host} resolves to something that is not an IP address") from exc
        if address not in addresses:
            addresses.append(address)
    if not addresses:
        raise SsrfBlocked(f"{host} resolves to no address")
    return addresses


IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network


def _networks(*pairs: tuple[str, str]) -> tuple[tuple[IPNetwork, str], ...]:
    return tuple((ipaddress.ip_network(network), label) for network, label in pairs)


# Most specific first: the first match names the reason.
_V4_BLOCKED = _networks(
    ("0.0.0.0/8", "an unspecified ('this network') address"),
    ("10.0.0.0/8", "a private address"),
    ("100.64.0.0/10", "a carrier-grade NAT address"),
    ("127.0.0.0/8", "a loopback address"),
    ("169.254.0.0/16", "a link-local address"),
    ("172.16.0.0/12", "a private address"),
    ("192.0.0.0/24", "an IETF protocol assignment address"),
    ("192.0.2.0/24", "a documentation address"),
    ("192.31.196.0/24", "an AS112 address"),
    ("192.52.193.0/24", "an AMT address"),
    ("192.88.99.0/24", "a 6to4 relay anycast address"),
    ("192.168.0.0/16", "a private address"),
    ("192.175.48.0/24", "an AS112 address"),
    ("198.18.0.0/15", "a benchmarking address"),
    ("198.51.100.0/24", "a documentation address"),
    ("203.0.113.0/24", "a documentation address"),
    ("224.0.0.0/4", "a multicast address"),
    ("255.255.255.255/32", "the broadcast address"),
    ("240.0.0.0/4", "a reserved address"),
)
_V6_BLOCKED = _networks(
    ("::/128", "the unspecified address"),
    ("::1/128", "a loopback address"),
    ("64:ff9b:1::/48", "a local-use NAT64 address"),
    ("100::/64", "a discard-only address"),
    ("2001::/32", "a Teredo address"),
    ("2001::/23", "an IETF protocol assignment address"),
    ("2001:db8::/32", "a documentation address"),
    ("3fff::/20", "a documentation address"),
    ("5f00::/16", "an SRv6 SID address"),
    ("fc00::/7", "a unique local (private) address"),
    ("fe80::/10", "a link-local address"),
    ("fec0::/10", "a site-local address"),
    ("ff00::/8", "a multicast address"),
)
_GLOBAL_UNICAST = ipaddress.IPv6Network("2000::/3")
# Prefixes whose addresses carry an IPv4 address: (network, label, shift of the IPv4 bits).
_V4_CARRIERS = (
    (ipaddress.IPv6Network("::ffff:0:0/96"), "an IPv4-mapped address", 0),
    (ipaddress.IPv6Network("::ffff:0:0:0/96"), "an IPv4-translated address", 0),
    (ipaddress.IPv6Network("64:ff9b::/96"), "a NAT64 address", 0),
    (ipaddress.IPv6Network("2002::/16"), "a 6to4 address", 80),
)
_V4_COMPATIBLE = ipaddress.IPv6Network("::/96")


def address_problem(address: IPAddress, *, name_embedded: bool = True) -> str | None:
    """Why a fetch must not connect to ``address`` ("a loopback address"...), or None.

    An IPv6 address carrying an IPv4 one names that address ("an IPv4-mapped address of
    10.0.0.1, a private address") unless ``name_embedded`` is false ("an IPv4-mapped address
    of a private address")."""
    if isinstance(address, ipaddress.IPv4Address):
        return _v4_problem(address)
    for carrier, label, shift in _V4_CARRIERS:
        if address in carrier:
            embedded = ipaddress.IPv4Address((int(address) >> shift) & 0xFFFFFFFF)
            problem = _v4_problem(embedded)
            if problem is None:
                return None
            return f"{label} of {embedded}, {problem}" if name_embedded else f"{label} of {problem}"
    for network, label in _V6_BLOCKED:
        if address in network:
            return label
    if address in _V4_COMPATIBLE:
        embedded = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
        compatible = "an IPv4-compatible address (deprecated)"
        return f"{compatible} of {embedded}" if name_embedded else compatible
    if address not in _GLOBAL_UNICAST or not address.is_global:
        return "a reserved address"
    return None


def _v4_problem(address: ipaddress.IPv4Address) -> str | None:
    for network, label in _V4_BLOCKED:
        if address in network:
            return label
    # Belt and braces: whatever else the standard library knows is not global.
    return None if address.is_global else "a non-global address"
