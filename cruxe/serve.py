"""`cruxe serve-mcp`: the tool server on stdio or HTTP, with prewarm in the background.

The handshake never waits: `initialize` and `tools/list` are answered from the tool table
while a daemon thread warms the indices (FR-111..FR-113, FR-121).
"""
from __future__ import annotations

import logging
import sys
import threading
from pathlib import Path

from . import freshness
from .config import Config
from .jsonrpc import Dispatcher, serve_stdio
from .store import is_engine_panic, warm_indices, warm_tables
from .tools import Server

log = logging.getLogger(__name__)

WARMUP_TERMS = ("main", "new", "get", "error", "test", "init")  # common across languages


def prewarm(server: Server) -> None:
    """Touch every index and run warmup queries; status warming -> ready (or error)."""
    server.prewarm_status = "warming"
    try:
        project = server.project
        ref = project.default_ref()
        opened = freshness.open_generation(project, ref)
        gen, status = opened.gen, opened.schema_status
        if gen is None or status != "compatible":
            server.prewarm_status = "skipped"
            return
        warm_tables(gen)
        warm_indices(gen, WARMUP_TERMS)
        from . import query  # import the ranker too: the first real query pays nothing
        query.locate_symbol(gen, project.id, ref, "main", limit=5)
        server.prewarm_status = "complete"
    except BaseException as e:  # noqa: BLE001 - a failed prewarm leaves queries working, cold
        if not isinstance(e, Exception) and not is_engine_panic(e):
            raise
        log.warning("prewarm failed; queries will be served cold", exc_info=True)
        server.prewarm_status = "error"


def serve(path: str | Path, config: Config, *, home: Path | None = None, transport: str = "stdio",
          bind: str = "127.0.0.1", port: int = 9100, token: str | None = None, prewarm_enabled: bool = True,
          **kw) -> int:
    prewarm_enabled = kw.pop("prewarm", prewarm_enabled)
    server = Server(path, config=config, home=home)
    dispatcher = Dispatcher(server)
    if prewarm_enabled:
        thread = threading.Thread(target=prewarm, args=(server,), name="cruxe-prewarm", daemon=True)
        server.prewarm_hook = thread.start  # after notifications/initialized: the handshake never waits
    else:
        server.prewarm_status = "disabled"
    if kw.pop("watch", False):
        from .watch import watch

        cfg = config.index
        threading.Thread(target=watch, args=(server.project.root, server.home), name="cruxe-watch", daemon=True,
                         kwargs={"workers": cfg.workers, "max_file_bytes": cfg.max_file_bytes,
                                 "scan_timeout_s": cfg.scan_timeout_s}).start()
    if transport == "http":
        from .http import serve_http

        def ready(srv) -> None:
            print(f"cruxe MCP over HTTP at {srv.url}", file=sys.stderr, flush=True)

        serve_http(dispatcher, host=bind, port=port, token=token, ready=ready)
    else:
        serve_stdio(dispatcher)
    return 0
