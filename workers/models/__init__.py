"""Chat and vision models behind small protocols, over OpenAI-compatible endpoints."""
