"""The allow-list is port-aware: ``host`` opens the ports the blocked list leaves open,
``host:port`` that port alone (a blocked one included), IPv6 in brackets."""

from __future__ import annotations

import pytest

from workers.net.ssrf import SsrfBlocked, UrlPolicy, validate_url


def test_entries_are_host_or_host_port_and_keep_their_normal_spelling() -> None:
    policy = UrlPolicy(
        allow_hosts=frozenset({
            " Images.Intranet. ", "127.0.0.1:8080", "[::1]", "[FD00::5]:9443", "0x7f.2", ""
        })
    )
    assert policy.allow_hosts == frozenset(
        {"images.intranet", "127.0.0.1:8080", "[::1]", "[fd00::5]:9443", "127.0.0.2"}
    )


@pytest.mark.parametrize(
    ("entry", "problem"),
    [
        ("127.0.0.1:", "the port must be a number"),
        ("127.0.0.1:0", "the port must be a number"),
        ("127.0.0.1:65536", "the port must be a number"),
        ("127.0.0.1:http", "the port must be a number"),
        ("::1", "IPv6 address in brackets"),
        ("fd00::5:8080", "IPv6 address in brackets"),
        ("[::1", "write an IPv6 address as"),
        ("[::1]8080", "write an IPv6 address as"),
        ("[not-v6]:80", "write an IPv6 address as"),
        ("bad host:80", "invalid characters"),
    ],
)
def test_a_malformed_entry_is_refused_with_what_is_wrong(entry: str, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        UrlPolicy(allow_hosts=frozenset({entry}))


def test_a_host_port_entry_opens_that_port_only() -> None:
    policy = UrlPolicy(allow_hosts=frozenset({"127.0.0.1:8080", "[::1]:9000"}))
    assert validate_url("http://127.0.0.1:8080/x", policy).allow_listed
    assert validate_url("http://2130706433:8080/x", policy).addresses == ("127.0.0.1",)
    assert validate_url("http://[::1]:9000/", policy).allow_listed
    for url in ("http://127.0.0.1:8081/", "http://127.0.0.1/", "http://[::1]:9001/"):
        with pytest.raises(SsrfBlocked, match="loopback"):
            validate_url(url, policy)


def test_a_host_entry_leaves_blocked_ports_blocked_unless_listed_with_the_port() -> None:
    service_ports = frozenset({50051, 19530, 6379})
    host_only = UrlPolicy(allow_hosts=frozenset({"127.0.0.1"}), blocked_ports=service_ports)
    assert validate_url("http://127.0.0.1:8080/", host_only).allow_listed
    for port in sorted(service_ports):
        with pytest.raises(SsrfBlocked, match=f"port {port} is blocked .*host:port"):
            validate_url(f"http://127.0.0.1:{port}/", host_only)
    with_port = UrlPolicy(
        allow_hosts=frozenset({"127.0.0.1", "127.0.0.1:6379"}), blocked_ports=service_ports
    )
    assert validate_url("http://127.0.0.1:6379/", with_port).allow_listed
    # The entry names one host: the same port elsewhere stays blocked.
    with pytest.raises(SsrfBlocked, match="port 6379 is blocked"):
        validate_url("http://8.8.8.8:6379/", with_port)
    with pytest.raises(SsrfBlocked, match="port 50051 is blocked"):
        validate_url("http://127.0.0.1:50051/", with_port)


def test_milvus_ports_are_blocked_by_default() -> None:
    for port in (19530, 9091):
        with pytest.raises(SsrfBlocked, match=f"port {port} is blocked"):
            validate_url(f"http://8.8.8.8:{port}/", UrlPolicy())
