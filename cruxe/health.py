"""`health_check`, `index_status` and `cruxe doctor`: what state the index is in, and why."""
from __future__ import annotations

import json
import sqlite3

import tantivy
from typing import Any

from . import __version__
from .freshness import index_state, open_generation
from .errors import CruxeError
from .languages import grammar_status
from .project import Project
from .store import SCHEMA_VERSION, INDEX_NAMES, disagreeing_files, is_engine_panic, skipped_files


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


def index_status(project: Project, ref: str, opened=None) -> dict[str, Any]:
    project.store.recover_interrupted(ref)
    st = index_state(project, ref, *(opened or ()))
    return {
        "project_id": project.id, "repo_root": str(project.root), "index_status": st.indexing_status,
        "ref": ref, "schema_status": st.schema_status,
        "current_schema_version": st.current_schema_version, "required_schema_version": SCHEMA_VERSION,
        "freshness_status": st.freshness_status, "last_indexed_at": st.last_indexed_at,
        "last_indexed_commit": st.last_indexed_commit, "file_count": st.file_count,
        "symbol_count": st.symbol_count, "active_job": _job_view(project.store.active_job(ref)),
        "recent_jobs": [_job_view(j) for j in project.store.jobs(ref, limit=5)],
        "interrupted_recovery_report": recovery_report(project),
    }, st


# The searched fields of each index: doctor walks their term dictionaries and postings.
SEARCHED_FIELDS = {"symbols": ("symbol_exact", "name_tokens", "qualified_tokens", "signature_tokens", "doc_tokens",
                               "path_tokens"),
                   "snippets": ("content", "content_parts", "path_tokens"),
                   "files": ("filename", "content_head", "path_tokens")}


def _tantivy_ok(project: Project, ref: str, opened=None, thorough: bool = False) -> tuple[bool, str | None]:
    """The three indices open; `thorough` (doctor) also reads every stored document and every
    term's postings of the searched fields, which finds damaged store blocks, dictionaries and
    postings that opening and counting do not touch (a few seconds on 5k files)."""
    gen, status, message = opened or open_generation(project, ref)
    if gen is None:
        return status == "not_indexed", message
    try:
        for name in INDEX_NAMES:
            searcher = gen.searcher(name)
            if thorough and searcher.num_docs:
                for _, addr in searcher.search(tantivy.Query.all_query(), limit=searcher.num_docs).hits:
                    searcher.doc(addr)
                for field in SEARCHED_FIELDS[name]:  # a filter makes the walk read every posting list
                    searcher.terms_with_prefix(field, "", filter_query=tantivy.Query.all_query())
    except BaseException as e:  # noqa: BLE001 - any Tantivy failure (a panic too) is a health finding
        if not isinstance(e, Exception) and not is_engine_panic(e):
            raise
        return False, f"{name}: {type(e).__name__}: {e}"
    return True, None


def _documents_ok(project: Project, ref: str) -> tuple[bool, Any]:
    """Each file's documents against its manifest row (`store.disagreeing_files`): what a job
    interrupted between its Tantivy and SQLite commits, or a lost delete, leaves behind."""
    gen, status, _ = open_generation(project, ref)
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


def _sqlite_ok(project: Project, ref: str, thorough: bool = False, opened=None) -> tuple[bool, str | None]:
    """Both databases answer; `thorough` (doctor) also runs integrity_check, which reads the
    whole file — too slow for health_check's budget, so health only probes the schema."""
    try:
        project.store.state.execute("SELECT 1 FROM index_jobs LIMIT 1").fetchall()
        gen, status, message = opened or open_generation(project, ref)
        if gen is not None:
            if thorough:
                res = gen.db.execute("PRAGMA integrity_check").fetchone()[0]
                if res != "ok":
                    return False, f"index.db: {res}"
            else:
                gen.db.execute("SELECT 1 FROM symbol_relations LIMIT 1").fetchall()
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
    """Every check with a verdict and, when it fails, the remedy. `ok` is False when any fails."""
    from .scan import scan  # only doctor walks the tree

    checks: list[dict[str, Any]] = []

    def add(name: str, ok: bool, detail: Any = None, remedy: str | None = None) -> None:
        item: dict[str, Any] = {"check": name, "ok": ok}
        if detail is not None:
            item["detail"] = detail
        if not ok and remedy:
            item["remedy"] = remedy
        checks.append(item)

    registered = project.info is not None
    state_error = project.store.state_error
    add("project_registered", registered, state_error or str(project.root),
        "cruxe index --force (state.db is corrupt; it is moved aside and rebuilt)" if state_error else "cruxe init")
    st = index_state(project, ref)
    add("index_compatible", st.schema_status in ("compatible", "not_indexed"),
        {"schema_status": st.schema_status, "message": st.message}, "cruxe index --force")
    add("indexed", st.schema_status != "not_indexed", {"ref": ref}, "cruxe index")
    ok, msg = _sqlite_ok(project, ref, thorough=True)
    add("sqlite", ok, msg, "cruxe index --force")
    ok, msg = _tantivy_ok(project, ref, thorough=True)
    add("tantivy", ok, msg, "cruxe index --force")
    ok, detail = _documents_ok(project, ref)
    add("documents", ok, detail, "cruxe sync (its validation indexes the files listed again)")
    grammars = grammar_status()
    add("grammars", not grammars["missing"], grammars,
        "reinstall cruxe: grammar wheels are missing (files of those languages are indexed as text only)")
    scanned = scan(project.root)
    add("ignore_rules", not scanned.cruxeignore_invalid,
        {"files": scanned.ignore_files, "excluded_files": scanned.excluded, "pruned_dirs": scanned.pruned_dirs,
         "skipped": scanned.skipped, "indexable_files": len(scanned.files),
         "invalid_patterns": scanned.cruxeignore_invalid},
        "fix or remove the invalid .cruxeignore lines listed (they are skipped; valid lines still apply)")
    file_warnings, skipped = _file_warnings(project, ref)
    add("file_warnings", True, {"count": len(file_warnings), "files": file_warnings[:50],
                                "skipped_count": len(skipped), "skipped": skipped[:50]})
    if config_warnings:
        add("config", False, list(config_warnings), "fix the config values listed (defaults are in use)")
    report = recovery_report(project)
    if report:
        add("interrupted_jobs", True, report)
    return {"ok": all(c["ok"] for c in checks), "project_id": project.id, "repo_root": str(project.root),
            "ref": ref, "checks": checks}


def _file_warnings(project: Project, ref: str) -> tuple[list[str], list[str]]:
    """Warnings of indexed files (from their manifest rows), and the last job's problems with
    the files it left out (too large, binary, unreadable, links out of the tree, bad ignore lines)."""
    gen, status, _ = open_generation(project, ref)
    if gen is None or status != "compatible":
        return [], []
    out: list[str] = []
    for (w,) in gen.db.execute('SELECT warnings FROM file_manifest WHERE repo=? AND "ref"=? AND warnings IS NOT NULL '
                               "ORDER BY path", (project.id, ref)):
        out.extend(json.loads(w))
    return out, skipped_files(gen)
