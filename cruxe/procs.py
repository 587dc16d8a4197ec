"""Worker pools of an index job (parsing, reference resolution).

Spawned, never forked: the indexer holds SQLite connections and Tantivy handles, and Tantivy
runs threads. A `ProcessPoolExecutor`, not a `multiprocessing.Pool`: a worker killed mid-job
(the out-of-memory killer, a person) breaks the executor, so the job fails at once with a
remedy, where a Pool would wait forever for the lost task. Workers leave quietly when the
job's process dies (a SIGKILL of the indexer would otherwise leave them to fail on a broken
pipe, traceback and all, on the terminal).

No child imports from the repository. Cruxe runs inside repositories nobody has vetted, usually
with the repository as its working directory (MCP hosts start servers in the project), and
Python puts the working directory first on `sys.path` for `-m` and `-c`: a spawned worker starts
as `python -c "from multiprocessing.spawn import ..."`, the resource tracker likewise, and an
index job as `python -m cruxe`, so a planted `multiprocessing/` or `cruxe.py` would run with the
user's rights. `isolate_children` makes every child interpreter start with a safe path and takes
the working directory off the path the workers inherit.
"""
from __future__ import annotations

import atexit
import multiprocessing
import os
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from typing import Any, Callable, Iterator

from .errors import worker_died

_PARENT_POLL_SECONDS = 0.5
# the directory holding the `cruxe` package this process runs (a checkout, site-packages, a .pyz)
CRUXE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def isolate_children() -> None:
    """Child interpreters of this process never import from the working directory:
    `PYTHONSAFEPATH` keeps the cwd (`-m`) and `''` (`-c`) off their `sys.path` (it is read at
    their start, so it covers multiprocessing's spawn and resource-tracker commands, which copy
    no flag for it from a parent started without `-P`), and the working directory leaves this
    process's own `sys.path`, which spawned workers copy. Cruxe's own root stays where it is
    needed (a checkout run with `python -m cruxe` from its root)."""
    os.environ["PYTHONSAFEPATH"] = "1"
    try:
        cwd = os.path.realpath(os.getcwd())
    except OSError:  # the working directory was deleted: nothing of it can be imported
        cwd = None
    own = os.path.realpath(CRUXE_ROOT)

    def unsafe(entry: str) -> bool:
        if entry == "":
            return True
        real = os.path.realpath(entry)
        return real == cwd and real != own

    sys.path[:] = [p for p in sys.path if not unsafe(p)]


def child_env(home: str) -> dict[str, str]:
    """The environment of a `cruxe` child process: a safe path, this same Cruxe importable
    (the child may not find it otherwise once the cwd is off its path), `CRUXE_HOME`."""
    env = {**os.environ, "CRUXE_HOME": home, "PYTHONSAFEPATH": "1"}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (CRUXE_ROOT, os.environ.get("PYTHONPATH")) if p)
    return env


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
        try:
            pool.shutdown(wait=False, cancel_futures=True)
        except OSError:
            # "handle is closed": the executor's manager thread closes its wakeup pipe when it
            # finds the pool broken, and shutdown may write to it in between (CPython 3.11's
            # check-then-write race, python/cpython#83279); the workers are killed below anyway
            pass
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
    # for in `shutdown(wait=True)`: a resolution worker's graph is a million objects, slow to
    # free (docs/BENCHMARKS.md: the job waited for it). Leave at the first exit handler instead.
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
