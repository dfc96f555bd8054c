"""The CLI's commands for FAQ entries: `sluice faq create|list|get|update|delete|enable|
disable`, one JSON object (or one per line) each."""

from __future__ import annotations

from typing import Annotated

import typer

from sluice_client._app import JsonFlag, Output, connect, group
from sluice_client._faq_entries import faq_content

faq = group("faq", "manage an FAQ knowledge base's entries", "FAQ")

KbId = Annotated[str, typer.Argument(metavar="KB_ID")]
EntryId = Annotated[str, typer.Argument(metavar="ENTRY_ID")]
EntryIds = Annotated[list[str], typer.Argument(metavar="ENTRY_ID...")]
Question = Annotated[str, typer.Option(help="the standard question")]
Answers = Annotated[list[str], typer.Option("--answer", help="an answer (repeat)")]
Similar = Annotated[list[str] | None, typer.Option(help="a similar question (repeat)")]
Negative = Annotated[list[str] | None, typer.Option(help="a negative question (repeat)")]
RandomAnswer = Annotated[bool, typer.Option("--random", help="one answer at random per hit")]
Tag = Annotated[str, typer.Option(help="a tag id of the knowledge base")]


@faq.command("create")
def _create(
    ctx: typer.Context,
    kb_id: KbId,
    question: Question,
    answer: Answers,
    similar: Similar = None,
    negative: Negative = None,
    random: RandomAnswer = False,
    tag: Tag = "",
    disabled: Annotated[bool, typer.Option("--disabled", help="create it disabled")] = False,
    as_json: JsonFlag = False,
) -> None:
    """Create an entry (indexed at once)."""
    content = faq_content(
        question,
        answer,
        similar_questions=similar or [],
        negative_questions=negative or [],
        random_answer=random,
        tag_id=tag,
    )
    with connect(ctx) as client:
        Output(ctx, as_json).message(client.create_faq_entry(kb_id, content, disabled=disabled))


@faq.command("list")
def _list(
    ctx: typer.Context,
    kb_id: KbId,
    tag: Annotated[str, typer.Option(help="only entries with this tag id")] = "",
    state: Annotated[str | None, typer.Option(help="only these: enabled or disabled")] = None,
    as_json: JsonFlag = False,
) -> None:
    """List entries in creation order (a JSON line each)."""
    states = {"enabled": True, "disabled": False, None: None}
    if state not in states:
        raise typer.BadParameter("enabled or disabled", param_hint="--state")
    out = Output(ctx, as_json)
    with connect(ctx) as client:
        for entry in client.list_faq_entries(kb_id, tag_id=tag, enabled=states[state]):
            out.line(entry)


@faq.command("get")
def _get(ctx: typer.Context, kb_id: KbId, entry_id: EntryId, as_json: JsonFlag = False) -> None:
    """Show an entry."""
    with connect(ctx) as client:
        Output(ctx, as_json).message(client.get_faq_entry(kb_id, entry_id))


@faq.command("update")
def _update(
    ctx: typer.Context,
    kb_id: KbId,
    entry_id: EntryId,
    question: Question,
    answer: Answers,
    similar: Similar = None,
    negative: Negative = None,
    random: RandomAnswer = False,
    tag: Tag = "",
    as_json: JsonFlag = False,
) -> None:
    """Replace an entry's content."""
    content = faq_content(
        question,
        answer,
        similar_questions=similar or [],
        negative_questions=negative or [],
        random_answer=random,
        tag_id=tag,
    )
    with connect(ctx) as client:
        Output(ctx, as_json).message(client.update_faq_entry(kb_id, entry_id, content))


@faq.command("delete")
def _delete(
    ctx: typer.Context, kb_id: KbId, entry_ids: EntryIds, as_json: JsonFlag = False
) -> None:
    """Delete entries."""
    with connect(ctx) as client:
        deleted = client.delete_faq_entries(kb_id, entry_ids)
    Output(ctx, as_json).text(f"deleted {deleted}", deleted=deleted)


@faq.command("enable")
def _enable(
    ctx: typer.Context, kb_id: KbId, entry_ids: EntryIds, as_json: JsonFlag = False
) -> None:
    """Let Search find entries."""
    with connect(ctx) as client:
        updated = client.set_faq_entries_enabled(kb_id, entry_ids, True)
    Output(ctx, as_json).text(f"updated {updated}", updated=updated)


@faq.command("disable")
def _disable(
    ctx: typer.Context, kb_id: KbId, entry_ids: EntryIds, as_json: JsonFlag = False
) -> None:
    """Hide entries from Search."""
    with connect(ctx) as client:
        updated = client.set_faq_entries_enabled(kb_id, entry_ids, False)
    Output(ctx, as_json).text(f"updated {updated}", updated=updated)
