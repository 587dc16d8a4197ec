"""The tool table: one registry of names, descriptions, input schemas and handlers.

It drives argument validation, `tools/list`, MCP `tools/call` and the CLI alike, so the
`--json` output of a CLI command and the payload of the matching tool are the same bytes.
`Server` implements the transport's ToolHost protocol (see jsonrpc.py).
"""
from __future__ import annotations

import logging
import os
import sqlite3
import subprocess
import sys
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from . import __version__, freshness, health, outline, shape
from .config import DEFAULT_LIMIT, Config, load_config, resolve_explain_level, resolve_freshness_policy
from .errors import CruxeError
from .model import KIND_ALIASES, KIND_VALUES, LANGUAGES, ROLE_VALUES
from .procs import child_env
from .project import Project, checked_ref, is_working_tree_ref, open_project, require_project
from .store import damaged, is_corruption, is_engine_panic

log = logging.getLogger(__name__)

MAX_QUERY_CHARS = 2000  # longer "queries" are pasted files; refuse rather than tokenise megabytes
MAX_NAME_CHARS = 512
DEDUP_SLACK = 5  # extra hits fetched so that dedup in shape still fills a page of `limit`
# Hits ranked per query, however few are shown: each channel's depth follows the number asked
# for, so a shallower pool ranks its top differently (the default `limit` of 5 fetched as 5
# lost concept answers from the top 5 that a pool of 10 puts there).
MIN_FETCH = 10
JOB_WAIT_SECONDS = 600  # a tools/call that asked for progress follows its job this long at most
READ_TOOLS = frozenset({"search_code", "locate_symbol", "get_file_outline", "find_references"})

_DETAIL = {"type": "string", "enum": ["location", "signature", "context"], "default": "signature"}
_EXPLAIN = {"type": "string", "enum": ["off", "basic", "full"]}
_FRESH = {"type": "string", "enum": ["strict", "balanced", "best_effort"]}
_LANG = {"type": "string", "enum": list(LANGUAGES)}
_ROLE = {"type": "string", "enum": list(ROLE_VALUES)}
_REF = {"type": "string", "maxLength": 256, "description": "Branch/ref; default: current branch (HEAD when detached) or 'live'."}
_WS = {"type": "string", "maxLength": 4096, "description": "Absolute repo path; default: the server's."}
_LIMIT = {"type": "integer", "minimum": 1, "maximum": 100, "default": DEFAULT_LIMIT}


def _schema(props: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    props = {**props, "workspace": _WS}
    return {"type": "object", "properties": props, "required": list(required), "additionalProperties": False}


@dataclass(frozen=True, slots=True)
class Tool:
    name: str
    description: str
    input_schema: dict[str, Any]
    handler: Callable[["Server", dict[str, Any], Any], dict[str, Any]]

    def descriptor(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "inputSchema": self.input_schema}


# ---- argument validation (the schema is the validator's input: one source of truth) ----------

def validate(schema: dict[str, Any], args: Any) -> dict[str, Any]:
    """Check arguments against our JSON Schema subset; return them with defaults applied."""
    if not isinstance(args, dict):
        raise CruxeError("invalid_input", "arguments must be an object")
    props = schema["properties"]
    unknown = sorted(k for k in args if k not in props)
    if unknown:
        raise CruxeError("invalid_input", f"unknown argument(s): {', '.join(unknown)[:200]}",
                         {"allowed": sorted(props)})
    for req in schema.get("required", ()):
        if args.get(req) is None:
            raise CruxeError("invalid_input", f"missing required argument: {req}", {"field": req})
    out: dict[str, Any] = {}
    for key, spec in props.items():
        value = args.get(key)
        if value is None:
            if "default" in spec:
                out[key] = spec["default"]
            continue
        out[key] = _check(key, spec, value)
    return out


def _check(key: str, spec: dict[str, Any], value: Any) -> Any:
    typ = spec["type"]
    if typ == "string":
        if not isinstance(value, str):
            raise CruxeError("invalid_input", f"{key} must be a string", {"field": key})
        if not value.isascii():
            try:  # JSON may carry a lone surrogate ("\ud800"); SQLite and Tantivy cannot take one
                value.encode("utf-8")
            except UnicodeEncodeError:
                raise CruxeError("invalid_input", f"{key} is not valid Unicode (lone surrogate)",
                                 {"field": key}) from None
        if len(value) > spec.get("maxLength", MAX_QUERY_CHARS):
            raise CruxeError("invalid_input", f"{key} is too long", {"field": key})
        if "enum" in spec and value not in spec["enum"]:
            raise CruxeError("invalid_input", f"{key} must be one of {', '.join(spec['enum'])}",
                             {"field": key, "allowed": spec["enum"]})
        if spec.get("minLength") and not value.strip():
            raise CruxeError("invalid_input", f"{key} must not be empty", {"field": key})
    elif typ == "integer":
        if isinstance(value, bool) or not isinstance(value, int):
            raise CruxeError("invalid_input", f"{key} must be an integer", {"field": key})
        lo, hi = spec.get("minimum"), spec.get("maximum")
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            raise CruxeError("invalid_input", f"{key} must be between {lo} and {hi}", {"field": key})
    elif typ == "boolean":
        if not isinstance(value, bool):
            raise CruxeError("invalid_input", f"{key} must be a boolean", {"field": key})
    return value


# ---- the server (ToolHost) -----------------------------------------------------------------

class Server:
    """Per-process state the tools share: the project, config, prewarm, background sync."""

    def __init__(self, path: str | Path, *, config: Config | None = None, home: Path | None = None):
        self.config = config or load_config(str(path))
        self.home = home or self.config.home
        self.project = open_project(path, self.home)
        self.server_version = __version__
        self.started = time.monotonic()
        self.prewarm_status = "pending"
        self._bg_sync_for: str | None = None  # the stale state we already started a background sync for
        self._lock = threading.Lock()
        self.prewarm_hook: Callable[[], None] | None = None  # set by serve-mcp; runs once

    # ToolHost protocol
    def list_tools(self) -> list[dict[str, Any]]:
        return [t.descriptor() for t in TOOLS.values()]

    def call_tool(self, name: str, arguments: Any, progress: Any = None) -> tuple[dict[str, Any], bool]:
        tool = TOOLS[name]  # KeyError -> the dispatcher answers -32602
        try:
            arguments = arguments if arguments is not None else {}
            if tool.name in ("search_code", "locate_symbol") and isinstance(arguments, dict) \
                    and arguments.get("limit") is None:
                arguments = {**arguments, "limit": self.config.search.default_limit}
            args = validate(tool.input_schema, arguments)
            if tool.name in READ_TOOLS:
                return self._read(tool, args, progress), False
            return tool.handler(self, args, progress), False
        except CruxeError as e:
            return self.error_payload(e), True
        except sqlite3.DatabaseError as e:
            if not is_corruption(e):
                log.exception("tool %s failed", name)
                return self.error_payload(CruxeError("internal_error", f"{type(e).__name__} in {name}")), True
            log.error("tool %s: index.db is damaged (%s)", name, e)
            return self.error_payload(damaged("reading the index database", e)), True
        except Exception as e:  # noqa: BLE001 - the edge: nothing unexpected escapes as a traceback
            log.exception("tool %s failed", name)
            return self.error_payload(CruxeError("internal_error", f"{type(e).__name__} in {name}")), True
        except BaseException as e:
            if not is_engine_panic(e):
                raise
            # our queries are built, not parsed from user text: a panic on them means damaged data
            log.error("tool %s: the search engine panicked (%s); the index is probably damaged", name, e)
            return self.error_payload(damaged("the search engine failed while reading", e)), True

    def _read(self, tool: Tool, args: dict[str, Any], progress: Any) -> dict[str, Any]:
        """Run a read tool; if it failed because a rebuild published a new generation (and
        removed the one the query had opened) while it ran, run it once more on the new one."""
        before = self._published(args)
        try:
            return tool.handler(self, args, progress)
        except Exception:
            if before is None or self._published(args) in (before, None):
                raise
            log.info("%s: the generation was replaced while it ran; answering from the new one", tool.name)
            return tool.handler(self, args, progress)

    def _published(self, args: dict[str, Any]) -> int | None:
        try:
            project, ref = self.resolve(args)
            return project.store.current_generation_number(ref)
        except CruxeError:
            return None

    def instructions(self) -> str | None:
        hint = ("Cruxe answers file:line questions about this repository. Start with locate_symbol for a "
                "known name, search_code for anything else, get_file_outline before reading a file, "
                "find_references before changing a symbol.")
        try:
            st = freshness.index_state(self.project, self.project.default_ref())
        except Exception:  # noqa: BLE001 - the handshake must succeed whatever the index state
            return hint + " The index state could not be read: run `cruxe doctor`."
        if self.project.store.state_error or st.schema_status in ("reindex_required", "corrupt_manifest"):
            status = "corrupt_manifest" if self.project.store.state_error else st.schema_status
            return hint + f" The index is {status}: run `cruxe index --force`."
        if st.schema_status == "not_indexed":
            return hint + " This repository is not indexed yet: call index_repo (or run `cruxe index`)."
        return hint

    def on_initialized(self) -> None:
        """After the handshake: start prewarm (serve-mcp sets the hook; the CLI has none)."""
        with self._lock:
            hook, self.prewarm_hook = self.prewarm_hook, None
        if hook is not None:
            hook()

    # helpers
    def error_payload(self, e: CruxeError) -> dict[str, Any]:
        ref = self.project.default_ref() if self.project else "live"
        meta = {"cruxe_protocol_version": "1.0", "ref": ref}
        return {"error": e.to_dict(), "metadata": meta}

    def resolve(self, args: dict[str, Any], registered: bool = True) -> tuple[Project, str]:
        """The project (workspace routing) and ref for a call. Another workspace than the
        server's is served only when it is registered already: tools never reach outside
        the repositories the user set up."""
        ws = args.get("workspace")
        project = self.project
        if ws is not None:
            if "\x00" in ws or not os.path.isabs(ws):
                raise CruxeError("invalid_input", "workspace must be an absolute path", {"field": "workspace"})
            target = Path(ws).resolve()
            if target != project.root:
                if not target.is_dir():
                    raise CruxeError("workspace_not_registered", f"{ws} is not a directory")
                other = open_project(target, self.home)
                if other.info is None:
                    raise CruxeError("workspace_not_registered", f"{ws} is not registered with cruxe",
                                     {"remedy": f"cruxe init --path {ws}"})
                project = other
        if project.info is None and registered:
            project = open_project(project.root, self.home)  # re-check: may be registered now
            if project.store.state_error:
                raise CruxeError("index_incompatible", project.store.state_error,
                                 {"schema_status": "corrupt_manifest", "remediation": "cruxe index --force"})
            if project.info is None:
                project = require_project(project.root, self.home)
        # `registered=False` is the job tools' call: they index the working tree under the ref
        return project, checked_ref(project, args.get("ref"), write=not registered)

    def maybe_background_sync(self, project: Project, state: freshness.IndexState) -> bool:
        """balanced policy: one background sync per stale state (HEAD and the last published
        job), never one per query. Per HEAD alone, edits made after the first sync were never
        synced by a server that stays up."""
        if not is_working_tree_ref(project, state.ref):
            return False  # a sync indexes the working tree: never into another ref's index
        key = f"{project.id}:{state.ref}:{state.current_head}:{state.last_indexed_at}:{state.last_indexed_commit}"
        with self._lock:
            if self._bg_sync_for == key:
                return False
            self._bg_sync_for = key
        try:  # the same claim as sync_repo: never a second job beside a running one
            _claim_and_spawn(self, project, state.ref, force=False)
        except CruxeError as e:
            if e.code not in ("index_in_progress", "sync_in_progress"):
                raise
            return False
        return True


# ---- index jobs as child processes -------------------------------------------------------------

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


# Index children this process started whose job row has not appeared yet, per (project id, ref).
# The check "is a job active?" and the spawn happen under one lock, and a child counts as active
# from its spawn until it exits or its row appears (the row and the writer lock come only after
# the interpreter has started; from then on the row and the lock say it): otherwise parallel
# calls each see nothing running and each start a child. Per process rather than per Server:
# two Server objects on one repository in one process must not both spawn.
_SPAWN_LOCK = threading.Lock()
_SPAWNED: dict[tuple[str, str], tuple[str, str, subprocess.Popen]] = {}  # -> (job_id, mode, proc)
_ACTIVE_STATUSES = ("queued", "running", "validating")
EXIT_BUSY = 3  # `cruxe index` found the ref's writer lock taken (__main__.EXIT_BUSY)


def _busy(ref: str, job_id: str | None, mode: str | None) -> CruxeError:
    code = "sync_in_progress" if mode == "incremental" else "index_in_progress"
    return CruxeError(code, f"an index job is already running for ref {ref!r}", {"job_id": job_id, "ref": ref})


def _writer_busy(project: Project, ref: str) -> CruxeError | None:
    """The refusal to give when a job (or any writer) holds the ref now, else None."""
    active = project.store.active_job(ref)
    if active or project.store.writer_active(ref):
        return _busy(ref, active.get("job_id") if active else None, active.get("mode") if active else None)
    return None


def _claim_and_spawn(server: Server, project: Project, ref: str, force: bool) -> tuple[str, str, subprocess.Popen]:
    """Start one index child for (project, ref) unless one is running; returns (job_id, mode, proc)."""
    key = (project.id, ref)
    with _SPAWN_LOCK:
        spawned = _SPAWNED.get(key)
        if spawned is not None:
            if spawned[2].poll() is None and not _job_row(project, spawned[0]):
                raise _busy(ref, spawned[0], spawned[1])
            del _SPAWNED[key]
        busy = _writer_busy(project, ref)
        if busy is not None:
            raise busy
        job_id = uuid.uuid4().hex[:16]
        mode = "full" if force or project.store.current_generation_number(ref) is None else "incremental"
        proc = spawn_index_job(project.root, server.home, ref=ref, force=force, job_id=job_id)
        _SPAWNED[key] = (job_id, mode, proc)
    return job_id, mode, proc


def _start_job(server: Server, args: dict[str, Any], progress: Any, *, sync: bool) -> dict[str, Any]:
    from .project import init_project

    project, ref = server.resolve(args, registered=False)
    project, _ = init_project(project.root, server.home)
    job_id, mode, proc = _claim_and_spawn(server, project, ref, bool(args.get("force")))
    job = _wait_for_job(project, job_id, proc, progress)
    if not job.get("job_id") and proc.returncode == EXIT_BUSY:  # lost to a writer started elsewhere
        raise _writer_busy(project, ref) or _busy(ref, None, None)
    payload: dict[str, Any] = {"job_id": job_id, "status": job.get("status", "queued"), "mode": mode,
                               "progress_token": job_id}
    if job.get("status") not in (None, "published", *_ACTIVE_STATUSES):
        payload["reason"] = job.get("error") or "the job ended without recording why; run `cruxe doctor`"
    # Only counts the job knows by now: files to process once its scan is done, what it changed
    # once it published; null before, never a 0 that reads as "nothing changed".
    to_process = job.get("files_total")
    if sync:
        payload["changed_files"] = job.get("changed_files") if job.get("status") == "published" else None
        payload["files_to_process"] = to_process
    else:
        payload["file_count"] = to_process
    st = freshness.index_state(project, ref)
    payload["metadata"] = shape.metadata(st.base_metadata())
    return payload


def _job_row(project: Project, job_id: str) -> dict[str, Any]:
    rows = [j for j in project.store.jobs(None, limit=20) if j["job_id"] == job_id]
    return rows[0] if rows else {}


def _exit_reason(code: int | None) -> str:
    """Why an index child ended before registering its job (its stderr is not kept)."""
    if code is not None and code < 0:
        return f"the index process was killed by signal {-code}; run `cruxe sync` to finish the index"
    return (f"the index process exited with code {code} before starting the job; run `cruxe index` "
            "in the repository to see the error")


def _wait_for_job(project: Project, job_id: str, proc: subprocess.Popen, progress: Any) -> dict[str, Any]:
    """Without a progress callback: wait until the child registered the job (quick), then
    answer. With one: follow the job to its end, reporting files_done/files_total. A callback
    carrying a set ``cancelled`` event (the client cancelled, or the server is stopping) ends
    the wait at once with the job as it stands."""
    deadline = time.monotonic() + (JOB_WAIT_SECONDS if progress else 5)
    cancelled = getattr(progress, "cancelled", None)
    job: dict[str, Any] = {}
    while time.monotonic() < deadline:
        done = proc.poll() is not None  # before the read: a row written before the exit is seen
        job = _job_row(project, job_id)
        if job and progress is not None:
            progress(float(job.get("files_done") or 0), float(job.get("files_total") or 0) or None,
                     job.get("status"))
        if job and (progress is None or job["status"] not in _ACTIVE_STATUSES):
            return job
        if done and not job:
            return {"status": "failed", "error": _exit_reason(proc.returncode)}
        if cancelled is None:
            time.sleep(0.05)
        elif cancelled.wait(0.05):
            return job
    return job


# ---- handlers: parse input, call one domain function, render -------------------------------

def _query_context(server: Server, args: dict[str, Any]):
    project, ref = server.resolve(args)
    gen, state = freshness.require_queryable(project, ref)
    policy = resolve_freshness_policy(args.get("freshness_policy"), server.config)
    if freshness.check_policy(state, policy):
        server.maybe_background_sync(project, state)
    return project, ref, gen, state


def _shape_query(server: Server, tool: str, args: dict[str, Any], state, hits, total, extra) -> dict[str, Any]:
    return shape.shape_response(
        tool, hits, detail_level=args["detail_level"], compact=bool(args.get("compact")),
        explain_level=resolve_explain_level(args.get("ranking_explain_level"), server.config),
        max_bytes=server.config.search.max_response_bytes, base_metadata=state.base_metadata(),
        total_candidates=total, args=args, extra=extra, limit=args["limit"])


def _fetch(args: dict[str, Any]) -> int:
    """How many hits to rank: the page, at least MIN_FETCH, and slack for shape's dedup."""
    return max(args["limit"], MIN_FETCH) + DEDUP_SLACK


def _locate(server: Server, args: dict[str, Any], progress: Any) -> dict[str, Any]:
    from . import query

    project, ref, gen, state = _query_context(server, args)
    name = args["name"].strip()
    if not name:
        raise CruxeError("invalid_input", "name must not be empty", {"field": "name"})
    kind = args.get("kind")
    hits, total = query.locate_symbol(gen, project.id, ref, name, kind=kind, role=args.get("role"),
                                      language=args.get("language"), limit=_fetch(args),
                                      detail_level=args["detail_level"])
    return _shape_query(server, "locate_symbol", args, state, hits, total, {})


def _search(server: Server, args: dict[str, Any], progress: Any) -> dict[str, Any]:
    from . import query

    project, ref, gen, state = _query_context(server, args)
    q = args["query"].strip()
    if not q:
        raise CruxeError("invalid_input", "query must not be empty", {"field": "query"})
    hits, total, intent = query.search_code(gen, project.id, ref, q, role=args.get("role"),
                                            language=args.get("language"),
                                            limit=_fetch(args), detail_level=args["detail_level"])
    return _shape_query(server, "search_code", args, state, hits, total, {"query_intent": intent})


def _outline(server: Server, args: dict[str, Any], progress: Any) -> dict[str, Any]:
    project, ref = server.resolve(args)
    gen, state = freshness.require_queryable(project, ref)
    out = outline.file_outline(gen, project.id, ref, args["path"], args["depth"],
                               max_bytes=server.config.search.max_response_bytes)
    total, kept, truncated = out.pop("symbol_count"), out.pop("returned_symbol_count"), out.pop("truncated")
    extra: dict[str, Any] = {"symbol_count": total}
    if truncated:
        extra["returned_symbol_count"] = kept
    meta = shape.metadata({**state.base_metadata(), **extra}, safety_limit_applied=truncated)
    payload = {**out, "metadata": meta}
    if truncated:
        payload["suggested_next_actions"] = shape.outline_next_actions(out["file_path"], args)
    return payload


def _health(server: Server, args: dict[str, Any], progress: Any) -> dict[str, Any]:
    project, ref = server.resolve(args)
    payload = health.health_check(project, ref, prewarm_status=server.prewarm_status,
                                  uptime_seconds=time.monotonic() - server.started)
    payload["metadata"] = {"cruxe_protocol_version": "1.0"}
    return payload


def _status(server: Server, args: dict[str, Any], progress: Any) -> dict[str, Any]:
    project, ref = server.resolve(args)
    payload, st = health.index_status(project, ref)
    payload["metadata"] = shape.metadata(st.base_metadata())
    return payload


def _refs(server: Server, args: dict[str, Any], progress: Any) -> dict[str, Any]:
    from . import refs

    project, ref, gen, state = _query_context(server, args)
    out = refs.find_references(gen, project.id, ref, args["symbol_name"].strip(), path=args.get("path"),
                               kind=args.get("kind"), limit=args["limit"], line=args.get("line"),
                               max_bytes=server.config.search.max_response_bytes)
    actions = refs.next_actions(args, out)
    limited = out.pop("safety_limit_applied", False)
    meta = state.base_metadata()
    if out.pop("truncated", False):
        meta["result_completeness"] = "truncated"
    payload = {**out, "suggested_next_actions": actions} if actions else dict(out)
    payload["metadata"] = shape.metadata(meta, safety_limit_applied=limited)
    return payload


TOOLS: dict[str, Tool] = {t.name: t for t in (
    Tool("index_repo", "Index the repository (full on first run or with force, else incremental). Runs in "
         "the background; returns a job_id to follow with index_status.",
         _schema({"force": {"type": "boolean", "default": False}, "ref": _REF}),
         lambda s, a, p: _start_job(s, a, p, sync=False)),
    Tool("sync_repo", "Incrementally re-index files changed since the last index (content hashes).",
         _schema({"force": {"type": "boolean", "default": False}, "ref": _REF}),
         lambda s, a, p: _start_job(s, a, p, sync=True)),
    Tool("search_code", "Search code by symbol name, path, error message or natural language; ranked "
         "file:line results. Use role (not kind) to keep only symbols of one role.",
         _schema({"query": {"type": "string", "minLength": 1, "maxLength": MAX_QUERY_CHARS},
                  "ref": _REF, "language": _LANG, "role": _ROLE, "limit": _LIMIT, "detail_level": _DETAIL,
                  "compact": {"type": "boolean", "default": False}, "freshness_policy": _FRESH,
                  "ranking_explain_level": _EXPLAIN}, ("query",)),
         _search),
    Tool("locate_symbol", "Find where a symbol is defined, by name or qualified name (a::b, A.b); all "
         "definitions, best first.",
         _schema({"name": {"type": "string", "minLength": 1, "maxLength": MAX_NAME_CHARS},
                  "kind": {"type": "string", "enum": sorted(set(KIND_VALUES) | set(KIND_ALIASES))},
                  "role": _ROLE, "language": _LANG, "ref": _REF, "limit": _LIMIT, "detail_level": _DETAIL,
                  "compact": {"type": "boolean", "default": False}, "freshness_policy": _FRESH,
                  "ranking_explain_level": _EXPLAIN}, ("name",)),
         _locate),
    Tool("get_file_outline", "Nested symbol tree of one file (path relative to the repo root), without "
         "reading the file; a tree over the payload limit keeps its first symbols in line order.",
         _schema({"path": {"type": "string", "minLength": 1, "maxLength": 4096}, "ref": _REF,
                  "depth": {"type": "string", "enum": ["top", "all"], "default": "all"},
                  "language": _LANG}, ("path",)),
         _outline),
    Tool("find_references", "Who imports or calls a symbol: resolved references with file:line, then the "
         "name's unresolved uses (resolved: false); several definitions in `path` are answered grouped.",
         _schema({"symbol_name": {"type": "string", "minLength": 1, "maxLength": MAX_NAME_CHARS},
                  "path": {"type": "string", "maxLength": 4096,
                           "description": "Definition's file, to pick one of several (all of its "
                                          "definitions of the name, grouped)."},
                  "line": {"type": "integer", "minimum": 1,
                           "description": "With path: the definition at (or around) this line."},
                  "kind": {"type": "string", "enum": ["calls", "imports", "references"]},
                  "limit": {"type": "integer", "minimum": 1, "maximum": 500, "default": 20}, "ref": _REF},
                 ("symbol_name",)),
         _refs),
    Tool("health_check", "Server and index health: index, grammars, active job, prewarm, compatibility.",
         _schema({}), _health),
    Tool("index_status", "Index state of the project: counts, freshness, active and recent jobs.",
         _schema({"ref": _REF}), _status),
)}
