"""The wiki: pages a knowledge base's documents build (spec: TypeWikiIngest)."""
