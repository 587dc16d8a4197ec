"""Index jobs as child processes: the index_repo / sync_repo tools and the balanced policy's
background sync start one `cruxe index` child per (project, ref) and follow it by its job id.

A child registers its job row (and takes the ref's writer lock) only once its interpreter runs,
so between the spawn and that row this process remembers the child itself (`_SPAWNED`): the
check "is a job active?" and the spawn happen under one lock, otherwise parallel calls would
each see nothing running and each start a child. Per process rather than per Server: two
Server objects on one repository in one process must not both spawn.
"""
from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import EXIT_BUSY, CruxeError
from .procs import child_env
from .project import Project

JOB_WAIT_SECONDS = 600  # a tools/call that asked for progress follows its job this long at most
REGISTER_WAIT_SECONDS = 5  # without progress: how long to wait for the child to register its job
_POLL_SECONDS = 0.05
ACTIVE_STATUSES = ("queued", "running", "validating")

_SPAWN_LOCK = threading.Lock()
_SPAWNED: dict[tuple[str, str], "Started"] = {}  # (project id, ref) -> a child not registered yet


@dataclass(frozen=True, slots=True)
class Started:
    """An index child this process started: its job id, its mode, the process."""
    job_id: str
    mode: str  # "full" | "incremental"
    proc: subprocess.Popen


def cruxe_command() -> list[str]:
    """How to start this same cruxe in a child process (installed package or .pyz)."""
    argv0 = sys.argv[0] if sys.argv else ""
    if argv0.endswith(".pyz") and os.path.isfile(argv0):
        return [sys.executable, os.path.abspath(argv0)]
    return [sys.executable, "-m", "cruxe"]


def spawn_index_job(root: Path, home: Path, *, ref: str | None, force: bool, job_id: str) -> subprocess.Popen:
    cmd = [*cruxe_command(), "index", "--path", str(root), "--job-id", job_id, "--quiet"]
    if force:
        cmd.append("--force")
    if ref:
        cmd.append(f"--ref={ref}")  # one word: a ref spelled like an option stays a ref
    # never the caller's working directory (the repository, for a server an MCP host started
    # there): the child's cwd is Cruxe's own, and its path is safe (see procs.isolate_children)
    return subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, env=child_env(str(home)), cwd=str(home),
                            start_new_session=True)


def busy(ref: str, job_id: str | None, mode: str | None) -> CruxeError:
    code = "sync_in_progress" if mode == "incremental" else "index_in_progress"
    return CruxeError(code, f"an index job is already running for ref {ref!r}", {"job_id": job_id, "ref": ref})


def writer_busy(project: Project, ref: str) -> CruxeError | None:
    """The refusal to give when a job (or any writer) holds the ref now, else None."""
    active = project.store.active_job(ref)
    if active or project.store.writer_active(ref):
        return busy(ref, active.get("job_id") if active else None, active.get("mode") if active else None)
    return None


def claim_and_spawn(project: Project, ref: str, home: Path, force: bool) -> Started:
    """Start one index child for (project, ref) unless one is running (else raise busy)."""
    key = (project.id, ref)
    with _SPAWN_LOCK:
        spawned = _SPAWNED.get(key)
        if spawned is not None:
            if spawned.proc.poll() is None and not job_row(project, spawned.job_id):
                raise busy(ref, spawned.job_id, spawned.mode)
            del _SPAWNED[key]
        refusal = writer_busy(project, ref)
        if refusal is not None:
            raise refusal
        job_id = uuid.uuid4().hex[:16]
        from .index import job_mode  # the job's own rule (index imports nothing of this module)
        mode = job_mode(project, ref, force)
        started = Started(job_id, mode, spawn_index_job(project.root, home, ref=ref, force=force, job_id=job_id))
        _SPAWNED[key] = started
    return started


def job_row(project: Project, job_id: str) -> dict[str, Any]:
    """The job's row, or {} before the child registered it."""
    return project.store.job(job_id) or {}


def exit_reason(code: int | None) -> str:
    """Why an index child ended before registering its job (its stderr is not kept)."""
    if code is not None and code < 0:
        return f"the index process was killed by signal {-code}; run `cruxe sync` to finish the index"
    return (f"the index process exited with code {code} before starting the job; run `cruxe index` "
            "in the repository to see the error")


def wait_for_job(project: Project, started: Started, progress: Any) -> dict[str, Any]:
    """Without a progress callback: wait until the child registered the job (quick), then
    answer. With one: follow the job to its end, reporting files_done/files_total. A callback
    carrying a set ``cancelled`` event (the client cancelled, or the server is stopping) ends
    the wait at once with the job as it stands."""
    deadline = time.monotonic() + (JOB_WAIT_SECONDS if progress else REGISTER_WAIT_SECONDS)
    cancelled = getattr(progress, "cancelled", None)
    job: dict[str, Any] = {}
    while time.monotonic() < deadline:
        done = started.proc.poll() is not None  # before the read: a row written before the exit is seen
        job = job_row(project, started.job_id)
        if job and progress is not None:
            progress(float(job.get("files_done") or 0), float(job.get("files_total") or 0) or None,
                     job.get("status"))
        if job and (progress is None or job["status"] not in ACTIVE_STATUSES):
            return job
        if done and not job:
            return {"status": "failed", "error": exit_reason(started.proc.returncode)}
        if cancelled is None:
            time.sleep(_POLL_SECONDS)
        elif cancelled.wait(_POLL_SECONDS):
            return job
    return job


def run_job(project: Project, ref: str, home: Path, force: bool, progress: Any) -> tuple[Started, dict[str, Any]]:
    """Claim, spawn and wait (see `wait_for_job`); a child that lost the ref's writer lock to a
    writer started elsewhere is refused as busy."""
    started = claim_and_spawn(project, ref, home, force)
    job = wait_for_job(project, started, progress)
    if not job.get("job_id") and started.proc.returncode == EXIT_BUSY:
        raise writer_busy(project, ref) or busy(ref, None, None)
    return started, job
