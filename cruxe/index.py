"""Full and incremental indexing, the job state machine, recovery of interrupted jobs.

The order of writes is the consistency protocol (see cruxe/store): for every batch of files,
Tantivy delete-by-file_key + add and commit, then one SQLite transaction that replaces the
files' relations and edges and ends with their manifest rows. A process killed anywhere
leaves the manifest holding the old hashes of whatever was in flight, so the next `sync`
re-indexes exactly those files, and delete-then-add makes that idempotent.
"""
from __future__ import annotations

import gc
import logging
import os
import sqlite3
import stat
import time
import uuid
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, replace
from enum import Enum
from operator import itemgetter
from pathlib import Path
from typing import Any, Callable, ContextManager, Iterable, Iterator, NamedTuple

from . import heap, vcs
from .config import cruxe_home, default_workers
from .errors import CruxeError
from .extract import EXTRACTION_VERSION, extract
from .jsonenc import to_json
from .languages import detect_language
from .model import FileExtract, FileResult, Parsed, Skipped, Unchanged, content_hash, file_key
from .procs import worker_pool
from .project import Project, init_project, is_working_tree_ref, open_project
from .scan import MAX_FILE_BYTES, SCAN_TIMEOUT_S, ScanEntry, looks_binary, scan
from .store import (SCHEMA_VERSION, Generation, branch_state, counts_in, disagreeing_files, extraction_version, forget_commit,
                    manifest, now_iso, overlay_info, ref_slug, save_extraction_version, save_overlay,
                    save_skipped_files, save_tree_state, storage_error, storage_kind, tree_clean)
from .store.edges import manifest_files, row_counts
from .store.writer import (FileEdges, GenerationWriter, build_documents, build_missing_indexes,  # noqa: F401 - build_documents: re-exported
                           build_symbol_indexes, clear_generation, crash_point, defer_edge_indexes,
                           defer_symbol_indexes, edges_deferred, flush_spool, orphan_paths, record_unconfirmed)

log = logging.getLogger(__name__)

# files per Tantivy commit + SQLite transaction: partial results appear batch by batch
# (CRUXE_INDEX_BATCH_FILES lowers it, e.g. for crash tests that need many commit points)
BATCH_FILES = 500
BATCH_BYTES = 12 << 20  # ... or this many source bytes, whichever comes first
# batches handed to the parser workers before the one being written: with one, a worker that
# finished its share of the next batch waited for the writer to collect it (docs/BENCHMARKS.md)
AHEAD = 2
INLINE_MAX_FILES = 150  # fewer changed files than this are parsed in-process (no pool start-up)
# The parser workers' first garbage-collector threshold (CPython's default: 700). Extraction
# allocates millions of short-lived containers (tree-sitter nodes, reference tuples) that
# reference counting frees, and at 700 the collector's passes over them were a measurable
# share of the workers' time (docs/BENCHMARKS.md). Cycles are still collected, only in
# larger steps.
WORKER_GC_THRESHOLD = 10_000
# a first build of at least this many files builds its edge indexes at the end
# (CRUXE_INDEX_BULK_MIN_FILES changes it, e.g. for tests of a bulk build on a few files)
BULK_MIN_FILES = 1000
# ... and keeps up to this many edges in memory until they are resolved (bounds the memory)
SPOOL_MAX_EDGES = 2_000_000
# A file modified this recently may be modified again within the same mtime tick (coarse
# kernel clocks, 2 s on FAT), with the same size: the size+mtime fast path would then miss
# it. Such a file's manifest row gets no mtime, so the next sync hashes it once more.
RACY_NS = 2_000_000_000
# how long an overlay's job waits for a job writing its base before it refuses (`_wait_for_base`)
BASE_WAIT_S = 60.0

Progress = Callable[[int, int, str], None]


@dataclass(frozen=True, slots=True)
class WorkItem:
    repo: str
    ref: str
    path: str
    abs_path: str
    size: int
    mtime_ns: int
    language: str | None
    old_hash: str | None
    root: str | None = None  # the resolved repository root: the file must still be inside it when read


# ---- worker side: bytes -> ready-to-write documents and rows ----------------------------------

def process_file(item: WorkItem) -> FileResult:
    """Read, hash, extract and build every document/row for one file. Runs in a worker."""
    try:
        data = read_confined(item)
    except OSError as e:
        return Skipped(item.path, f"{item.path}: unreadable ({e.strerror}); skipped")
    if data is None:
        return Skipped(item.path, f"{item.path}: symlink points outside the repository or not a regular file; skipped")
    if looks_binary(data):
        return Skipped(item.path, f"{item.path}: binary content; skipped")
    digest = content_hash(data)
    mtime_ns = -1 if time.time_ns() - item.mtime_ns < RACY_NS else item.mtime_ns
    if digest == item.old_hash:
        return Unchanged(item.path, len(data), mtime_ns)
    if item.language:
        fx = extract(item.path, data, item.language)
    else:
        fx = FileExtract(item.path, "")
    text = data.decode("utf-8", "replace")
    return Parsed(item.path, digest, len(data), mtime_ns, item.language, build_documents(item, fx, text))


def read_confined(item: WorkItem) -> bytes | None:
    """The file's bytes, or None when it no longer is a regular file inside the repository.
    The scan checked it, but it may since have been swapped for a symlink out of the tree
    (or a FIFO): resolve again, then open component by component without following links,
    so no swap between the check and the open can lead outside."""
    if item.root is None:
        with open(item.abs_path, "rb") as f:
            return f.read()
    real = os.path.realpath(item.abs_path)
    if not real.startswith(item.root + os.sep):
        return None
    parts = real[len(item.root) + 1:].split(os.sep)
    fd = os.open(item.root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for part in parts[:-1]:
            fd, parent = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd), fd
            os.close(parent)
        fd, parent = os.open(parts[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=fd), fd
        os.close(parent)
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        with os.fdopen(fd, "rb") as f:
            fd = -1  # the file object owns it now
            return f.read()
    finally:
        if fd >= 0:
            os.close(fd)


# ---- the job ---------------------------------------------------------------------------------

@dataclass(slots=True)
class JobReport:
    job_id: str
    status: str
    mode: str
    ref: str
    generation: int
    files_scanned: int = 0
    changed_files: int = 0
    deleted_files: int = 0
    unchanged_files: int = 0
    symbol_count: int = 0
    file_count: int = 0
    warnings: list[str] | None = None
    skipped: list[str] | None = None  # problems of files left out (kept for doctor)
    duration_ms: int = 0
    recovered_jobs: list[dict[str, Any]] | None = None

    def to_dict(self) -> dict[str, Any]:
        d = {k: getattr(self, k) for k in self.__slots__}
        d["warnings"] = (self.warnings or [])[:50]
        d["skipped"] = (self.skipped or [])[:50]
        d["warning_count"] = len(self.warnings or [])
        d["recovered_jobs"] = self.recovered_jobs or []
        return d


def run_index(path: str | Path, *, force: bool = False, ref: str | None = None,
              workers: int | None = None, home: Path | None = None, max_file_bytes: int = MAX_FILE_BYTES,
              progress: Progress | None = None, job_id: str | None = None,
              scan_timeout_s: float = SCAN_TIMEOUT_S) -> JobReport:
    """Index a repository: full on first run or with `force`, incremental otherwise.

    Raises CruxeError(index_in_progress) when another writer holds project+ref, and says so
    when the disk under $CRUXE_HOME is full or takes no writes (`store.storage_error`).
    """
    heap.limit_arenas()
    try:
        return _run_index(path, force, ref, workers, home, max_file_bytes, progress, job_id, scan_timeout_s)
    except (OSError, sqlite3.Error, ValueError) as e:
        where = Path(home) if home is not None else cruxe_home()
        if storage_kind(e, where) is None:
            raise
        raise storage_error(e, where, "indexing failed") from e


def _run_index(path: str | Path, force: bool, ref: str | None, workers: int | None, home: Path | None,
               max_file_bytes: int, progress: Progress | None, job_id: str | None,
               scan_timeout_s: float) -> JobReport:
    if force:  # the repair must work even when state.db, or the store's layout, is what broke
        broken = open_project(path, home)
        broken.store.clear_the_way(ref or broken.default_ref())
        broken.store.quarantine_state()
    project, _ = init_project(path, home)
    ref = ref or project.default_ref()
    store = project.store
    with store.writer_lock(ref):
        store.remove_unpublished(ref)
        recovered = store.recover_interrupted(ref, holding_lock=True)
        source = _source(project, ref, max_file_bytes)
        # an overlay where a whole index is published (or the reverse, or another base): a new
        # generation, published when complete, never a mix of the two in place
        force = force or _storage_changed(store, ref, source.overlay)
        report = _run_locked(source.project, ref, force=force, workers=workers, progress=progress,
                             job_id=job_id or uuid.uuid4().hex[:16], recovered=recovered,
                             max_file_bytes=max_file_bytes, scan_timeout_s=scan_timeout_s, source=source)
    _drop_stale_exports(project, ref)
    return report


def _drop_stale_exports(project: Project, ref: str) -> None:
    """Remove the exports (`trees/<ref>`) no job can use again: of a ref git no longer has (a
    deleted branch: it cannot be synced, while its index stays queryable) or whose index is gone.
    Each under its ref's writer lock; one a job holds is left for a later job."""
    store = project.store
    slugs = store.exported_slugs()
    if not slugs:
        return
    names = {ref_slug(r): r for r in store.known_refs()}
    for slug in slugs:
        name = names.get(slug)
        if name == ref:
            continue
        if name is None or not store.ref_dir(name).is_dir() or vcs.resolve_ref(project.root, name) is None:
            if store.remove_export(name or slug):
                log.info("removed the export of %s: no job can use it again", name or slug)


@dataclass(frozen=True, slots=True)
class Source:
    """Where a job reads its files, and how the ref is stored (`_source`)."""

    project: Project  # its root: the working tree, or the export of the ref's commit
    pinned: str | None = None  # the commit an export holds
    overlay: dict[str, Any] | None = None  # `store.save_overlay`'s record: the ref is an overlay
    note: str | None = None  # why a ref not checked out is a whole index instead


def _source(project: Project, ref: str, max_file_bytes: int) -> Source:
    """Where a job reads its files: the working tree for the ref checked out (or `live`); for
    any other ref, its commit's files exported from git's objects into the store (never the
    working tree, which holds another ref's code), with that commit pinned. Such a ref is an
    overlay on the default branch's index when that index can be one's base (`_overlay_plan`):
    only the files that differ from the base are exported and indexed."""
    if is_working_tree_ref(project, ref) or vcs.git_dir(project.root) is None:
        return Source(project)  # without git, any name the library is given holds the working tree
    commit = vcs.resolve_ref(project.root, ref)
    if commit is None:
        raise CruxeError("invalid_input", f"ref {ref!r} is not a branch, tag or commit of this repository",
                         {"field": "ref", "remedy": "Pass a branch, tag or commit id, or leave ref out."})
    try:
        listing = vcs.tree_files(project.root, commit, max_file_bytes)
        overlay, note = _overlay_plan(project, ref, commit, listing, max_file_bytes)
        # an overlay's export: the files that differ, and the ignore files the scan applies to them
        only = None if overlay is None else {*overlay["paths"], *filter(_shapes_scan, listing)}
        tree = vcs.export_commit(project.root, commit, project.store.export_dir(ref), max_file_bytes,
                                 only=only, listing=listing)
    except vcs.ExportError as e:
        raise CruxeError("invalid_input", f"cannot read ref {ref!r} from git's objects: {e}",
                         {"field": "ref", "remedy": f"Check the ref out (`git switch {ref}`) and index it there, "
                                                    "or install git."}) from e
    return Source(replace(project, root=tree), commit, overlay, note)


def _shapes_scan(path: str) -> bool:
    """A file that decides which other files a scan admits (ignore files, the repository's config)."""
    return path.rsplit("/", 1)[-1] == ".gitignore" or path in (".cruxeignore", ".cruxe/config.toml")


def _overlay_plan(project: Project, ref: str, commit: str, listing: dict[str, str],
                  max_file_bytes: int) -> tuple[dict[str, Any] | None, str | None]:
    """(the overlay record, None) when `ref` can be stored as an overlay on the default branch's
    index, else (None, why not). The base must be a complete index of one commit's files (a
    clean tree, no job writing it): the overlay holds every path whose file differs between that
    commit and the ref's, so base plus overlay is the ref's content even where the default
    branch moved on since the merge-base."""
    base_ref = vcs.default_branch(project.root)
    if base_ref is None:
        return None, "no default branch (origin/HEAD, main or master) to be the base of an overlay"
    if base_ref == ref:
        return None, None  # the base itself
    _wait_for_base(project.store, base_ref)
    base, bs, why = _usable_base(project, base_ref)
    if base is None:
        return None, why
    base_commit = bs["last_indexed_commit"]
    merge_base = vcs.merge_base(project.root, base_commit, commit)
    if merge_base is None:
        return None, f"no merge-base with the base {base_ref!r}: this ref is a whole index"
    try:
        paths = vcs.changed_files(vcs.tree_files(project.root, base_commit, max_file_bytes), listing)
    except vcs.ExportError:
        return None, f"the base's commit {base_commit[:12]} cannot be read: this ref is a whole index"
    if any(_shapes_scan(p) for p in paths):
        return None, "the ref's ignore files or config differ from the base's: this ref is a whole index"
    return {"base_ref": base_ref, "base_commit": base_commit, "base_generation": base.number,
            "base_cursor": int(bs.get("cursor") or 0), "base_indexed_at": bs.get("last_indexed_at"),
            "merge_base": merge_base, "commit": commit, "paths": paths}, None


def _usable_base(project: Project, base_ref: str) -> tuple[Generation | None, dict[str, Any], str | None]:
    """(the base's published generation, its branch state, None) when it is a complete index of
    one commit's files, by this version's extractors; else (None, {}, why not)."""
    store = project.store
    try:
        base = store.current_generation(base_ref)
        usable = (base is not None and base.schema_version() == SCHEMA_VERSION and overlay_info(base) is None
                  and extraction_version(base) == EXTRACTION_VERSION)  # one extractor's rows per answer
        bs = (branch_state(base, project.id, base_ref) or {}) if usable else {}
    except (CruxeError, sqlite3.DatabaseError):
        base, bs = None, {}
    if not bs.get("complete") or not bs.get("last_indexed_commit") or not tree_clean(base):
        return None, {}, (f"the base {base_ref!r} has no complete index of a commit's files (not indexed, or "
                          "indexed with uncommitted edits): this ref is a whole index")
    return base, bs, None


def _becomes_overlay(project: Project, ref: str) -> bool:
    """Whether a job on `ref` would store it as an overlay, as far as it can be told without
    listing both commits (`_overlay_plan`): a ref not checked out, another than the default
    branch, whose index is a usable base with a merge-base (a job writing the base is waited
    for). Not told: ignore files that differ from the base's (the job makes a whole index)."""
    if is_working_tree_ref(project, ref) or vcs.git_dir(project.root) is None:
        return False
    base_ref = vcs.default_branch(project.root)
    commit = vcs.resolve_ref(project.root, ref)
    if base_ref is None or base_ref == ref or commit is None:
        return False
    base, bs, _ = _usable_base(project, base_ref)
    return base is not None and vcs.merge_base(project.root, bs["last_indexed_commit"], commit) is not None


def _wait_for_base(store, base_ref: str) -> None:
    """Wait for a job writing the base to end (a half-written base is no base, and a whole index
    built meanwhile would be rebuilt as an overlay at the next sync: a full index each way);
    past BASE_WAIT_S, refuse as busy, naming the base."""
    deadline = time.monotonic() + BASE_WAIT_S
    while store.writer_active(base_ref):
        if time.monotonic() > deadline:
            raise CruxeError("index_in_progress", f"the base {base_ref!r} of this ref is being indexed",
                             {"ref": base_ref, "remedy": "Retry once the base's job has finished (index_status)."})
        time.sleep(0.1)


def _storage_changed(store, ref: str, overlay: dict[str, Any] | None) -> bool:
    """Whether the published generation is stored otherwise than `overlay` says (an overlay and
    a whole index, or overlays on two bases). An unreadable one is the job's to find."""
    try:
        live = store.current_generation(ref)
        current = overlay_info(live) if live is not None else None
    except (CruxeError, sqlite3.DatabaseError):
        return False
    if live is None:
        return False
    return (current is None) != (overlay is None) or (current is not None and current["base_ref"] != overlay["base_ref"])


class BuildKind(Enum):
    """What a job builds, chosen once (`choose_kind`) before any work."""

    FIRST = "first"  # the ref has no published generation: one is built and published at once,
    #                  so partial results appear batch by batch
    REBUILD = "rebuild"  # `--force`, or a published generation that cannot be opened: a new one
    #                      is built beside it and published at the end
    SYNC = "sync"  # the live generation is brought up to date in place


def choose_kind(force: bool, published: bool, live: Generation | None) -> BuildKind:
    """`published`: the ref has a generation number; `live`: that generation, opened (None:
    it is missing). A live generation of another schema version fails the job unless forced."""
    if force:
        return BuildKind.REBUILD
    if not published:
        return BuildKind.FIRST
    if live is None:
        return BuildKind.REBUILD
    if live.schema_version() != SCHEMA_VERSION:
        _incompatible(live)
    return BuildKind.SYNC


@dataclass(frozen=True, slots=True)
class IndexPlan:
    """Everything a job decides before its first write (`plan_index`)."""

    kind: BuildKind
    todo: list[WorkItem]  # files to read and hash, and to parse when their hash moved
    deleted: list[str]  # manifest paths the scan no longer finds
    unchanged: int  # files the size+mtime fast path leaves alone
    bulk: bool  # an empty generation filled with many files: symbol and edge indexes built at the end
    spool: bool  # ... and its edges kept in memory until they are resolved, then inserted resolved
    parsers: int  # parser processes (0: parse in this process)

    @property
    def resolution(self) -> str:
        """How the edges resolve: "spool" (a bulk build's edges, from memory, `resolve.resolve_spool`)
        or "table" (the pending rows and dirty names, `resolve.resolve_edges`)."""
        return "spool" if self.spool else "table"


def plan_index(kind: BuildKind, repo: str, ref: str, root: str, files: list[ScanEntry],
               old: dict[str, tuple[str, int, int]], workers: int | None, bulk_min_files: int) -> IndexPlan:
    """The job's plan, from what the scan found (`files`) and the manifest (`old`: path ->
    (hash, size, mtime_ns)); pure, but for the CPU count (`config.default_workers`).
    `bulk_min_files`: see BULK_MIN_FILES."""
    seen = {f.path for f in files}
    todo = [WorkItem(repo, ref, f.path, f.abs_path, f.size, f.mtime_ns, f.language,
                     old[f.path][0] if f.path in old else None, root)
            for f in files if _maybe_changed(f, old.get(f.path))]
    bulk = not old and len(todo) >= bulk_min_files
    n = default_workers(workers)
    return IndexPlan(kind, todo, sorted(p for p in old if p not in seen), len(files) - len(todo), bulk, bulk,
                     0 if len(todo) < INLINE_MAX_FILES or n <= 1 else n)


def _bulk_min_files() -> int:
    """BULK_MIN_FILES, or the test knob CRUXE_INDEX_BULK_MIN_FILES (read per job)."""
    return int(os.environ.get("CRUXE_INDEX_BULK_MIN_FILES", BULK_MIN_FILES))


def _batch_files() -> int:
    """BATCH_FILES, or the test knob CRUXE_INDEX_BATCH_FILES (read per job)."""
    return int(os.environ.get("CRUXE_INDEX_BATCH_FILES", BATCH_FILES))


def _run_locked(project: Project, ref: str, *, force: bool, workers: int | None,
                progress: Progress | None, job_id: str, recovered: list[dict[str, Any]],
                max_file_bytes: int, scan_timeout_s: float, source: Source | None = None) -> JobReport:
    store = project.store
    t0 = time.monotonic()
    kind, live = _kind(store, ref, force)
    gen = live if kind is BuildKind.SYNC else store.create_generation(ref)
    if kind is not BuildKind.SYNC:
        save_extraction_version(gen, EXTRACTION_VERSION)
    if kind is BuildKind.FIRST:
        store.publish_generation(ref, gen.number)  # partial results as batches land
    job_mode = "incremental" if kind is BuildKind.SYNC else "full"
    store.create_job(job_id, ref, job_mode, gen.number)
    report = JobReport(job_id, "running", job_mode, ref, gen.number, warnings=[], recovered_jobs=recovered)
    try:
        _index_into(project, gen, kind, report, workers, progress, max_file_bytes, scan_timeout_s, source)
        store.update_job(job_id, status="validating")
        _validate(project, gen, ref, report, rebuild=kind is not BuildKind.SYNC, pinned=source and source.pinned)
        if source is not None and source.overlay is not None:  # its files follow this base state now
            save_overlay(gen, {**source.overlay, **_merged_counts(store, gen, project.id, ref, source.overlay)},
                         source.note)
        if kind is BuildKind.REBUILD:
            store.publish_generation(ref, gen.number)
        report.status = "published"
        report.duration_ms = int((time.monotonic() - t0) * 1000)
        store.update_job(job_id, status="published", finished_at=now_iso(), duration_ms=report.duration_ms,
                         changed_files=report.changed_files, deleted_files=report.deleted_files,
                         symbol_count=report.symbol_count, warning_count=len(report.warnings or []))
        return report
    except BaseException as e:
        msg = e.message if isinstance(e, CruxeError) else f"{type(e).__name__}: {e}"
        status = "interrupted" if isinstance(e, KeyboardInterrupt) else "failed"
        if status == "failed" and kind is BuildKind.REBUILD:
            status = "rolled_back"  # the new generation is dropped; readers keep the live one
        try:
            store.update_job(job_id, status=status, finished_at=now_iso(), error=msg,
                             duration_ms=int((time.monotonic() - t0) * 1000))
        except Exception:  # noqa: BLE001 - the original error matters more
            log.debug("could not record job failure", exc_info=True)
        if kind is BuildKind.REBUILD:
            store.gc_generations(ref, keep=store.current_generation_number(ref) or -1)
        raise


def _merged_counts(store, gen: Generation, repo: str, ref: str, overlay: dict[str, Any]) -> dict[str, Any]:
    """The ref's file and symbol counts, base and overlay merged (the base's less those of the
    paths the overlay shadows, plus the overlay's own), for index_status: counted once here, as
    the job ends, not at every query. {} when the base's generation is gone."""
    base = store.read_only_generation(overlay["base_ref"], int(overlay.get("base_generation") or 0))
    if base is None:
        return {}
    try:
        bs = branch_state(base, repo, overlay["base_ref"]) or {}
        files, symbols = counts_in(base, repo, overlay["base_ref"], list(overlay["paths"]))
    finally:
        base.close()
    own = branch_state(gen, repo, ref) or {}
    return {"ref_file_count": (bs.get("file_count") or 0) - files + (own.get("file_count") or 0),
            "ref_symbol_count": (bs.get("symbol_count") or 0) - symbols + (own.get("symbol_count") or 0)}


def _kind(store, ref: str, force: bool) -> tuple[BuildKind, Generation | None]:
    """The job's build kind and, for a SYNC, the live generation it writes into."""
    if force:  # nothing of the live generation is read: it may be what broke
        return choose_kind(True, True, None), None
    live = store.current_generation(ref)
    kind = choose_kind(False, store.current_generation_number(ref) is not None, live)
    if kind is BuildKind.SYNC and extraction_version(live) != EXTRACTION_VERSION:
        log.info("ref %s was indexed by other extractors (version %s, now %s): rebuilding it beside the live index",
                 ref, extraction_version(live), EXTRACTION_VERSION)
        kind = BuildKind.REBUILD
    return kind, live if kind is BuildKind.SYNC else None


def job_mode(project: Project, ref: str, force: bool) -> str:
    """What a job on `ref` will do, as `_kind` decides: "full" or "incremental" (for the answer
    that starts it: a ref written by other extractors is rebuilt, not synced; so is one whose
    storage changes, an overlay and a whole index, as `_storage_changed` decides)."""
    store = project.store
    try:
        kind, live = _kind(store, ref, force)
        if kind is BuildKind.SYNC and (overlay_info(live) is not None) != _becomes_overlay(project, ref):
            return "full"
    except CruxeError:  # a live index of another schema: the job itself fails and says why
        return "incremental"
    return "incremental" if kind is BuildKind.SYNC else "full"


def _index_into(project: Project, gen: Generation, kind: BuildKind, report: JobReport, workers: int | None,
                progress: Progress | None, max_file_bytes: int, scan_timeout_s: float = SCAN_TIMEOUT_S,
                source: Source | None = None) -> None:
    """`source`: where `project.root` came from (`_source`; None: the working tree)."""
    store, repo, ref = project.store, project.id, report.ref
    source = source or Source(project)
    pinned = source.pinned  # the commit whose exported files `project.root` holds
    _repair(gen, repo, ref, report, store)
    # first: readers merge by the new paths from the first batch on (a FIRST generation is read at
    # once); but with no base write count, so that a job killed before its files land leaves the
    # overlay stale, never fresh on a base state its files do not follow yet (written at the end)
    save_overlay(gen, source.overlay and {**source.overlay, "base_cursor": None}, source.note)
    # before the scan: the commit the files read next are (an export is its pinned commit's)
    checkout = None if pinned else vcs.checkout_state(project.root)
    scanned = scan(project.root, max_file_bytes, scan_timeout_s)
    report.warnings.extend(scanned.warnings)
    report.skipped = list(scanned.warnings)
    report.files_scanned = len(scanned.files)
    plan = plan_index(kind, repo, ref, str(project.root), scanned.files, manifest(gen, repo, ref), workers,
                      _bulk_min_files())
    report.unchanged_files = plan.unchanged
    store.update_job(report.job_id, files_total=len(plan.todo), deleted_files=len(plan.deleted))
    record_unconfirmed(gen.db, [i.path for i in plan.todo if i.old_hash is None])  # before any Tantivy write
    if plan.bulk:
        defer_edge_indexes(gen.db, spool=plan.spool)
        defer_symbol_indexes(gen.db)
    else:
        build_missing_indexes(gen.db)
    commit = pinned or (checkout[1] if checkout else None)
    with _parser_pool(plan.parsers) as pool:
        writer = _writer(gen, repo, ref)
        try:
            spool = _write_all(writer, store, plan, pool, report, progress, commit, workers)
        finally:
            writer.close()
        heap.trim()
        record_unconfirmed(gen.db, ())  # every batch's manifest rows are committed
        save_skipped_files(gen, report.skipped)
        dirty, complete = (frozenset(), True) if pinned else (
            _dirty_paths(project, gen, ref) if checkout is not None else (None, False))
        moved = checkout is not None and vcs.checkout_state(project.root) != checkout
        if moved:  # a checkout during the job: any file may be either side's, as git's index now agrees
            dirty = frozenset(manifest(gen, repo, ref))
        save_tree_state(gen, scanned.dir_mtimes, clean=dirty is not None and not dirty and complete, dirty=dirty)
        if moved:
            forget_commit(gen, repo, ref)
    if spool is None:
        _resolve_table(gen, repo, ref, plan.bulk, workers, store)
    counts = branch_state(gen, repo, ref)
    report.file_count, report.symbol_count = (counts["file_count"], counts["symbol_count"]) if counts else (0, 0)


def _dirty_paths(project: Project, gen: Generation, ref: str) -> tuple[frozenset[str] | None, bool]:
    """The indexed files not known to be HEAD's commit's (changed since they were read, or not as
    git's index recorded them: an edit since the last checkout, add or commit; an untracked file),
    and whether every tracked source file was there to index. (None, False) when git's index
    cannot be read. Another ref's index built from a tree with such files is stale once that ref
    is no longer checked out, and their hits are withheld then (`freshness.index_state`: they may
    be another branch's edits, carried across a switch). A change staged with `git add` but not
    committed, which git's index records as on disk, is found by comparing that index with HEAD
    (`vcs.staged_paths`)."""
    tracked = vcs.index_stats(project.root)
    staged = vcs.staged_paths(project.root) if tracked is not None else None
    if tracked is None or staged is None:
        return None, False
    root = str(project.root)
    files = manifest(gen, project.id, ref)
    dirty = set()
    for path, (_, size, mtime) in files.items():
        try:
            st = os.lstat(os.path.join(root, path))
        except OSError:
            dirty.add(path)
            continue
        now = (st.st_size & 0xFFFFFFFF, st.st_mtime_ns)  # git keeps a size's low 32 bits
        if (path in staged or tracked.get(path) != now or st.st_size != size
                or (mtime > 0 and st.st_mtime_ns != mtime)):
            dirty.add(path)
    complete = not any(detect_language(p) and not os.path.lexists(os.path.join(root, p))
                       for p in tracked.keys() - files.keys())
    return frozenset(dirty), complete


def _repair(gen: Generation, repo: str, ref: str, report: JobReport, store) -> None:
    """What an interrupted job left, before anything else is written."""
    _drop_orphans(gen, repo, ref)
    if edges_deferred(gen.db):
        _start_over(gen, repo, ref, report)
        report.mode = "full"  # everything is indexed again, whatever the job was asked to do
        store.update_job(report.job_id, mode="full")


def _write_all(writer: GenerationWriter, store, plan: IndexPlan, pool: ProcessPoolExecutor | None,
               report: JobReport, progress: Progress | None, commit: str | None,
               workers: int | None) -> list[FileEdges] | None:
    """The deletions, then the batches; a bulk build's spooled edges are resolved as soon as
    the last batch is committed. Returns the spool when it was resolved here, else None (the
    edges wait in the table)."""
    if plan.deleted or not plan.todo:
        for p in plan.deleted:
            writer.delete_file_docs(file_key(writer.repo, writer.ref, p))
        writer.commit_tantivy()
        writer.commit_sqlite(plan.deleted, [], [], [], [], {"commit": commit, "complete": not plan.todo})
        report.deleted_files = len(plan.deleted)
    spool = _write_batches(writer, store, plan.todo, pool, report, progress, commit, [] if plan.spool else None)
    if spool is not None:
        heap.trim()
        # imported here, as below: parser workers never load the resolver
        from .refs.resolve import resolve_spool
        with _under(store, writer.gen) as under:
            resolve_spool(writer.gen, writer.repo, writer.ref, spool, workers, under=under)
    return spool


def _resolve_table(gen: Generation, repo: str, ref: str, bulk: bool, workers: int | None, store) -> None:
    """Resolve the edges the batches left pending (also after a crashed job: the work list
    lives in the index); a bulk build builds its symbol indexes first, its edge indexes after."""
    if bulk:
        build_symbol_indexes(gen.db)
    from .refs import resolve_edges
    with _under(store, gen) as under:
        resolve_edges(gen, repo, ref, build_indexes=bulk, workers=workers, under=under)


@contextmanager
def _under(store, gen: Generation) -> Iterator[Any]:
    """The base an overlay's edges resolve over (`refs.resolve.Under`): the generation its
    record (written at the job's start) names, opened read only and closed after; None for a
    whole index, or when that generation is gone (the overlay's uses of base definitions stay
    unresolved, and the next job, on a base that is there, resolves every edge again)."""
    info = overlay_info(gen)
    base = None if info is None else store.read_only_generation(info["base_ref"],
                                                                 int(info.get("base_generation") or 0))
    if base is None:
        yield None
        return
    from .refs.resolve import Under
    state = f"{base.number}:{info.get('base_commit')}:{info.get('base_indexed_at')}"
    try:
        yield Under(base, info["base_ref"], frozenset(info["paths"]), state)
    finally:
        base.close()


def _writer(gen: Generation, repo: str, ref: str) -> GenerationWriter:
    from .refs.dirty import dirty_names
    return GenerationWriter(gen, repo, ref, threads=1, dirty_names=dirty_names)


def _validate(project: Project, gen: Generation, ref: str, report: JobReport, rebuild: bool,
              pinned: str | None = None) -> None:
    """Before a job publishes: every file's documents must agree with its manifest row
    (`store.disagreeing_files`, cheap beside the job), and the totals of SQLite and Tantivy
    must agree. Files that disagree are indexed again (`_reindex`); a disagreement that
    survives that fails the job with the files named and the remedy."""
    bad = disagreeing_files(gen, project.id, ref)
    if bad:
        _reindex(project, gen, ref, report, list(bad), pinned)
        bad = disagreeing_files(gen, project.id, ref)
    problem = validate_generation(gen, project.id, ref)
    if not bad and not problem:
        return
    detail = problem or f"{len(bad)} file(s) whose documents disagree with the manifest: {', '.join(list(bad)[:10])}"
    if rebuild:  # the live generation is kept: a bug, or a disk that lost writes
        raise CruxeError("internal_error", f"index validation failed: {detail}", {"job_id": report.job_id})
    raise CruxeError("index_incompatible", f"index validation failed and re-indexing the files involved did not "
                     f"repair it: {detail}", {"job_id": report.job_id, "schema_status": "corrupt_manifest",
                                              "remediation": "cruxe index --force"})


def _reindex(project: Project, gen: Generation, ref: str, report: JobReport, paths: list[str],
             pinned: str | None = None) -> None:
    """Index `paths` again, whatever their hashes say: delete all their documents by file key
    and add them afresh, replace their rows (a path with no manifest row only loses its
    documents). What validation does with the files whose documents disagree with the manifest."""
    repo, root = project.id, str(project.root)
    rows = manifest_files(gen, repo, ref)
    orphans = [p for p in paths if p not in rows]
    if orphans:
        _delete_docs(gen, repo, ref, orphans)
    # old_hash "": never equal to a content hash (so the file is re-extracted), and not None
    # (so its SQLite rows are deleted before the new ones go in)
    todo = [WorkItem(repo, ref, p, os.path.join(root, p), rows[p].size, rows[p].mtime_ns, rows[p].language, "", root)
            for p in paths if p in rows]
    if todo:
        writer = _writer(gen, repo, ref)
        try:
            # an export's files are its pinned commit's (its directory is no git repository)
            commit = pinned or vcs.head_commit(project.root)
            _write_batches(writer, project.store, todo, None, report, None, commit, None)
        finally:
            writer.close()
        from .refs import resolve_edges
        with _under(project.store, gen) as under:
            resolve_edges(gen, repo, ref, build_indexes=False, workers=1, under=under)
    report.warnings.append(f"index validation: the documents of {len(paths)} file(s) disagreed with the manifest "
                           f"(an earlier job was interrupted); indexed them again: {', '.join(paths[:10])}")
    log.warning("%s", report.warnings[-1])


def validate_generation(gen: Generation, repo: str, ref: str) -> str | None:
    """Before a job publishes: SQLite and Tantivy must agree on what was indexed (a file
    document per manifest row, a symbol document per symbol row). Returns the mismatch."""
    files, symbols = row_counts(gen, repo, ref)
    tantivy_files = gen.searcher("files").num_docs
    tantivy_symbols = gen.searcher("symbols").num_docs
    if files != tantivy_files:
        return f"{files} files in the manifest, {tantivy_files} in the files index"
    if symbols != tantivy_symbols:
        return f"{symbols} symbols in SQLite, {tantivy_symbols} in the symbols index"
    return None


def _incompatible(gen: Generation) -> Generation:
    raise CruxeError("index_incompatible",
                     f"index schema version {gen.schema_version()} does not match {SCHEMA_VERSION}",
                     {"current_schema_version": gen.schema_version(), "required_schema_version": SCHEMA_VERSION,
                      "remediation": "cruxe index --force"})


def _drop_orphans(gen: Generation, repo: str, ref: str) -> None:
    """Delete the documents an earlier job killed between its Tantivy and SQLite commits left
    for new files that never got their manifest rows (`store.orphan_paths`), before anything
    else is written: the files may be gone since, and then no sync would ever delete them."""
    orphans = orphan_paths(gen.db)
    if not orphans:
        return
    _delete_docs(gen, repo, ref, orphans)
    log.info("deleted the documents of %d file(s) an interrupted job left without manifest rows", len(orphans))


def _start_over(gen: Generation, repo: str, ref: str, report: JobReport) -> None:
    """A bulk build died holding its edges (`store.defer_edge_indexes`): the files it indexed
    have none in the table. Forget them all, Tantivy first (a kill in between leaves the mark
    for the next job to find again), and index from scratch."""
    old = manifest(gen, repo, ref)
    _delete_docs(gen, repo, ref, old)
    clear_generation(gen.db)
    report.warnings.append(f"an earlier first index died before writing its references: started over "
                           f"({len(old)} files)")
    log.warning("%s", report.warnings[-1])


def _delete_docs(gen: Generation, repo: str, ref: str, paths: Iterable[str]) -> None:
    """Delete every document of `paths` from the three indices, in one Tantivy commit."""
    writer = _writer(gen, repo, ref)
    try:
        for path in paths:
            writer.delete_file_docs(file_key(repo, ref, path))
        writer.commit_tantivy()
    finally:
        writer.close()


def _write_batches(writer: GenerationWriter, store, todo: list[WorkItem], pool: ProcessPoolExecutor | None,
                   report: JobReport, progress: Progress | None, commit: str | None,
                   spool: list[FileEdges] | None) -> list[FileEdges] | None:
    """Write batch after batch, each in the crash-safe order (Tantivy commit, then one
    SQLite transaction), while the workers parse the next ones (`_process`): a batch's parsed
    data is dropped once written, so at most 1 + AHEAD are held, this one and those. With a
    `spool` (a bulk build) the edges are kept there instead, in the order the batches would
    have inserted them, up to SPOOL_MAX_EDGES: past that they go to the table pending and
    the build goes on without a spool. Returns the spool, or None."""
    repo, ref = writer.repo, writer.ref
    new_paths = frozenset(i.path for i in todo if i.old_hash is None)  # no SQLite rows to delete
    done = spooled = 0
    for batch_results in _process(todo, pool):
        _write_batch(writer, repo, ref, batch_results, report)
        done += len(batch_results)
        writer.commit_tantivy()
        rows = _rows(batch_results, report)
        del batch_results
        if spool is not None:
            spooled += sum(len(b.types) for _, b in rows.edges)
            if spooled > SPOOL_MAX_EDGES:  # the earlier batches' edges to the table; this one's follow
                flush_spool(writer.gen.db, spool)
                spool = None
            else:
                spool += sorted(rows.edges, key=itemgetter(0))
        writer.commit_sqlite(rows.gone, rows.files, rows.touched, rows.symbols, rows.edges,
                             {"commit": commit, "complete": done == len(todo)}, new_paths, spooled=spool is not None)
        crash_point("sqlite_commit")
        del rows
        heap.trim()
        store.update_job(report.job_id, files_done=done, symbol_count=report.symbol_count)
        if progress:
            progress(done, len(todo), "indexing")
    return spool


def _maybe_changed(f: ScanEntry, old: tuple[str, int, int] | None) -> bool:
    """Size+mtime fast path: only files whose size or mtime moved are hashed."""
    return old is None or old[1] != f.size or old[2] != f.mtime_ns


def _parser_pool(parsers: int) -> ContextManager[ProcessPoolExecutor | None]:
    """The job's `parsers` worker processes (tree-sitter holds the GIL while parsing), or None
    (0: the change is small enough to parse in this process, no pool start-up)."""
    if not parsers:
        return nullcontext(None)
    return worker_pool(parsers, "parser", initializer=_parser_worker_start)


def _parser_worker_start() -> None:
    """In each parser worker, before its first file (see WORKER_GC_THRESHOLD)."""
    gc.set_threshold(WORKER_GC_THRESHOLD, *gc.get_threshold()[1:])


def _process(todo: list[WorkItem], pool: ProcessPoolExecutor | None):
    """Yield lists of processed files, batch by batch, parsed in `pool` (None: here)."""
    batches = _batches(todo)
    if pool is None:
        for b in batches:
            yield [process_file(i) for i in b]
        return
    # the workers parse the next AHEAD batches while the caller writes this one
    ahead = [pool.map(process_file, b, chunksize=8) for b in batches[:AHEAD]]
    for i in range(len(batches)):
        done = list(ahead.pop(0))
        if i + AHEAD < len(batches):
            ahead.append(pool.map(process_file, batches[i + AHEAD], chunksize=8))
        yield done
        del done


def _batches(todo: list[WorkItem]) -> list[list[WorkItem]]:
    most = _batch_files()
    out: list[list[WorkItem]] = []
    cur: list[WorkItem] = []
    size = 0
    for item in todo:
        cur.append(item)
        size += item.size
        if len(cur) >= most or size >= BATCH_BYTES:
            out.append(cur)
            cur, size = [], 0
    if cur:
        out.append(cur)
    return out


def _write_batch(writer: GenerationWriter, repo: str, ref: str, results: list[FileResult],
                 report: JobReport) -> None:
    for r in results:
        if isinstance(r, Unchanged):
            continue
        # even for a file new to the manifest: a job killed between its Tantivy commit and its
        # SQLite commit left documents the manifest does not know
        writer.delete_file_docs(file_key(repo, ref, r.path))
        if isinstance(r, Parsed):
            writer.add_docs("symbols", r.docs.symbols)
            writer.add_docs("snippets", r.docs.snippets)
            writer.add_docs("files", [r.docs.file])


class BatchRows(NamedTuple):
    """What one batch's SQLite transaction writes (`GenerationWriter.commit_sqlite`)."""

    gone: list[str]  # skipped files: their rows go
    files: list[dict[str, Any]]  # manifest rows of the parsed files
    touched: list[tuple[str, int, int]]  # (path, size, mtime_ns) of the unchanged ones
    symbols: list  # store.SymbolRow
    edges: list[FileEdges]


def _rows(results: list[FileResult], report: JobReport) -> BatchRows:
    rows = BatchRows([], [], [], [], [])
    ts = now_iso()
    for r in results:
        if isinstance(r, Skipped):
            report.warnings.append(r.warning)
            report.skipped.append(r.warning)
            rows.gone.append(r.path)
        elif isinstance(r, Unchanged):
            # content identical, only mtime moved: refresh the manifest row, keep the data
            rows.touched.append((r.path, r.size, r.mtime_ns))
            report.unchanged_files += 1
        else:
            report.changed_files += 1
            report.warnings.extend(r.docs.warnings)
            rows.files.append(_manifest_row(r, ts))
            rows.symbols.extend(r.docs.symbol_rows)
            if r.docs.edges.types:
                rows.edges.append((r.path, r.docs.edges))
    return rows


def _manifest_row(r: Parsed, ts: str) -> dict:
    warnings = r.docs.warnings
    return {"path": r.path, "content_hash": r.content_hash, "size": r.size, "mtime_ns": r.mtime_ns,
            "language": r.language, "indexed_at": ts, "symbol_count": r.docs.symbol_count,
            "warnings": to_json(warnings) if warnings else None}
