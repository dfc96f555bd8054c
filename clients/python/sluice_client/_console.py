"""The Rich console every `sluice` command draws with."""

from __future__ import annotations

import errno

from rich.console import Console


class CliConsole(Console):
    """A Rich console whose closed pipe (`sluice … | head -1`) ends the command the way any
    other write's EPIPE does: Rich's own handler exits 1 on its own, past the CLI's
    BrokenPipeError handling that exits 141."""

    def on_broken_pipe(self) -> None:
        # Quiet: the other threads of an ingest still printing drop their lines instead of
        # hitting the closed pipe again while the command ends.
        self.quiet = True
        raise BrokenPipeError(errno.EPIPE, "Broken pipe")
