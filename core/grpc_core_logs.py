"""gRPC's C core writes its own log lines straight to stderr (plain text, INFO lines about
every GOAWAY or refused TLS handshake among them), past the JSON logs. Its level comes from
GRPC_VERBOSITY, read once when grpc is first imported, so the service's packages set it on
import: ERROR, unless SLUICE_LOG_LEVEL is DEBUG or the operator set GRPC_VERBOSITY."""

from __future__ import annotations

import os


def quiet_grpc_core() -> None:
    if os.environ.get("SLUICE_LOG_LEVEL", "").strip().upper() != "DEBUG":
        os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
