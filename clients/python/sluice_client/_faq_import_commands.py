"""The CLI's FAQ import commands: `sluice faq-import KB_ID FILE` (append, `--replace`,
`--dry-run`; `--wait` follows the job to its end) and `sluice faq-import-failures JOB_ID`
(the failed rows' CSV, to stdout or `--output`)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from sluice_client._faq_imports import faq_import_options
from sluice_client._output import to_json_line
from sluice_client._proto.sluice import v1
from sluice_client.client import SluiceClient

_Command = Callable[[SluiceClient, argparse.Namespace], int]


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


def _print(progress: v1.FaqImportProgress, as_json: bool) -> None:
    print(to_json_line(progress) if as_json else progress_line(progress), flush=True)


def _faq_import(client: SluiceClient, args: argparse.Namespace) -> int:
    options = faq_import_options(args.kb_id, replace=args.replace, dry_run=args.dry_run)
    last = client.import_faq_file(options, args.file)
    _print(last, args.json)
    if not args.wait:
        return 0
    for progress in client.watch_faq_import(last.job_id):
        _print(progress, args.json)
        last = progress
    return 0 if last.status == v1.JobStatus.COMPLETED else 1


def _faq_import_failures(client: SluiceClient, args: argparse.Namespace) -> int:
    if args.output:
        with open(args.output, "wb") as sink:
            client.export_faq_import_failures(args.job_id, sink)
    else:
        client.export_faq_import_failures(args.job_id, sys.stdout.buffer)
    return 0


FAQ_IMPORT_COMMANDS: dict[str, _Command] = {
    "faq-import": _faq_import,
    "faq-import-failures": _faq_import_failures,
}


def add_faq_import_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    run = commands.add_parser("faq-import", help="import FAQ entries from a CSV, JSON or XLSX file")
    run.add_argument("kb_id", metavar="KB_ID")
    run.add_argument("file", metavar="FILE")
    run.add_argument("--replace", action="store_true", help="the file replaces every entry")
    run.add_argument("--dry-run", action="store_true", help="validate and count, write nothing")
    run.add_argument("--wait", action="store_true", help="follow the job until it ends")
    run.add_argument("--json", action="store_true", help="print the progress as JSON lines")
    run.set_defaults(command="faq-import")
    failures = commands.add_parser(
        "faq-import-failures", help="download an import's failed rows as CSV"
    )
    failures.add_argument("job_id", metavar="JOB_ID")
    failures.add_argument("--output", "-o", default="", help="a file (default: stdout)")
    failures.set_defaults(command="faq-import-failures")
