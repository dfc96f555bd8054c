"""Images the docreader returned: stored through FileService, Markdown links rewritten.

Identical images are stored once per document; the link target the docreader used
(its ``ref``) is replaced by the stored file's URL. Every stored image is recorded in the
resource catalog as the knowledge's (``KNOWLEDGE_IMAGE``), which is how a reparse or a
delete finds the files to remove later.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from storage.db.repositories.resources import KNOWLEDGE_IMAGE
from workers.context import WorkerContext


def store_images(ctx: WorkerContext, knowledge: Any, markdown: str, images: Sequence[Any]) -> str:
    stored: dict[str, str] = {}
    for image in images:
        digest = hashlib.sha256(image.data).hexdigest()
        if digest not in stored:
            ext = image.ref.rsplit(".", 1)[-1] if "." in image.ref else "png"
            path = ctx.files.save_bytes(
                knowledge.tenant_id, f"{knowledge.id}-{digest[:16]}.{ext}", image.data
            )
            ctx.resources.record(
                tenant_id=knowledge.tenant_id,
                path=path,
                owner_type=KNOWLEDGE_IMAGE,
                owner_id=knowledge.id,
                size=len(image.data),
                content_type=image.mime_type,
            )
            stored[digest] = ctx.files.url(path)
        markdown = markdown.replace(f"]({image.ref})", f"]({stored[digest]})")
    return markdown
