"""Housekeeping: periodic sweeps that put back on track what crashed workers, lost queue
tasks and interrupted deletions left behind (spec: «Самовосстановление Housekeeping»)."""
