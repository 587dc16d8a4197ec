"""The canonical error registry and the one exception type the domain raises.

Codes are additive only: never repurpose one. Transports turn a CruxeError into the
tool-failure envelope; foreign exceptions are converted once, at the edge that meets them.
"""
from __future__ import annotations

from typing import Any

# code -> default remedy (shown to people and agents alongside the message)
REGISTRY: dict[str, str] = {
    "invalid_input": "Fix the argument named in the message and call again.",
    "project_not_found": "Run `cruxe init` (or `cruxe index`) in the repository first.",
    "workspace_not_registered": "Register the workspace with `cruxe init --path <workspace>`.",
    "workspace_not_allowed": "Use the server's own workspace or start a server for that path.",
    "workspace_limit_exceeded": "Close another workspace first.",
    "index_in_progress": "Wait for the running job; check it with `index_status`.",
    "index_not_ready": "Run `cruxe index` (or call `index_repo`) first.",
    "sync_in_progress": "A sync holds the writer for this ref; retry shortly.",
    "index_stale": "Call `sync_repo` to update the index before querying.",
    "index_incompatible": "Run `cruxe index --force` to rebuild the index.",
    "ref_not_indexed": "Index that ref first with `cruxe index --ref <ref>`.",
    "overlay_not_ready": "Wait for the overlay build to finish.",
    "merge_base_failed": "Check the repository's history for the ref.",
    "symbol_not_found": "Check the spelling, or use `search_code` for a fuzzy match.",
    "ambiguous_symbol": "Pass `path` to pick one of the listed definitions.",
    "file_not_found": "Check the path (relative to the repository root) or re-index.",
    "result_not_found": "Run the query again to get fresh result ids.",
    "no_edges_available": "Re-index to build the reference graph: `cruxe index --force`.",
    "internal_error": "This is a bug in cruxe; the server log on stderr has the details.",
}
# The refusals that mean "another index job holds this ref now": retrying later succeeds (the
# CLI exits with EXIT_BUSY for them, which tells a tool that started `cruxe index` the same;
# a background sync that meets one just yields).
BUSY_CODES = frozenset({"index_in_progress", "sync_in_progress"})
EXIT_BUSY = 3


class CruxeError(Exception):
    """An error with a canonical code, a human message and structured data."""

    def __init__(self, code: str, message: str, data: dict[str, Any] | None = None):
        if code not in REGISTRY:
            raise ValueError(f"unregistered error code {code!r}")
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = dict(data or {})
        self.data.setdefault("remedy", REGISTRY[code])

    @property
    def remedy(self) -> str:
        return self.data["remedy"]

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, "data": self.data}

    def __repr__(self) -> str:
        return f"CruxeError({self.code!r}, {self.message!r})"


def invalid_input(message: str, **data: Any) -> CruxeError:
    return CruxeError("invalid_input", message, data)


def worker_died(role: str) -> CruxeError:
    """A worker process of an index job was killed (by a person, or the out-of-memory
    killer): the job stops with what it has committed; the next sync finishes it."""
    return CruxeError("internal_error", f"a {role} worker process died (killed, or out of memory)",
                      {"remedy": "Run `cruxe sync`: it re-indexes exactly what was in flight. "
                                 "`--workers 1` uses the least memory."})
