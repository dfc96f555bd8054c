"""The docreader process: bytes or a storage reference → Markdown + images, over gRPC.

It never touches the database or the index; workers reach it only through
``sluice.docreader.v1``.
"""
