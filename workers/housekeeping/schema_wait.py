"""The housekeeper's wait for the database schema.

The API migrates the database when it starts; a housekeeper started before it (a service
manager starts them together) would otherwise run its first rounds against missing tables
and log a traceback for each one.
"""

from __future__ import annotations

import logging
import threading

from sqlalchemy.exc import SQLAlchemyError

from storage.db.migrate import current_revision, head_revision

log = logging.getLogger(__name__)


def wait_for_schema(database_url: str, stop: threading.Event, *, poll_s: float = 2.0) -> bool:
    """Blocks until the database is at this code's newest migration; False if ``stop`` is
    set first. Each new reason for waiting is logged once, as one line."""
    expected = head_revision()
    reported = ""
    while not stop.is_set():
        try:
            current = current_revision(database_url)
        except SQLAlchemyError as exc:
            reason = f"the database is not reachable ({type(exc).__name__})"
        else:
            if current == expected:
                return True
            reason = f"the database schema is at {current or 'no migration'}, not {expected}"
        if reason != reported:
            log.info("waiting for the database: %s; sluice-server migrates it at start", reason)
            reported = reason
        stop.wait(poll_s)
    return False
