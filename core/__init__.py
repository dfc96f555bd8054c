"""The vocabulary every Sluice process shares."""
