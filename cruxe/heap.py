"""Keeping the indexer's resident memory near what it really holds (glibc only; a no-op
elsewhere).

Indexing allocates and frees a batch of parsed files at a time from the main thread while
Tantivy's writer threads allocate on their own. glibc gives each thread its own malloc arena
and returns freed memory to the system only from the top of a heap, so without these two
calls the main process kept ~250 MB more of freed memory than it used on go-5k
(docs/BENCHMARKS.md): fewer arenas, and an explicit trim after each batch.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import logging

log = logging.getLogger(__name__)

_M_ARENA_MAX = -8  # mallopt parameter number, from glibc's malloc.h
_libc = None


def _glibc():
    global _libc
    if _libc is None:
        try:
            name = ctypes.util.find_library("c")
            lib = ctypes.CDLL(name) if name else None
            _libc = lib if lib is not None and hasattr(lib, "malloc_trim") and hasattr(lib, "mallopt") else False
        except OSError:
            _libc = False
    return _libc or None


def limit_arenas(n: int = 2) -> None:
    """Cap the number of malloc arenas for threads started from now on."""
    lib = _glibc()
    if lib is not None and lib.mallopt(_M_ARENA_MAX, n) != 1:
        log.debug("mallopt(M_ARENA_MAX) refused")


def trim() -> None:
    """Give freed heap memory back to the system."""
    lib = _glibc()
    if lib is not None:
        lib.malloc_trim(0)
