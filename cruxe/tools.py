"""The tool table: one registry of names, descriptions, input schemas and handlers.

It drives argument validation, `tools/list`, MCP `tools/call` and the CLI alike, so the
`--json` output of a CLI command and the payload of the matching tool are the same bytes.
`Server` implements the transport's ToolHost protocol (see jsonrpc.py).
"""
from __future__ import annotations

import logging
import os
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from . import __version__, freshness, health, jobs, outline, shape, vcs
from .config import (DEFAULT_LIMIT, EXPLAIN_LEVELS, FRESHNESS_POLICIES, Config, load_config, resolve_explain_level,
                     resolve_freshness_policy)
from .errors import BUSY_CODES, CruxeError
from .model import (DETAIL_LEVELS, KIND_ALIASES, KIND_VALUES, LANGUAGES, OUTLINE_DEPTHS, REFERENCE_KINDS,
                    ROLE_VALUES)
from .project import Project, checked_ref, is_working_tree_ref, open_project, require_project
from .store import damaged, is_corruption, is_engine_panic, layer_of

log = logging.getLogger(__name__)

MAX_QUERY_CHARS = 8000  # a pasted traceback of ~60 frames fits; longer "queries" are pasted files: refused, not tokenised
MAX_NAME_CHARS = 512
DEDUP_SLACK = 5  # extra hits fetched so that dedup in shape still fills a page of `limit`
# Hits ranked per query, however few are shown: each channel's depth follows the number asked
# for, so a shallower pool ranks its top differently (the default `limit` of 5 fetched as 5
# lost concept answers from the top 5 that a pool of 10 puts there).
MIN_FETCH = 10
# balanced, a ref never indexed: how long a query waits for its first index from git's objects
# (an overlay takes well under this; a whole index of a large ref does not, and is left running)
FIRST_INDEX_WAIT_S = 3.0

_DETAIL = {"type": "string", "enum": list(DETAIL_LEVELS), "default": "signature"}
_EXPLAIN = {"type": "string", "enum": list(EXPLAIN_LEVELS)}
_FRESH = {"type": "string", "enum": list(FRESHNESS_POLICIES)}
_LANG = {"type": "string", "enum": list(LANGUAGES)}
_ROLE = {"type": "string", "enum": list(ROLE_VALUES)}
_REF = {"type": "string", "maxLength": 256, "description": "Branch/ref; default: current branch (HEAD when detached) or 'live'."}
_WS = {"type": "string", "maxLength": 4096, "description": "Absolute repo path; default: the server's."}
_LIMIT = {"type": "integer", "minimum": 1, "maximum": 100, "default": DEFAULT_LIMIT}
# the options of a ranked answer (search_code, locate_symbol), in their advertised order
_RANKED = {"limit": _LIMIT, "detail_level": _DETAIL, "compact": {"type": "boolean", "default": False},
           "freshness_policy": _FRESH, "ranking_explain_level": _EXPLAIN}


def _schema(props: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    props = {**props, "workspace": _WS}
    return {"type": "object", "properties": props, "required": list(required), "additionalProperties": False}


@dataclass(frozen=True, slots=True)
class Tool:
    name: str
    description: str
    input_schema: dict[str, Any]
    handler: Callable[["Server", dict[str, Any], Any], dict[str, Any]]
    # Reads a published generation: run once more if a rebuild replaced it meanwhile (Server._read).
    reads_index: bool = False
    # `limit` left out means the config's `search.default_limit`, not the schema's default.
    configured_limit: bool = False
    # Accepted and checked because the contract lists them, then dropped: the handler has no use
    # for them (get_file_outline's `language`: a file's language is the one it was indexed with).
    ignored_args: tuple[str, ...] = ()

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
            if "enum" in spec:  # `depth: 1`: name what it takes
                raise CruxeError("invalid_input", f"{key} must be one of {', '.join(spec['enum'])} (a string)",
                                 {"field": key, "allowed": spec["enum"]})
            raise CruxeError("invalid_input", f"{key} must be a string", {"field": key})
        if not value.isascii():
            try:  # JSON may carry a lone surrogate ("\ud800"); SQLite and Tantivy cannot take one
                value.encode("utf-8")
            except UnicodeEncodeError:
                raise CruxeError("invalid_input", f"{key} is not valid Unicode (lone surrogate)",
                                 {"field": key}) from None
        if len(value) > (most := spec.get("maxLength", MAX_QUERY_CHARS)):
            hint = "; of a pasted trace, its message and innermost frames are enough" if key == "query" else ""
            raise CruxeError("invalid_input", f"{key} is too long ({len(value)} characters, at most {most}){hint}",
                             {"field": key})
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
        asked: str | None = None  # the ref a valid call named: an error's metadata is about it
        try:
            arguments = arguments if arguments is not None else {}
            if tool.configured_limit and isinstance(arguments, dict) and arguments.get("limit") is None:
                arguments = {**arguments, "limit": self.config.search.default_limit}
            args = validate(tool.input_schema, arguments)
            asked = args.get("ref") if isinstance(args.get("ref"), str) else None
            for key in tool.ignored_args:
                args.pop(key, None)
            if tool.reads_index:
                return self._read(tool, args, progress), False
            return tool.handler(self, args, progress), False
        except CruxeError as e:
            return self.error_payload(e, asked), True
        except sqlite3.DatabaseError as e:
            if not is_corruption(e):
                log.exception("tool %s failed", name)
                return self.error_payload(CruxeError("internal_error", f"{type(e).__name__} in {name}"), asked), True
            log.error("tool %s: index.db is damaged (%s)", name, e)
            return self.error_payload(damaged("reading the index database", e), asked), True
        except Exception as e:  # noqa: BLE001 - the edge: nothing unexpected escapes as a traceback
            log.exception("tool %s failed", name)
            return self.error_payload(CruxeError("internal_error", f"{type(e).__name__} in {name}"), asked), True
        except BaseException as e:
            if not is_engine_panic(e):
                raise
            # our queries are built, not parsed from user text: a panic on them means damaged data
            log.error("tool %s: the search engine panicked (%s); the index is probably damaged", name, e)
            return self.error_payload(damaged("the search engine failed while reading", e), asked), True

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
    def error_payload(self, e: CruxeError, ref: str | None = None) -> dict[str, Any]:
        """The error envelope; its metadata names the ref asked about, else the default one."""
        ref = ref or (self.project.default_ref() if self.project else "live")
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
        """balanced policy: one background sync per stale state (HEAD and the ref's write
        count, which moves with every job; a time stamp in seconds does not), never one per
        query. Per HEAD alone, edits made after the first sync were never synced by a server
        that stays up."""
        key = f"{project.id}:{state.ref}:{state.current_head}:{state.cursor}:{state.last_indexed_commit}"
        with self._lock:
            if self._bg_sync_for == key:
                return False
            self._bg_sync_for = key
        try:  # the same claim as sync_repo: never a second job beside a running one
            jobs.claim_and_spawn(project, state.ref, self.home, force=False)
        except CruxeError as e:
            if e.code not in BUSY_CODES:
                raise
            return False
        return True

    def first_index(self, project: Project, ref: str) -> tuple[Any, freshness.IndexState]:
        """balanced policy, a ref that is not checked out and was never indexed: index it from
        git's objects now (an overlay on the default branch's index is a fraction of a second) and
        answer once it is published, waiting at most FIRST_INDEX_WAIT_S; past that (a whole index
        of a large ref) `index_not_ready` says the job started. Only a ref git has gets a job."""
        if vcs.resolve_ref(project.root, ref) is None:
            return freshness.require_queryable(project, ref)  # the plain refusal, with its remedy
        try:
            started = jobs.claim_and_spawn(project, ref, self.home, force=False)
            job_id = started.job_id
        except CruxeError as e:
            if e.code not in BUSY_CODES:
                raise
            job_id = (e.data or {}).get("job_id")
        deadline = time.monotonic() + FIRST_INDEX_WAIT_S
        while True:
            try:  # a first index publishes at once and fills batch by batch: wait for its end
                found = freshness.require_queryable(project, ref)
                if found[1].indexing_status != "indexing" or time.monotonic() >= deadline:
                    return found  # past the wait: what has landed, marked as still indexing
            except CruxeError as e:
                if e.code != "index_not_ready":
                    raise
                if time.monotonic() >= deadline:
                    raise CruxeError("index_not_ready", f"ref {ref!r} is being indexed from git's objects now; "
                                     "retry shortly", {"ref": ref, "job_id": job_id,
                                                       "remedy": "Retry, or follow the job with index_status."})
            time.sleep(0.05)


# ---- index jobs (the child processes themselves: jobs.py) -------------------------------------

def _start_job(server: Server, args: dict[str, Any], progress: Any, *, sync: bool) -> dict[str, Any]:
    from .project import init_project

    project, ref = server.resolve(args, registered=False)
    project, _ = init_project(project.root, server.home)
    started, job = jobs.run_job(project, ref, server.home, bool(args.get("force")), progress)
    payload: dict[str, Any] = {"job_id": started.job_id, "status": job.get("status", "queued"),
                               "mode": started.mode, "progress_token": started.job_id}
    if job.get("status") not in (None, "published", *jobs.ACTIVE_STATUSES):
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


# ---- handlers: parse input, call one domain function, render -------------------------------

def _queryable(server: Server, project: Project, ref: str, policy: str):
    """The generation to answer from (`freshness.require_queryable`); under balanced, a ref
    that is not checked out and was never indexed is indexed first (`Server.first_index`)."""
    try:
        return freshness.require_queryable(project, ref)
    except CruxeError as e:
        if e.code != "index_not_ready" or policy != "balanced" or is_working_tree_ref(project, ref):
            raise
        return server.first_index(project, ref)


def search_plan(server: Server, args: dict[str, Any]) -> dict[str, Any]:
    """The retrieval plan `search_code` would run for these arguments (`cruxe search --plan`):
    probed in the ref's index as the search is, or the pure plan, with a note saying so, where
    there is no index to probe. It starts no sync."""
    from . import query

    kw = {"role": args.get("role"), "language": args.get("language"),
          "limit": args.get("limit") or server.config.search.default_limit}
    try:
        project, ref = server.resolve(args)
        gen, _ = freshness.require_queryable(project, ref)
    except CruxeError as e:
        if e.code not in ("project_not_found", "index_not_ready"):
            raise
        p = query.plan(args["query"], **kw).to_dict()
        return {**p, "notes": [*p["notes"], f"not probed in an index ({e.code}): a sentence the code "
                                            "emits as a message would be searched as an error"]}
    return query.plan_query(gen, project.id, ref, args["query"], **kw).to_dict()


def _query_context(server: Server, args: dict[str, Any]):
    project, ref = server.resolve(args)
    policy = resolve_freshness_policy(args.get("freshness_policy"), server.config)
    gen, state = _queryable(server, project, ref, policy)
    if freshness.check_policy(state, policy):
        server.maybe_background_sync(project, state)
    return project, ref, gen, state


def _shape_query(server: Server, tool: str, args: dict[str, Any], state, hits, total, extra, gen,
                 definitions: bool = False, warnings: tuple[str, ...] = ()) -> dict[str, Any]:
    payload = shape.shape_response(
        tool, hits, detail_level=args["detail_level"], compact=bool(args.get("compact")),
        explain_level=resolve_explain_level(args.get("ranking_explain_level"), server.config),
        max_bytes=_room(server, gen, args["limit"]), base_metadata=state.base_metadata(),
        total_candidates=total, args=args, extra=extra, limit=args["limit"], definitions=definitions,
        warnings=warnings)
    _add_layers(gen, payload.get("results", ()))
    return payload


# What `source_layer` adds to one result: the payload limit is measured without it, so it is
# kept free for as many results as may be listed.
_LAYER_BYTES = len(',"source_layer":"overlay"')


def _room(server: Server, gen, listed: int) -> int:
    """The payload limit for the results, less the room their `source_layer` fields take on a
    ref stored as an overlay."""
    limit = server.config.search.max_response_bytes
    return limit if layer_of(gen, "") is None else max(limit - _LAYER_BYTES * listed, 1024)


def _add_layers(gen, items) -> None:
    """Each result's `source_layer` (overlay or base) on a ref stored as an overlay; on any
    other ref none (`store.layer_of` is None)."""
    for item in items:
        if "path" in item and (layer := layer_of(gen, item["path"])) is not None:
            item["source_layer"] = layer


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
    return _shape_query(server, "locate_symbol", args, state, hits, total, {}, gen, definitions=True)


# A pasted message that no raise/throw/panic/log call the search found emits: the results share
# its words only, which an agent would otherwise read as the answer. The code may build the
# message at run time, or emit it from files the index leaves out.
NO_EMITTING_SITE = ("no_emitting_site: no call in the indexed code emits this message; the results only "
                    "share its words, or define the exception class it names")


def _search(server: Server, args: dict[str, Any], progress: Any) -> dict[str, Any]:
    from . import query

    project, ref, gen, state = _query_context(server, args)
    q = args["query"].strip()
    if not q:
        raise CruxeError("invalid_input", "query must not be empty", {"field": "query"})
    hits, total, intent = query.search_code(gen, project.id, ref, q, role=args.get("role"),
                                            language=args.get("language"),
                                            limit=_fetch(args), detail_level=args["detail_level"])
    explained = intent.pop("emitting_site", True)
    warnings = (NO_EMITTING_SITE,) if hits and not explained else ()  # no result says enough
    return _shape_query(server, "search_code", args, state, hits, total, {"query_intent": intent}, gen,
                        warnings=warnings)


def _outline(server: Server, args: dict[str, Any], progress: Any) -> dict[str, Any]:
    project, ref = server.resolve(args)
    gen, state = _queryable(server, project, ref, resolve_freshness_policy(args.get("freshness_policy"), server.config))
    out = outline.file_outline(gen, project.id, ref, args["path"], args["depth"],
                               max_bytes=server.config.search.max_response_bytes)
    total, kept, truncated = out.pop("symbol_count"), out.pop("returned_symbol_count"), out.pop("truncated")
    if (layer := layer_of(gen, out["file_path"])) is not None:
        out = {"file_path": out.pop("file_path"), "source_layer": layer, **out}
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
                               max_bytes=_room(server, gen, 2 * args["limit"]))
    _add_layers(gen, [out["symbol"], *out.get("definitions", ()), *out["references"], *out.get("unresolved", ())])
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
                  "ref": _REF, "language": _LANG, "role": _ROLE, **_RANKED}, ("query",)),
         _search, reads_index=True, configured_limit=True),
    Tool("locate_symbol", "Find where a symbol is defined, by name or qualified name (a::b, A.b); all "
         "definitions, best first.",
         _schema({"name": {"type": "string", "minLength": 1, "maxLength": MAX_NAME_CHARS},
                  "kind": {"type": "string", "enum": sorted(set(KIND_VALUES) | set(KIND_ALIASES))},
                  "role": _ROLE, "language": _LANG, "ref": _REF, **_RANKED}, ("name",)),
         _locate, reads_index=True, configured_limit=True),
    Tool("get_file_outline", "Nested symbol tree of one file (path relative to the repo root), without "
         "reading the file; a tree over the payload limit keeps its first symbols in line order.",
         _schema({"path": {"type": "string", "minLength": 1, "maxLength": 4096}, "ref": _REF,
                  "depth": {"type": "string", "enum": list(OUTLINE_DEPTHS), "default": "all"},
                  "language": _LANG}, ("path",)),
         _outline, reads_index=True, ignored_args=("language",)),
    Tool("find_references", "Who imports or calls a symbol: references (file:line), test code's apart by "
         "file, then the name's unresolved uses (resolved: false); several definitions in `path` grouped.",
         _schema({"symbol_name": {"type": "string", "minLength": 1, "maxLength": MAX_NAME_CHARS},
                  "path": {"type": "string", "maxLength": 4096,
                           "description": "Definition's file, to pick one of several (all of its "
                                          "definitions of the name, grouped)."},
                  "line": {"type": "integer", "minimum": 1,
                           "description": "With path: the definition at (or around) this line."},
                  "kind": {"type": "string", "enum": list(REFERENCE_KINDS)},
                  "limit": {"type": "integer", "minimum": 1, "maximum": 500, "default": 20,
                            "description": "Entries listed in each list; a test file's lines are one."}, "ref": _REF},
                 ("symbol_name",)),
         _refs, reads_index=True),
    Tool("health_check", "Server and index health: index, grammars, active job, prewarm, compatibility.",
         _schema({}), _health),
    Tool("index_status", "Index state of the project: counts, freshness, active and recent jobs.",
         _schema({"ref": _REF}), _status),
)}
