"""Worker pools of an index job (parsing, reference resolution).

Spawned, never forked: the indexer holds SQLite connections and Tantivy handles, and Tantivy
runs threads. A `ProcessPoolExecutor`, not a `multiprocessing.Pool`: a worker killed mid-job
(the out-of-memory killer, a person) breaks the executor, so the job fails at once, where a
Pool would wait forever for the lost task. Workers leave quietly when the job's process dies
(a SIGKILL of the indexer would otherwise leave them to fail on a broken pipe, traceback and
all, on the terminal).
"""
from __future__ import annotations

import multiprocessing
import os
import threading
import time
from concurrent.futures import ProcessPoolExecutor

_PARENT_POLL_SECONDS = 0.5


def worker_pool(workers: int) -> ProcessPoolExecutor:
    return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                               initializer=_exit_with, initargs=(os.getpid(),))


def _exit_with(parent: int) -> None:
    """In each worker: a daemon thread that ends the process once `parent` is gone."""
    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(_PARENT_POLL_SECONDS)
        os._exit(0)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()
