"""`sluice watch` and `--watch`: a knowledge's span tree drawn live (Rich Tree in a Live
view) on a terminal, one line per span change elsewhere (pipes, CI), JSON lines with
`--json`; the exit code says how the attempt ended."""

from __future__ import annotations

import sys

from rich.live import Live
from rich.markup import escape
from rich.tree import Tree

from sluice_client import _exit_codes
from sluice_client._app import Output
from sluice_client._console import CliConsole
from sluice_client._output import (
    UNSUCCESSFUL,
    SpanChangePrinter,
    final_status_line,
    label,
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
        root = Tree(f"[bold]{escape(self._knowledge_id)}[/]  attempt {self._attempt}")
        known = {span.id for span in self._spans.values()}
        children: dict[str, list[v1.Span]] = {}
        # Started spans in start order, then the ones not started yet in arrival order.
        for span in sorted(self._spans.values(), key=_start_order):
            parent = span.parent_id if span.parent_id in known else ""
            children.setdefault(parent, []).append(span)

        def add(node: Tree, parent_id: str) -> None:
            for span in children.get(parent_id, []):
                add(node.add(_span_label(span)), span.id)

        add(root, "")
        return root


def _start_order(span: v1.Span) -> tuple[bool, float]:
    started = span.started_at
    return (started is None, started.timestamp() if started is not None else 0.0)


def _span_label(span: v1.Span) -> str:
    """`chunking  done  0.4 s`, the error after a failed span; the outputs stay in `spans`."""
    status = label(span.status)
    text = f"{escape(span.name)}  [{_STYLE.get(status, 'dim')}]{status}[/]"
    if span.duration_ms:
        text += f"  {span.duration_ms / 1000:.1f} s"
    if span.error_message:
        text += f"  [red]{escape(span.error_message)}[/]"
    return text


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
    console = CliConsole()
    with Live(tree.render(), console=console, refresh_per_second=8) as live:

        def redraw(event: v1.WatchSpansResponse) -> None:
            tree.update(event)
            live.update(tree.render())

        knowledge = client.wait_until_done(knowledge_id, timeout, on_event=redraw)
    console.print(final_status_line(knowledge), markup=False)
    return _outcome(knowledge)
