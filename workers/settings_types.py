"""Value types of SLUICE_* variables that pydantic does not parse strictly enough by itself.

Each one accepts what a direct ``Settings(...)`` passes (a bool, a tuple, a parsed mapping) as
well as the text of an environment variable, and refuses anything else with a message that
says what would have been accepted.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

from pydantic import AfterValidator, BeforeValidator
from pydantic_settings import NoDecode

from core.tls import read_pem
from storage.files.backends import BackendConfigError, BackendSpec, parse_backends_json

_TRUE = frozenset({"true", "1", "yes"})
_FALSE = frozenset({"false", "0", "no"})


def _strict_bool(value: Any) -> Any:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        word = value.strip().lower()
        if word in _TRUE:
            return True
        if word in _FALSE:
            return False
    raise ValueError(f"must be one of true/false/1/0/yes/no, not {value!r}")


def _comma_separated_ints(value: Any) -> Any:
    if not isinstance(value, str):
        return value
    try:
        return tuple(int(part) for part in value.split(","))
    except ValueError:
        raise ValueError(f"must be comma-separated integers, not {value!r}") from None


def _no_negatives(values: tuple[int, ...]) -> tuple[int, ...]:
    if any(value < 0 for value in values):
        raise ValueError(f"must not contain negative values, not {values!r}")
    return values


def _comma_separated_strings(value: Any) -> Any:
    """``images.internal, 10.0.0.7`` → the two names; blanks are ignored."""
    if not isinstance(value, str):
        return value
    return frozenset(part.strip() for part in value.split(",") if part.strip())


def _backends_json(value: Any) -> Any:
    if not isinstance(value, str):
        return value
    try:
        return parse_backends_json(value)
    except BackendConfigError as exc:
        raise ValueError(str(exc)) from None


def _port_of(address: str) -> str | None:
    """The port text of ``host:port`` (``[v6]:port`` too); None for a unix socket."""
    if address.startswith(("unix:", "unix-abstract:")):
        return None
    host, sep, port = address.rpartition(":")
    if not sep or not host:
        raise ValueError(f"must be host:port or unix:/path, not {address!r}")
    return port


def _valid_address(address: str) -> str:
    port = _port_of(address)
    if port is not None and not (port.isdigit() and 0 <= int(port) <= 65535):
        raise ValueError(f"must end in a port from 0 to 65535, not {address!r}")
    return address


def _valid_address_or_empty(address: str) -> str:
    return _valid_address(address) if address else address


def _blank_is_none(value: Any) -> Any:
    return None if isinstance(value, str) and not value.strip() else value


def _readable_pem(path: Path | None) -> Path | None:
    if path is not None:
        read_pem(path)  # TlsFileError is a ValueError: reported with the variable's name
    return path


Flag = Annotated[bool, BeforeValidator(_strict_bool)]
NonNegativeInts = Annotated[
    tuple[int, ...], NoDecode, BeforeValidator(_comma_separated_ints), AfterValidator(_no_negatives)
]
StringSet = Annotated[frozenset[str], NoDecode, BeforeValidator(_comma_separated_strings)]
BackendSpecs = Annotated[Mapping[str, BackendSpec], NoDecode, BeforeValidator(_backends_json)]
# A gRPC listen or dial address: host:port (port 0 = any free one) or unix:/path.
Address = Annotated[str, AfterValidator(_valid_address)]
OptionalAddress = Annotated[str, AfterValidator(_valid_address_or_empty)]
# A PEM file (certificate, key, CA bundle) that must exist and be readable; unset: None.
PemFile = Annotated[Path | None, BeforeValidator(_blank_is_none), AfterValidator(_readable_pem)]
