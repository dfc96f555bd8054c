"""Stage multimodal: the document's images described for search. Not implemented yet: the
stage is always skipped, with why."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from core.statuses import Stage
from workers.pipeline.round.runner import Progress, Skip
from workers.pipeline.stages.work import DocumentWork


class MultimodalStage:
    name = Stage.MULTIMODAL

    def start(self, work: DocumentWork) -> Mapping[str, Any] | Skip:
        if work.config.enable_multimodel:
            return Skip("the document has no images")
        return Skip("multimodal processing is not enabled")

    def run(self, work: DocumentWork, progress: Progress) -> Mapping[str, Any]:
        raise NotImplementedError("the multimodal stage is always skipped so far")
