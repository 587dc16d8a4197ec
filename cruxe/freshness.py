"""Freshness and compatibility from cheap signals only (no scan on the query path).

VCS mode: HEAD's commit, read from `.git`, against `branch_state.last_indexed_commit`.
Single-version (`live`) mode: the index is as fresh as its last completed job; an active
job makes it `syncing`. A writer holding the ref's lock means a job is in flight.
"""
from __future__ import annotations

import calendar
import os
import sqlite3
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, replace
from typing import Any

from . import vcs
from .errors import CruxeError
from .extract import EXTRACTION_VERSION
from .project import Project, is_working_tree_ref
from .store import (SCHEMA_VERSION, Generation, Overlay, Withheld, branch_state, dirty_paths, extraction_version, manifest,
                    overlay_info, paths_indexed_since, probe_tables, storage_note, tree_clean, tree_state)

POLICIES = ("strict", "balanced", "best_effort")


@dataclass(frozen=True, slots=True)
class IndexState:
    """Everything a query needs to know about the index before answering."""

    ref: str
    schema_status: str  # compatible | not_indexed | reindex_required | corrupt_manifest
    indexing_status: str  # not_indexed | indexing | ready | failed
    freshness_status: str  # fresh | stale | syncing
    complete: bool  # the last job finished (false while a first index is still landing)
    last_indexed_commit: str | None = None
    current_head: str | None = None
    last_indexed_at: str | None = None
    file_count: int = 0
    symbol_count: int = 0
    current_schema_version: int | None = None
    message: str | None = None
    cursor: int = 0  # the ref's write count: moves with every batch a job commits (an overlay's: with its base's too)
    storage: dict | None = None  # how a ref not checked out is stored (overlay on a base, or whole)
    # files whose hits are not answers on this ref: indexed while it was checked out, with edits
    # its commit does not have (another branch's, carried across a switch, or never committed)
    withheld: frozenset[str] = frozenset()

    def base_metadata(self) -> dict:
        return {"freshness_status": self.freshness_status, "indexing_status": self.indexing_status,
                "result_completeness": "complete" if self.complete and self.indexing_status == "ready"
                else "partial", "ref": self.ref, "schema_status": self.schema_status}


@dataclass(frozen=True, slots=True)
class Opened:
    """A ref's published generation as found: `gen` is None when there is none to read."""

    gen: Generation | Overlay | None  # an Overlay: the ref's overlay over its base's generation
    schema_status: str  # compatible | not_indexed | reindex_required | corrupt_manifest
    message: str | None = None  # why it is not compatible
    base_state: dict | None = None  # an overlay's: its base's branch state
    base_moved: bool = False  # an overlay's: its base is not the state it was built on
    writing: bool = False  # a job held the ref's writer lock when it was opened (`open_generation`)


def open_generation(project: Project, ref: str) -> Opened:
    """The ref's published generation and whether it can be read; never raises for a broken index.
    Whether a job is writing the ref is probed first: what is read next may be that job's
    unfinished work (an overlay's record before its last write), even when the job has ended by
    the time the state is checked, so `index_state` counts such a job as still running."""
    writing = project.store.writer_active(ref)
    return replace(_open(project, ref), writing=writing)


def _open(project: Project, ref: str) -> Opened:
    try:
        gen = project.store.current_generation(ref)
    except CruxeError as e:
        return Opened(None, "corrupt_manifest", e.message)
    if gen is None:
        return Opened(None, "not_indexed")
    version = gen.schema_version()
    if version is None:
        return Opened(None, "corrupt_manifest", "index.db has no readable schema version")
    if version != SCHEMA_VERSION:
        return Opened(gen, "reindex_required", f"index schema {version}, this cruxe needs {SCHEMA_VERSION}")
    try:
        info = overlay_info(gen)
    except (CruxeError, sqlite3.DatabaseError) as e:
        return Opened(None, "corrupt_manifest", getattr(e, "message", str(e)))
    if info is None:
        return Opened(gen, "compatible")
    base = open_generation(project, info["base_ref"]) if info["base_ref"] != ref else Opened(None, "not_indexed")
    if base.gen is None or base.schema_status != "compatible" or isinstance(base.gen, Overlay):
        # an overlay alone holds only what differs from its base: never an answer by itself
        return Opened(None, "not_indexed", f"ref {ref!r} is stored as an overlay on {info['base_ref']!r}, "
                      "whose index is missing or unreadable")
    bs = branch_state(base.gen, project.id, info["base_ref"]) or {}
    moved = _base_moved(project, info, base.gen, bs)
    hidden = paths_indexed_since(base.gen, project.id, info["base_ref"], info.get("base_indexed_at") or "") \
        if moved else ()
    return Opened(Overlay(gen, base.gen, info, hidden), "compatible", base_state=bs, base_moved=moved)


def index_state(project: Project, ref: str, opened: Opened | None = None,
                budget_s: float | None = None) -> IndexState:
    """`budget_s`: how long the check of the working tree's files may take (default
    PROBE_FILE_BUDGET_S, see below)."""
    opened = opened or open_generation(project, ref)
    gen, schema_status, message = opened.gen, opened.schema_status, opened.message
    active = opened.writing or project.store.writer_active(ref)
    if gen is None or schema_status != "compatible":
        return IndexState(ref, schema_status, "indexing" if active else
                          ("failed" if schema_status in ("corrupt_manifest", "reindex_required") else "not_indexed"),
                          "syncing" if active else "stale", False,
                          current_schema_version=gen.schema_version() if gen else None, message=message)
    try:
        bs = branch_state(gen, project.id, ref) or {}
    except CruxeError as e:
        return IndexState(ref, "corrupt_manifest", "failed", "stale", False, message=e.message)
    head = _ref_commit(project, ref)
    indexed = bs.get("last_indexed_commit")
    cursor = int(bs.get("cursor") or 0)
    if isinstance(gen, Overlay):
        cursor += int((opened.base_state or {}).get("cursor") or 0)  # what answers moves with either layer
    if active:
        freshness = "syncing"
    elif isinstance(gen, Overlay) and (is_working_tree_ref(project, ref) or opened.base_moved):
        freshness = "stale"  # checked out now (the working tree answers), or built on another base state
    elif head is not None and indexed != head:
        freshness = "stale"
    elif not bs.get("complete"):
        freshness = "stale"
    elif extraction_version(gen) != EXTRACTION_VERSION:
        freshness = "stale"  # written by other extractors: its next job rebuilds it (index.py)
    elif is_working_tree_ref(project, ref):
        edited = working_tree_changed(project, gen, bs, PROBE_FILE_BUDGET_S if budget_s is None else budget_s)
        freshness = "stale" if edited else "fresh"
    else:  # built when it was checked out: its files are its commit's only if the tree was clean
        freshness = "fresh" if tree_clean(gen) else "stale"
    withheld = _withheld(project, ref, gen, moved=bool(bs) and indexed is None and head is not None)
    complete = bool(bs.get("complete"))
    status = "indexing" if active else ("ready" if complete or bs else "not_indexed")
    files, symbols = bs.get("file_count") or 0, bs.get("symbol_count") or 0
    if isinstance(gen, Overlay):  # the ref's counts, base and overlay merged, as its last job counted them
        files, symbols = gen.info.get("ref_file_count", files), gen.info.get("ref_symbol_count", symbols)
    return IndexState(ref, "compatible", status, freshness, complete, indexed, head,
                      bs.get("last_indexed_at"), files, symbols,
                      SCHEMA_VERSION, cursor=cursor, storage=_storage(project, ref, gen, bs), withheld=withheld)


def _withheld(project: Project, ref: str, gen: Generation | Overlay, moved: bool) -> frozenset[str]:
    """A ref not checked out whose last job read files that were not its commit's (edits it
    lacks, or a checkout during the job): those files answer nothing on it (they may be another
    branch's now). The ref checked out, when its last job saw the checkout move (`moved`: no
    commit recorded while HEAD names one): the files not on disk as that job read them (it may
    have read them from the other checkout). An overlay's files come from git's objects: none."""
    if isinstance(gen, Overlay) or tree_clean(gen):
        return frozenset()
    if is_working_tree_ref(project, ref):
        return _not_as_read(project, ref, gen) if moved else frozenset()
    return dirty_paths(gen) or frozenset()


def _not_as_read(project: Project, ref: str, gen: Generation) -> frozenset[str]:
    """The indexed files whose size or mtime on disk is not the one stored, or that are gone,
    or that were stored without an mtime (read within 2 s of a write, as a checkout's files
    are: which version was read cannot be told). The rest are the working tree's files now,
    whichever checkout they were read in. A stat per indexed file, paid only by an index in
    this state (the next job, which `balanced` starts, records a commit again)."""
    root, unsure = str(project.root), set()
    for path, (_, size, mtime) in manifest(gen, project.id, ref).items():
        try:
            st = os.stat(os.path.join(root, path))
        except OSError:
            unsure.add(path)
            continue
        if mtime is None or mtime <= 0 or st.st_size != size or st.st_mtime_ns != mtime:
            unsure.add(path)
    return frozenset(unsure)


def _base_moved(project: Project, info: dict, base: Generation, bs: dict) -> bool:
    """Whether the base (`bs`: its branch state) is no longer what the overlay (`info`) was built
    against: another generation, write count or commit, or a job writing it. (The overlay's own
    commit is checked like any ref's; its merge-base stays an ancestor of the ref as long as that
    commit does not move.)"""
    if project.store.writer_active(info["base_ref"]) or base.number != info.get("base_generation"):
        return True
    commit = bs.get("last_indexed_commit")
    return int(bs.get("cursor") or 0) != info.get("base_cursor") or commit is None or commit != info.get(
        "base_commit")


def _storage(project: Project, ref: str, gen: Generation | Overlay, bs: dict) -> dict | None:
    """How a ref is stored, for index_status: an overlay (on which base, from which merge-base,
    how many paths it shadows, its own file and symbol counts), or a whole index with the reason
    a ref not checked out is not an overlay. None for the working tree's ref and the base itself."""
    if isinstance(gen, Overlay):
        info = gen.info
        return {"kind": "overlay", "base_ref": gen.base_ref, "base_commit": info.get("base_commit"),
                "merge_base": info.get("merge_base"), "shadowed_paths": len(info["paths"]),
                "file_count": bs.get("file_count") or 0, "symbol_count": bs.get("symbol_count") or 0,
                "note": "file_count and symbol_count here are the overlay's own (the files that differ from "
                        "the base); the ref's, base and overlay merged, are index_status's"}
    note = storage_note(gen)
    return {"kind": "whole", "reason": note} if note else None


# ---- edits on disk ----------------------------------------------------------------------------
# Each check stats every directory the last scan walked (an add, delete or rename moves its
# directory's mtime) and then as many indexed files as fit in PROBE_FILE_BUDGET_S, from where the
# last check stopped (an edit in place moves the file's size or mtime). So an added, deleted or
# renamed file is seen at the next query, an edit in place within a few queries on a large tree
# (every file once per ceil(files / files-per-check) queries). Not seen: an edit that keeps size
# and mtime (mtime set back by hand), a write to a file indexed within 2 s of its last write
# (stored without its mtime, see index.RACY_NS) in the second after the job published, and
# anything in an ignored directory.
# Figures in docs/BENCHMARKS.md ("Freshness").
PROBE_FILE_BUDGET_S = 0.001
PROBE_MAX_DIRS = 4096  # past this many, directories are rotated under the same budget
_PROBE_CACHE_SIZE = 8


class _TreeProbe:
    """What one published state of one ref looked like on disk, and where the last check stopped."""

    def __init__(self, root: str, dirs: dict[str, int], files: list[tuple[str, int, int]], indexed_ns: int):
        # A file read within 2 s of its last write is stored without its mtime (-1): it counts as
        # changed once its mtime is past the second after the publish (`indexed_ns` is that
        # second, rounded down): a write in the second around the publish is not seen (the
        # next one is), and a file written just before its index never reads as changed.
        self.racy_after_ns = indexed_ns + 1_000_000_000
        self.dirs = [(os.path.join(root, d) if d else root, m) for d, m in sorted(dirs.items())]
        self.files = [(os.path.join(root, p), size, mtime) for p, size, mtime in files]
        self.dir_at = self.file_at = 0
        self.changed = False
        self.lock = threading.Lock()

    def check(self, budget_s: float = PROBE_FILE_BUDGET_S) -> bool:
        with self.lock:
            if not self.changed:
                self.changed = self._dirs_moved() or self._files_moved(budget_s)
            return self.changed

    def _dirs_moved(self) -> bool:
        n = len(self.dirs)
        count = n if n <= PROBE_MAX_DIRS else PROBE_MAX_DIRS
        for k in range(count):
            path, mtime = self.dirs[(self.dir_at + k) % n]
            try:
                if os.stat(path).st_mtime_ns != mtime:
                    return True
            except OSError:
                return True
        self.dir_at = (self.dir_at + count) % n if n else 0
        return False

    def _files_moved(self, budget_s: float) -> bool:
        n = len(self.files)
        deadline = time.perf_counter() + budget_s
        for k in range(n):
            path, size, mtime = self.files[(self.file_at + k) % n]
            try:
                st = os.stat(path)
            except OSError:
                return True
            if st.st_size != size or (st.st_mtime_ns != mtime if mtime > 0 else st.st_mtime_ns > self.racy_after_ns):
                return True
            if k % 64 == 63 and time.perf_counter() > deadline:
                self.file_at = (self.file_at + k + 1) % n
                return False
        return False


_PROBES: OrderedDict[tuple[str, int], _TreeProbe] = OrderedDict()
_PROBES_LOCK = threading.Lock()


def working_tree_changed(project: Project, gen: Generation, bs: dict,
                         budget_s: float = PROBE_FILE_BUDGET_S) -> bool:
    """Whether files under the working tree changed since the ref's last published job (see
    above for what a check sees). False for an index that kept no directory state."""
    key = (str(gen.path), int(bs.get("cursor") or 0))
    with _PROBES_LOCK:
        probe = _PROBES.get(key)
        if probe is not None:
            _PROBES.move_to_end(key)
    if probe is None:
        dirs = tree_state(gen)
        if dirs is None:
            return False
        rows = manifest(gen, project.id, bs.get("ref") or "")
        files = [(p, size, mtime if mtime and mtime > 0 else -1) for p, (_, size, mtime) in sorted(rows.items())]
        probe = _TreeProbe(str(project.root), dirs, files, _epoch_ns(bs.get("last_indexed_at")))
        with _PROBES_LOCK:
            _PROBES[key] = probe
            while len(_PROBES) > _PROBE_CACHE_SIZE:
                _PROBES.popitem(last=False)
    return probe.check(budget_s)


def _epoch_ns(iso: str | None) -> int:
    """`store.now_iso`'s UTC second as nanoseconds since the epoch (0 when unknown: every file
    stored without its mtime then counts as changed)."""
    if not iso:
        return 0
    try:
        return int(calendar.timegm(time.strptime(iso, "%Y-%m-%dT%H:%M:%SZ"))) * 1_000_000_000
    except ValueError:
        return 0


def _ref_commit(project: Project, ref: str) -> str | None:
    """The commit `ref` names now: HEAD's for the working tree's ref, the ref's own otherwise
    (comparing another branch's index with HEAD called it stale whenever HEAD moved)."""
    if is_working_tree_ref(project, ref):
        return vcs.head_commit(project.root)
    return vcs.resolve_ref(project.root, ref)


def require_queryable(project: Project, ref: str) -> tuple[Generation | Overlay | Withheld, IndexState]:
    """The index to answer from (with the files it withholds left out: `store.Withheld`), or the
    canonical error for why there is none."""
    opened = open_generation(project, ref)
    gen, schema_status, message = opened.gen, opened.schema_status, opened.message
    state = index_state(project, ref, opened)
    if schema_status in ("reindex_required", "corrupt_manifest"):
        raise CruxeError("index_incompatible", message or f"index is {schema_status}",
                         {"schema_status": schema_status,
                          "current_schema_version": state.current_schema_version,
                          "required_schema_version": SCHEMA_VERSION,
                          "remediation": "cruxe index --force"})
    if gen is None:
        if state.indexing_status == "indexing":
            raise CruxeError("index_not_ready", "the first index of this ref is starting; retry shortly",
                             {"ref": ref})
        data: dict[str, Any] = {"ref": ref}
        if not is_working_tree_ref(project, ref):  # plain `cruxe index` indexes the checked-out ref
            data["remedy"] = f"Index it from git's objects: `cruxe index --ref {ref}` (or `index_repo` with ref)."
        raise CruxeError("index_not_ready", f"ref {ref!r} has not been indexed yet", data)
    try:
        probe_tables(gen)
    except sqlite3.DatabaseError as e:
        raise CruxeError("index_incompatible", f"index.db is unreadable: {e}",
                         {"schema_status": "corrupt_manifest", "remediation": "cruxe index --force"}) from e
    # the withheld files answer nothing: the store's reads across files leave them out
    return (Withheld(gen, state.withheld) if state.withheld else gen), state


def check_policy(state: IndexState, policy: str) -> bool:
    """Apply the freshness policy. Returns True when a background sync should start
    (balanced + stale); raises index_stale under strict."""
    if state.freshness_status != "stale":
        return False
    if policy == "strict":
        raise CruxeError("index_stale", "Index is stale: files or HEAD changed since the last index.",
                         {"last_indexed_commit": state.last_indexed_commit, "current_head": state.current_head,
                          "suggestion": "Call sync_repo to update the index before querying."})
    return policy == "balanced"
