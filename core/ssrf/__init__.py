"""The SSRF rules: which URLs a Sluice process may fetch, and where to connect."""
