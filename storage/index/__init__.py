"""Vector + keyword index (Milvus / milvus-lite) for chunks."""
