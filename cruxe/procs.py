"""Worker pools of an index job (parsing, reference resolution).

Spawned, never forked: the indexer holds SQLite connections and Tantivy handles, and Tantivy
runs threads. A `ProcessPoolExecutor`, not a `multiprocessing.Pool`: a worker killed mid-job
(the out-of-memory killer, a person) breaks the executor, so the job fails at once with a
remedy, where a Pool would wait forever for the lost task. Workers leave quietly when the
job's process dies (a SIGKILL of the indexer would otherwise leave them to fail on a broken
pipe, traceback and all, on the terminal).
"""
from __future__ import annotations

import atexit
import multiprocessing
import os
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from typing import Any, Callable, Iterator

from .errors import worker_died

_PARENT_POLL_SECONDS = 0.5


@contextmanager
def worker_pool(workers: int, role: str, initializer: Callable[..., None] | None = None,
                initargs: tuple[Any, ...] = ()) -> Iterator[ProcessPoolExecutor]:
    """`workers` spawned processes for the block, each running `initializer(*initargs)` first.
    A dead worker surfaces as `worker_died(role)` (internal_error with the remedy: sync), and
    the other workers are stopped at once: on CPython 3.11 one of them blocked writing a result
    keeps the executor's manager thread, and with it every later `shutdown` and the
    interpreter's exit, waiting forever."""
    pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                               initializer=_start, initargs=(os.getpid(), initializer, initargs))
    broken = False
    try:
        yield pool
    except BrokenProcessPool as e:
        broken = True
        pool.shutdown(wait=False, cancel_futures=True)
        for p in multiprocessing.active_children():  # this job's workers: the indexer starts no others
            p.kill()
        raise worker_died(role) from e
    finally:
        if not broken:
            pool.shutdown(wait=True, cancel_futures=True)


def _start(parent: int, initializer: Callable[..., None] | None, initargs: tuple[Any, ...]) -> None:
    _exit_with(parent)
    # A worker's last act is sending its result (synchronously: the executor's result queue
    # has no feeder thread); tearing down its heap after that is wasted work the job waits
    # for in `shutdown(wait=True)`: a resolution worker's graph is a million objects, ~0.6 s
    # to free on Django+Salt. Leave at the first exit handler instead.
    atexit.register(os._exit, 0)
    if initializer is not None:
        initializer(*initargs)


def _exit_with(parent: int) -> None:
    """In each worker: a daemon thread that ends the process once `parent` is gone."""
    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(_PARENT_POLL_SECONDS)
        os._exit(0)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()
