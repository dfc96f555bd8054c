"""Each e2e module runs against its own deployment, in lite mode and in full mode."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sluice_client import SluiceClient

from tests.e2e.stacks import Stack, full_stack, lite_stack


@pytest.fixture(scope="module", params=["lite", "full"])
def stack(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Stack]:
    make = lite_stack if request.param == "lite" else full_stack
    name = request.module.__name__.rsplit(".", 1)[-1]
    with make(tmp_path_factory.mktemp(f"{name}-{request.param}")) as running_stack:
        yield running_stack


@pytest.fixture(scope="module")
def client(stack: Stack) -> Iterator[SluiceClient]:
    with SluiceClient(stack.target) as c:
        yield c
