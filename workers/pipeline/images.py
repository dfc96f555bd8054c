"""Images the docreader returned: stored through FileService, Markdown links rewritten.

Identical images are stored once per document; the link target the docreader used
(its ``ref``) is replaced by the stored file's URL.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

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
            stored[digest] = ctx.files.url(path)
        markdown = markdown.replace(f"]({image.ref})", f"]({stored[digest]})")
    return markdown
