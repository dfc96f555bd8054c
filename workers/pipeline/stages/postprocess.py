"""Stage postprocess: enrichment after indexing (summary, questions, graph, wiki). None is
implemented yet, so the stage is skipped; a data table's summary runs later as its own task
(``data_table``), recorded as a step under this stage."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from core.extensions import DATA_TABLE_EXTENSIONS
from core.statuses import Stage
from workers.pipeline.round.runner import Progress, Skip
from workers.pipeline.stages.work import DocumentWork


class PostprocessStage:
    name = Stage.POSTPROCESS

    def start(self, work: DocumentWork) -> Mapping[str, Any] | Skip:
        if (work.knowledge.file_type or "").lower() in DATA_TABLE_EXTENSIONS:
            return Skip("the table summary runs as its own task (step postprocess.datatable)")
        return Skip("no enrichment is configured for this knowledge")

    def run(self, work: DocumentWork, progress: Progress) -> Mapping[str, Any]:
        raise NotImplementedError("the postprocess stage is always skipped so far")
