"""Reads of small metadata files that a repository controls (`.git/HEAD`, refs, `packed-refs`,
`.cruxe/config.toml`, ignore files): a regular file only, never blocking, never unbounded.

A repository is untrusted input. Its metadata may be a FIFO (an `open` for reading waits for
a writer forever), a symlink to `/dev/zero` (a read never ends) or a sparse file of many
gigabytes. So every such read opens without blocking, checks with `fstat` that it holds a
regular file, and reads at most a stated number of bytes. This module imports nothing of
Cruxe's: config, scan and vcs all sit above it.
"""
from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC


class NotRegularFile(OSError):
    """The path names a FIFO, a device, a socket or a directory, not a regular file."""


class FileTooLarge(OSError):
    """The file is longer than the caller's bound (raised only when the caller wants it whole)."""


def open_regular(path: str | Path, *, base: str | Path | None = None, follow: bool = False) -> int:
    """An fd opened for reading on a regular file; the caller closes it.

    With `base`, `path` is relative to it and no component below `base` may be a symlink
    (a link in a ref's directories could lead anywhere). Without `base`, `follow=False`
    refuses a symlink as the last component. Raises OSError (FileNotFoundError when absent,
    NotRegularFile when it is not a regular file)."""
    if base is None:
        fd = os.open(path, _FLAGS | (0 if follow else os.O_NOFOLLOW))
    else:
        fd = _open_beneath(Path(base), Path(path))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotRegularFile(errno.EINVAL, "not a regular file", str(path))
    except BaseException:
        os.close(fd)
        raise
    return fd


def _open_beneath(base: Path, rel: Path) -> int:
    parts = rel.parts
    if not parts or rel.is_absolute() or any(p in ("..", ".") for p in parts):
        raise NotRegularFile(errno.EINVAL, "not a plain relative path", str(rel))
    fd = os.open(base, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for part in parts[:-1]:
            fd, parent = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC,
                                 dir_fd=fd), fd
            os.close(parent)
        return os.open(parts[-1], _FLAGS | os.O_NOFOLLOW, dir_fd=fd)
    finally:
        os.close(fd)


def read_prefix(path: str | Path, limit: int, *, base: str | Path | None = None,
                follow: bool = False, whole: bool = False) -> bytes:
    """At most `limit` bytes from the start of a regular file (see `open_regular` for `base`
    and `follow`). With `whole=True`, a file longer than `limit` raises FileTooLarge instead
    of being cut. Raises OSError like `open_regular`."""
    fd = open_regular(path, base=base, follow=follow)
    try:
        chunks: list[bytes] = []
        got = 0
        want = limit + 1 if whole else limit
        while got < want:
            chunk = os.read(fd, min(want - got, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if whole and len(data) > limit:
        raise FileTooLarge(errno.EFBIG, f"larger than {limit} bytes", str(path))
    return data


def read_text_prefix(path: str | Path, limit: int, **kwargs) -> str | None:
    """`read_prefix` decoded as UTF-8 (invalid bytes replaced), or None when the file is
    absent, not a regular file, too large (with `whole=True`), unreadable or unnameable (a NUL)."""
    try:
        return read_prefix(path, limit, **kwargs).decode("utf-8", "replace")
    except (OSError, ValueError):
        return None
