"""`health_check`, `index_status` and `cruxe doctor`: what state the index is in, and why."""
from __future__ import annotations

import sqlite3
from typing import Any

from . import __version__
from .freshness import Opened, index_state, open_generation
from .errors import CruxeError
from .languages import grammar_status
from .project import Project
from .store import (INDEX_NAMES, SCHEMA_VERSION, disagreeing_files, file_warnings, integrity_problem, is_engine_panic,
                    probe_index, probe_tables, skipped_files)


def _job_view(job: dict[str, Any] | None) -> dict[str, Any] | None:
    if not job:
        return None
    keys = ("job_id", "ref", "mode", "status", "changed_files", "files_total", "files_done",
            "symbol_count", "started_at", "finished_at", "duration_ms", "error")
    return {k: job.get(k) for k in keys if job.get(k) is not None}


def recovery_report(project: Project) -> dict[str, Any] | None:
    jobs = project.store.interrupted_jobs()
    if not jobs:
        return None
    return {"interrupted_jobs": len(jobs), "jobs": jobs,
            "action": "the next sync re-indexes exactly the files whose manifest rows were not committed"}


def index_status(project: Project, ref: str, opened: Opened | None = None) -> dict[str, Any]:
    project.store.recover_interrupted(ref)
    st = index_state(project, ref, opened)
    return {
        "project_id": project.id, "repo_root": str(project.root), "index_status": st.indexing_status,
        "ref": ref, "schema_status": st.schema_status,
        "current_schema_version": st.current_schema_version, "required_schema_version": SCHEMA_VERSION,
        "freshness_status": st.freshness_status, "last_indexed_at": st.last_indexed_at,
        "last_indexed_commit": st.last_indexed_commit, "file_count": st.file_count,
        "symbol_count": st.symbol_count, "active_job": _job_view(project.store.active_job(ref)),
        "recent_jobs": [_job_view(j) for j in project.store.jobs(ref, limit=5)],
        "interrupted_recovery_report": recovery_report(project),
        **({"storage": st.storage} if st.storage else {}),  # a ref not checked out: overlay, or whole and why
    }, st


def _tantivy_ok(project: Project, ref: str, opened: Opened | None = None,
                thorough: bool = False) -> tuple[bool, str | None]:
    """The three indices open and answer a term query on every field (`store.probe_index`:
    cheap); `thorough` (doctor) also reads every stored document and every term's postings of
    every field (seconds on 5k files)."""
    opened = opened or open_generation(project, ref)
    if opened.gen is None:
        return opened.schema_status == "not_indexed", opened.message
    gen = opened.gen
    try:
        for name in INDEX_NAMES:
            probe_index(gen, name, thorough)
    except BaseException as e:  # noqa: BLE001 - any Tantivy failure (a panic too) is a health finding
        if not isinstance(e, Exception) and not is_engine_panic(e):
            raise
        return False, f"{name}: {type(e).__name__}: {e}"
    return True, None


def _documents_ok(project: Project, ref: str) -> tuple[bool, Any]:
    """Each file's documents against its manifest row (`store.disagreeing_files`): what a job
    interrupted between its Tantivy and SQLite commits, or a lost delete, leaves behind."""
    opened = open_generation(project, ref)
    gen, status = opened.gen, opened.schema_status
    if gen is None or status != "compatible":
        return True, {"compared": False}
    try:
        bad = disagreeing_files(gen, project.id, ref)
    except BaseException as e:  # noqa: BLE001 - damage is the sqlite and tantivy checks' finding
        if not isinstance(e, Exception) and not is_engine_panic(e):
            raise
        return True, {"compared": False, "reason": f"{type(e).__name__}: {e}"[:300]}
    files = {path: {name: {"expected": want, "found": got} for name, (want, got) in by_index.items()}
             for path, by_index in list(bad.items())[:50]}
    return not bad, {"compared": True, "count": len(bad), "files": files}


def _sqlite_ok(project: Project, ref: str, thorough: bool = False,
               opened: Opened | None = None) -> tuple[bool, str | None]:
    """Both databases answer; `thorough` (doctor) also runs integrity_check, which reads the
    whole file — too slow for health_check's budget, so health only probes the schema."""
    try:
        project.store.probe_state()
        opened = opened or open_generation(project, ref)
        gen, status, message = opened.gen, opened.schema_status, opened.message
        if gen is not None:
            if thorough:
                res = integrity_problem(gen)
                if res is not None:
                    return False, f"index.db: {res}"
            else:
                probe_tables(gen)
        elif status == "corrupt_manifest":
            return False, message
    except sqlite3.DatabaseError as e:
        return False, str(e)
    except CruxeError as e:  # state.db or index.db could not even be opened
        return False, e.message
    if thorough:
        problem = project.store.state_problem()
        if problem:
            return False, problem
    return True, None


def health_check(project: Project, ref: str, *, prewarm_status: str, uptime_seconds: float) -> dict[str, Any]:
    opened = open_generation(project, ref)
    status_payload, st = index_status(project, ref, opened)
    tantivy_ok, _ = _tantivy_ok(project, ref, opened)
    sqlite_ok, _ = _sqlite_ok(project, ref, opened=opened)
    if st.indexing_status == "failed" or not (tantivy_ok and sqlite_ok):
        overall = "error"
    elif st.indexing_status == "indexing":
        overall = "indexing"
    elif prewarm_status == "warming":
        overall = "warming"
    else:
        overall = "ready"
    return {
        "status": overall, "version": __version__, "uptime_seconds": int(uptime_seconds),
        "tantivy_ok": tantivy_ok, "sqlite_ok": sqlite_ok, "grammars": grammar_status(),
        "active_job": status_payload["active_job"],
        "interrupted_recovery_report": status_payload["interrupted_recovery_report"],
        "prewarm_status": prewarm_status,
        "startup_checks": {"index": {"status": st.schema_status,
                                     "current_schema_version": st.current_schema_version,
                                     "required_schema_version": SCHEMA_VERSION, "message": st.message}},
        "projects": [{k: status_payload[k] for k in (
            "project_id", "repo_root", "index_status", "schema_status", "current_schema_version",
            "required_schema_version", "freshness_status", "last_indexed_at", "ref", "file_count",
            "symbol_count")}],
    }


def doctor(project: Project, ref: str, config_warnings: tuple[str, ...] = ()) -> dict[str, Any]:
    """Every check with a verdict and, when it fails, the remedy. `ok` is False when any fails.
    A check that raises is a failed check with the error as its detail: damage is reported,
    never raised (three pages of index.db overwritten made doctor itself fail)."""
    checks: list[dict[str, Any]] = []
    for name, check, remedy in _doctor_checks(project, ref, config_warnings):
        try:
            ok, detail = check()
        except BaseException as e:  # noqa: BLE001 - any failure is the check's finding
            if not isinstance(e, Exception) and not is_engine_panic(e):
                raise
            ok, detail = False, f"{type(e).__name__}: {e}"[:500]
        if ok is None:  # a check with nothing to say
            continue
        item: dict[str, Any] = {"check": name, "ok": ok}
        if detail is not None:
            item["detail"] = detail
        if not ok and remedy:
            item["remedy"] = remedy
        checks.append(item)
    return {"ok": all(c["ok"] for c in checks), "project_id": project.id, "repo_root": str(project.root),
            "ref": ref, "checks": checks}


FORCE = "cruxe index --force"


def _doctor_checks(project: Project, ref: str, config_warnings: tuple[str, ...]):
    """(name, check() -> (ok or None to leave it out, detail), remedy) for doctor, in order."""
    state_error = project.store.state_error
    state = []  # index_state, computed by the first check that needs it

    def index_status_check():
        state.append(index_state(project, ref))
        return state[0].schema_status in ("compatible", "not_indexed"), {"schema_status": state[0].schema_status,
                                                                         "message": state[0].message}
    grammars = grammar_status()
    report = recovery_report(project)
    return [
        ("project_registered", lambda: (project.info is not None, state_error or str(project.root)),
         f"{FORCE} (state.db is corrupt; it is moved aside and rebuilt)" if state_error else "cruxe init"),
        ("store_layout", lambda: _layout_ok(project, ref), f"{FORCE} (it moves aside what is in the way)"),
        ("index_compatible", index_status_check, FORCE),
        ("indexed", lambda: (bool(state) and state[0].schema_status != "not_indexed", {"ref": ref}), "cruxe index"),
        ("sqlite", lambda: _sqlite_ok(project, ref, thorough=True), FORCE),
        ("tantivy", lambda: _tantivy_ok(project, ref, thorough=True), FORCE),
        ("documents", lambda: _documents_ok(project, ref), "cruxe sync (its validation indexes the files listed again)"),
        ("grammars", lambda: (not grammars["missing"], grammars),
         "reinstall cruxe: grammar wheels are missing (files of those languages are indexed as text only)"),
        ("ignore_rules", lambda: _ignore_rules(project),
         "fix or remove the invalid .cruxeignore lines listed (they are skipped; valid lines still apply)"),
        ("file_warnings", lambda: (True, _file_warnings(project, ref)), None),
        ("config", lambda: (False if config_warnings else None, list(config_warnings)),
         "fix the config values listed (defaults are in use)"),
        ("interrupted_jobs", lambda: (True if report else None, report), None),
    ]


def _layout_ok(project: Project, ref: str) -> tuple[bool, Any]:
    problems = project.store.layout_problems(ref)
    return not problems, problems or None


def _ignore_rules(project: Project) -> tuple[bool, Any]:
    from .scan import scan  # only doctor walks the tree
    scanned = scan(project.root)
    return not scanned.cruxeignore_invalid, {
        "files": scanned.ignore_files, "excluded_files": scanned.excluded, "pruned_dirs": scanned.pruned_dirs,
        "skipped": scanned.skipped, "indexable_files": len(scanned.files),
        "invalid_patterns": scanned.cruxeignore_invalid}


def _file_warnings(project: Project, ref: str) -> dict[str, Any]:
    """Warnings of indexed files (from their manifest rows), and the last job's problems with
    the files it left out (too large, binary, unreadable, links out of the tree, bad ignore
    lines). An unreadable index.db is the sqlite check's finding: none are listed then."""
    opened = open_generation(project, ref)
    gen, status = opened.gen, opened.schema_status
    out: list[str] = []
    skipped: list[str] = []
    if gen is not None and status == "compatible":
        try:
            out = file_warnings(gen, project.id, ref)
            skipped = skipped_files(gen)
        except (sqlite3.DatabaseError, ValueError):
            pass
    return {"count": len(out), "files": out[:50], "skipped_count": len(skipped), "skipped": skipped[:50]}
