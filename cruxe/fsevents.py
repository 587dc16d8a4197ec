"""Directory change events from Linux inotify, through ctypes (no dependency, no thread).

`DirEvents` watches a set of directories (not recursive: inotify never is) and answers, after a
wait, which entries of them were written, created, deleted or moved. `cruxe watch` uses it so an
idle tree costs a wake-up a second instead of a poll of every directory and file; it falls back
to polling (watch.py) where inotify is missing (not Linux, a libc without it, a sandbox that
refuses it) or where the kernel's per-user watch limit (`fs.inotify.max_user_watches`) is reached.
Memory: one watch descriptor and one path per directory, and a read buffer.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import errno
import logging
import os
import select
import struct
import sys
from dataclasses import dataclass
from typing import Iterable

log = logging.getLogger(__name__)

IN_ATTRIB = 0x004
IN_CLOSE_WRITE = 0x008
IN_MODIFY = 0x002
IN_MOVED_FROM = 0x040
IN_MOVED_TO = 0x080
IN_CREATE = 0x100
IN_DELETE = 0x200
IN_DELETE_SELF = 0x400
IN_MOVE_SELF = 0x800
IN_Q_OVERFLOW = 0x4000
IN_IGNORED = 0x8000
IN_ONLYDIR = 0x01000000
IN_DONT_FOLLOW = 0x02000000
IN_ISDIR = 0x40000000
_IN_NONBLOCK = os.O_NONBLOCK
_IN_CLOEXEC = getattr(os, "O_CLOEXEC", 0o2000000)

# What a change to a tree looks like; IN_ACCESS / IN_OPEN / IN_CLOSE_NOWRITE (reads) are left out,
# so Cruxe's own reads of the files never wake it, and so is IN_ATTRIB (a touch or a chmod changes
# no content; the freshness probe still sees a moved mtime).
MASK = (IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE
        | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_DONT_FOLLOW)  # a directory swapped for a symlink is not followed
ENTRY_CHANGES = IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO  # the directory's list of names moved
# The kernel's watches are per user and shared with every other program (editors, IDEs, build
# tools): Cruxe takes at most a quarter of them, and never more than this many, and polls beyond.
MAX_WATCHES = 65536
_LIMIT_FILE = "/proc/sys/fs/inotify/max_user_watches"
_HEADER = struct.Struct("iIII")  # wd, mask, cookie, len (struct inotify_event)
_READ_BYTES = 64 * 1024


@dataclass(frozen=True)
class Event:
    directory: str  # the watched directory (as given to `watch`)
    name: str  # the entry in it ("" for the directory itself)
    mask: int


OVERFLOW = Event("", "", IN_Q_OVERFLOW)  # the kernel dropped events: anything may have changed


def _libc() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        libc.inotify_init1.argtypes = [ctypes.c_int]
        libc.inotify_add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
        libc.inotify_rm_watch.argtypes = [ctypes.c_int, ctypes.c_int]
        return libc
    except (OSError, AttributeError):
        return None


class DirEvents:
    """One inotify instance over a set of directories. Not thread-safe: one owner (the watch loop)."""

    def __init__(self, libc: ctypes.CDLL, fd: int):
        self._libc, self._fd = libc, fd
        self._by_wd: dict[int, str] = {}
        self._by_dir: dict[str, int] = {}
        self._warned = False

    @classmethod
    def open(cls) -> DirEvents | None:
        """A new instance, or None where inotify cannot be had (the caller polls instead)."""
        libc = _libc()
        if libc is None:
            return None
        fd = libc.inotify_init1(_IN_NONBLOCK | _IN_CLOEXEC)
        if fd < 0:
            log.info("inotify unavailable (%s): polling", os.strerror(ctypes.get_errno()))
            return None
        return cls(libc, fd)

    def __len__(self) -> int:
        return len(self._by_dir)

    @staticmethod
    def budget() -> int:
        """How many directories one instance may watch (see MAX_WATCHES)."""
        try:
            with open(_LIMIT_FILE) as f:
                return max(0, min(MAX_WATCHES, int(f.read().strip()) // 4))
        except (OSError, ValueError):
            return 8192 // 4  # the kernel's historical default

    def watch(self, directories: Iterable[str]) -> bool:
        """Watch exactly `directories` (absolute paths): new ones added, gone ones dropped. False when
        one could not be added for a reason other than its absence (the watch limit, a permission):
        the set is then incomplete and the caller must not rely on it alone."""
        wanted = set(directories)
        budget = self.budget()
        over = len(wanted) > budget
        if over:
            if not self._warned:
                self._warned = True
                log.warning("watch: %d directories exceed the share of inotify watches Cruxe takes (%d); polling",
                            len(wanted), budget)
            wanted = set()
        for d in [d for d in self._by_dir if d not in wanted]:
            self._libc.inotify_rm_watch(self._fd, self._by_dir.pop(d))  # the IN_IGNORED that follows is skipped
        if over:
            return False
        complete = True
        for d in sorted(wanted - self._by_dir.keys()):
            wd = self._libc.inotify_add_watch(self._fd, os.fsencode(d), MASK)
            if wd >= 0:
                self._by_wd[wd] = d
                self._by_dir[d] = wd
                continue
            err = ctypes.get_errno()
            if err in (errno.ENOENT, errno.ENOTDIR):
                continue  # gone since the scan: its parent's event says so
            log.warning("watch: cannot watch %s (%s); falling back to polling", d, os.strerror(err))
            complete = False
            break
        return complete

    def wait(self, timeout: float) -> list[Event]:
        """The events that arrive within `timeout` seconds ([] when none): everything already queued,
        after the first event's arrival. `OVERFLOW` stands for a queue the kernel overflowed."""
        try:
            ready, _, _ = select.select([self._fd], [], [], max(0.0, timeout))
        except InterruptedError:
            return []
        return self._drain() if ready else []

    def _drain(self) -> list[Event]:
        out: list[Event] = []
        while True:
            try:
                data = os.read(self._fd, _READ_BYTES)
            except BlockingIOError:
                return out
            if not data:
                return out
            out.extend(self._parse(data))

    def _parse(self, data: bytes) -> list[Event]:
        out, at = [], 0
        while at + _HEADER.size <= len(data):
            wd, mask, _cookie, length = _HEADER.unpack_from(data, at)
            raw = data[at + _HEADER.size: at + _HEADER.size + length]
            at += _HEADER.size + length
            if mask & IN_Q_OVERFLOW:
                out.append(OVERFLOW)
                continue
            directory = self._by_wd.get(wd)
            if mask & IN_IGNORED:
                if directory is not None and self._by_dir.get(directory) == wd:
                    del self._by_dir[directory]
                self._by_wd.pop(wd, None)
            if directory is not None:
                out.append(Event(directory, os.fsdecode(raw.split(b"\0", 1)[0]), mask))
        return out

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
            self._by_wd.clear()
            self._by_dir.clear()
