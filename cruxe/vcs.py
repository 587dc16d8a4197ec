"""Read git state straight from `.git` (no subprocess on the query path)."""
from __future__ import annotations

from pathlib import Path


def git_dir(root: Path) -> Path | None:
    """The repository's git directory (handles `.git` files of worktrees/submodules)."""
    dot = root / ".git"
    if dot.is_dir():
        return dot
    if dot.is_file():
        try:
            text = dot.read_text().strip()
        except OSError:
            return None
        if text.startswith("gitdir:"):
            p = Path(text[7:].strip())
            return p if p.is_absolute() else (root / p).resolve()
    return None


def _read(path: Path) -> str | None:
    try:
        return path.read_text().strip()
    except (OSError, UnicodeDecodeError):
        return None


def head_branch(root: Path) -> str | None:
    """Current branch name, or None when detached or not a git repository."""
    gd = git_dir(root)
    head = _read(gd / "HEAD") if gd else None
    if head and head.startswith("ref: refs/heads/"):
        return head[len("ref: refs/heads/"):]
    return None


def head_commit(root: Path) -> str | None:
    """The commit HEAD points to (loose ref, packed-refs, or detached), or None."""
    gd = git_dir(root)
    if gd is None:
        return None
    head = _read(gd / "HEAD")
    if not head:
        return None
    if not head.startswith("ref: "):
        return head or None
    ref = head[5:]
    # worktrees keep refs in the common dir
    common = _read(gd / "commondir")
    bases = [gd] + ([(gd / common).resolve()] if common else [])
    for base in bases:
        sha = _read(base / ref)
        if sha:
            return sha
        packed = _read(base / "packed-refs")
        if packed:
            for line in packed.splitlines():
                if line.endswith(" " + ref) and not line.startswith("#"):
                    return line.split(" ", 1)[0]
    return None  # unborn branch
