"""The single-writer lock of a ref: a reader's `writer_active` probe (a shared lock held for a
moment, many times a second on a busy server) does not make a job starting then fail as
index_in_progress; a job holding the lock does (tests/test_concurrency.py's sync was refused so,
once in a while)."""
from __future__ import annotations

import fcntl
import os
import threading
import time

import pytest

from cruxe.errors import CruxeError
from cruxe.index import run_index
from cruxe.project import open_project
from cruxe.store.layout import ref_slug


def _lock_path(store, ref):
    return store.dir / "locks" / f"{ref_slug(ref)}.lock"


def _hold(path, how, seconds, ready):
    fd = os.open(path, os.O_RDWR)
    try:
        fcntl.flock(fd, how)
        ready.set()
        time.sleep(seconds)
    finally:
        os.close(fd)


@pytest.fixture
def store(make_repo):
    root = make_repo({"a.py": "def f():\n    return 1\n"})
    run_index(root)
    return open_project(root).store


def test_a_readers_probe_holding_the_lock_shared_is_waited_out(store):
    ready = threading.Event()
    t = threading.Thread(target=_hold, args=(_lock_path(store, "live"), fcntl.LOCK_SH, 0.15, ready))
    t.start()
    ready.wait(5)
    with store.writer_lock("live"):
        assert store.writer_active("live")
    t.join()


def test_a_job_holding_the_lock_refuses_the_next_one(store):
    ready = threading.Event()
    t = threading.Thread(target=_hold, args=(_lock_path(store, "live"), fcntl.LOCK_EX, 2.0, ready))
    t.start()
    ready.wait(5)
    with pytest.raises(CruxeError) as e:
        with store.writer_lock("live"):
            pass
    assert e.value.code == "index_in_progress"
    t.join()
