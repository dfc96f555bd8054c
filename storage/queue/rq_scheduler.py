"""RQ's scheduler (what moves retries with a delay back onto their queue) in a thread of the
worker process, not in the child process ``rq worker --with-scheduler`` forks.

A forked scheduler outlives a SIGKILLed worker and goes on holding the scheduler locks (it
was seen doing so for 28 minutes); a thread dies with its process, and the locks it held
expire by themselves (RQ gives them ``interval + 60`` seconds). Forking a worker that has
already loaded the embedding model and opened gRPC channels is unsafe besides.
"""

from __future__ import annotations

import threading

from rq.scheduler import RQScheduler, run

# How long stopping the worker waits for the scheduler thread (it sleeps ``interval`` = 1 s
# between rounds).
_STOP_WAIT_S = 5.0


class ThreadScheduler(RQScheduler):
    def start(self) -> threading.Thread:
        self._stop_requested = False
        thread = threading.Thread(target=run, args=(self,), name="rq-scheduler", daemon=True)
        # RQ restarts a scheduler whose ``_process`` is not alive; a thread answers that too.
        self._process = thread  # type: ignore[assignment]
        thread.start()
        return thread

    def _install_signal_handlers(self) -> None:
        """Signals belong to the worker's main thread (and only it may install handlers)."""

    def stop_thread(self) -> None:
        """Ask the loop to stop (it releases its locks on the way out) and wait for it."""
        self.request_stop()  # type: ignore[no-untyped-call]
        thread = self._process
        if isinstance(thread, threading.Thread) and thread is not threading.current_thread():
            thread.join(_STOP_WAIT_S)
