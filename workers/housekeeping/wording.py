"""How recovered rows explain themselves: times and durations as the spec writes them."""

from __future__ import annotations

from datetime import UTC, datetime

from workers.housekeeping.stall_site import StallSite


def go_duration(seconds: float) -> str:
    """A duration the way Go prints one (the spec's example is Go): 2h10m0s, 5m0s, 20s."""
    total = int(seconds)
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h{minutes}m{secs}s"
    if minutes:
        return f"{minutes}m{secs}s"
    return f"{secs}s"


def iso_z(moment: datetime) -> str:
    """UTC to the second, with a Z: 2026-09-22T09:37:54Z."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _where(site: StallSite) -> str:
    if site.stage is None:
        return ""
    step = f" ({site.step})" if site.step else ""
    return f" at {site.stage} stage{step}"


def stall_message(
    status: str, site: StallSite, last_progress: datetime | None, threshold_s: float
) -> str:
    """«task stuck in processing at docreader stage: no progress since
    2026-09-22T09:37:54Z (> 2h10m0s), recovered by housekeeping»; without the time when the
    heartbeat could not be read."""
    if last_progress is None:
        quiet = f"no progress for > {go_duration(threshold_s)}"
    else:
        quiet = f"no progress since {iso_z(last_progress)} (> {go_duration(threshold_s)})"
    return f"task stuck in {status}{_where(site)}: {quiet}, recovered by housekeeping"


def restart_message(status: str, site: StallSite, last_progress: datetime) -> str:
    """For rows a lite process found in flight when it started: nothing can be running."""
    return (
        f"task interrupted in {status}{_where(site)} by a restart: last progress at "
        f"{iso_z(last_progress)}, recovered at startup"
    )


def requeue_note(message: str, attempt: int) -> str:
    return f"{message}; re-enqueued as attempt {attempt}"
