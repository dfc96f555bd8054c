"""A pool of LibreOffice user profiles, one per concurrent conversion.

Two soffice processes sharing a profile directory interfere (the second one hands its job to
the first or fails on the profile lock), so each conversion claims a profile slot with an
exclusive ``flock`` on the slot's lock file; the lock goes with the process, even when it is
killed. Profiles are kept between runs because creating one costs about a second per start.

The pool lives under $SLUICE_DOCREADER_LO_PROFILES, else <tmp>/sluice-lo-profiles.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

PROFILES_ENV = "SLUICE_DOCREADER_LO_PROFILES"
_MAX_SLOTS = 64
_WAIT_STEP_S = 0.05


def profiles_base() -> Path:
    configured = os.environ.get(PROFILES_ENV, "")
    return Path(configured) if configured else Path(tempfile.gettempdir()) / "sluice-lo-profiles"


@contextmanager
def claimed_profile(base: Path | None = None, *, wait_s: float = 60.0) -> Iterator[Path]:
    """The directory of a profile no other conversion is using, held until the block exits."""
    base = base or profiles_base()
    base.mkdir(parents=True, exist_ok=True, mode=0o700)
    deadline = time.monotonic() + wait_s
    while True:
        for slot in range(_MAX_SLOTS):
            fd = os.open(base / f"profile-{slot}.lock", os.O_RDWR | os.O_CREAT, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            try:
                yield base / f"profile-{slot}"
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)
                os.close(fd)
            return
        if time.monotonic() >= deadline:
            raise TimeoutError(f"all {_MAX_SLOTS} LibreOffice profiles under {base} stay busy")
        time.sleep(_WAIT_STEP_S)


def discard_profile(profile: Path) -> None:
    """Remove a profile a killed soffice may have left half-written; the next run rebuilds it."""
    shutil.rmtree(profile, ignore_errors=True)
