"""Outbound HTTP for the workers: a fetcher that only talks to what the SSRF guard
(``core.ssrf``) allowed (user-supplied URLs), and the retrying POST the model-provider
clients share."""
