"""The index jobs tests and benches start and watch: the small-batch setting that gives a job
many commit points, and readers of the jobs table a finished or killed process leaves behind."""
from __future__ import annotations

import sqlite3
import time
from pathlib import Path

# five files per batch: many commit points (and so many kill moments) on a small corpus
BATCH_ENV = {"CRUXE_INDEX_BATCH_FILES": "5"}
ACTIVE = ("queued", "running", "validating")


def wait_jobs(home: Path, count: int, timeout: float) -> bool:
    """Until `count` index jobs are registered under `home` and none is active (jobs spawned by
    a server run on their own; a child that ran planted code instead registers none). False
    when `timeout` seconds pass first."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        seen = busy = 0
        for state in home.glob("data/*/state.db"):
            with sqlite3.connect(state) as c:
                seen += c.execute("SELECT count(*) FROM index_jobs").fetchone()[0]
                busy += c.execute("SELECT count(*) FROM index_jobs WHERE status IN (?, ?, ?)", ACTIVE).fetchone()[0]
        if seen >= count and not busy:
            return True
        time.sleep(0.2)
    return False


def files_done(home: Path, job_id: str) -> int:
    """The job's files_done counter (0 while it is not registered yet)."""
    for db in (home / "data").glob("*/state.db"):
        try:
            with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1) as conn:
                row = conn.execute("SELECT files_done FROM index_jobs WHERE job_id=?", (job_id,)).fetchone()
        except sqlite3.Error:
            continue
        if row:
            return row[0] or 0
    return 0
