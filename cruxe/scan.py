"""Walk a repository and decide which files are indexed.

Three ignore layers, later ones overriding earlier ones (gitignore semantics, `!` negation):
built-in defaults, every `.gitignore` (nested ones relative to their directory), and the
root `.cruxeignore`. Excluded directories are pruned while walking. Symlinked directories are
never followed (no loops, no escapes); a symlinked file is indexed only when its target is a
regular file inside the repository. Oversized and binary files are skipped with a warning.
"""
from __future__ import annotations

import fnmatch
import logging
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

import pathspec

from .languages import detect_language

log = logging.getLogger(__name__)

MAX_FILE_BYTES = 1 << 20  # spec 01: files over 1 MiB are skipped (generated or data files)
BINARY_SNIFF_BYTES = 8192  # a NUL byte in the first 8 KiB marks a file as binary

DEFAULT_DIRS = (".git", "node_modules", "__pycache__", ".tox", "target", "build", "dist",
                ".next", ".nuxt", "vendor", ".venv", "venv", ".cruxe", ".hg", ".svn")
DEFAULT_SUFFIXES = (".exe", ".dll", ".so", ".dylib", ".o", ".a", ".wasm", ".pyc", ".class",
                    ".jar", ".min.js", ".min.css")
DEFAULT_GLOBS = ("*.generated.*", "*.pb.go", "*_generated.rs")
DEFAULT_RULES = tuple(f"{d}/" for d in DEFAULT_DIRS) + tuple(f"*{s}" for s in DEFAULT_SUFFIXES) + DEFAULT_GLOBS

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
    excluded: dict[str, int] = field(default_factory=lambda: {"builtin": 0, "gitignore": 0, "cruxeignore": 0})
    pruned_dirs: dict[str, int] = field(default_factory=lambda: {"builtin": 0, "gitignore": 0, "cruxeignore": 0})
    skipped: dict[str, int] = field(default_factory=lambda: {"too_large": 0, "binary": 0, "symlink": 0,
                                                              "unreadable": 0, "bad_name": 0,
                                                              "not_regular": 0})
    ignore_files: list[str] = field(default_factory=list)
    cruxeignore_invalid: list[str] = field(default_factory=list)


def parse_ignore_lines(lines: list[str], source: str, warnings: list[str]) -> pathspec.GitIgnoreSpec:
    """Compile gitignore lines one by one so a bad line is warned about and skipped while
    the valid lines still apply."""
    good: list[str] = []
    for lineno, raw in enumerate(lines, 1):
        line = raw.rstrip("\r\n")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            pathspec.GitIgnoreSpec.from_lines([line])
        except Exception as e:  # noqa: BLE001 - pathspec raises several types for bad patterns
            warnings.append(f"{source}:{lineno}: invalid ignore pattern {line!r} skipped ({e})")
            continue
        good.append(line)
    return pathspec.GitIgnoreSpec.from_lines(good)


def _read_lines(path: Path) -> list[str] | None:
    try:
        return path.read_bytes().decode("utf-8", "replace").splitlines()
    except OSError:
        return None


def _inside(target: str, root: str) -> bool:
    return target == root or target.startswith(root + os.sep)


def _ignore_file_lines(path: str, root: str, rel: str, warnings: list[str]) -> list[str] | None:
    """The lines of an ignore file, or None when there is none to read. A symlinked ignore
    file pointing out of the repository is not read: indexing never follows a link out, and
    its invalid lines would be echoed (bytes of an outside file) in warnings."""
    if not os.path.isfile(path):
        return None
    if os.path.islink(path) and not _inside(os.path.realpath(path), root):
        warnings.append(f"{rel}: symlink points outside the repository; not read")
        return None
    return _read_lines(Path(path))


def _is_text_name(name: str) -> bool:
    if name in TEXT_NAMES:
        return True
    dot = name.rfind(".")
    return dot > 0 and name[dot:].lower() in TEXT_EXTENSIONS


_DEFAULT_DIR_SET = frozenset(DEFAULT_DIRS)
# `build`, `dist` and `target` are output directories when they sit at the repository root or
# next to a package manifest; elsewhere they are real source (Go's go/build and cmd/dist
# packages, the expected outputs under rustfmt's tests/target: 772 files of rs-5k).
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


class _Rules:
    """The ignore layers active at one directory: (layer, base dir, spec), in order."""

    def __init__(self, layers: list[tuple[str, str, pathspec.GitIgnoreSpec]], root: str = ""):
        self.layers = layers
        self.root = root

    def verdict(self, rel: str, is_dir: bool) -> str | None:
        """The layer whose last matching rule excludes `rel`, or None if it is included."""
        decided: tuple[bool, str] | None = None
        for layer, base, spec in self.layers:
            if spec is None:  # built-in defaults: plain set/suffix checks, no regex per file
                if _builtin_excluded(rel, is_dir, self.root):
                    decided = (True, layer)
                continue
            sub = rel[len(base) + 1:] if base else rel
            if base and not rel.startswith(base + "/"):
                continue
            res = spec.check_file(sub + "/" if is_dir else sub)
            if res.include is not None:
                decided = (res.include, layer)
        return decided[1] if decided and decided[0] else None


def scan(root: str | Path, max_file_bytes: int = MAX_FILE_BYTES) -> ScanResult:
    root = Path(root).resolve()
    out = ScanResult()
    base_layers: list[tuple[str, str, pathspec.GitIgnoreSpec | None]] = [("builtin", "", None)]
    root_str = str(root)
    cruxe_layer = None
    lines = _ignore_file_lines(os.path.join(root_str, ".cruxeignore"), root_str, ".cruxeignore", out.warnings)
    if lines is not None:
        before = len(out.warnings)
        cruxe_layer = ("cruxeignore", "", parse_ignore_lines(lines, ".cruxeignore", out.warnings))
        out.cruxeignore_invalid = out.warnings[before:]
        out.ignore_files.append(".cruxeignore")
    # stack of (dir rel path, gitignore layers active in it)
    stack: list[tuple[str, list[tuple[str, str, pathspec.GitIgnoreSpec]]]] = [("", [])]
    while stack:
        rel_dir, git_layers = stack.pop()
        abs_dir = os.path.join(root_str, rel_dir) if rel_dir else root_str
        try:
            entries = sorted(os.scandir(abs_dir), key=lambda e: e.name)
        except OSError as e:
            out.warnings.append(f"{rel_dir or '.'}: cannot list directory ({e.strerror})")
            continue
        # the listing says whether there is a .gitignore: no stat for each directory without one
        if any(e.name == ".gitignore" for e in entries):
            gi_rel = f"{rel_dir + '/' if rel_dir else ''}.gitignore"
            lines = _ignore_file_lines(os.path.join(abs_dir, ".gitignore"), root_str, gi_rel, out.warnings)
            if lines is not None:
                git_layers = git_layers + [("gitignore", rel_dir, parse_ignore_lines(lines, gi_rel, out.warnings))]
                out.ignore_files.append(gi_rel)
        rules = _Rules(base_layers + git_layers + ([cruxe_layer] if cruxe_layer else []), root_str)
        subdirs: list[str] = []
        for entry in entries:
            name = entry.name
            try:
                name.encode("utf-8")
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
                layer = rules.verdict(rel, True)
                if layer:
                    out.pruned_dirs[layer] += 1
                else:
                    subdirs.append(rel)
                continue
            if is_link and os.path.isdir(entry.path):
                out.skipped["symlink"] += 1  # directory symlinks are never followed
                continue
            layer = rules.verdict(rel, False)
            if layer:
                out.excluded[layer] += 1
                continue
            language = detect_language(name)
            if language is None and not _is_text_name(name):
                continue
            item = _admit(root_str, entry, rel, is_link, language, max_file_bytes, out)
            if item is not None:
                out.files.append(item)
        # depth-first, in name order: push in reverse so the first name is walked first
        stack.extend((d, git_layers) for d in reversed(subdirs))
    out.files.sort(key=lambda f: f.path)
    return out


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
