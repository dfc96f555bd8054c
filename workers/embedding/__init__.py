"""Embedding providers: a local ONNX model (the default) and OpenAI-compatible HTTP endpoints."""
