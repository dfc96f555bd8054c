"""`sluice`: the command line over `SluiceClient`, a Typer application.

The commands live in the `_*_commands` modules, which register themselves on `_app.app`
when imported here. Exit codes are listed in `_exit_codes` (and the README): 0 success,
1 some of the work failed, 2 a usage error, 3 the server unreachable or too slow, 4 not
found, 5 refused by the server, 130 interrupted, 141 the output pipe closed.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

# Typer 0.29 vendors Click as typer._click; its ClickException is what usage errors raise.
from typer._click.exceptions import ClickException, NoArgsIsHelpError, UsageError

from sluice_client import (
    _edit_commands,
    _faq_entry_commands,
    _faq_import_commands,
    _graph_commands,
    _ingest_command,
    _kb_commands,
    _knowledge_commands,
    _resource_commands,
    _wiki_commands,
)
from sluice_client._app import app

# Imported for the commands they register on `app`.
COMMAND_MODULES = (
    _kb_commands,
    _knowledge_commands,
    _ingest_command,
    _resource_commands,
    _edit_commands,
    _graph_commands,
    _wiki_commands,
    _faq_entry_commands,
    _faq_import_commands,
)


def main(argv: Sequence[str] | None = None) -> int:
    """Runs one command line (default: the process's) and returns its exit code."""
    try:
        code = app(
            args=None if argv is None else list(argv), prog_name="sluice", standalone_mode=False
        )
    except NoArgsIsHelpError as usage:
        usage.show()  # the help text itself
        return usage.exit_code
    except ClickException as usage:
        # One line, not Rich's boxed panel: a usage error must be easy to read in CI logs.
        where = usage.ctx if isinstance(usage, UsageError) else None
        hint = f" (see '{where.command_path} -h')" if where is not None else ""
        print(f"error: {usage.format_message()}{hint}", file=sys.stderr)
        return usage.exit_code
    return code if isinstance(code, int) else 0
