"""The crash harness: the tree a crash test indexes and edits, what "equal to a clean index"
means (`snapshot`), SIGKILL at a random moment or after a commit point, damaged index files.
Shared by tests/test_crash.py and bench/crash_bench.py (many more kill moments)."""
from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import tantivy

from cruxe.index import run_index
from cruxe.project import open_project
from cruxe.store import INDEX_NAMES
from cruxe.tools import Server

from .jobs import BATCH_ENV, files_done
from .locations import STDLIB

# Answers that must equal a clean index's exactly: definitions, references, and the top of
# identifier searches. Broad BM25 queries are checked for phantom hits only: Tantivy counts
# documents a sync deleted until it merges their segments, so after ANY incremental update
# (crash or not) the tail of a broad query can differ from a clean index's (measured in
# bench/crash_bench.py, beside an uninterrupted sync).
EXACT = [("locate_symbol", {"name": "Message"}), ("locate_symbol", {"name": "get_payload"}),
         ("locate_symbol", {"name": "BrandNew"}), ("locate_symbol", {"name": "added_in_utils"}),
         ("locate_symbol", {"name": "encode_7or8bit"}), ("find_references", {"symbol_name": "Message"}),
         ("find_references", {"symbol_name": "decode_header"})]
TOP = [("search_code", {"query": q}) for q in ("quoprimime_helper", "BrandNew", "added_in_header", "decode_header",
                                              "encode_base64", "message_from_string")]
BROAD = [("search_code", {"query": q, "limit": 100, "detail_level": "location"})
         for q in ("parse email header", "Message", "def encode", "brand new go")]
TOP_N = 1  # rank 2+ of a broad identifier search can move with the deleted-document counts


# ---- the tree: a real corpus, and the edits a later sync must pick up ------------------------

def build_tree(root: Path, final: bool) -> None:
    """email/ from the stdlib (29 files); with `final`, three edits, two deletions, two new files."""
    if root.exists():
        shutil.rmtree(root)
    shutil.copytree(STDLIB / "email", root, ignore=shutil.ignore_patterns("__pycache__"))
    if final:
        apply_edits(root)


EDITED = ("utils.py", "header.py", "message.py", "charset.py", "encoders.py", "errors.py", "feedparser.py",
          "generator.py", "iterators.py", "parser.py", "policy.py", "quoprimime.py")


def apply_edits(root: Path) -> None:
    """Twelve edits (three batches of a sync), two deletions, two new files."""
    for name in EDITED:
        p = root / name
        p.write_text(p.read_text() + f"\n\ndef added_in_{name[:-3]}(x):\n    return quoprimime_helper(x)\n")
    (root / "base64mime.py").unlink()
    (root / "mime" / "audio.py").unlink()
    (root / "brand_new.py").write_text("class BrandNew:\n    def go(self):\n        return Message()\n")
    (root / "mime" / "extra.py").write_text("from email.message import Message\n\ndef extra():\n    return 1\n")


# ---- what "equal to a clean index" means --------------------------------------------------------

def snapshot(root: Path, home: Path, ref: str = "live") -> dict[str, Any]:
    """Everything a crash could leave wrong, in a comparable form."""
    project = open_project(root, home)
    gen = project.store.current_generation(ref)
    db = gen.db
    key = (project.id, ref)
    snap = {
        "symbols": rows(db, 'SELECT * FROM symbol_relations WHERE repo=? AND "ref"=?', key),
        # paths, not file ids or rowids: those follow insertion order
        "edges": rows(db, "SELECT from_symbol_id, to_symbol_id, to_name, edge_type, source_file, source_line, "
                          "confidence, module, receiver FROM edges", ()),
        "manifest": rows(db, 'SELECT path, content_hash, size, language, symbol_count, warnings FROM file_manifest '
                             'WHERE repo=? AND "ref"=?', key),
        "branch": tuple(db.execute('SELECT file_count, symbol_count, complete FROM branch_state '
                                   'WHERE repo=? AND "ref"=?', key).fetchone()),
        "tantivy": {name: tantivy_docs(gen.searcher(name)) for name in INDEX_NAMES},
    }
    server = Server(root, home=home)
    snap["answers"] = [answer_items(server.call_tool(tool, args)) for tool, args in EXACT]
    snap["search_top"] = [answer_items(server.call_tool(tool, args))[:TOP_N] for tool, args in TOP]
    project.store.close()
    return snap


def phantom_hits(root: Path, home: Path, reference: dict[str, Any]) -> list[tuple]:
    """Hits of broad queries that point outside every file of the clean index (a file that
    is gone, or lines past its end): what stale documents left by a crash would produce."""
    extent = {dict(d)["path"][0]: dict(d)["line_end"][0] for d in reference["tantivy"]["files"]}
    server = Server(root, home=home)
    out = []
    for tool, args in BROAD:
        payload, is_error = server.call_tool(tool, args)
        assert not is_error and payload["results"], payload
        out += [(r["path"], r["line_start"]) for r in payload["results"]
                if r["line_start"] > extent.get(r["path"], 0)]
    return out


def rows(db, sql: str, args: tuple) -> list[tuple]:
    return sorted((tuple(r) for r in db.execute(sql, args)), key=repr)  # NULLs sort too


def tantivy_docs(searcher: tantivy.Searcher) -> list[tuple]:
    """Every live document (stored fields), sorted: duplicates or leftovers would show."""
    if not searcher.num_docs:
        return []
    hits = searcher.search(tantivy.Query.all_query(), limit=searcher.num_docs).hits
    docs = [tuple(sorted((k, tuple(v)) for k, v in searcher.doc(addr).to_dict().items())) for _, addr in hits]
    return sorted(docs)


def answer_items(reply: tuple[dict, bool]) -> Any:
    payload, is_error = reply
    if is_error:
        return [("error", payload["error"]["code"])]
    items = payload.get("results", payload.get("references", []))
    return [(r.get("path"), r.get("line_start"), r.get("name") or r.get("from_symbol") or "") for r in items]


def assert_same(got: dict[str, Any], want: dict[str, Any]) -> None:
    for part in want:
        assert got[part] == want[part], f"{part} differs from a clean index"


def cruxe(*args: str, home: Path, **kw) -> subprocess.CompletedProcess:
    env = {**os.environ, **BATCH_ENV, "CRUXE_HOME": str(home)}
    return subprocess.run([sys.executable, "-m", "cruxe", *args], env=env, capture_output=True, text=True,
                          timeout=180, **kw)


# ---- SIGKILL at random moments ---------------------------------------------------------------------

def kill_at_random(cmd: list[str], home: Path, delay: float, after_files: int = 0) -> int | None:
    """Start `cruxe <cmd>`; once its job reports `after_files` files done (0: at once), wait
    `delay` seconds and SIGKILL it. Returns its exit code if it finished first."""
    env = {**os.environ, **BATCH_ENV, "CRUXE_HOME": str(home)}
    proc = subprocess.Popen([sys.executable, "-m", "cruxe", *cmd], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    job_id = cmd[cmd.index("--job-id") + 1] if "--job-id" in cmd else None
    deadline = time.monotonic() + 120
    while after_files and proc.poll() is None and time.monotonic() < deadline:
        if job_id and files_done(home, job_id) >= after_files:
            break
        time.sleep(0.005)
    try:
        proc.wait(timeout=delay)
        return proc.returncode
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        return None


def prepare(scenario: str, root: Path, home: Path) -> list[str]:
    """The tree and index state before the kill; returns the command to kill."""
    build_tree(root, final=scenario == "index")
    if scenario != "index":
        run_index(root, home=home, workers=1)
        apply_edits(root)
    return {"index": ["index"], "force": ["index", "--force"], "sync": ["sync"]}[scenario]


# ---- damaged files --------------------------------------------------------------------------------

def damage(path: Path, how: str) -> None:
    data = path.read_bytes()
    if how == "truncate":
        data = data[: len(data) // 2]
    elif how == "garbage":
        data = bytes((i * 37 + 11) % 256 for i in range(max(len(data), 100)))
    elif how == "flip":  # 64 bytes inverted inside data: a damaged block, not a missing file
        mid = _live_bytes(path) if path.name == "index.db" else len(data) // 2
        data = data[:mid] + bytes(b ^ 0xFF for b in data[mid:mid + 64]) + data[mid + 64:]
    elif how == "empty":
        data = b""
    path.write_bytes(data)


def _live_bytes(db: Path) -> int:
    """An offset into rows of a SQLite file, not into a page's free space (which SQLite never
    reads, so nothing could notice damage there): near the end of the middle leaf page of the
    largest table, where a leaf's cells are stored."""
    conn = sqlite3.connect(db)
    try:
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
        table = conn.execute("SELECT name FROM dbstat WHERE name IN (SELECT name FROM sqlite_master "
                             "WHERE type='table') GROUP BY name ORDER BY sum(pgsize) DESC LIMIT 1").fetchone()[0]
        leaves = [r[0] for r in conn.execute("SELECT pageno FROM dbstat WHERE name=? AND pagetype='leaf' "
                                             "ORDER BY pageno", (table,))]
    finally:
        conn.close()
    return leaves[len(leaves) // 2] * page_size - 200  # pageno counts from 1


def target_file(root: Path, home: Path, target: str) -> Path:
    store = open_project(root, home).store
    store.close()
    if target == "state.db":
        return store.dir / "state.db"
    gen_dir = store.ref_dir("live") / f"gen-{store.current_generation_number('live')}"
    if target == "CURRENT":
        return store.ref_dir("live") / "CURRENT"
    if target == "index.db":
        return gen_dir / "index.db"
    index, ext = target.split(".")  # e.g. symbols.store: the segment file with that extension
    return max((gen_dir / index).glob(f"*.{ext}"), key=lambda p: p.stat().st_size)
