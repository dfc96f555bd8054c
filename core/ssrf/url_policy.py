"""What the SSRF guard allows: schemes, blocked ports, the allow-list, redirects.

An allow-list entry is ``host`` or ``host:port`` (an IPv6 address in brackets: ``[fd00::5]``,
``[fd00::5]:8080``). A host entry lifts the address checks (loopback, private...) for that
host on every port the blocked list leaves open; a ``host:port`` entry lifts them for that
port only, and is the only way to reach a blocked port — the service ports of Sluice itself
(its API, docreader, Redis, PostgreSQL, Milvus) are blocked, so ``127.0.0.1`` on the
allow-list does not open them. Names are matched by spelling, never by what they resolve to.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from core.ssrf.hosts import SsrfBlocked, normalize_host, parse_ip_literal

# Services that speak something other than HTTP (or must not be reached over it: Milvus'
# gRPC 19530 and its metrics/health port 9091) and must never be poked through a fetch.
DEFAULT_BLOCKED_PORTS: frozenset[int] = frozenset(
    {
        19,
        21,
        22,
        23,
        25,
        53,
        110,
        111,
        135,
        137,
        138,
        139,
        143,
        389,
        445,
        465,
        514,
        587,
        636,
        873,
        993,
        995,
        1433,
        1521,
        2049,
        2375,
        2376,
        2379,
        2380,
        3306,
        3389,
        4369,
        5432,
        5672,
        5984,
        6379,
        6443,
        9042,
        9091,
        9200,
        9300,
        10250,
        10255,
        11211,
        15672,
        19530,
        25672,
        27017,
        27018,
        50070,
    }
)
_SUPPORTED_SCHEMES = frozenset({"http", "https"})


@dataclass(frozen=True)
class AllowEntry:
    # As normalize_host spells it; an IP literal in its standard form.
    host: str
    # None: every port the blocked list leaves open.
    port: int | None = None

    def __str__(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return host if self.port is None else f"{host}:{self.port}"


def parse_allow_entry(entry: str) -> AllowEntry:
    """``host``, ``host:port``, ``[v6]`` or ``[v6]:port``; ValueError naming what is wrong."""
    text = entry.strip()
    host, port_text = _split_entry(text)
    try:
        host = normalize_host(host)
        literal = parse_ip_literal(host)
    except SsrfBlocked as exc:
        raise ValueError(f"invalid allow-list entry {entry!r}: {exc.reason}") from exc
    if port_text is None:
        port = None
    elif port_text.isascii() and port_text.isdigit() and 0 < int(port_text) <= 65535:
        port = int(port_text)
    else:
        raise ValueError(
            f"invalid allow-list entry {entry!r}: the port must be a number from 1 to 65535"
        )
    return AllowEntry(host if literal is None else str(literal), port)


def _split_entry(text: str) -> tuple[str, str | None]:
    if text.startswith("["):
        host, bracket, rest = text[1:].partition("]")
        if not bracket or ":" not in host or (rest and not rest.startswith(":")):
            raise ValueError(
                f"invalid allow-list entry {text!r}: write an IPv6 address as [address] "
                "or [address]:port"
            )
        return host, (rest[1:] if rest else None)
    if text.count(":") > 1:
        raise ValueError(
            f"invalid allow-list entry {text!r}: write an IPv6 address in brackets, "
            "[address] or [address]:port"
        )
    host, colon, port = text.partition(":")
    return host, (port if colon else None)


@dataclass(frozen=True)
class UrlPolicy:
    # Allow-list entries as configured; kept in their normalized spelling (AllowEntry.__str__).
    allow_hosts: frozenset[str] = frozenset()
    blocked_ports: frozenset[int] = DEFAULT_BLOCKED_PORTS
    allowed_schemes: tuple[str, ...] = ("http", "https")
    max_redirects: int = 5
    _entries: frozenset[AllowEntry] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        schemes = tuple(scheme.lower() for scheme in self.allowed_schemes)
        unsupported = set(schemes) - _SUPPORTED_SCHEMES
        if unsupported:
            raise ValueError(f"only http and https can be allowed, not {sorted(unsupported)}")
        if self.max_redirects < 0:
            raise ValueError(f"max_redirects must be >= 0, not {self.max_redirects}")
        entries = frozenset(parse_allow_entry(entry) for entry in _non_blank(self.allow_hosts))
        object.__setattr__(self, "allowed_schemes", schemes)
        object.__setattr__(self, "_entries", entries)
        object.__setattr__(self, "allow_hosts", frozenset(str(entry) for entry in entries))

    def port_problem(self, host: str, port: int) -> str | None:
        """Why ``host`` (as normalize_host spells it, an IP in its standard form) may not be
        reached on ``port``, or None."""
        if port == 0:
            return "port 0 is blocked"
        if port in self.blocked_ports and AllowEntry(host, port) not in self._entries:
            return (
                f"port {port} is blocked (a service port: only an allow-list entry naming "
                "host:port opens it)"
            )
        return None

    def lifts_address_checks(self, host: str, port: int) -> bool:
        """Whether the allow-list vouches for ``host`` on ``port``."""
        return AllowEntry(host, None) in self._entries or AllowEntry(host, port) in self._entries


def _non_blank(entries: Iterable[str]) -> Iterable[str]:
    return (entry for entry in entries if entry.strip())
