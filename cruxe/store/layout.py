"""Where and how the data lives: generations, CURRENT, locks, jobs, connections, storage errors.

Layout under `$CRUXE_HOME/data/<project_id>/`:

    state.db                         control plane: projects, known_workspaces, index_jobs,
                                     branch_tombstones
    locks/<ref>.lock                 one writer per project+ref (flock; dies with its process)
    refs/<ref>/CURRENT               the published generation number (atomic rename)
    refs/<ref>/gen-<n>/index.db      data plane: file_manifest, symbol_relations, symbol_edges,
                                     branch_state, meta (schema version)
    refs/<ref>/gen-<n>/{symbols,snippets,files}/   the three Tantivy indices

A generation is a complete, self-consistent index of one ref. Incremental syncs write into
the published generation (Tantivy commit first, then one SQLite transaction ending with the
manifest); `--force` and schema upgrades build a new generation beside the live one and
publish it by rewriting CURRENT, so readers keep the old data until the new data is whole.
SQLite in WAL mode cannot make a transaction atomic across two database files, which is why
everything one sync must change together lives in the generation's own `index.db`.
"""
from __future__ import annotations

import atexit
import errno
import fcntl
import logging
import os
import re
import shutil
import sqlite3
import stat
import tempfile
import threading
import time
import urllib.parse
import weakref
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import tantivy

from ..errors import CruxeError
from .schema import _INDEX_SCHEMA, _STATE_SCHEMA_TX, INDEX_NAMES, SCHEMA_VERSION, SCHEMAS, _register_analyzers

log = logging.getLogger(__name__)

SQLITE_BUSY_TIMEOUT_MS = 5_000


def is_engine_panic(e: BaseException) -> bool:
    """A Rust panic inside Tantivy (e.g. on a damaged segment file) reaches Python as pyo3's
    PanicException, a BaseException that `except Exception` does not catch; the class is
    not importable, so it is known by name."""
    return type(e).__name__ == "PanicException"


def is_corruption(e: sqlite3.DatabaseError) -> bool:
    """SQLite says the file is damaged (not busy, locked or missing a table), or a stored text
    is not UTF-8 (we only ever write UTF-8: damaged bytes inside an intact page)."""
    return (getattr(e, "sqlite_errorname", "").startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB"))
            or "Could not decode to UTF-8" in str(e))


def now_iso() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def _set_wal(conn: sqlite3.Connection) -> None:
    """Switch to WAL. Two processes creating the same new database at once can get
    SQLITE_BUSY here without SQLite calling the busy handler (the switch needs an
    exclusive lock), so the switch is retried within the usual busy timeout."""
    deadline = time.monotonic() + SQLITE_BUSY_TIMEOUT_MS / 1000
    delay = 0.005
    while True:
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as e:
            if ("locked" not in str(e) and "busy" not in str(e)) or time.monotonic() > deadline:
                raise
            time.sleep(delay)
            delay = min(delay * 2, 0.1)


def connect(path: Path, read_only: bool = False) -> sqlite3.Connection:
    """A SQLite connection with the FR-017 pragmas. When the file exists but its directory
    takes no writes (a read-only or full disk: WAL needs its `-shm` file), it is opened as it
    is, for reading: queries still answer, and a write says what is wrong (`storage_error`).
    `read_only`: no statement through it writes (`query_only`), for a job that reads another
    ref's index (an overlay's resolver reading its base). Not `mode=ro`: such a connection leaves
    the `-wal` and `-shm` files behind, where the last connection to close removes them."""
    try:
        conn = _configure(sqlite3.connect(str(path), timeout=SQLITE_BUSY_TIMEOUT_MS / 1000,
                                          isolation_level=None, check_same_thread=False), wal=not read_only)
        if read_only:
            conn.execute("PRAGMA query_only=ON")
        return conn
    except sqlite3.DatabaseError as e:
        kind = None if is_corruption(e) else storage_kind(e, path)
        if kind is None:
            raise CruxeError("index_incompatible", f"cannot open {path.name}: {e}",
                             {"remediation": "cruxe index --force"}) from e
        if not path.is_file():
            raise storage_error(e, path, f"cannot create {path.name}") from e
        log.warning("%s: %s; reading it as it is", path, STORAGE_PROBLEMS[kind])
        try:
            return _configure(sqlite3.connect(f"file:{urllib.parse.quote(str(path))}?immutable=1", uri=True,
                                              isolation_level=None, check_same_thread=False), wal=False)
        except sqlite3.DatabaseError:
            raise storage_error(e, path, f"cannot open {path.name}") from e


def _configure(conn: sqlite3.Connection, wal: bool) -> sqlite3.Connection:
    if wal:
        _set_wal(conn)
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA cache_size=-65536")  # 64 MB
    conn.execute("PRAGMA foreign_keys=ON")
    conn.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
    conn.row_factory = sqlite3.Row
    return conn


# ---- the disk under $CRUXE_HOME ------------------------------------------------------------

STORAGE_PROBLEMS = {"full": "no space left", "read-only": "not writable", "not-a-directory": "not a directory"}
LOW_SPACE_BYTES = 1 << 20  # less free than this where a write failed: the disk is full


def storage_kind(e: BaseException, where: Path) -> str | None:
    """What a failed open or write under `where` says about the disk: "full", "read-only",
    "not-a-directory", or None when it is something else. SQLite's and Tantivy's vaguer
    reports ("disk I/O error", "unable to open database file", "readonly database", "An
    index writer was killed") are settled by asking the disk itself."""
    code, text = getattr(e, "errno", None), str(e)
    if code in (errno.ENOSPC, errno.EDQUOT) or "disk is full" in text or "os error 28" in text:
        return "full"
    if code in (errno.ENOTDIR, errno.EEXIST, errno.EISDIR):
        return "not-a-directory"
    if code in (errno.EROFS, errno.EACCES, errno.EPERM) or "os error 30" in text or "os error 13" in text:
        return _disk_state(where) or "read-only"
    if isinstance(e, (sqlite3.OperationalError, ValueError)):
        return _disk_state(where)
    return None


def _disk_state(where: Path) -> str | None:
    p = where
    while not p.exists() and p != p.parent:
        p = p.parent
    if p.is_file():
        p = p.parent
    try:
        st = os.statvfs(p)
    except OSError:
        return None
    if st.f_bavail * st.f_frsize < LOW_SPACE_BYTES:
        return "full"
    return None if os.access(p, os.W_OK) else "read-only"


def storage_error(e: BaseException, where: Path, doing: str) -> CruxeError:
    """The CruxeError for a failed open or write under $CRUXE_HOME (`storage_kind`), with a
    remedy that works; something else is reported as it is."""
    kind = storage_kind(e, where)
    if kind == "full":
        return CruxeError("internal_error", f"{doing}: no space left under $CRUXE_HOME ({where})",
                          {"remedy": "Free space on the disk that holds $CRUXE_HOME (or point CRUXE_HOME at another "
                                     "disk), then run `cruxe sync`: it finishes what was interrupted."})
    if kind == "read-only":
        return CruxeError("internal_error", f"{doing}: $CRUXE_HOME is not writable ({where})",
                          {"remedy": "Make $CRUXE_HOME writable, or point CRUXE_HOME at a writable directory "
                                     "(queries still answer from a read-only one; index and sync cannot)."})
    if kind == "not-a-directory":
        culprit = Path(getattr(e, "filename", None) or where)
        culprit = next((p for p in reversed([culprit, *culprit.parents]) if p.exists() and not p.is_dir()), culprit)
        return CruxeError("internal_error", f"{doing}: {culprit} is in the way (a file where a directory belongs, "
                          "or the reverse)", {"remedy": "Point CRUXE_HOME at a directory; inside a project's data "
                                              "directory, `cruxe index --force` moves aside what is in the way."})
    return CruxeError("internal_error", f"{doing}: {type(e).__name__}: {e}"[:500])


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    else:
        conn.execute("COMMIT")


def ref_slug(ref: str) -> str:
    """A file-system-safe, collision-free directory name for a ref."""
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", ref)[:60]
    if safe == ref and safe not in (".", ".."):
        return safe
    import blake3
    return f"{safe}-{blake3.blake3(ref.encode()).hexdigest()[:8]}"



def _open_tantivy(path: Path, name: str, create: bool) -> tantivy.Index:
    schema = SCHEMAS[name]()
    try:
        if create:
            path.mkdir(parents=True, exist_ok=True)
            index = tantivy.Index(schema, path=str(path), reuse=True)
        else:
            if not (path / "meta.json").is_file():
                raise CruxeError("index_incompatible", f"Tantivy index '{name}' is missing",
                                 {"remediation": "cruxe index --force"})
            index = tantivy.Index.open(str(path))
    except ValueError as e:
        kind = storage_kind(e, path)
        if kind == "read-only" and not create:
            index = _open_snapshot(path, name)
        elif kind:
            raise storage_error(e, path, f"cannot open the Tantivy index '{name}'") from e
        else:
            raise CruxeError("index_incompatible", f"Tantivy index '{name}' cannot be opened: {e}",
                             {"remediation": "cruxe index --force"}) from e
    _register_analyzers(index)
    return index


def _open_snapshot(path: Path, name: str) -> tantivy.Index:
    """A Tantivy index under a read-only $CRUXE_HOME, opened from a private copy: Tantivy
    takes a lock file even to read, which a read-only disk refuses. Nothing under a read-only
    home changes, so the copy is the index; it is removed when the process exits."""
    copy = Path(tempfile.mkdtemp(prefix=f"cruxe-ro-{name}-"))
    atexit.register(shutil.rmtree, copy, True)
    shutil.copytree(path, copy, dirs_exist_ok=True)
    log.warning("$CRUXE_HOME is read-only: the '%s' index is read from a copy in %s", name, copy)
    try:
        return tantivy.Index.open(str(copy))
    except ValueError as e:
        raise CruxeError("index_incompatible", f"Tantivy index '{name}' cannot be opened: {e}",
                         {"remediation": "cruxe index --force"}) from e


# ---- one generation of one ref ---------------------------------------------------------------

class Generation:
    """A complete index of one ref: index.db plus the three Tantivy indices.

    Thread-safe for readers: one SQLite connection per thread; Tantivy searchers are
    shareable and reloaded only when the index's meta.json changes (a stat per check).
    """

    def __init__(self, path: Path, number: int, create: bool = False, read_only: bool = False):
        self.path = path
        self.number = number
        self.read_only = read_only  # no write through its SQLite connections (`connect`)
        if create:
            path.mkdir(parents=True, exist_ok=True)
        elif not (path / "index.db").is_file():
            raise CruxeError("index_incompatible", f"generation {number} has no index.db",
                             {"remediation": "cruxe index --force"})
        self._local = threading.local()
        self._lock = threading.Lock()
        # every thread's connection, with its thread: a connection is a reference cycle (its
        # statement cache calls it), so dropping one frees it only at the next cyclic garbage
        # collection, and a server kept the files of replaced generations open (deleted, on
        # disk still) for as long. They are closed when the generation is freed, that is when
        # the last query holding it is done (`weakref.finalize`), and a dead thread's when the
        # next thread opens one.
        self._conns: list[tuple[threading.Thread, sqlite3.Connection]] = []
        weakref.finalize(self, _close_connections, self._conns)
        self._tantivy: dict[str, tantivy.Index] | None = None
        try:
            self._tantivy = {n: _open_tantivy(path / n, n, create) for n in INDEX_NAMES}
        except CruxeError as e:
            # a disk problem (a full one, say) is raised at first use instead: index.db needs
            # no Tantivy, so status still answers
            if create or e.code == "index_incompatible":
                raise
        self._meta_mtime: dict[str, int] = {}
        if create:  # one transaction: a kill leaves all of the schema or none of it
            self.db.executescript(f"BEGIN IMMEDIATE;{_INDEX_SCHEMA}INSERT OR REPLACE INTO meta "
                                  f"VALUES ('schema_version', '{SCHEMA_VERSION}');COMMIT;")

    @property
    def tantivy(self) -> dict[str, tantivy.Index]:
        indices = self._tantivy
        if indices is None:
            with self._lock:
                if self._tantivy is None:
                    self._tantivy = {n: _open_tantivy(self.path / n, n, False) for n in INDEX_NAMES}
                indices = self._tantivy
        return indices

    @property
    def db(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = connect(self.path / "index.db", self.read_only)
            self._local.conn = conn
            with self._lock:
                _close_connections(self._conns, dead_threads_only=True)
                self._conns.append((threading.current_thread(), conn))
        return conn

    def schema_version(self) -> int | None:
        try:
            row = self.db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        except (sqlite3.DatabaseError, CruxeError):  # unreadable, or could not even be opened
            return None
        return int(row[0]) if row else None

    def searcher(self, name: str) -> tantivy.Searcher:
        """A searcher that sees the latest commit of that index."""
        index = self.tantivy[name]
        try:
            mtime = (self.path / name / "meta.json").stat().st_mtime_ns
        except OSError:
            mtime = -1
        if self._meta_mtime.get(name) != mtime:
            with self._lock:
                index.reload()
                self._meta_mtime[name] = mtime
        return index.searcher()

    def close(self) -> None:
        """Close this thread's connection (a job done reading another ref's index reads it in
        one thread: the last connection to close removes the WAL files it opened)."""
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            with self._lock:
                self._conns[:] = [(t, c) for t, c in self._conns if c is not conn]
            conn.close()
            self._local.conn = None


class Overlay:
    """A ref stored as an overlay, opened for reading: its own generation (`top`: the files that
    differ from the base, read from git's objects) over the base ref's published generation
    (`base`). `shadow` holds every path that differs (changed, added, deleted: a deleted one is a
    tombstone): a base row or document of such a path is never an answer on this ref; nor one of
    `hidden`, the paths the base indexed again since the overlay was built (until the overlay's next
    sync it does not know whether the ref has them: none is better than the default branch's). The
    reads of `store.layers` merge the two (overlay wins); what they do not merge (the job's state,
    the health probes, the writer's reads) is the overlay's own generation's, by delegation."""

    def __init__(self, top: Generation, base: Generation, info: dict[str, Any], hidden: Any = ()):
        self.top, self.base, self.info = top, base, info
        self.base_ref: str = info["base_ref"]
        self.shadow = frozenset(info["paths"]) | frozenset(hidden)

    def layer_of(self, path: str) -> str:
        """Which layer answers for `path` on this ref: "overlay" or "base"."""
        return "overlay" if path in self.shadow else "base"

    def __getattr__(self, name: str) -> Any:
        return getattr(self.top, name)


class Withheld:
    """A ref's index (a generation or an overlay) with files withheld: read while the ref was
    checked out with edits its commit lacks, they may hold another branch's code once it is left
    (`freshness.IndexState.withheld`). The reads across files of `store.layers` leave their rows
    and documents out (so a page is full and a total counts only what may be listed); a read of
    one file the caller names, and everything else, is the index's own, by delegation."""

    def __init__(self, inner: Generation | Overlay, paths: frozenset[str]):
        self.inner, self.withheld = inner, frozenset(paths)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def _close_connections(conns: list[tuple[threading.Thread, sqlite3.Connection]],
                       dead_threads_only: bool = False) -> None:
    """Close the connections in `conns` (those of threads that ended) and drop them from it."""
    keep = []
    for thread, conn in conns:
        if dead_threads_only and thread.is_alive():
            keep.append((thread, conn))
        else:
            conn.close()
    conns[:] = keep


# ---- the project ---------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class ProjectInfo:
    project_id: str
    repo_root: str
    vcs_mode: bool
    default_ref: str
    schema_version: int


def _heal_state_schema(conn: sqlite3.Connection) -> None:
    """A process killed while creating state.db leaves a database without its tables (the
    file exists from the first pragma on): that is a project not registered yet, not a
    corrupt one, so the tables are created on open. A database SQLite cannot read is left
    as it is, for the readers to report (`state_error`, doctor, --force)."""
    try:
        if conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='projects'").fetchone() is None:
            conn.executescript(_STATE_SCHEMA_TX)
    except sqlite3.DatabaseError:
        try:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
        except sqlite3.DatabaseError:
            pass


# Readers' `writer_active` probes hold the lock shared for a moment, many times a second on a
# busy server; a job that met one was refused as index_in_progress (tests/test_concurrency.py,
# once in a while). A writer tells the two apart (a shared lock can be taken beside readers, not
# beside a job) and waits out readers only, this long at most.
WRITER_LOCK_PATIENCE_S = 0.5


def _lock_exclusively(fd: int, path: Path, ref: str) -> None:
    deadline = time.monotonic() + WRITER_LOCK_PATIENCE_S
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except OSError as e:
            if e.errno not in (errno.EAGAIN, errno.EACCES):
                raise
        if not _only_readers(path) or time.monotonic() >= deadline:
            raise CruxeError("index_in_progress", f"another index job is running for ref {ref!r}", {"ref": ref})
        time.sleep(0.005)


def _only_readers(path: Path) -> bool:
    """The lock's holders are readers' probes (shared), not a job (exclusive)."""
    probe = os.open(path, os.O_RDONLY)
    try:
        fcntl.flock(probe, fcntl.LOCK_SH | fcntl.LOCK_NB)
        return True
    except OSError:
        return False
    finally:
        os.close(probe)  # closing releases it


class ProjectStore:
    """Everything Cruxe keeps for one repository under `$CRUXE_HOME/data/<project_id>`."""

    def __init__(self, home: Path, project_id: str):
        self.home = Path(home)
        self.project_id = project_id
        self.dir = self.home / "data" / project_id
        self._local = threading.local()
        self._gens: dict[tuple[str, int], Generation] = {}
        self._gens_lock = threading.Lock()
        self.state_error: str | None = None  # set when state.db could not be read

    # -- state.db
    @property
    def state(self) -> sqlite3.Connection:
        conn = getattr(self._local, "state", None)
        if conn is None:
            if not self.dir.is_dir():
                try:
                    self.dir.mkdir(parents=True, exist_ok=True)
                except OSError as e:
                    raise storage_error(e, self.dir, "cannot create the project's data directory") from e
            conn = connect(self.dir / "state.db")
            _heal_state_schema(conn)
            self._local.state = conn
        return conn

    def exists(self) -> bool:
        """The project has a state.db. Raises when $CRUXE_HOME or its `data` directory is
        not a directory (a project's own directory in the way is `index --force`'s to move)."""
        if (self.dir / "state.db").is_file():
            return True
        for p in (self.home, self.home / "data"):
            if p.exists() and not p.is_dir():
                raise storage_error(NotADirectoryError(errno.ENOTDIR, "Not a directory", str(p)), p,
                                    "cannot use $CRUXE_HOME")
        return False

    def ensure_schema(self) -> None:
        try:
            self.state.executescript(_STATE_SCHEMA_TX)
        except sqlite3.DatabaseError as e:
            if not is_corruption(e) and storage_kind(e, self.dir):
                raise storage_error(e, self.dir, "cannot write state.db") from e
            raise CruxeError("index_incompatible", f"state.db is unreadable: {e}",
                             {"remediation": "cruxe index --force"}) from e

    def project(self) -> ProjectInfo | None:
        """The registration, or None. A corrupt state.db reads as None with `state_error`
        set, so a server still starts and answers index_incompatible with the remedy."""
        try:
            row = self.state.execute(
                "SELECT project_id, repo_root, vcs_mode, default_ref, schema_version FROM projects "
                "WHERE project_id=?", (self.project_id,)).fetchone()
        except (sqlite3.DatabaseError, CruxeError) as e:
            self.state_error = e.message if isinstance(e, CruxeError) else f"state.db is unreadable: {e}"
            return None
        if row is None:
            return None
        return ProjectInfo(row[0], row[1], bool(row[2]), row[3], row[4])

    def upsert_project(self, repo_root: str, vcs_mode: bool, default_ref: str, parser_version: str) -> None:
        ts = now_iso()
        with transaction(self.state) as c:
            c.execute(
                "INSERT INTO projects VALUES (?,?,?,?,?,?,?,?) ON CONFLICT(project_id) DO UPDATE SET "
                "repo_root=excluded.repo_root, vcs_mode=excluded.vcs_mode, default_ref=excluded.default_ref, "
                "parser_version=excluded.parser_version, updated_at=excluded.updated_at",
                (self.project_id, repo_root, int(vcs_mode), default_ref, SCHEMA_VERSION, parser_version, ts, ts))
            c.execute(
                "INSERT INTO known_workspaces VALUES (?,?,?,?) ON CONFLICT(workspace_path) DO UPDATE SET "
                "last_used_at=excluded.last_used_at", (repo_root, self.project_id, ts, ts))

    # -- generations
    def ref_dir(self, ref: str) -> Path:
        return self.dir / "refs" / ref_slug(ref)

    def export_dir(self, ref: str) -> Path:
        """Where a ref not checked out is exported from git's objects (`vcs.export_commit`)."""
        return self.dir / "trees" / ref_slug(ref)

    def known_refs(self) -> set[str]:
        """Every ref a job ran for (state.db's jobs): the names behind the slugs on disk."""
        try:
            return {r[0] for r in self.state.execute('SELECT DISTINCT "ref" FROM index_jobs WHERE repo=?',
                                                     (self.project_id,))}
        except (sqlite3.DatabaseError, CruxeError):
            return set()

    def exported_slugs(self) -> list[str]:
        root = self.dir / "trees"
        return sorted(p.name for p in root.iterdir() if p.is_dir()) if root.is_dir() else []

    def remove_export(self, ref: str) -> bool:
        """Remove a ref's export under its writer lock; False (kept) when a job holds the ref.
        `ref` may be the slug itself: a slug is its own slug, so the lock is the same file."""
        try:
            with self.writer_lock(ref):
                shutil.rmtree(self.export_dir(ref), ignore_errors=True)
        except CruxeError as e:
            if e.code != "index_in_progress":
                raise
            return False
        return True

    def current_generation_number(self, ref: str) -> int | None:
        """The published generation of a ref, or None when the ref was never indexed.
        Raises CruxeError(index_incompatible) when CURRENT is unreadable."""
        try:
            raw = (self.ref_dir(ref) / "CURRENT").read_text().strip()
        except FileNotFoundError:
            return None
        except (OSError, UnicodeDecodeError) as e:
            raise CruxeError("index_incompatible", f"CURRENT pointer unreadable: {e}",
                             {"remediation": "cruxe index --force"}) from e
        if not raw.isdigit():
            raise CruxeError("index_incompatible", "CURRENT pointer is corrupt",
                             {"remediation": "cruxe index --force"})
        return int(raw)

    def generation(self, ref: str, number: int) -> Generation:
        """Open (cached) a generation for reading/writing."""
        key = (ref, number)
        with self._gens_lock:
            gen = self._gens.get(key)
            if gen is None:
                gen = Generation(self.ref_dir(ref) / f"gen-{number}", number)
                # a newer generation was published: forget older ones of that ref (a query
                # already running on one keeps its object; only the cache lets go)
                for old in [k for k in self._gens if k[0] == ref and k[1] < number]:
                    del self._gens[old]
                self._gens[key] = gen
            return gen

    def read_only_generation(self, ref: str, number: int) -> Generation | None:
        """Generation `number` of `ref` opened for reading only (`connect`), not cached (its
        reader closes it: `Generation.close`); None when it is gone (collected since)."""
        path = self.ref_dir(ref) / f"gen-{number}"
        try:
            return Generation(path, number, read_only=True)
        except CruxeError:
            return None

    def current_generation(self, ref: str) -> Generation | None:
        n = self.current_generation_number(ref)
        return None if n is None else self.generation(ref, n)

    def create_generation(self, ref: str) -> Generation:
        ref_dir = self.ref_dir(ref)
        ref_dir.mkdir(parents=True, exist_ok=True)
        existing = [int(p.name[4:]) for p in ref_dir.glob("gen-*") if p.name[4:].isdigit()]
        number = max(existing, default=0) + 1
        gen = Generation(ref_dir / f"gen-{number}", number, create=True)
        with self._gens_lock:
            self._gens[(ref, number)] = gen
        return gen

    def publish_generation(self, ref: str, number: int) -> None:
        """Atomically make `number` the generation readers see, then drop older ones."""
        ref_dir = self.ref_dir(ref)
        tmp = ref_dir / f"CURRENT.tmp.{os.getpid()}"
        with open(tmp, "w") as f:
            f.write(f"{number}\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, ref_dir / "CURRENT")
        self.gc_generations(ref, keep=number)

    def gc_generations(self, ref: str, keep: int) -> None:
        """Remove generation directories other than `keep` (open readers keep their
        unlinked files on POSIX, so a server still serving an old one is unaffected)."""
        for p in self.ref_dir(ref).glob("gen-*"):
            if p.name != f"gen-{keep}":
                with self._gens_lock:
                    key = (ref, int(p.name[4:])) if p.name[4:].isdigit() else None
                    if key and key in self._gens:
                        self._gens.pop(key).close()
                shutil.rmtree(p, ignore_errors=True)

    def remove_unpublished(self, ref: str) -> None:
        """Remove the generations a killed `--force` (or first index) left half-built: every
        one but CURRENT's. Only the holder of the ref's writer lock may call this (no live
        writer is building one then); with CURRENT unreadable, nothing is known to be spare."""
        try:
            keep = self.current_generation_number(ref)
        except CruxeError:
            return
        if self.ref_dir(ref).is_dir():
            self.gc_generations(ref, keep=-1 if keep is None else keep)

    def _layout(self, ref: str) -> list[tuple[Path, bool]]:
        """(path, must be a directory) for what Cruxe keeps of a ref, parents first."""
        ref_dir = self.ref_dir(ref)
        gens = sorted(ref_dir.glob("gen-*")) if ref_dir.is_dir() else []
        return [(self.dir, True), (self.dir / "state.db", False), (self.dir / "locks", True),
                (self.dir / "locks" / f"{ref_slug(ref)}.lock", False), (self.dir / "refs", True), (ref_dir, True),
                (ref_dir / "CURRENT", False), *((g, True) for g in gens if ".broken-" not in g.name)]

    def _misplaced(self, path: Path, is_dir: bool) -> str | None:
        try:
            mode = os.stat(path).st_mode
        except (FileNotFoundError, NotADirectoryError):  # absent, or a parent is the problem
            return None
        except OSError as e:
            return f"{path}: {e.strerror}"
        if stat.S_ISDIR(mode) == is_dir and (is_dir or stat.S_ISREG(mode)):
            return None
        what = "a directory" if stat.S_ISDIR(mode) else "a file" if stat.S_ISREG(mode) else "a special file"
        return f"{path} is {what} where a {'directory' if is_dir else 'regular file'} belongs"

    def layout_problems(self, ref: str) -> list[str]:
        """What is in the way of the files and directories Cruxe keeps for `ref` (a directory
        where CURRENT or a lock file belongs, a file where `locks/` or `refs/` does)."""
        return [p for path, is_dir in self._layout(ref) if (p := self._misplaced(path, is_dir))]

    def clear_the_way(self, ref: str) -> list[str]:
        """Move aside (`<name>.broken-<time>`) whatever `layout_problems` names, so that
        `index --force` can rebuild; returns what was moved."""
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        moved = []
        for path, is_dir in self._layout(ref):
            problem = self._misplaced(path, is_dir)
            if problem is None:
                continue
            if path == self.dir / "state.db":
                self.close()
            try:
                os.replace(path, path.with_name(f"{path.name}.broken-{stamp}"))
            except OSError as e:
                raise CruxeError("internal_error", f"cannot move aside {path}: {e.strerror}",
                                 {"remedy": f"Remove {path} and run `cruxe index --force` again."}) from e
            log.warning("%s; moved aside as %s.broken-%s", problem, path.name, stamp)
            moved.append(problem)
        return moved

    # -- writer lock
    @contextmanager
    def writer_lock(self, ref: str) -> Iterator[None]:
        """Hold the single-writer lock for project+ref, or raise index_in_progress."""
        lock_dir = self.dir / "locks"
        path = lock_dir / f"{ref_slug(ref)}.lock"
        try:
            lock_dir.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as e:
            raise storage_error(e, lock_dir, f"cannot open the writer lock of ref {ref!r}") from e
        try:
            _lock_exclusively(fd, path, ref)
            os.ftruncate(fd, 0)
            os.write(fd, str(os.getpid()).encode())
            yield
        finally:
            os.close(fd)  # closing releases the flock

    def writer_active(self, ref: str) -> bool:
        """True when some process holds the writer lock for that ref (non-blocking probe)."""
        path = self.dir / "locks" / f"{ref_slug(ref)}.lock"
        if not path.exists():
            return False
        fd = os.open(path, os.O_RDONLY)
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            return True
        else:
            fcntl.flock(fd, fcntl.LOCK_UN)
            return False
        finally:
            os.close(fd)

    # -- jobs
    def create_job(self, job_id: str, ref: str, mode: str, generation: int) -> None:
        ts = now_iso()
        with transaction(self.state) as c:
            # counts are NULL until known (files_total after the scan, changed_files at the end):
            # a 0 would read as "nothing to do" to a caller that looks while the job runs
            c.execute('INSERT INTO index_jobs (job_id, repo, "ref", mode, status, pid, generation, '
                      "created_at, started_at, files_total, changed_files) VALUES (?,?,?,?,?,?,?,?,?,NULL,NULL)",
                      (job_id, self.project_id, ref, mode, "running", os.getpid(), generation, ts, ts))

    def update_job(self, job_id: str, **fields: Any) -> None:
        if not fields:
            return
        cols = ", ".join(f"{k}=?" for k in fields)
        with transaction(self.state) as c:
            c.execute(f"UPDATE index_jobs SET {cols} WHERE job_id=?", (*fields.values(), job_id))

    def jobs(self, ref: str | None = None, limit: int = 10) -> list[dict[str, Any]]:
        sql = "SELECT * FROM index_jobs WHERE repo=?"
        args: list[Any] = [self.project_id]
        if ref is not None:
            sql += ' AND "ref"=?'
            args.append(ref)
        sql += " ORDER BY created_at DESC, rowid DESC LIMIT ?"
        args.append(limit)
        try:
            return [dict(r) for r in self.state.execute(sql, args)]
        except (sqlite3.DatabaseError, CruxeError):
            return []

    def job(self, job_id: str) -> dict[str, Any] | None:
        """One job's row by its id (None before it is registered, or when unreadable)."""
        try:
            row = self.state.execute("SELECT * FROM index_jobs WHERE repo=? AND job_id=?",
                                     (self.project_id, job_id)).fetchone()
        except (sqlite3.DatabaseError, CruxeError):
            return None
        return dict(row) if row else None

    def active_job(self, ref: str | None = None) -> dict[str, Any] | None:
        for job in self.jobs(ref, limit=20):
            if job["status"] in ("queued", "running", "validating") and self.writer_active(job["ref"]):
                return job
        return None

    def recover_interrupted(self, ref: str | None = None, holding_lock: bool = False) -> list[dict[str, Any]]:
        """Mark jobs left `running` by a dead process as `interrupted`; return them.
        Safe to call from readers: a job counts as dead only when no one holds its lock.
        The holder of a ref's writer lock knows every other unfinished job there is dead."""
        try:
            rows = [dict(r) for r in self.state.execute(
                "SELECT * FROM index_jobs WHERE repo=? AND status IN ('queued','running','validating')",
                (self.project_id,))]
        except (sqlite3.DatabaseError, CruxeError):
            return []
        dead = [r for r in rows if (ref is None or r["ref"] == ref)
                and ((holding_lock and r["ref"] == ref) or not self.writer_active(r["ref"]))]
        for r in dead:
            r["status"] = "interrupted"
            try:
                self.update_job(r["job_id"], status="interrupted", recovered_at=now_iso(),
                                error="process ended before the job finished")
            except sqlite3.OperationalError as e:  # a full or read-only disk: readers still answer
                log.info("could not record job %s as interrupted: %s", r["job_id"], e)
        return dead

    def interrupted_jobs(self, limit: int = 5) -> list[dict[str, Any]]:
        try:
            return [dict(r) for r in self.state.execute(
                "SELECT job_id, \"ref\", mode, started_at, recovered_at, files_done, files_total FROM index_jobs "
                "WHERE repo=? AND status='interrupted' ORDER BY created_at DESC, rowid DESC LIMIT ?",
                (self.project_id, limit))]
        except (sqlite3.DatabaseError, CruxeError):
            return []

    def probe_state(self) -> None:
        """Read one row of the jobs: raises when state.db is unreadable (sqlite3.DatabaseError)
        or cannot be opened (CruxeError)."""
        self.state.execute("SELECT 1 FROM index_jobs LIMIT 1").fetchall()

    def state_problem(self) -> str | None:
        """Why state.db is corrupt (unreadable, or failing quick_check), or None. A busy or
        locked database is not corrupt: only SQLite's corruption errors count."""
        path = self.dir / "state.db"
        if not path.is_file():
            return None
        try:
            conn = sqlite3.connect(str(path), timeout=SQLITE_BUSY_TIMEOUT_MS / 1000)
            try:
                res = conn.execute("PRAGMA quick_check").fetchone()[0]
            finally:
                conn.close()
        except sqlite3.DatabaseError as e:
            if is_corruption(e):
                return f"state.db: {e}"
            return None  # busy, locked, permissions: not a reason to replace it
        return None if res == "ok" else f"state.db: {res}"

    def quarantine_state(self) -> str | None:
        """Move a corrupt state.db (with its WAL) aside so that a fresh one is created; it
        holds only the registration and job history (the index data is in the generations,
        checked on their own). Returns the problem found, or None when state.db is sound."""
        problem = self.state_problem()
        if problem is None:
            return None
        self.close()
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        for suffix in ("", "-wal", "-shm"):
            p = self.dir / f"state.db{suffix}"
            if p.exists():
                os.replace(p, self.dir / f"state.db{suffix}.corrupt-{stamp}")
        self.state_error = None
        log.warning("%s; moved aside as state.db.corrupt-%s and starting a fresh one", problem, stamp)
        return problem

    def close(self) -> None:
        with self._gens_lock:
            for gen in self._gens.values():
                gen.close()
            self._gens.clear()
        conn = getattr(self._local, "state", None)
        if conn is not None:
            conn.close()
            self._local.state = None

