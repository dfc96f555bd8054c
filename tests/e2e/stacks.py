"""A whole Sluice deployment as real processes: lite (one process) or full (API, docreader,
RQ workers, milvus-lite server, on PostgreSQL and Redis)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.support.databases import REDIS_URL, postgres_database, redis_prefix
from tests.support.processes import Process, free_port, python, wait_for_port

MAX_UPLOAD_BYTES = 4 << 20
_LISTENING = r"listening on [\d.]+:(\d+)"


@dataclass
class Stack:
    mode: str
    target: str
    storage_dir: Path
    processes: dict[str, Process] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)


def _common_env(data_dir: Path) -> dict[str, str]:
    return {
        "SLUICE_DATA_DIR": str(data_dir),
        "SLUICE_MAX_UPLOAD_BYTES": str(MAX_UPLOAD_BYTES),
        "SLUICE_WATCH_POLL_INTERVAL": "1",
        "SLUICE_AUTH_REQUIRED": "false",
        # Retries back to back keep failure tests fast; a test that needs delays passes them.
        "SLUICE_DOCUMENT_PROCESS_RETRY_DELAYS": "0,0,0",
    }


@contextmanager
def lite_stack(data_dir: Path, extra_env: dict[str, str] | None = None) -> Iterator[Stack]:
    env = {**_common_env(data_dir), **(extra_env or {})}
    api = Process(
        "api", python("-m", "server.main", "--mode", "lite", "--address", "127.0.0.1:0"), env
    )
    try:
        port = int(api.wait_for_line(_LISTENING, timeout=120).group(1))
        yield Stack("lite", f"127.0.0.1:{port}", data_dir / "files", {"api": api}, env)
    finally:
        api.stop()


@contextmanager
def full_stack(
    data_dir: Path,
    workers: int = 2,
    extra_env: dict[str, str] | None = None,
    worker_env: dict[str, str] | None = None,
    docreader_args: tuple[str, ...] = (),
    worker_args: tuple[str, ...] = (),
) -> Iterator[Stack]:
    """``worker_env`` is laid over the environment of the worker processes only (a setting
    the API and the workers disagree on, say); ``docreader_args`` are more flags of the
    docreader (TLS, say); ``worker_args`` more flags of each worker (--concurrency, say)."""
    with ExitStack() as stack:
        database_url = stack.enter_context(postgres_database())
        prefix = stack.enter_context(redis_prefix())
        milvus_port, docreader_port = free_port(), free_port()
        env = {
            **_common_env(data_dir),
            "SLUICE_MODE": "full",
            "SLUICE_DATABASE_URL": database_url,
            "SLUICE_REDIS_URL": REDIS_URL,
            "SLUICE_KEY_PREFIX": prefix,
            "SLUICE_MILVUS_URI": f"http://127.0.0.1:{milvus_port}",
            "SLUICE_DOCREADER_ADDRESS": f"127.0.0.1:{docreader_port}",
            **(extra_env or {}),
        }
        processes: dict[str, Process] = {}
        stack.callback(_stop_all, processes)
        (data_dir / "milvus").mkdir(parents=True, exist_ok=True)
        processes["milvus"] = Process(
            "milvus",
            [
                str(Path(python()[0]).parent / "milvus-lite"),
                "server",
                "--data-dir",
                str(data_dir / "milvus"),
                "--host",
                "127.0.0.1",
                "--port",
                str(milvus_port),
            ],
            env,
        )
        processes["docreader"] = Process(
            "docreader",
            python("-m", "server.docreader", "--address", f"127.0.0.1:{docreader_port}")
            + list(docreader_args),
            env,
        )
        wait_for_port(milvus_port, 60, processes["milvus"].proc)
        wait_for_port(docreader_port, 60, processes["docreader"].proc)
        processes["api"] = Process(
            "api", python("-m", "server.main", "--mode", "full", "--address", "127.0.0.1:0"), env
        )
        port = int(processes["api"].wait_for_line(_LISTENING, timeout=120).group(1))
        for n in range(workers):
            processes[f"worker{n}"] = Process(
                f"worker{n}",
                python("-m", "workers.main", "--name", f"{prefix}-w{n}") + list(worker_args),
                {**env, **(worker_env or {})},
            )
        processes["housekeeper"] = Process("housekeeper", python("-m", "workers.housekeeping"), env)
        yield Stack("full", f"127.0.0.1:{port}", data_dir / "files", processes, env)


def _stop_all(processes: dict[str, Process]) -> None:
    for process in reversed(processes.values()):
        process.stop()


@contextmanager
def disk_and_objects_stack(
    mode: str,
    data_dir: Path,
    objects: dict[str, Any],
    *,
    more_backends: dict[str, dict[str, Any]] | None = None,
    extra_env: dict[str, str] | None = None,
) -> Iterator[Stack]:
    """A lite or full stack with two storage backends: "disk" (local, the default) and
    "objects" (``objects``: an S3 backend's settings), plus ``more_backends``."""
    backends = {
        "disk": {"provider": "local", "dir": str(data_dir / "files")},
        "objects": objects,
        **(more_backends or {}),
    }
    env = {
        "SLUICE_STORAGE_BACKENDS": json.dumps(backends),
        "SLUICE_STORAGE_DEFAULT_BACKEND": "disk",
        **(extra_env or {}),
    }
    make = lite_stack if mode == "lite" else full_stack
    with make(data_dir, extra_env=env) as running:
        yield running
