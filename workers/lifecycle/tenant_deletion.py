"""Deleting a tenant and everything it has (the admin tool's ``delete-tenant``):

1. revoke its keys, so nothing new arrives while the rest goes (the caller tells the API
   processes, see ``server.admin``);
2. its knowledges, through the knowledge deletion chain (``workers.lifecycle.deletion``):
   queued and running tasks stopped, index rows, chunks, graph, files;
3. whatever index rows are still under its id, in every collection its knowledge bases use;
4. every stored file it has in the resource catalog, then those records (their access
   grants go with them); a file that would not go keeps its record (a tombstone since
   step 2) for housekeeping to retry;
5. the tenant's row: its keys, knowledge bases and everything they hold by cascade.

Every step is idempotent: a deletion that failed midway is finished by running it again.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from workers.lifecycle.deletion import delete_marked, mark_deleting
from workers.lifecycle.files import delete_files
from workers.lifecycle.parts import TenantDeletionParts

log = logging.getLogger(__name__)

# Knowledges per run of the deletion chain: bounds one statement's id list.
_BATCH = 500


@dataclass(frozen=True)
class TenantDeletion:
    knowledges: int
    files: int
    files_left: int  # files that would not go; housekeeping retries them


def delete_tenant(ctx: TenantDeletionParts, tenant_id: str) -> TenantDeletion:
    ctx.tenants.revoke_tenant_keys(tenant_id)
    rows = ctx.knowledges.of_tenant(tenant_id)
    for start in range(0, len(rows), _BATCH):
        batch = rows[start : start + _BATCH]
        mark_deleting(ctx, [row.id for row in batch])
        # Rows already being deleted (a deletion stuck midway) are finished too.
        delete_marked(ctx, batch)
    for model_key in {kb.embedding_model_key for kb in ctx.knowledge_bases.of_tenant(tenant_id)}:
        if model_key:
            ctx.index.delete_by_tenant(model_key, tenant_id)
    records = ctx.resources.of_tenant(tenant_id)
    removed = set(delete_files(ctx, [r.path for r in records]))
    ctx.resources.forget_ids([r.id for r in records if r.path in removed])
    ctx.tenants.delete_tenant(tenant_id)
    left = len({r.path for r in records} - removed)
    log.info("deleted tenant %s: %d knowledges, %d files", tenant_id, len(rows), len(removed))
    return TenantDeletion(knowledges=len(rows), files=len(removed), files_left=left)
