"""Full and incremental indexing, the job state machine, recovery of interrupted jobs.

The order of writes is the consistency protocol (see cruxe/store): for every batch of files,
Tantivy delete-by-file_key + add and commit, then one SQLite transaction that replaces the
files' relations and edges and ends with their manifest rows. A process killed anywhere
leaves the manifest holding the old hashes of whatever was in flight, so the next `sync`
re-indexes exactly those files, and delete-then-add makes that idempotent.
"""
from __future__ import annotations

import gc
import json
import logging
import os
import sqlite3
import stat
import time
import uuid
from concurrent.futures import ProcessPoolExecutor
from contextlib import nullcontext
from dataclasses import dataclass
from operator import itemgetter
from pathlib import Path
from typing import Any, Callable, ContextManager, Iterable

from . import codetokens as ct
from . import heap, literals, vcs
from .config import cruxe_home, default_workers
from .errors import CruxeError
from .extract import extract
from .model import (EMPTY_EDGES, EdgeBlock, FileExtract, Reference, content_hash, file_key, symbol_content_hash, symbol_id,
                    symbol_stable_id, text_lines)
from .procs import worker_pool
from .project import Project, init_project, open_project
from .scan import MAX_FILE_BYTES, SCAN_TIMEOUT_S, ScanEntry, looks_binary, scan
from .store import (EDGE_TYPE_CODES, SCHEMA_VERSION, FileEdges, Generation, GenerationWriter, build_missing_indexes,
                    build_symbol_indexes, clear_generation, code_terms, crash_point, defer_edge_indexes,
                    defer_symbol_indexes, disagreeing_files, edges_deferred, flush_spool, folded_name, id_blob,
                    manifest, now_iso, orphan_paths, record_unconfirmed, save_skipped_files, save_tree_state, storage_error,
                    storage_kind)

log = logging.getLogger(__name__)

# files per Tantivy commit + SQLite transaction: partial results appear batch by batch
# (CRUXE_INDEX_BATCH_FILES lowers it, e.g. for crash tests that need many commit points)
BATCH_FILES = int(os.environ.get("CRUXE_INDEX_BATCH_FILES", "500"))
BATCH_BYTES = 12 << 20  # ... or this many source bytes, whichever comes first
# batches handed to the parser workers before the one being written: with one, a worker that
# finished its share of the next batch waited for the writer to collect it (Django+Salt with
# references: 15.5 -> 15.1 s to the last batch, none without them, where the writer is the slower)
AHEAD = 2
INLINE_MAX_FILES = 150  # fewer changed files than this are parsed in-process (no pool start-up)
# The parser workers' first garbage-collector threshold (CPython's default: 700). Extraction
# allocates millions of short-lived containers (tree-sitter nodes, reference tuples) that
# reference counting frees; at 700 the collector runs ~1,000 times over Django+Salt, 0.30 of
# 11.9 CPU-s of the workers (0.02 s without references), at 10,000 ~0: 11.86 -> 11.40 CPU-s,
# interleaved A/B. Cycles are still collected, only in larger steps.
WORKER_GC_THRESHOLD = 10_000
# a first build of at least this many files builds its edge indexes at the end
BULK_MIN_FILES = int(os.environ.get("CRUXE_INDEX_BULK_MIN_FILES", "1000"))
# ... and keeps up to this many edges in memory until they are resolved (~100 bytes each)
SPOOL_MAX_EDGES = 2_000_000
CHUNK_MAX_LINES = 120  # a snippet longer than this is split: keeps snippet hits precise
CHUNK_SMALL_LINES = 3  # chunks this short are merged with their small neighbours ...
CHUNK_MERGE_LINES = 20  # ... into chunks of at most this many lines
CONTENT_HEAD_BYTES = 4096  # the files index sees the head of each file
DOC_MAX_CHARS = 2000  # doc text indexed per symbol (searched through doc_tokens; not stored)
# A file modified this recently may be modified again within the same mtime tick (coarse
# kernel clocks, 2 s on FAT), with the same size: the size+mtime fast path would then miss
# it. Such a file's manifest row gets no mtime, so the next sync hashes it once more.
RACY_NS = 2_000_000_000

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

def process_file(item: WorkItem) -> dict[str, Any]:
    """Read, hash, extract and build every document/row for one file. Runs in a worker."""
    try:
        data = read_confined(item)
    except OSError as e:
        return {"path": item.path, "gone": True, "warning": f"{item.path}: unreadable ({e.strerror}); skipped"}
    if data is None:
        return {"path": item.path, "gone": True,
                "warning": f"{item.path}: symlink points outside the repository or not a regular file; skipped"}
    if looks_binary(data):
        return {"path": item.path, "gone": True, "warning": f"{item.path}: binary content; skipped"}
    digest = content_hash(data)
    racy = time.time_ns() - item.mtime_ns < RACY_NS
    base = {"path": item.path, "content_hash": digest, "size": len(data), "mtime_ns": -1 if racy else item.mtime_ns,
            "language": item.language}
    if digest == item.old_hash:
        return {**base, "unchanged": True}
    if item.language:
        fx = extract(item.path, data, item.language)
    else:
        fx = FileExtract(item.path, "")
    text = data.decode("utf-8", "replace")
    return {**base, **build_documents(item, fx, text)}


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


def build_documents(item: WorkItem, fx: FileExtract, text: str) -> dict[str, Any]:
    repo, ref, path = item.repo, item.ref, item.path
    fkey = file_key(repo, ref, path)
    language = item.language or ""
    path_tokens = ct.joined(ct.path_terms(path))
    common = {"repo": repo, "ref": ref, "file_key": fkey, "path": path, "path_tokens": path_tokens,
              "language": language}
    ids = unique_symbol_ids(repo, ref, path, fx)
    blobs = [id_blob(i) for i in ids]  # the stored form
    lines = text_lines(text)
    sym_docs, sym_rows = [], []
    for i, s in enumerate(fx.symbols):
        stable = symbol_stable_id(language, s.kind, s.qualified_name, s.signature)
        parent = fx.symbols[s.parent] if s.parent is not None else None
        sym_docs.append({
            **common, "symbol_id": ids[i].encode(),  # STORED_ONLY: bytes
            "symbol_exact": s.name.lower(), "name_tokens": ct.joined(ct.identifier_terms(s.name)),
            "qualified_tokens": ct.joined(ct.dotted_terms(s.qualified_name)),
            "signature_tokens": ct.joined(ct.text_terms(s.signature, 200)),
            "doc_tokens": ct.joined(ct.text_terms(s.doc[:DOC_MAX_CHARS], 400)),
            "kind": s.kind, "parent_name": parent.name if parent else "",
        })
        sym_rows.append((blobs[i], id_blob(stable), s.name, s.qualified_name, s.kind, language, path,
                         s.line_start, s.line_end, s.signature, s.visibility,
                         blobs[s.parent] if s.parent is not None else None,
                         id_blob(symbol_content_hash(fx.source, s.byte_start, s.byte_end)), folded_name(s.name)))
    snippet_docs = []
    for a, b, kind in chunk_ranges(fx, lines):
        chunk = "\n".join(lines[a - 1:b])
        body = chunk.encode()
        idents, parts = code_terms(body)
        doc = {**common, "line_start": a, "line_end": b, "chunk_kind": kind, "source": body,
               "content": idents, "content_parts": parts}
        messages = literals.field_text(chunk, language)
        if messages:  # most chunks emit none: no empty field for the single-threaded writer
            doc["error_literals"] = messages
        snippet_docs.append(doc)
    file_doc = {**common, "line_start": 1, "line_end": max(1, len(lines)), "filename": path.rsplit("/", 1)[-1].lower(),
                "content_head": code_terms(text[:CONTENT_HEAD_BYTES].encode())[0], "size": item.size}
    return {"symbols": sym_docs, "symbol_rows": sym_rows, "snippets": snippet_docs, "file": file_doc,
            "edges": edge_block(fx.references, blobs), "warnings": fx.warnings, "symbol_count": len(fx.symbols)}


def edge_block(refs: list[Reference], blobs: list[bytes]) -> EdgeBlock:
    """A file's references by column (`EdgeBlock`); `blobs`: its symbols' stored ids."""
    if not refs:
        return EMPTY_EDGES
    types, names, lines, froms, modules, _, receivers = zip(*refs)
    return EdgeBlock.of(bytes(map(EDGE_TYPE_CODES.__getitem__, types)), lines,
                        [-1 if i is None else i for i in froms], blobs, names, modules, receivers,
                        EDGE_TYPE_CODES["imports"])


def unique_symbol_ids(repo: str, ref: str, path: str, fx: FileExtract) -> list[str]:
    """`symbol_id` per symbol. Two definitions can share path, kind, first line and name (two
    `readonly x` members of type literals nested on one TypeScript line): the second and
    later get `#2`, `#3`... after the name in the hashed key, in extraction order, so ids stay
    unique in the file and a child is never its own parent."""
    ids: list[str] = []
    seen: dict[str, int] = {}
    for s in fx.symbols:
        sid = symbol_id(repo, ref, path, s.kind, s.line_start, s.name)
        n = seen.get(sid, 0) + 1
        seen[sid] = n
        ids.append(sid if n == 1 else symbol_id(repo, ref, path, s.kind, s.line_start, f"{s.name}#{n}"))
    return ids


def chunk_ranges(fx: FileExtract, lines: list[str]) -> list[tuple[int, int, str]]:
    """The file's snippet chunks, in line order: each top-level symbol is a chunk and so is
    each gap between them; a gap of blank lines only is left out (nothing to find there);
    a run of small chunks (CHUNK_SMALL_LINES or fewer each: one-line constants, short
    comments) is merged into one chunk of at most CHUNK_MERGE_LINES; any chunk over
    CHUNK_MAX_LINES is cut into pieces. On go-5k, 15% of the chunks were blank gaps and a
    third were single lines: each a Tantivy document to write and score. A merged chunk that
    holds a symbol is a "symbol" chunk; a hit in it is joined to the symbol at its best line."""
    n_lines = len(lines)
    out: list[tuple[int, int, str]] = []
    cursor = 1
    tops = sorted((s.line_start, s.line_end) for s in fx.symbols if s.parent is None)
    for start, end in tops:
        if end < cursor:
            continue
        start = max(start, cursor)
        if start > cursor:
            out.append((cursor, start - 1, "gap"))
        out.append((start, end, "symbol"))
        cursor = end + 1
    if cursor <= n_lines:
        out.append((cursor, n_lines, "gap"))
    merged: list[tuple[int, int, str]] = []
    small_run: list[bool] = []  # per merged chunk: made of small chunks only (may grow)
    for a, b, kind in out:
        if a > b or (kind == "gap" and not any(lines[i].strip() for i in range(a - 1, min(b, n_lines)))):
            continue
        small = b - a + 1 <= CHUNK_SMALL_LINES
        if small and small_run and small_run[-1] and b - merged[-1][0] + 1 <= CHUNK_MERGE_LINES:
            pa, _, pkind = merged[-1]
            merged[-1] = (pa, b, "symbol" if "symbol" in (pkind, kind) else "gap")
            continue
        merged.append((a, b, kind))
        small_run.append(small)
    pieces: list[tuple[int, int, str]] = []
    for a, b, kind in merged:
        while b - a + 1 > CHUNK_MAX_LINES:
            pieces.append((a, a + CHUNK_MAX_LINES - 1, kind))
            a += CHUNK_MAX_LINES
        pieces.append((a, b, kind))
    return pieces


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


def run_index(path: str | Path, *, force: bool = False, ref: str | None = None, mode: str = "auto",
              workers: int | None = None, home: Path | None = None, max_file_bytes: int = MAX_FILE_BYTES,
              progress: Progress | None = None, job_id: str | None = None,
              scan_timeout_s: float = SCAN_TIMEOUT_S) -> JobReport:
    """Index a repository: full on first run or with `force`, incremental otherwise.

    Raises CruxeError(index_in_progress) when another writer holds project+ref, and says so
    when the disk under $CRUXE_HOME is full or takes no writes (`store.storage_error`).
    """
    heap.limit_arenas()
    try:
        return _run_index(path, force, ref, mode, workers, home, max_file_bytes, progress, job_id, scan_timeout_s)
    except (OSError, sqlite3.Error, ValueError) as e:
        where = Path(home) if home is not None else cruxe_home()
        if storage_kind(e, where) is None:
            raise
        raise storage_error(e, where, "indexing failed") from e


def _run_index(path: str | Path, force: bool, ref: str | None, mode: str, workers: int | None, home: Path | None,
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
        return _run_locked(project, ref, force=force, mode=mode, workers=workers, progress=progress,
                           job_id=job_id or uuid.uuid4().hex[:16], recovered=recovered,
                           max_file_bytes=max_file_bytes, scan_timeout_s=scan_timeout_s)


def _run_locked(project: Project, ref: str, *, force: bool, mode: str, workers: int | None,
                progress: Progress | None, job_id: str, recovered: list[dict[str, Any]],
                max_file_bytes: int, scan_timeout_s: float) -> JobReport:
    store = project.store
    t0 = time.monotonic()
    try:
        live = store.current_generation(ref)
        if live is not None and live.schema_version() != SCHEMA_VERSION:
            live = None if force else _incompatible(live)
    except CruxeError:
        if not force:
            raise
        live = None
    rebuild = force or live is None
    first = store.current_generation_number(ref) is None if not force else False
    gen = store.create_generation(ref) if rebuild else live
    if first:
        store.publish_generation(ref, gen.number)  # first index: partial results as batches land
    job_mode = "full" if rebuild else "incremental"
    store.create_job(job_id, ref, job_mode, gen.number)
    report = JobReport(job_id, "running", job_mode, ref, gen.number, warnings=[], recovered_jobs=recovered)
    try:
        _index_into(project, gen, ref, report, workers, progress, max_file_bytes, scan_timeout_s)
        store.update_job(job_id, status="validating")
        _validate(project, gen, ref, report, rebuild)
        if rebuild and not first:
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
        if status == "failed" and rebuild and not first:
            status = "rolled_back"  # the new generation is dropped; readers keep the live one
        try:
            store.update_job(job_id, status=status, finished_at=now_iso(), error=msg,
                             duration_ms=int((time.monotonic() - t0) * 1000))
        except Exception:  # noqa: BLE001 - the original error matters more
            log.debug("could not record job failure", exc_info=True)
        if rebuild and not first:
            store.gc_generations(ref, keep=store.current_generation_number(ref) or -1)
        raise


def _validate(project: Project, gen: Generation, ref: str, report: JobReport, rebuild: bool) -> None:
    """Before a job publishes: every file's documents must agree with its manifest row
    (`store.disagreeing_files`, ~20 ms on 4k files), and the totals of SQLite and Tantivy
    must agree. Files that disagree are indexed again (`_reindex`); a disagreement that
    survives that fails the job with the files named and the remedy."""
    bad = disagreeing_files(gen, project.id, ref)
    if bad:
        _reindex(project, gen, ref, report, list(bad))
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


def _reindex(project: Project, gen: Generation, ref: str, report: JobReport, paths: list[str]) -> None:
    """Index `paths` again, whatever their hashes say: delete all their documents by file key
    and add them afresh, replace their rows (a path with no manifest row only loses its
    documents). What validation does with the files whose documents disagree with the manifest."""
    repo, root = project.id, str(project.root)
    rows = {r[0]: r for r in gen.db.execute('SELECT path, size, mtime_ns, language FROM file_manifest '
                                            'WHERE repo=? AND "ref"=?', (repo, ref))}
    orphans = [p for p in paths if p not in rows]
    if orphans:
        _delete_docs(gen, repo, ref, orphans)
    # old_hash "": never equal to a content hash (so the file is re-extracted), and not None
    # (so its SQLite rows are deleted before the new ones go in)
    todo = [WorkItem(repo, ref, p, os.path.join(root, p), rows[p][1], rows[p][2], rows[p][3], "", root)
            for p in paths if p in rows]
    if todo:
        writer = GenerationWriter(gen, repo, ref, threads=1)
        try:
            _write_batches(writer, project.store, todo, None, report, None, vcs.head_commit(project.root), None)
        finally:
            writer.close()
        from .refs import resolve_edges
        resolve_edges(gen, repo, ref, [i.path for i in todo], build_indexes=False, workers=1)
    report.warnings.append(f"index validation: the documents of {len(paths)} file(s) disagreed with the manifest "
                           f"(an earlier job was interrupted); indexed them again: {', '.join(paths[:10])}")
    log.warning("%s", report.warnings[-1])


def validate_generation(gen: Generation, repo: str, ref: str) -> str | None:
    """Before a job publishes: SQLite and Tantivy must agree on what was indexed (a file
    document per manifest row, a symbol document per symbol row). Returns the mismatch."""
    key = (repo, ref)
    files = gen.db.execute('SELECT COUNT(*) FROM file_manifest WHERE repo=? AND "ref"=?', key).fetchone()[0]
    symbols = gen.db.execute("SELECT COUNT(*) FROM symbols").fetchone()[0]
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


def _index_into(project: Project, gen: Generation, ref: str, report: JobReport,
                workers: int | None, progress: Progress | None, max_file_bytes: int,
                scan_timeout_s: float = SCAN_TIMEOUT_S) -> None:
    store, repo = project.store, project.id
    _drop_orphans(gen, repo, ref)
    if edges_deferred(gen.db):
        _start_over(gen, repo, ref, report)
        report.mode = "full"  # everything is indexed again, whatever the job was asked to do
        store.update_job(report.job_id, mode="full")
    scanned = scan(project.root, max_file_bytes, scan_timeout_s)
    report.warnings.extend(scanned.warnings)
    report.skipped = list(scanned.warnings)
    report.files_scanned = len(scanned.files)
    old = manifest(gen, repo, ref)
    seen = {f.path for f in scanned.files}
    deleted = sorted(p for p in old if p not in seen)
    root = str(project.root)
    todo = [WorkItem(repo, ref, f.path, f.abs_path, f.size, f.mtime_ns, f.language,
                     old[f.path][0] if f.path in old else None, root)
            for f in scanned.files if _maybe_changed(f, old.get(f.path))]
    report.unchanged_files = len(scanned.files) - len(todo)
    commit = vcs.head_commit(project.root)
    store.update_job(report.job_id, files_total=len(todo), deleted_files=len(deleted))
    record_unconfirmed(gen.db, [i.path for i in todo if i.old_hash is None])  # before any Tantivy write
    bulk = not old and len(todo) >= BULK_MIN_FILES
    spool: list[FileEdges] | None = [] if bulk else None  # the edges, until they are resolved
    if bulk:
        defer_edge_indexes(gen.db, spool=True)
        defer_symbol_indexes(gen.db)
    else:
        build_missing_indexes(gen.db)
    changed = [*deleted, *(i.path for i in todo)]
    # Imported here so parser workers never load the query modules (until they resolve).
    from .refs import resolve_edges
    with _parser_pool(todo, workers) as pool:
        writer = GenerationWriter(gen, repo, ref, threads=1)
        try:
            if deleted or not todo:
                for p in deleted:
                    writer.delete_file_docs(file_key(repo, ref, p))
                writer.commit_tantivy()
                writer.commit_sqlite(deleted, [], [], [], [], {"commit": commit, "complete": not todo})
                report.deleted_files = len(deleted)
            spool = _write_batches(writer, store, todo, pool, report, progress, commit, spool, workers)
            if spool is not None:
                # A bulk build's edges are resolved by the parser workers, which are up already
                # (two fewer processes to start and import; that resolution also builds the
                # symbol indexes, while the workers load their graphs), as soon as the last
                # batch is committed: closing the Tantivy writers (waiting for their merges,
                # ~0.25 s on Django+Salt) overlaps the resolution instead of delaying it.
                heap.trim()
                resolve_edges(gen, repo, ref, changed, build_indexes=True, workers=workers, spool=spool, pool=pool)
        finally:
            writer.close()
        heap.trim()
        record_unconfirmed(gen.db, ())  # every batch's manifest rows are committed
        save_skipped_files(gen, report.skipped)
        save_tree_state(gen, scanned.dir_mtimes)
    if spool is None:
        if bulk:
            build_symbol_indexes(gen.db)
        # Resolve the edges the batches left pending (also after a crashed job: the work list
        # lives in the index).
        resolve_edges(gen, repo, ref, changed, build_indexes=bulk, workers=workers)
    counts = gen.db.execute('SELECT file_count, symbol_count FROM branch_state WHERE repo=? AND "ref"=?',
                            (repo, ref)).fetchone()
    report.file_count, report.symbol_count = (counts[0], counts[1]) if counts else (0, 0)


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
    writer = GenerationWriter(gen, repo, ref, threads=1)
    try:
        for path in paths:
            writer.delete_file_docs(file_key(repo, ref, path))
        writer.commit_tantivy()
    finally:
        writer.close()


def _write_batches(writer: GenerationWriter, store, todo: list[WorkItem], pool: ProcessPoolExecutor | None,
                   report: JobReport, progress: Progress | None, commit: str | None,
                   spool: list[FileEdges] | None, workers: int | None = None) -> list[FileEdges] | None:
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
        if spool is not None and pool is not None and done + len(batch_results) == len(todo):
            # the last batch: nothing left to parse, the workers begin their resolution graphs
            edges = spooled + sum(len(r["edges"].types) for r in batch_results if "edges" in r)
            if edges <= SPOOL_MAX_EDGES:  # else the spool is written pending, and resolved elsewhere
                from .refs.resolve import begin_graphs
                begin_graphs(pool, writer.gen, repo, ref, edges, workers)
        _write_batch(writer, repo, ref, batch_results, report)
        done += len(batch_results)
        writer.commit_tantivy()
        rows = _rows(batch_results, report)
        del batch_results
        if spool is not None:
            spooled += sum(len(b.types) for _, b in rows["edges"])
            if spooled > SPOOL_MAX_EDGES:  # the earlier batches' edges to the table; this one's follow
                flush_spool(writer.gen.db, spool)
                spool = None
            else:
                spool += sorted(rows["edges"], key=itemgetter(0))
        writer.commit_sqlite(rows["gone"], rows["files"], rows["touched"], rows["symbols"], rows["edges"],
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


def _parser_pool(todo: list[WorkItem], workers: int | None) -> ContextManager[ProcessPoolExecutor | None]:
    """The job's worker processes (tree-sitter holds the GIL while parsing), or None when the
    change is small enough to parse in this process (no pool start-up)."""
    n = workers or default_workers()
    if len(todo) < INLINE_MAX_FILES or n <= 1:
        return nullcontext(None)
    return worker_pool(n, "parser or resolution", initializer=_parser_worker_start)


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
    out: list[list[WorkItem]] = []
    cur: list[WorkItem] = []
    size = 0
    for item in todo:
        cur.append(item)
        size += item.size
        if len(cur) >= BATCH_FILES or size >= BATCH_BYTES:
            out.append(cur)
            cur, size = [], 0
    if cur:
        out.append(cur)
    return out


def _write_batch(writer: GenerationWriter, repo: str, ref: str, results: list[dict[str, Any]],
                 report: JobReport) -> None:
    for r in results:
        if r.get("unchanged"):
            continue
        # even for a file new to the manifest: a job killed between its Tantivy commit and its
        # SQLite commit left documents the manifest does not know
        writer.delete_file_docs(file_key(repo, ref, r["path"]))
        if r.get("gone"):
            continue
        writer.add_docs("symbols", r["symbols"])
        writer.add_docs("snippets", r["snippets"])
        writer.add_docs("files", [r["file"]])


def _rows(results: list[dict[str, Any]], report: JobReport) -> dict[str, list]:
    gone, files, touched, symbols, edges = [], [], [], [], []
    ts = now_iso()
    for r in results:
        if r.get("warning"):
            report.warnings.append(r["warning"])
            report.skipped.append(r["warning"])
        if r.get("gone"):
            gone.append(r["path"])
            continue
        if r.get("unchanged"):
            # content identical, only mtime moved: refresh the manifest row, keep the data
            touched.append((r["path"], r["size"], r["mtime_ns"]))
            report.unchanged_files += 1
            continue
        report.changed_files += 1
        report.warnings.extend(r["warnings"])
        files.append(_manifest_row(r, ts, r["symbol_count"], r["warnings"]))
        symbols.extend(r["symbol_rows"])
        if r["edges"].types:
            edges.append((r["path"], r["edges"]))
    return {"gone": gone, "files": files, "touched": touched, "symbols": symbols, "edges": edges}


def _manifest_row(r: dict[str, Any], ts: str, symbol_count: int, warnings: list[str]) -> dict:
    return {"path": r["path"], "content_hash": r["content_hash"], "size": r["size"], "mtime_ns": r["mtime_ns"],
            "language": r["language"], "indexed_at": ts, "symbol_count": symbol_count,
            "warnings": json.dumps(warnings) if warnings else None}
