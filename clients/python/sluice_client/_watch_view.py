"""`sluice watch` and `--watch`: a knowledge's span tree drawn live (Rich Tree in a Live
view) on a terminal, one line per span change elsewhere (pipes, CI), JSON lines with
`--json`; the exit code says how the attempt ended."""

from __future__ import annotations

import sys

from rich.console import Console
from rich.live import Live
from rich.tree import Tree

from sluice_client import _exit_codes
from sluice_client._app import Output
from sluice_client._output import (
    UNSUCCESSFUL,
    SpanChangePrinter,
    final_status_line,
    label,
    span_line,
)
from sluice_client._proto.sluice import v1
from sluice_client.client import SluiceClient

_STYLE = {"done": "green", "running": "yellow", "failed": "bold red", "cancelled": "red"}


class SpanTree:
    """The latest state of every span of the attempt being watched, as a Rich tree of
    parent and child spans."""

    def __init__(self, knowledge_id: str) -> None:
        self._knowledge_id = knowledge_id
        self._attempt = 0
        self._spans: dict[str, v1.Span] = {}

    def update(self, event: v1.WatchSpansResponse) -> None:
        if event.attempt != self._attempt:  # a new attempt starts a new tree
            self._attempt, self._spans = event.attempt, {}
        for span in event.spans:
            if span.attempt == self._attempt:
                self._spans[span.id or span.name] = span

    def render(self) -> Tree:
        root = Tree(f"[bold]{self._knowledge_id}[/]  attempt {self._attempt}")
        nodes: dict[str, Tree] = {}
        # In change order parents come first; a child whose parent is unknown hangs on the root.
        for span in sorted(self._spans.values(), key=lambda span: span.sequence):
            parent = nodes.get(span.parent_id, root)
            status = label(span.status)
            text = span_line(span).replace(status, f"[{_STYLE.get(status, 'dim')}]{status}[/]", 1)
            nodes[span.id or span.name] = parent.add(text)
        return root


def _outcome(knowledge: v1.Knowledge) -> int:
    return _exit_codes.FAILED if knowledge.parse_status in UNSUCCESSFUL else _exit_codes.OK


def follow(client: SluiceClient, knowledge_id: str, timeout: float, out: Output) -> int:
    """Watches until the attempt ends; 0 if it completed, 1 if it failed or was cancelled."""
    if out.json:

        def as_json(event: v1.WatchSpansResponse) -> None:
            out.line(event)

        knowledge = client.wait_until_done(knowledge_id, timeout, on_event=as_json)
        out.line(knowledge)
        return _outcome(knowledge)
    if not sys.stdout.isatty():
        knowledge = client.wait_until_done(
            knowledge_id, timeout, on_event=SpanChangePrinter(lambda line: print(line, flush=True))
        )
        print(final_status_line(knowledge), flush=True)
        return _outcome(knowledge)
    tree = SpanTree(knowledge_id)
    console = Console()
    with Live(tree.render(), console=console, refresh_per_second=8) as live:

        def redraw(event: v1.WatchSpansResponse) -> None:
            tree.update(event)
            live.update(tree.render())

        knowledge = client.wait_until_done(knowledge_id, timeout, on_event=redraw)
    console.print(final_status_line(knowledge), markup=False)
    return _outcome(knowledge)
