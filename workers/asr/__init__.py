"""Speech recognition: audio documents become text through an OpenAI-compatible endpoint."""
