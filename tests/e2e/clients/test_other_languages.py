"""The TypeScript and Go clients' own e2e tests (`npm test`, `go test`) against a real
lite-mode server: each creates a knowledge base, uploads a file in frames, watches it to
completion, finds it by search and decodes a bad request's field violation."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.stacks import Stack, lite_stack
from tests.support.processes import REPO

CLIENTS = REPO / "clients"


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    with lite_stack(tmp_path_factory.mktemp("other-language-clients")) as running:
        yield running


def run(command: list[str], cwd: Path, env: dict[str, str]) -> None:
    done = subprocess.run(
        command,
        cwd=cwd,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, f"{' '.join(command)} failed:\n{done.stdout}\n{done.stderr}"


def test_the_typescript_client(stack: Stack) -> None:
    assert (CLIENTS / "ts" / "node_modules").is_dir(), "run `make proto` (npm ci) first"
    run(["npm", "test", "--silent"], CLIENTS / "ts", {"SLUICE_TARGET": stack.target})


def test_the_go_client(stack: Stack) -> None:
    assert shutil.which("go"), "Go is Debian's golang-go (see .ci/run)"
    run(["bash", "run-tests.sh"], CLIENTS / "go", {"SLUICE_TARGET": stack.target})
