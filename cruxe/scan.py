"""Walk a repository and decide which files are indexed.

Three ignore layers, later ones overriding earlier ones (gitignore semantics, `!` negation):
built-in defaults, every `.gitignore` (nested ones relative to their directory), and the
root `.cruxeignore`; the patterns are matched by `cruxe.ignore` (git's wildmatch, without
backtracking blow-ups). Excluded directories are pruned while walking, so, as in git, a file
inside an excluded directory cannot be re-included. Symlinked directories are never followed
(no loops, no escapes); a symlinked file is indexed only when its target is a regular file
inside the repository. Oversized and binary files are skipped with a warning. Ignore files are
opened without blocking and read only when regular, and the whole walk has a time limit.
"""
from __future__ import annotations

import fnmatch
import logging
import os
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path

from . import ignore
from .config import DEFAULT_SCAN_TIMEOUT_S, MAX_FILE_BYTES
from .errors import CruxeError
from .languages import detect_language

log = logging.getLogger(__name__)

BINARY_SNIFF_BYTES = 8192  # a NUL byte in the first 8 KiB marks a file as binary
# Real ignore files are a few KiB; reading more only buys time spent compiling patterns.
MAX_IGNORE_FILE_BYTES = 1 << 20
SCAN_TIMEOUT_S = float(DEFAULT_SCAN_TIMEOUT_S)  # `index.scan_timeout_s` (docs/CONFIG.md)

DEFAULT_DIRS = (".git", "node_modules", "__pycache__", ".tox", "target", "build", "dist",
                ".next", ".nuxt", "vendor", ".venv", "venv", ".cruxe", ".hg", ".svn")
DEFAULT_SUFFIXES = (".exe", ".dll", ".so", ".dylib", ".o", ".a", ".wasm", ".pyc", ".class",
                    ".jar", ".min.js", ".min.css")
DEFAULT_GLOBS = ("*.generated.*", "*.pb.go", "*_generated.rs")

# Text files without a grammar are indexed for path and full-text search only.
TEXT_EXTENSIONS = frozenset({
    ".md", ".rst", ".txt", ".toml", ".json", ".yaml", ".yml", ".cfg", ".ini", ".sh", ".bash",
    ".proto", ".sql", ".html", ".css", ".scss", ".graphql", ".env.example", ".mod", ".sum",
})
TEXT_NAMES = frozenset({"Makefile", "Dockerfile", "Cargo.toml", "go.mod", "README", "LICENSE"})


@dataclass(frozen=True, slots=True)
class ScanEntry:
    path: str  # repo-relative, '/'-separated
    abs_path: str
    size: int
    mtime_ns: int
    language: str | None  # None: indexed as text only (no grammar)


@dataclass(slots=True)
class ScanResult:
    files: list[ScanEntry] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    # each walked directory's mtime, taken just before it was listed: a later add, delete or
    # rename in it moves the mtime (freshness compares; docs/ARCHITECTURE.md "Freshness")
    dir_mtimes: dict[str, int] = field(default_factory=dict)
    excluded: dict[str, int] = field(default_factory=lambda: {"builtin": 0, "gitignore": 0, "cruxeignore": 0})
    pruned_dirs: dict[str, int] = field(default_factory=lambda: {"builtin": 0, "gitignore": 0, "cruxeignore": 0})
    skipped: dict[str, int] = field(default_factory=lambda: {"too_large": 0, "binary": 0, "symlink": 0,
                                                              "unreadable": 0, "bad_name": 0,
                                                              "not_regular": 0})
    ignore_files: list[str] = field(default_factory=list)
    cruxeignore_invalid: list[str] = field(default_factory=list)


def _read_ignore_file(path: str, rel: str, warnings: list[str]) -> bytes | None:
    """An ignore file's bytes, at most MAX_IGNORE_FILE_BYTES of them. Opened without blocking
    and checked to be a regular file before any read: a FIFO named `.gitignore` (even one
    swapped in after the listing) must not stall the walk."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        return None
    except OSError as e:
        warnings.append(f"{rel}: unreadable ({e.strerror}); not read")
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            warnings.append(f"{rel}: not a regular file; not read")
            return None
        chunks, size = [], 0
        while size <= MAX_IGNORE_FILE_BYTES:
            chunk = os.read(fd, MAX_IGNORE_FILE_BYTES + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as e:
        warnings.append(f"{rel}: unreadable ({e.strerror}); not read")
        return None
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > MAX_IGNORE_FILE_BYTES:
        data = data[:data.rfind(b"\n", 0, MAX_IGNORE_FILE_BYTES) + 1]
        lineno = data.count(b"\n") + 1
        warnings.append(f"{rel}:{lineno}: the file is over {MAX_IGNORE_FILE_BYTES} bytes; "
                        f"this line and the rest are not used")
    return data


def _inside(target: str, root: str) -> bool:
    return target == root or target.startswith(root + os.sep)


def _ignore_file_bytes(path: str, root: str, rel: str, warnings: list[str]) -> bytes | None:
    """The bytes of an ignore file, or None when there is none to read. A symlinked ignore
    file pointing out of the repository is not read: indexing never follows a link out, and
    its invalid lines would be echoed (bytes of an outside file) in warnings."""
    if os.path.islink(path) and not _inside(os.path.realpath(path), root):
        warnings.append(f"{rel}: symlink points outside the repository; not read")
        return None
    return _read_ignore_file(path, rel, warnings)


def indexable_name(name: str) -> bool:
    """Whether a file of this name is indexed (ignore rules and size aside): a language's source
    or a text file."""
    return detect_language(name) is not None or _is_text_name(name)


def _is_text_name(name: str) -> bool:
    if name in TEXT_NAMES:
        return True
    dot = name.rfind(".")
    return dot > 0 and name[dot:].lower() in TEXT_EXTENSIONS


_DEFAULT_DIR_SET = frozenset(DEFAULT_DIRS)
# `build`, `dist` and `target` are output directories when they sit at the repository root or
# next to a package manifest; elsewhere they are real source (Go's go/build and cmd/dist
# packages, the expected outputs under rustfmt's tests/target; counts in docs/DEPARTURES.md).
OUTPUT_DIRS = frozenset({"build", "dist", "target"})
MANIFESTS = ("package.json", "setup.py", "pyproject.toml", "setup.cfg", "Cargo.toml", "go.mod",
             "tsconfig.json", "Makefile", "CMakeLists.txt")


def _is_output_dir(root: str, rel: str) -> bool:
    parent = rel.rpartition("/")[0]
    if not parent:
        return True
    base = os.path.join(root, parent)
    return any(os.path.exists(os.path.join(base, m)) for m in MANIFESTS)


def _builtin_excluded(rel: str, is_dir: bool, root: str = "") -> bool:
    name = rel.rsplit("/", 1)[-1]
    if is_dir:
        if name in OUTPUT_DIRS:
            return _is_output_dir(root, rel)
        return name in _DEFAULT_DIR_SET
    if name.endswith(DEFAULT_SUFFIXES):
        return True
    return fnmatch.fnmatchcase(name, "*.generated.*") or name.endswith(("_generated.rs", ".pb.go"))


Layer = tuple[str, bytes, "ignore.RuleSet | None"]  # (layer, base directory, rules; None: built-in)


class _Rules:
    """The ignore layers active at one directory: built-in < each `.gitignore` from the root
    down < `.cruxeignore`. A directory without a `.gitignore` shares its parent's."""

    def __init__(self, root: str, cruxe: list[Layer], git: tuple[Layer, ...] = ()):
        self.root, self.cruxe, self.git = root, cruxe, git
        # the last matching rule wins: ask the highest layer first
        self.top_down = [*cruxe, *reversed(git), ("builtin", b"", None)]

    def below(self, gitignore: Layer) -> _Rules:
        return _Rules(self.root, self.cruxe, self.git + (gitignore,))

    def verdict(self, rel: str, name_b: bytes, is_dir: bool) -> str | None:
        """The layer whose last matching rule excludes `rel`, or None if it is included."""
        rel_b = b""
        for layer, base, rules in self.top_down:
            if rules is None:  # built-in defaults: plain set/suffix checks, no regex per file
                return layer if _builtin_excluded(rel, is_dir, self.root) else None
            rel_b = rel_b or rel.encode("utf-8")  # git matches bytes
            hit = rules.decide(rel_b[len(base) + 1:] if base else rel_b, name_b, is_dir)
            if hit is not None:
                return layer if hit else None
        return None


def scan(root: str | Path, max_file_bytes: int = MAX_FILE_BYTES,
         timeout_s: float | None = SCAN_TIMEOUT_S) -> ScanResult:
    """The indexable files under `root`, in path order. Raises CruxeError when the walk takes
    longer than `timeout_s` seconds (None: no limit): a partial list would read as deletions."""
    root = Path(root).resolve()
    out = ScanResult()
    root_str = str(root)
    deadline = _Deadline(timeout_s, root_str)
    cruxe_layer: list[Layer] = []
    data = _ignore_file_bytes(os.path.join(root_str, ".cruxeignore"), root_str, ".cruxeignore", out.warnings)
    if data is not None:
        before = len(out.warnings)
        cruxe_layer.append(("cruxeignore", b"", ignore.parse(data, ".cruxeignore", out.warnings)))
        out.cruxeignore_invalid = out.warnings[before:]
        out.ignore_files.append(".cruxeignore")
    # stack of (dir rel path, the ignore layers active in it)
    stack: list[tuple[str, _Rules]] = [("", _Rules(root_str, cruxe_layer))]
    while stack:
        rel_dir, rules = stack.pop()
        deadline.check(rel_dir, out)
        abs_dir = os.path.join(root_str, rel_dir) if rel_dir else root_str
        try:
            out.dir_mtimes[rel_dir] = os.stat(abs_dir).st_mtime_ns
            entries = sorted(os.scandir(abs_dir), key=lambda e: e.name)
        except OSError as e:
            out.warnings.append(f"{rel_dir or '.'}: cannot list directory ({e.strerror})")
            continue
        # the listing says whether there is a .gitignore: no open for each directory without one
        if any(e.name == ".gitignore" for e in entries):
            gi_rel = f"{rel_dir + '/' if rel_dir else ''}.gitignore"
            data = _ignore_file_bytes(os.path.join(abs_dir, ".gitignore"), root_str, gi_rel, out.warnings)
            if data is not None:
                rules = rules.below(("gitignore", rel_dir.encode("utf-8"), ignore.parse(data, gi_rel, out.warnings)))
                out.ignore_files.append(gi_rel)
        subdirs = _scan_entries(root_str, rel_dir, entries, rules, max_file_bytes, deadline, out)
        # depth-first, in name order: push in reverse so the first name is walked first
        stack.extend((d, rules) for d in reversed(subdirs))
    out.files.sort(key=lambda f: f.path)
    return out


def _scan_entries(root: str, rel_dir: str, entries: list[os.DirEntry], rules: _Rules,
                  max_file_bytes: int, deadline: _Deadline, out: ScanResult) -> list[str]:
    """Sort one directory's entries into files (added to `out`), skipped entries and the
    subdirectories to walk (returned)."""
    subdirs: list[str] = []
    for n, entry in enumerate(entries, 1):
        if n % 256 == 0:
            deadline.check(rel_dir, out)
        name = entry.name
        try:
            name_b = name.encode("utf-8")
        except UnicodeEncodeError:
            out.skipped["bad_name"] += 1
            shown = os.fsencode(name).decode("ascii", "backslashreplace")
            out.warnings.append(f"{rel_dir + '/' if rel_dir else ''}{shown}: file name is not valid UTF-8; skipped")
            continue
        rel = f"{rel_dir}/{name}" if rel_dir else name
        try:
            is_link = entry.is_symlink()
            is_dir = entry.is_dir(follow_symlinks=False)
        except OSError:
            out.skipped["unreadable"] += 1
            continue
        if is_dir:
            layer = rules.verdict(rel, name_b, True)
            if layer:
                out.pruned_dirs[layer] += 1
            else:
                subdirs.append(rel)
            continue
        if is_link and os.path.isdir(entry.path):
            out.skipped["symlink"] += 1  # directory symlinks are never followed
            continue
        layer = rules.verdict(rel, name_b, False)
        if layer:
            out.excluded[layer] += 1
            continue
        if not indexable_name(name):
            continue
        language = detect_language(name)
        item = _admit(root, entry, rel, is_link, language, max_file_bytes, out)
        if item is not None:
            out.files.append(item)
    return subdirs


class _Deadline:
    """The walk's time limit. Past it the scan fails: a partial file list would read as
    deletions to the indexer, and a walk that never ends would hold the writer lock."""

    def __init__(self, timeout_s: float | None, root: str):
        self.timeout_s = timeout_s
        self.root = root
        self.at = None if timeout_s is None else time.monotonic() + timeout_s

    def check(self, rel_dir: str, out: ScanResult) -> None:
        if self.at is None or time.monotonic() <= self.at:
            return
        raise CruxeError("internal_error", (
            f"scanning {self.root} took longer than {self.timeout_s:g} s (stopped in {rel_dir or '.'}/ after "
            f"{len(out.files)} files, ignore files read: {len(out.ignore_files)})"),
            {"timeout_s": self.timeout_s, "directory": rel_dir or ".",
             "remedy": "Exclude large generated or vendored directories in .cruxeignore, check the ignore "
                       "files listed by `cruxe doctor`, or raise `index.scan_timeout_s` in "
                       "~/.cruxe/config.toml (or CRUXE_SCAN_TIMEOUT_S)."})


def _admit(root: str, entry: os.DirEntry, rel: str, is_link: bool, language: str | None,
           max_bytes: int, out: ScanResult) -> ScanEntry | None:
    try:
        if is_link:
            target = os.path.realpath(entry.path)
            if not _inside(target, root):
                out.skipped["symlink"] += 1
                out.warnings.append(f"{rel}: symlink points outside the repository; skipped")
                return None
            st = os.stat(target)
        else:
            st = entry.stat(follow_symlinks=False)
    except OSError as e:
        out.skipped["unreadable"] += 1
        out.warnings.append(f"{rel}: unreadable ({e.strerror}); skipped")
        return None
    if not stat.S_ISREG(st.st_mode):
        out.skipped["not_regular"] += 1
        out.warnings.append(f"{rel}: not a regular file (a FIFO, socket or device); skipped")
        return None
    if st.st_size > max_bytes:
        out.skipped["too_large"] += 1
        out.warnings.append(f"{rel}: {st.st_size} bytes is over the {max_bytes}-byte limit; skipped")
        return None
    return ScanEntry(rel, entry.path, st.st_size, st.st_mtime_ns, language)


def looks_binary(head: bytes) -> bool:
    return b"\x00" in head[:BINARY_SNIFF_BYTES]
