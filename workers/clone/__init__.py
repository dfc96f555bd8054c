"""Cloning a knowledge base: planning the difference, copying knowledges, removing the gone."""
