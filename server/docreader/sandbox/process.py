"""A forkserver Process that does not re-import the parent's ``__main__`` in the child.

multiprocessing prepares every child by importing the parent's main script (to find
functions defined there). Ours are never there: the target is ``run_child``, imported by the
forkserver preload. But under ``sluice-server`` the main script imports the whole API, and
paying that (over a second) in every parse child is pure waste. This Popen is the stdlib's
forkserver Popen minus that one step.
"""

from __future__ import annotations

import io
import os
from multiprocessing import forkserver, reduction, spawn, util
from multiprocessing.context import ForkServerProcess, set_spawning_popen
from multiprocessing.popen_forkserver import Popen
from multiprocessing.process import BaseProcess
from typing import Any

_MAIN_KEYS = ("init_main_from_path", "init_main_from_name")


class _MainFreePopen(Popen):
    _fds: list[int]  # set by the stdlib Popen's __init__

    def _launch(self, process_obj: BaseProcess) -> None:
        prep_data: dict[str, Any] = spawn.get_preparation_data(process_obj.name)
        for key in _MAIN_KEYS:
            prep_data.pop(key, None)
        buf = io.BytesIO()
        set_spawning_popen(self)
        try:
            reduction.dump(prep_data, buf)
            reduction.dump(process_obj, buf)
        finally:
            set_spawning_popen(None)
        self.sentinel, w = forkserver.connect_to_new_process(self._fds)
        # As the stdlib: a duplicate of the data pipe's write end tells the child its
        # parent lives.
        parent_w = os.dup(w)
        self.finalizer = util.Finalize(self, _close_fds, (parent_w, self.sentinel))
        with open(w, "wb", closefd=True) as f:
            f.write(buf.getbuffer())
        self.pid = forkserver.read_signed(self.sentinel)


def _close_fds(*fds: int) -> None:
    for fd in fds:
        os.close(fd)


class ParseProcess(ForkServerProcess):
    @staticmethod
    def _Popen(process_obj: BaseProcess) -> Popen:
        return _MainFreePopen(process_obj)
