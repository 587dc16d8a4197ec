"""Read git state straight from `.git` (no subprocess on the query path; `git` itself only to
export a ref that is not checked out, in an index job).

Everything under `.git` is untrusted: HEAD may name `../../etc/hostname`, a ref may be a FIFO,
a `.git` file may point at another repository's git directory. So ref names are checked with
git's own rules before they become paths, each file is read through `safeio` (regular file,
bounded, non-blocking, no symlink below the git directory), an object id is accepted only as
40 or 64 hex digits, and a linked git directory (`.git` file, `commondir`) only in the layouts
git itself makes for worktrees and submodules.
"""
from __future__ import annotations

import json
import logging
import os
import re
import shutil
import stat
import subprocess
from pathlib import Path

from .jsonenc import to_json
from .safeio import open_regular, read_prefix, read_text_prefix

log = logging.getLogger(__name__)

# A HEAD, a loose ref or a `.git`/`commondir`/`gitdir` file holds one line; anything longer is not one.
SMALL_FILE_LIMIT = 4096
# packed-refs grows with tags and branches (~100 bytes each); past this prefix a ref is not found
# rather than read at any cost on the query path.
PACKED_REFS_LIMIT = 32 * 1024 * 1024
# A name for a directory under $CRUXE_HOME and an argument of `cruxe index`: no ref needs more.
MAX_REF_LENGTH = 256
# Symbolic refs (refs/remotes/origin/HEAD) are followed this deep, as git does, and no further.
MAX_SYMREF_DEPTH = 5
# A pack index is searched by bisection, but a hostile object directory could hold any number.
MAX_PACK_INDEXES = 1000

OBJECT_ID = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")
_BAD_REF_CHARS = re.compile(r"[\x00-\x20\x7f~^:?*\[\\]")


def check_ref_format(name: str) -> bool:
    """git's check-ref-format rules for a ref or branch name (one-level names allowed), plus:
    no leading `-` (it would read as an option), at most MAX_REF_LENGTH characters, UTF-8."""
    if not name or len(name) > MAX_REF_LENGTH or name.startswith("-") or name == "@":
        return False
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    if _BAD_REF_CHARS.search(name) or ".." in name or "@{" in name or name.endswith("."):
        return False
    parts = name.split("/")
    return all(p and not p.startswith(".") and not p.endswith(".lock") for p in parts)


# ---- the git directory ------------------------------------------------------------------------

def git_dir(root: Path) -> Path | None:
    """The repository's git directory: `.git` itself, or where a `.git` file points when that
    is a worktree's or a submodule's git directory of this repository. None otherwise."""
    try:
        return _git_dir(root)
    except (OSError, ValueError, RuntimeError):  # a NUL, an overlong name, a symlink loop
        return None


def _git_dir(root: Path) -> Path | None:
    dot = root / ".git"
    try:
        mode = os.lstat(dot).st_mode
    except OSError:
        return None
    if stat.S_ISDIR(mode):
        return dot
    if stat.S_ISLNK(mode):
        target = dot.resolve()
        return target if target.is_dir() and _inside(target, root.resolve()) else _refused(root, target)
    text = read_text_prefix(dot, SMALL_FILE_LIMIT, whole=True)
    if not text or not text.startswith("gitdir:"):
        return None
    target = (root / text[7:].strip()).resolve()
    return target if _linked_git_dir_ok(root, target) else _refused(root, target)


def is_bare(root: Path) -> bool:
    """Whether `root` is a bare repository: a git directory with no working tree, known as git
    knows one (a HEAD it would accept beside `objects/` and `refs/`). A directory inside a `.git`
    is not one: the repository around it is the project."""
    if ".git" in root.parts:
        return False
    try:
        return (not os.path.lexists(root / ".git") and (root / "objects").is_dir()
                and (root / "refs").is_dir() and _head(root) is not None)
    except (OSError, ValueError):  # a NUL, an overlong name
        return False


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def _refused(root: Path, target: Path) -> None:
    log.info("%s/.git points at %s, which is not this repository's git directory; "
             "treated as not a git repository", root, target)
    return None


def _linked_git_dir_ok(root: Path, target: Path) -> bool:
    """A worktree's git directory names this worktree back in its `gitdir` file; a submodule's
    lives in `.git/modules/` of a repository that contains this one (or inside this one)."""
    if not (target / "HEAD").is_file():
        return False
    root = root.resolve()
    if _inside(target, root):
        return True
    if (target / "commondir").is_file():
        back = read_text_prefix(target / "gitdir", SMALL_FILE_LIMIT, whole=True)
        # absolute, or relative to the worktree's git directory (worktree.useRelativePaths)
        return bool(back) and (target / back.strip()).resolve() == (root / ".git").resolve()
    return any(_inside(target, parent / ".git" / "modules") for parent in root.parents)


def _common_dir(gd: Path) -> Path | None:
    """A worktree's shared git directory (branches, packed-refs, objects): only where git puts
    it, two levels above `<common>/worktrees/<name>`."""
    text = read_text_prefix(gd / "commondir", SMALL_FILE_LIMIT, whole=True)
    if not text:
        return None
    try:
        common = (gd / text.strip()).resolve()
        return common if gd.resolve().parent == common / "worktrees" else None
    except (OSError, ValueError, RuntimeError):  # a NUL, an overlong name, a symlink loop
        return None


def _bases(gd: Path) -> list[Path]:
    common = _common_dir(gd)
    return [gd] + ([common] if common else [])


# ---- refs ---------------------------------------------------------------------------------------

def _read_small(base: Path, rel: str) -> str | None:
    text = read_text_prefix(rel, SMALL_FILE_LIMIT, base=base, whole=True)
    return text.strip() if text is not None else None


def _packed(base: Path, ref: str) -> str | None:
    text = read_text_prefix("packed-refs", PACKED_REFS_LIMIT, base=base)
    if not text:
        return None
    suffix = " " + ref
    for line in text.split("\n"):  # git writes \n only; splitlines would also split at \x1c and kin
        if line.endswith(suffix) and not line.startswith(("#", "^")):
            sha = line[:-len(suffix)]
            return sha if OBJECT_ID.fullmatch(sha) else None
    return None


def _ref_commit(gd: Path, ref: str, depth: int = 0) -> str | None:
    """The object id a full ref name (`refs/...`) points to: loose, then packed, following
    symbolic refs a few levels. None when absent or malformed."""
    if not ref.startswith("refs/") or not check_ref_format(ref) or depth > MAX_SYMREF_DEPTH:
        return None
    bases = _bases(gd)
    for base in bases:
        text = _read_small(base, ref)
        if text and OBJECT_ID.fullmatch(text):
            return text
        if text and text.startswith("ref: "):
            return _ref_commit(gd, text[5:].strip(), depth + 1)
    for base in bases:
        sha = _packed(base, ref)
        if sha:
            return sha
    return None


def _head(gd: Path) -> str | None:
    """HEAD as read: `ref: <full ref name>` (checked) or an object id; None when neither."""
    text = _read_small(gd, "HEAD")
    if not text:
        return None
    if text.startswith("ref: "):
        ref = text[5:].strip()
        return f"ref: {ref}" if ref.startswith("refs/") and check_ref_format(ref) else None
    return text if OBJECT_ID.fullmatch(text) else None


def head_branch(root: Path) -> str | None:
    """Current branch name, or None when detached or not a git repository."""
    gd = git_dir(root)
    head = _head(gd) if gd else None
    branch = head[len("ref: refs/heads/"):] if head and head.startswith("ref: refs/heads/") else None
    # git refuses a branch named `-x` (it reads as an option); a hand-written HEAD may still say so
    return branch if branch and check_ref_format(branch) else None


def head_detached(root: Path) -> bool:
    """Whether HEAD names a commit rather than a branch (a checkout of a tag or commit, and git
    itself during a rebase or bisect)."""
    gd = git_dir(root)
    head = _head(gd) if gd else None
    return bool(head) and not head.startswith("ref: ")


def head_commit(root: Path) -> str | None:
    """The commit HEAD points to (loose ref, packed-refs, or detached), or None."""
    gd = git_dir(root)
    head = _head(gd) if gd else None
    if not head:
        return None
    if not head.startswith("ref: "):
        return head
    return _ref_commit(gd, head[5:])  # None: an unborn branch


def resolve_ref(root: Path, name: str) -> str | None:
    """The object id a user-given branch, tag, full ref or full commit id names in this
    repository (git rev-parse's order of lookup), or None when it names nothing here."""
    gd = git_dir(root)
    if gd is None or not check_ref_format(name):
        return None
    if OBJECT_ID.fullmatch(name):
        return name if _has_object(gd, name) else None
    candidates = [name] if name.startswith("refs/") else [
        f"refs/{name}", f"refs/tags/{name}", f"refs/heads/{name}", f"refs/remotes/{name}",
        f"refs/remotes/{name}/HEAD"]
    for ref in candidates:
        sha = _ref_commit(gd, ref)
        if sha:
            return sha
    return None


# ---- objects ------------------------------------------------------------------------------------

def _has_object(gd: Path, oid: str) -> bool:
    objects = (_common_dir(gd) or gd) / "objects"
    try:
        if stat.S_ISREG(os.lstat(objects / oid[:2] / oid[2:]).st_mode):
            return True
    except OSError:
        pass  # not loose: perhaps packed
    try:
        names = sorted(n for n in os.listdir(objects / "pack") if n.endswith(".idx"))
    except OSError:
        return False
    raw = bytes.fromhex(oid)
    return any(_pack_index_has(objects / "pack" / n, raw) for n in names[:MAX_PACK_INDEXES])


def _pack_index_has(path: Path, oid: bytes) -> bool:
    """Bisect a version-2 pack index: magic and version, 256 cumulative counts by first byte,
    then the sorted object ids. Reads a few dozen bytes, whatever the index's size."""
    try:
        fd = open_regular(path)
    except OSError:
        return False
    try:
        size = os.fstat(fd).st_size
        header = os.pread(fd, 8 + 1024, 0)
        if len(header) < 8 + 1024 or header[:8] != b"\xfftOc\x00\x00\x00\x02":
            return False
        fanout = header[8:]
        count = int.from_bytes(fanout[1020:1024], "big")
        if 8 + 1024 + count * len(oid) > size:
            return False
        first = oid[0]
        lo = int.from_bytes(fanout[4 * first - 4:4 * first], "big") if first else 0
        hi = min(int.from_bytes(fanout[4 * first:4 * first + 4], "big"), count)
        while lo < hi:
            mid = (lo + hi) // 2
            entry = os.pread(fd, len(oid), 8 + 1024 + mid * len(oid))
            if entry == oid:
                return True
            lo, hi = (mid + 1, hi) if entry < oid else (lo, mid)
        return False
    except OSError:
        return False
    finally:
        os.close(fd)


# ---- what a job's files belong to ---------------------------------------------------------------

def checkout_state(root: Path) -> tuple[str | None, str | None, int] | None:
    """HEAD as written, the commit it names and HEAD's mtime, or None outside git. A job reads
    it before its scan and again after its writes: any checkout in between (even one and back,
    which rewrites HEAD) changes it, and then the job's files need not be that commit's."""
    gd = git_dir(root)
    if gd is None:
        return None
    try:
        mtime = os.stat(gd / "HEAD").st_mtime_ns
    except OSError:
        mtime = -1
    return _head(gd), head_commit(root), mtime


# git's index (`.git/index`, versions 2-4) is read for the stat data of tracked files only; a
# file larger than this is not read (the tree then counts as not known to be clean).
GIT_INDEX_LIMIT = 64 * 1024 * 1024  # ~100 bytes an entry: far past any real repository
_ENTRY_FIXED = 62  # ctime, mtime, dev, ino, mode, uid, gid, size (4 bytes each), object id, flags
_EXTENDED = 0x4000


def index_stats(root: Path) -> dict[str, tuple[int, int]] | None:
    """Tracked path -> (size, mtime ns) as git's index recorded them at the last add, commit or
    checkout; None when there is no readable index (not git, unborn, another format, damaged)."""
    gd = git_dir(root)
    if gd is None:
        return None
    try:
        data = read_prefix("index", GIT_INDEX_LIMIT, base=gd, whole=True)
    except (OSError, ValueError):
        return None
    if len(data) < 12 or data[:4] != b"DIRC":
        return None
    version, count = int.from_bytes(data[4:8], "big"), int.from_bytes(data[8:12], "big")
    if version not in (2, 3, 4) or count > len(data) // _ENTRY_FIXED:
        return None
    try:
        return _index_entries(data, version, count)
    except (IndexError, ValueError, UnicodeDecodeError):
        return None


def _index_entries(data: bytes, version: int, count: int) -> dict[str, tuple[int, int]]:
    out: dict[str, tuple[int, int]] = {}
    at, previous = 12, b""
    for _ in range(count):
        sec, nsec = int.from_bytes(data[at + 8:at + 12], "big"), int.from_bytes(data[at + 12:at + 16], "big")
        size = int.from_bytes(data[at + 36:at + 40], "big")
        flags = int.from_bytes(data[at + 60:at + 62], "big")
        name_at = at + _ENTRY_FIXED + (2 if version >= 3 and flags & _EXTENDED else 0)
        if version == 4:  # the name is the previous one less N bytes, then a NUL-ended suffix
            strip, name_at = _varint(data, name_at)
            end = data.index(b"\0", name_at)
            name = previous[:len(previous) - strip] + data[name_at:end]
            at = end + 1
        else:  # NUL-ended, padded with NULs to a multiple of 8 bytes from the entry's start
            end = data.index(b"\0", name_at)
            name = data[name_at:end]
            at += (end - at + 8) // 8 * 8
        if (flags >> 12) & 3 == 0:  # stage 0: a merge in progress leaves its other stages aside
            out[name.decode("utf-8")] = (size, sec * 1_000_000_000 + nsec)
        previous = name
    return out


# how long `staged_paths` waits for git (a large index is compared in well under a second)
STAGED_TIMEOUT_S = 10.0


def staged_paths(root: Path) -> frozenset[str] | None:
    """The tracked paths whose entry in git's index differs from HEAD's commit (`git diff-index
    --cached`: a change staged with `git add` but not committed, which the index's stat data
    cannot show: it records the file as on disk). None when git cannot tell (no git, no commit
    yet, an unreadable index, or git past STAGED_TIMEOUT_S). Reads git's index and HEAD's trees
    only: no file is read, no filter or diff driver runs. HEAD is read by `head_commit` first
    (which refuses a FIFO or a device there, where git would wait on it) and named by its id."""
    commit = head_commit(root)
    if commit is None or not OBJECT_ID.fullmatch(commit):
        return None
    try:
        proc = _git(root, "diff-index", "--cached", "--name-only", "--no-renames", "-z", commit, "--")
    except ExportError:
        return None
    try:
        out, _ = proc.communicate(timeout=STAGED_TIMEOUT_S)
    except subprocess.TimeoutExpired:  # a repository file git blocks on (a FIFO): cannot tell
        proc.kill()
        proc.communicate()
        return None
    if proc.returncode != 0:
        return None
    return frozenset(p.decode("utf-8", "surrogateescape") for p in out.split(b"\0") if p)


def _varint(data: bytes, at: int) -> tuple[int, int]:
    """git's offset varint (the index v4 name prefix): value and the position after it."""
    byte = data[at]
    value = byte & 0x7F
    at += 1
    while byte & 0x80:
        byte = data[at]
        value = ((value + 1) << 7) | (byte & 0x7F)
        at += 1
    return value, at


# ---- a ref's files from git's objects -------------------------------------------------------------
# A ref that is not checked out is indexed from the objects its commit names, never from the
# working tree. `git ls-tree` and `git cat-file --batch` read objects as stored: no filter driver,
# hook or fsmonitor runs (a checkout or `git archive` would run the filters a repository's config
# names), and the options below turn off the few settings that could start a command anyway.
_GIT_SAFE = ("-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "-c", "core.pager=cat",
             "-c", "core.untrackedCache=false", "--no-replace-objects")
_GIT_ENV = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C",
            "GIT_NO_LAZY_FETCH": "1"}
EXPORT_MAX_FILES = 500_000  # a tree past this many files is cut (with the count in the error)
_REGULAR_MODES = (b"100644", b"100755")


class ExportError(Exception):
    """git could not list or read the commit's objects (message for the person)."""


def tree_files(root: Path, commit: str, max_file_bytes: int) -> dict[str, str]:
    """path -> object id of the files of `commit` an export writes (regular files no larger than
    `max_file_bytes`: no symbolic link, no submodule)."""
    if not OBJECT_ID.fullmatch(commit):
        raise ExportError(f"not a commit id: {commit!r}")
    return {path: oid for mode, oid, size, path in _ls_tree(root, commit)
            if mode in _REGULAR_MODES and size <= max_file_bytes}


def changed_files(old: dict[str, str], new: dict[str, str]) -> list[str]:
    """The paths whose file differs between two `tree_files` listings: added, deleted or with
    another object id (a rename is a delete and an add, as `git diff --no-renames` lists it)."""
    return sorted(p for p in old.keys() | new.keys() if old.get(p) != new.get(p))


def merge_base(root: Path, a: str, b: str) -> str | None:
    """The best common ancestor of commits `a` and `b` (`git merge-base`), None when they have
    none (unrelated histories, a shallow clone cut above it)."""
    if not (OBJECT_ID.fullmatch(a) and OBJECT_ID.fullmatch(b)):
        return None
    proc = _git(root, "merge-base", a, b)
    out, _ = proc.communicate()
    sha = out.decode("ascii", "replace").strip()
    return sha if proc.returncode == 0 and OBJECT_ID.fullmatch(sha) else None


def default_branch(root: Path) -> str | None:
    """The repository's default branch: the one `refs/remotes/origin/HEAD` names when it exists
    locally, else `main`, else `master`; None when none of them is a branch here."""
    gd = git_dir(root)
    if gd is None:
        return None
    names = []
    for base in _bases(gd):
        target = _read_small(base, "refs/remotes/origin/HEAD")
        if target and target.startswith("ref: refs/remotes/origin/"):
            names.append(target[len("ref: refs/remotes/origin/"):].strip())
    for name in (*names, "main", "master"):
        if check_ref_format(name) and _ref_commit(gd, f"refs/heads/{name}"):
            return name
    return None


def export_commit(root: Path, commit: str, dest: Path, max_file_bytes: int,
                  only: set[str] | None = None, listing: dict[str, str] | None = None) -> Path:
    """Write the regular files of `commit` under `dest/files`, from git's objects, and return that
    directory. Files larger than `max_file_bytes`, symbolic links and submodules are left out, as
    a scan leaves them out of a working tree; with `only`, every file but those paths too (an
    overlay's export: the files that differ from the base). `dest/objects.json` records each
    file's object id: the next export of the same ref rewrites only the files whose object changed
    and removes the ones gone, so the others keep their mtimes and the job's size+mtime check
    skips them. `listing`: `tree_files(root, commit, max_file_bytes)` when the caller has it."""
    listing = tree_files(root, commit, max_file_bytes) if listing is None else listing
    entries = [(oid, path) for path, oid in listing.items() if only is None or path in only]
    files, ledger = dest / "files", dest / "objects.json"
    old = _read_ledger(ledger) if files.is_dir() else None
    if old is None:  # first export, or one that did not finish: start over
        if dest.exists():
            shutil.rmtree(dest)
        files.mkdir(parents=True)
        old = {}
    new = {path: oid for oid, path in entries}
    for path, oid in old.items():
        if new.get(path) != oid:
            _remove(files / path)
    ledger.unlink(missing_ok=True)  # until the files are written, no ledger: a crash starts over
    _write_blobs(root, [(oid, path) for oid, path in entries
                        if old.get(path) != oid or not (files / path).is_file()], files)
    ledger.write_text(to_json(new), encoding="utf-8")
    return files


def _read_ledger(path: Path) -> dict[str, str] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _remove(path: Path) -> None:
    try:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()
    except FileNotFoundError:
        pass


def _git(root: Path, *args: str, stdin: int | None = None) -> subprocess.Popen:
    env = {**os.environ, **_GIT_ENV}
    try:
        return subprocess.Popen(["git", *_GIT_SAFE, *args], cwd=root, env=env, stdin=stdin,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    except OSError as e:
        raise ExportError(f"git is needed to index a ref that is not checked out ({e.strerror})") from e


def _ls_tree(root: Path, commit: str) -> list[tuple[bytes, str, int, str]]:
    proc = _git(root, "ls-tree", "-r", "-z", "-l", "--full-tree", commit)
    out, err = proc.communicate()
    if proc.returncode != 0:
        raise ExportError(f"git ls-tree {commit[:12]} failed: {err.decode('utf-8', 'replace').strip()[:200]}")
    entries = []
    for record in out.split(b"\0"):
        if not record:
            continue
        meta, _, raw_path = record.partition(b"\t")
        fields = meta.split()
        if len(fields) != 4 or not raw_path:
            continue
        path = raw_path.decode("utf-8", "surrogateescape")
        if not _safe_tree_path(path):
            continue  # git's own checks refuse these; a crafted object may still hold one
        size = int(fields[3]) if fields[3].isdigit() else 0
        entries.append((fields[0], fields[2].decode("ascii", "replace"), size, path))
        if len(entries) > EXPORT_MAX_FILES:
            raise ExportError(f"commit {commit[:12]} holds more than {EXPORT_MAX_FILES} files")
    return entries


def _safe_tree_path(path: str) -> bool:
    parts = path.split("/")
    return not path.startswith("/") and all(p not in ("", ".", "..") and p.lower() != ".git" for p in parts)


_STAMP_BASE_NS = 1_000_000_000 * 1_000_000_000  # 2001-09-09: any stamp is years old


def object_mtime_ns(oid: str) -> int:
    """The mtime an exported file gets: one of 2^56 instants of 2001-2004 drawn from its object id.
    Another object (another content) gets another mtime, so the job's size+mtime check still
    sees every change; and the stamp is years old, so a file is never "modified within 2 s of
    its read" (`index.RACY_NS`), which made every sync soon after an export read again every
    file that export wrote."""
    return _STAMP_BASE_NS + int(oid[:14], 16)


def _write_blobs(root: Path, entries: list[tuple[str, str]], dest: Path) -> None:
    proc = _git(root, "cat-file", "--batch", stdin=subprocess.PIPE)
    try:
        for oid, path in entries:
            proc.stdin.write(oid.encode() + b"\n")
            proc.stdin.flush()
            header = proc.stdout.readline().split()
            if len(header) != 3 or header[1] != b"blob" or not header[2].isdigit():
                raise ExportError(f"git cat-file could not read {path} ({b' '.join(header).decode('ascii', 'replace')})")
            data = proc.stdout.read(int(header[2]))
            proc.stdout.read(1)  # the newline after the object
            target = dest / path
            for parent in reversed(target.relative_to(dest).parents[:-1]):  # a file where a directory goes
                if (dest / parent).is_file():
                    (dest / parent).unlink()
            target.parent.mkdir(parents=True, exist_ok=True)
            if target.is_dir():  # a directory where this file goes (its files were removed above)
                shutil.rmtree(target)
            target.write_bytes(data)
            stamp = object_mtime_ns(oid)
            os.utime(target, ns=(stamp, stamp))
    finally:
        proc.stdin.close()
        proc.stdout.close()
        proc.stderr.close()
        proc.wait()


def state_dirs(root: Path, limit: int = 256) -> list[Path]:
    """The directories whose entries change when HEAD, git's index or a branch moves: the git
    directory, and `refs/heads` with its subdirectories (branch names with `/`) in each base
    (a worktree's own and its shared one). At most `limit` of them: a watcher's safety poll
    covers the rest."""
    gd = git_dir(root)
    if gd is None:
        return []
    out: list[Path] = []
    for base in _bases(gd):
        out.append(base)
        heads = base / "refs" / "heads"
        try:
            for dirpath, dirnames, _ in os.walk(heads, followlinks=False):
                out.append(Path(dirpath))
                if len(out) >= limit:
                    return out[:limit]
                dirnames.sort()
        except OSError:
            continue
    return out
