"""What happens to a knowledge beyond one pipeline run: starting a processing round,
restarting it (reparse) and deleting it. The API calls these directly; the batch tasks on
the maintenance queue call the same functions."""
