"""Outbound HTTP for the workers: an SSRF guard and a fetcher that only talks to what it
allowed (user-supplied URLs), and the retrying POST the model-provider clients share."""
