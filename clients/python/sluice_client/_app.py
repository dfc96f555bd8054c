"""The Typer application every `sluice` command hangs on: the global options, the
connection they describe, text-or-JSON output, and the one place errors become a message
and an exit code."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Annotated, Any

import betterproto2
import typer
from typer._click.core import Command, Context
from typer._click.exceptions import UsageError
from typer.core import TyperGroup, TyperOption

from sluice_client import _exit_codes
from sluice_client._channel import TlsOptions
from sluice_client._output import to_json, to_json_line
from sluice_client.client import SluiceClient

DEFAULT_TARGET = "127.0.0.1:50051"
DEFAULT_WATCH_SECONDS = 3600.0

JsonFlag = Annotated[
    bool, typer.Option("--json", help="machine-readable output: JSON (one object per line)")
]
WatchTimeout = Annotated[
    float, typer.Option("--timeout", help="seconds to wait for the processing to end")
]


@dataclass
class Settings:
    """The root options, kept in the Click context for the commands below it."""

    target: str
    api_key: str | None
    json: bool
    tls: TlsOptions | None = None


def settings(ctx: typer.Context) -> Settings:
    found = ctx.find_root().obj
    if not isinstance(found, Settings):
        raise RuntimeError("the sluice root options are missing")
    return found


def connect(ctx: typer.Context) -> SluiceClient:
    options = settings(ctx)
    return SluiceClient(options.target, api_key=options.api_key, tls=options.tls)


class Output:
    """What a command prints: messages as JSON in both modes; `text` lines become the JSON
    object of their data under `--json` (root or command)."""

    def __init__(self, ctx: typer.Context, as_json: bool) -> None:
        self.json = as_json or settings(ctx).json

    def message(self, message: betterproto2.Message) -> None:
        _write(to_json_line(message) if self.json else to_json(message))

    def line(self, message: betterproto2.Message) -> None:
        _write(to_json_line(message))

    def text(self, line: str, **data: Any) -> None:
        _write(json.dumps(data, ensure_ascii=False) if self.json else line)


def _write(line: str) -> None:
    print(line, flush=True)


def _silence_stdout() -> None:
    """After EPIPE, points stdout at /dev/null so the interpreter's final flush does not
    raise (and print) a second BrokenPipeError."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass  # a captured stdout (tests) has no descriptor to redirect


HELP_OPTION_NAMES = ["-h", "--help"]


def _show_flags_as_flags(commands: Iterable[Command]) -> None:
    """Typer's help gives a flag (`--json`, `-h`) the value type `<bool>`, as if it took
    one: an empty metavar leaves the type column empty for the flags of every command."""
    for command in commands:
        # With its -h, which Click makes on first use and then keeps.
        for param in command.get_params(Context(command, help_option_names=HELP_OPTION_NAMES)):
            if isinstance(param, TyperOption) and param.is_flag and param.metavar is None:
                param.metavar = ""
        if isinstance(command, TyperGroup):
            _show_flags_as_flags(command.commands.values())


class SluiceGroup(TyperGroup):
    """Turns every error a command ends with into one line on stderr and its exit code
    (`_exit_codes`), instead of a traceback."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        # Here, not in __init__: Typer adds --install-completion after building the group.
        _show_flags_as_flags([self])
        return super().main(*args, **kwargs)

    def invoke(self, ctx: typer.Context) -> Any:  # type: ignore[override]
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            _silence_stdout()
            raise typer.Exit(_exit_codes.BROKEN_PIPE) from None
        except KeyboardInterrupt:
            print("interrupted", file=sys.stderr)
            raise typer.Exit(_exit_codes.INTERRUPTED) from None
        except _exit_codes.HANDLED as error:
            target = ctx.obj.target if isinstance(ctx.obj, Settings) else DEFAULT_TARGET
            raise typer.Exit(_exit_codes.report(error, target)) from None


def _version(value: bool) -> None:
    if value:
        print(f"sluice {metadata.version('sluice')}")
        raise typer.Exit()


def _pem_option(envvar: str, help_text: str) -> Any:
    # exists/readable: a missing or unreadable file is a usage error before any call.
    return typer.Option(
        envvar=envvar, metavar="PEM", help=help_text, exists=True, dir_okay=False, readable=True
    )


def _tls(
    ctx: typer.Context,
    tls_on: bool,
    ca_file: Path | None,
    cert_file: Path | None,
    key_file: Path | None,
) -> TlsOptions | None:
    """TLS with --tls or when any of the files is given (no --ca-file: the system's roots
    verify the server); None, plaintext, otherwise."""
    if cert_file is not None and key_file is None:
        raise UsageError("--cert-file needs --key-file (the certificate's key)", ctx)
    if key_file is not None and cert_file is None:
        raise UsageError("--key-file needs --cert-file (the certificate it is the key of)", ctx)
    files = {"--ca-file": ca_file, "--cert-file": cert_file, "--key-file": key_file}
    for option, path in files.items():
        # Else grpcio would only say UNAVAILABLE, at the first call.
        if path is not None and b"-----BEGIN " not in path.read_bytes():
            raise UsageError(f"{option} {path}: not a PEM file", ctx)
    if not tls_on and ca_file is None and cert_file is None:
        return None
    return TlsOptions(ca_file, cert_file, key_file)


app = typer.Typer(
    cls=SluiceGroup,
    name="sluice",
    help="Sluice command line client.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": HELP_OPTION_NAMES},
)


@app.callback()
def _root(
    ctx: typer.Context,
    target: Annotated[
        str, typer.Option(envvar="SLUICE_TARGET", help="API server address")
    ] = DEFAULT_TARGET,
    api_key: Annotated[str | None, typer.Option(envvar="SLUICE_API_KEY")] = None,
    tls_on: Annotated[
        bool,
        typer.Option(
            "--tls",
            envvar="SLUICE_TLS",
            help="TLS, the server verified by the system's roots (implied by the files below)",
        ),
    ] = False,
    ca_file: Annotated[
        Path | None,
        _pem_option("SLUICE_CA_FILE", "TLS: the CA that signed the server's certificate"),
    ] = None,
    cert_file: Annotated[
        Path | None,
        _pem_option("SLUICE_CERT_FILE", "mutual TLS: this client's certificate (chain)"),
    ] = None,
    key_file: Annotated[
        Path | None, _pem_option("SLUICE_KEY_FILE", "mutual TLS: the certificate's key")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="JSON output for every command")] = False,
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="print the version"),
    ] = False,
) -> None:
    tls = _tls(ctx, tls_on, ca_file, cert_file, key_file)
    ctx.obj = Settings(target=target, api_key=api_key, json=as_json, tls=tls)


def group(name: str, help_text: str, panel: str) -> typer.Typer:
    """A command group (`sluice kb …`) added to the root, listed under `panel` in -h."""
    sub = typer.Typer(name=name, help=help_text, no_args_is_help=True)
    app.add_typer(sub, rich_help_panel=panel)
    return sub
