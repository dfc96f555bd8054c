"""The CLI's FAQ import commands: `sluice faq-import KB_ID FILE` (append, `--replace`,
`--dry-run`; `--wait` follows the job to its end) and `sluice faq-import-failures JOB_ID`
(the failed rows' CSV, to stdout or `--output`)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from sluice_client import _exit_codes
from sluice_client._app import JsonFlag, Output, app, connect
from sluice_client._faq_imports import faq_import_options
from sluice_client._proto.sluice import v1

PANEL = "FAQ"


def progress_line(progress: v1.FaqImportProgress) -> str:
    """`JOB  completed  12/12  succeeded 10  failed 1  partial 0  skipped 1  deleted 0`."""
    status = progress.status.name.lower() if progress.status else "unspecified"
    line = (
        f"{progress.job_id}  {status}  {progress.processed}/{progress.total}  "
        f"succeeded {progress.succeeded}  failed {progress.failed}  "
        f"partial {progress.partially_failed}  skipped {progress.skipped}  "
        f"deleted {progress.deleted}"
    )
    return f"{line}  {progress.error_message}" if progress.error_message else line


def _print(progress: v1.FaqImportProgress, out: Output) -> None:
    if out.json:
        out.line(progress)
    else:
        out.text(progress_line(progress))


@app.command("faq-import", rich_help_panel=PANEL)
def _faq_import(
    ctx: typer.Context,
    kb_id: Annotated[str, typer.Argument(metavar="KB_ID")],
    file: Annotated[Path, typer.Argument(metavar="FILE")],
    replace: Annotated[
        bool, typer.Option("--replace", help="the file replaces every entry")
    ] = False,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="validate and count, write nothing")
    ] = False,
    wait: Annotated[bool, typer.Option("--wait", help="follow the job until it ends")] = False,
    as_json: JsonFlag = False,
) -> None:
    """Import FAQ entries from a CSV, JSON or XLSX file.

    With --wait, exit 1 unless the job completed.
    """
    out = Output(ctx, as_json)
    options = faq_import_options(kb_id, replace=replace, dry_run=dry_run)
    with connect(ctx) as client:
        last = client.import_faq_file(options, file)
        _print(last, out)
        if not wait:
            return
        for progress in client.watch_faq_import(last.job_id):
            # The watch starts with the job as it is, which the import's answer showed.
            if progress != last:
                _print(progress, out)
            last = progress
    if last.status != v1.JobStatus.COMPLETED:
        raise typer.Exit(_exit_codes.FAILED)


@app.command("faq-import-failures", rich_help_panel=PANEL)
def _faq_import_failures(
    ctx: typer.Context,
    job_id: Annotated[str, typer.Argument(metavar="JOB_ID")],
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="a file (default: stdout)")
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """Download an import's failed rows as CSV (--json: say where, with -o)."""
    with connect(ctx) as client:
        if output is None:  # the CSV alone on stdout, for a pipe
            client.export_faq_import_failures(job_id, sys.stdout.buffer)
            return
        with output.open("wb") as sink:
            client.export_faq_import_failures(job_id, sink)
    Output(ctx, as_json).text(f"wrote {output}", job_id=job_id, output=str(output))
