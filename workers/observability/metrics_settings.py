"""The settings group "metrics": where each process serves its Prometheus ``/metrics``.

Every endpoint is off (port 0) unless its port is set, so a process opens no port nobody
asked for. The API (in lite mode: the one process, docreader and task threads included)
serves SLUICE_METRICS_PORT; a ``sluice-worker`` serves SLUICE_WORKER_METRICS_PORT for itself
and every worker process it forks (prometheus_client's multiprocess mode, whose files go to
SLUICE_METRICS_MULTIPROC_DIR, whose metric files are deleted when the worker starts: a
fresh temporary directory when unset); ``sluice-housekeeper`` serves
SLUICE_HOUSEKEEPER_METRICS_PORT (its rounds). The docreader, configured by flags, takes
``--metrics-port``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from pydantic import Field, model_validator

from workers.settings_groups import SettingsGroup

# 0: the endpoint is off.
Port = Annotated[int, Field(ge=0, le=65535)]


class MetricsSettings(SettingsGroup):
    """The ``/metrics`` endpoints: one interface, one port per kind of process."""

    metrics_host: str = Field(default="127.0.0.1", min_length=1)
    metrics_port: Port = 0
    worker_metrics_port: Port = 0
    housekeeper_metrics_port: Port = 0
    metrics_multiproc_dir: Path | None = None

    @model_validator(mode="after")
    def _check_dir(self) -> MetricsSettings:
        folder = self.metrics_multiproc_dir
        if folder is not None and folder.exists() and not folder.is_dir():
            raise ValueError(f"SLUICE_METRICS_MULTIPROC_DIR {folder} is not a directory")
        return self
