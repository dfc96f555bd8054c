"""The allow-list is port-aware: ``host`` opens the ports the blocked list leaves open,
``host:port`` that port alone (a blocked one included), IPv6 in brackets."""

from __future__ import annotations

import socket

import pytest

from core.ssrf.guard import validate_url
from core.ssrf.hosts import SsrfBlocked
from core.ssrf.url_policy import UrlPolicy
from workers.net.service_ports import add_service_port, discard_service_port
from workers.settings import Settings, SettingsError


def test_entries_are_host_or_host_port_and_keep_their_normal_spelling() -> None:
    policy = UrlPolicy(
        allow_hosts=frozenset(
            {" Images.Intranet. ", "127.0.0.1:8080", "[::1]", "[FD00::5]:9443", "0x7f.2", ""}
        )
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


def test_the_setting_takes_host_port_entries_and_says_what_is_wrong() -> None:
    settings = Settings.from_env(
        env={"SLUICE_SSRF_ALLOW_HOSTS": "127.0.0.1:8080, [::1]:9000, images.intranet"}
    )
    assert settings.url_policy.allow_hosts == frozenset(
        {"127.0.0.1:8080", "[::1]:9000", "images.intranet"}
    )
    with pytest.raises(SettingsError, match=r"SLUICE_SSRF_ALLOW_HOSTS: .*'::1'.*in brackets"):
        Settings.from_env(env={"SLUICE_SSRF_ALLOW_HOSTS": "::1"})
    with pytest.raises(SettingsError, match="port must be a number from 1 to 65535"):
        Settings.from_env(env={"SLUICE_SSRF_ALLOW_HOSTS": "127.0.0.1:99999"})


def test_the_ports_of_our_own_services_are_blocked() -> None:
    settings = Settings.from_env(
        env={
            "SLUICE_MODE": "full",
            "SLUICE_API_ADDRESS": "0.0.0.0:7443",
            "SLUICE_DOCREADER_ADDRESS": "docreader.internal:7001",
            "SLUICE_REDIS_URL": "redis://cache.internal:7379/0",
            "SLUICE_DATABASE_URL": "postgresql+psycopg://sluice@db.internal:7432/sluice",
            "SLUICE_MILVUS_URI": "http://milvus.internal:7530",
            "SLUICE_SSRF_ALLOW_HOSTS": "127.0.0.1, 127.0.0.1:7001",
        }
    )
    assert settings.service_ports == {7443, 7001, 7379, 7432, 7530}
    policy = settings.url_policy
    for port in (7443, 7379, 7432, 7530):
        with pytest.raises(SsrfBlocked, match=f"port {port} is blocked"):
            validate_url(f"http://127.0.0.1:{port}/", policy)
    assert validate_url("http://127.0.0.1:7001/", policy).allow_listed  # listed with its port
    # Default ports when the URLs name none; files have none.
    defaults = Settings.from_env(
        env={"SLUICE_DATABASE_URL": "postgresql://db.internal/x", "SLUICE_MILVUS_URI": "http://m"}
    )
    assert {5432, 19530, 6379, 50051} <= defaults.service_ports
    assert Settings.from_env(env={}).service_ports == {6379, 50051}  # SQLite, milvus-lite file


def test_ports_bound_at_run_time_are_blocked_by_policies_made_after() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
        settings = Settings.from_env(env={"SLUICE_SSRF_ALLOW_HOSTS": "127.0.0.1"})
        assert validate_url(f"http://127.0.0.1:{port}/", settings.url_policy).allow_listed
        add_service_port(port)
        try:
            with pytest.raises(SsrfBlocked, match=f"port {port} is blocked"):
                validate_url(f"http://127.0.0.1:{port}/", settings.url_policy)
        finally:
            discard_service_port(port)
        assert validate_url(f"http://127.0.0.1:{port}/", settings.url_policy).allow_listed
