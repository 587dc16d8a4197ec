"""Index store robustness: kills at named points of the commit sequence, documents the
manifest does not know, damage that doctor must report and `--force` must get past, replaced
generations a server must let go of, and problems with `$CRUXE_HOME` itself.

Kills use the `CRUXE_CRASH_AT=<point>[:<n>]` knob (`store.crash_point`): the indexer SIGKILLs
itself the n-th time it reaches that point, so each case lands exactly where it means to.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
import tantivy

from cruxe.health import doctor
from cruxe.index import run_index
from cruxe.model import file_key
from cruxe.project import open_project
from cruxe.store import INDEX_NAMES


def cruxe(*args: str, home: Path, crash_at: str | None = None, **env: str) -> subprocess.CompletedProcess:
    full_env = {**os.environ, "CRUXE_HOME": str(home), **env}
    full_env.pop("CRUXE_CRASH_AT", None)
    if crash_at:
        full_env["CRUXE_CRASH_AT"] = crash_at
    return subprocess.run([sys.executable, "-m", "cruxe", *args], env=full_env, capture_output=True, text=True,
                          timeout=120)


def files(n: int, tag: str = "") -> dict[str, str]:
    return {f"pkg/m{i:02d}.py": f"def f{i}{tag}(x):\n    return x + {i}\n\nclass C{i}{tag}:\n    pass\n"
            for i in range(n)}


def doc_counts(root: Path, home: Path, ref: str = "live") -> dict[str, Counter]:
    """Live documents per path, per index (read through each index's `path` terms)."""
    project = open_project(root, home)
    gen = project.store.current_generation(ref)
    out = {}
    for name in INDEX_NAMES:
        searcher = gen.searcher(name)
        out[name] = Counter({t: c for t, c in searcher.terms_with_prefix(
            "path", "", filter_query=tantivy.Query.all_query()) if c})
    project.store.close()
    return out


# ---- item 8: documents left by a kill between the Tantivy and SQLite commits ------------------

@pytest.mark.parametrize("point", ["tantivy_commit_symbols", "tantivy_commit_files"])
def test_a_new_file_gone_after_a_kill_between_the_commits_leaves_no_documents(make_repo, tmp_path, point):
    """A sync killed after its Tantivy commit (of one index, or all three) and before its SQLite
    commit left the new file's documents without a manifest row; the file was deleted before
    the next sync, which therefore neither re-indexed nor deleted it: every sync after that
    failed validation ("N files in the manifest, N+1 in the files index — This is a bug")."""
    root = make_repo(files(4))
    home = tmp_path / "home"
    assert cruxe("index", "--path", str(root), "--quiet", home=home).returncode == 0
    (root / "pkg" / "new.py").write_text("def brand_new():\n    return 1\n")
    killed = cruxe("sync", "--path", str(root), "--quiet", home=home, crash_at=point)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert doc_counts(root, home)["symbols"]["pkg/new.py"] == 1  # the kill left the document
    (root / "pkg" / "new.py").unlink()
    sync = cruxe("sync", "--path", str(root), "--quiet", home=home)
    assert sync.returncode == 0, sync.stderr
    counts = doc_counts(root, home)
    assert all("pkg/new.py" not in c for c in counts.values()), counts
    assert counts["files"] == Counter({p: 1 for p in files(4)})
    assert cruxe("sync", "--path", str(root), "--quiet", home=home).returncode == 0


def _add_stray_documents(root: Path, home: Path, path: str, orphan: str) -> None:
    """What a lost delete leaves: a second copy of `path`'s file document, and the documents
    of `orphan`, a path the manifest does not know (and no job recorded)."""
    from cruxe.store import GenerationWriter
    project = open_project(root, home)
    gen = project.store.current_generation("live")
    writer = GenerationWriter(gen, project.id, "live")
    common = {"repo": project.id, "ref": "live", "path": path, "file_key": file_key(project.id, "live", path),
              "path_tokens": "", "language": "python", "line_start": 1, "line_end": 1}
    writer.add_docs("files", [{**common, "filename": path.rsplit("/", 1)[-1], "content_head": "", "size": 1}])
    ghost = {**common, "path": orphan, "file_key": file_key(project.id, "live", orphan)}
    writer.add_docs("symbols", [{**{k: v for k, v in ghost.items() if k not in ("line_start", "line_end")},
                                 "symbol_id": b"\0" * 8, "symbol_exact": "ghost", "name_tokens": "ghost",
                                 "qualified_tokens": "ghost", "signature_tokens": "", "doc_tokens": "",
                                 "kind": "function", "parent_name": ""}])
    writer.commit_tantivy()
    writer.close()
    project.store.close()


def test_validation_reindexes_the_files_whose_documents_disagree_and_doctor_names_them(make_repo, tmp_path):
    """Surplus documents (a lost delete's duplicate, a path the manifest does not know) made
    every later sync fail validation with "This is a bug", while doctor said all was well and
    only --force repaired. Doctor now names the files; the next sync re-indexes exactly them."""
    root = make_repo(files(4))
    home = tmp_path / "home"
    run_index(root, home=home)
    _add_stray_documents(root, home, "pkg/m01.py", "pkg/ghost.py")
    report = doctor(open_project(root, home), "live")
    check = next(c for c in report["checks"] if c["check"] == "documents")
    assert not report["ok"] and not check["ok"], check
    assert set(check["detail"]["files"]) == {"pkg/m01.py", "pkg/ghost.py"}, check
    assert "cruxe sync" in check["remedy"]
    sync = run_index(root, home=home)
    assert sync.status == "published"
    assert any("pkg/m01.py" in w and "indexed them again" in w for w in sync.warnings), sync.warnings
    assert sync.changed_files == 1  # exactly the file involved, not the whole tree
    counts = doc_counts(root, home)
    assert counts["files"] == Counter({p: 1 for p in files(4)}) and "pkg/ghost.py" not in counts["symbols"]
    assert counts["symbols"] == Counter({p: 2 for p in files(4)})
    assert doctor(open_project(root, home), "live")["ok"]


# ---- item 11: a server lets go of replaced generations ----------------------------------------

def _held_deleted(home: Path) -> tuple[int, int]:
    """(open descriptors, mapped files) of this process on deleted files under `home`."""
    fds = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        fds += target.startswith(str(home)) and target.endswith("(deleted)")
    maps = {line.split()[-2] for line in Path("/proc/self/maps").read_text().splitlines()
            if line.endswith("(deleted)") and str(home) in line}
    return fds, len(maps)


def test_a_server_holds_no_files_of_generations_replaced_by_rebuilds(make_repo, tmp_path):
    """A long-running server kept every replaced generation's files open (deleted, but still
    on disk: 302 MB after 8 rebuilds of a 60 MB index): a dropped SQLite connection is a
    reference cycle, freed only by a cyclic collection. The collector is off here, so only
    what the code closes itself counts."""
    import gc
    import threading
    from cruxe.tools import Server
    root = make_repo(files(30))
    home = tmp_path / "home"
    assert cruxe("index", "--path", str(root), "--quiet", home=home).returncode == 0
    server = Server(root, home=home)

    def queries() -> None:
        for tool, args in (("search_code", {"query": "f1 x"}), ("locate_symbol", {"name": "C2"})):
            payload, is_error = server.call_tool(tool, args)
            assert not is_error and payload["results"], payload
    gc.collect()
    gc.disable()
    try:
        held = []
        for _ in range(5):
            assert cruxe("index", "--force", "--path", str(root), "--quiet", home=home).returncode == 0
            queries()  # the new generation replaces the old one in this thread...
            thread = threading.Thread(target=queries)  # ... and in another, as an HTTP request's
            thread.start()
            thread.join()
            held.append(_held_deleted(home))
    finally:
        gc.enable()
    assert held == [(0, 0)] * 5, held


# ---- item 13: damage doctor must report and `--force` must get past ------------------------------

@pytest.fixture
def indexed(make_repo, tmp_path):
    """A small indexed repository, indexed by a process of its own (its WAL checkpointed at
    exit, so damage to the main files is not masked by newer page copies)."""
    root = make_repo(files(40))
    home = tmp_path / "home"
    assert cruxe("index", "--path", str(root), "--quiet", home=home).returncode == 0
    store = open_project(root, home).store
    store.close()
    return root, home, store


def _assert_force_repairs(root: Path, home: Path) -> None:
    force = cruxe("index", "--force", "--path", str(root), "--quiet", home=home)
    assert force.returncode == 0, force.stderr
    search = cruxe("search", "C3", "--path", str(root), "--json", home=home)
    assert search.returncode == 0 and '"pkg/m03.py"' in search.stdout, search.stdout
    assert doctor(open_project(root, home), "live")["ok"]


def test_doctor_reports_overwritten_index_db_pages_instead_of_raising(indexed):
    """Three pages of index.db overwritten (those of file_manifest): doctor itself raised
    'database disk image is malformed' (internal_error, "This is a bug")."""
    import sqlite3
    root, home, store = indexed
    db = store.ref_dir("live") / "gen-1" / "index.db"
    conn = sqlite3.connect(db)
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    first = conn.execute("SELECT min(pageno) FROM dbstat WHERE name='file_manifest'").fetchone()[0]
    conn.close()
    data = bytearray(db.read_bytes())
    for page in range(first - 1, first + 2):  # pageno counts from 1
        data[page * page_size:(page + 1) * page_size] = bytes((i * 7 + page) % 256 for i in range(page_size))
    db.write_bytes(bytes(data))
    report = doctor(open_project(root, home), "live")
    failing = {c["check"]: c for c in report["checks"] if not c["ok"]}
    assert not report["ok"] and "sqlite" in failing, report
    assert all(c.get("remedy") for c in failing.values())
    _assert_force_repairs(root, home)


def test_a_scribbled_term_file_fails_health_check_and_doctor(indexed):
    """Bytes scribbled over the head of the symbols index's term dictionary: the indices
    open and count, so health_check said ok while every search failed."""
    from cruxe.health import health_check
    root, home, store = indexed
    term = max((store.ref_dir("live") / "gen-1" / "symbols").glob("*.term"), key=lambda p: p.stat().st_size)
    data = bytearray(term.read_bytes())
    data[:64] = bytes(range(64))
    term.write_bytes(bytes(data))
    project = open_project(root, home)
    health = health_check(project, "live", prewarm_status="complete", uptime_seconds=1.0)
    assert not health["tantivy_ok"] and health["status"] == "error", health
    report = doctor(open_project(root, home), "live")
    assert "tantivy" in {c["check"] for c in report["checks"] if not c["ok"]}, report
    _assert_force_repairs(root, home)


@pytest.mark.parametrize("what", ["CURRENT is a directory", "locks is a file", "the lock is a directory",
                                  "refs is a file"])
def test_force_moves_aside_what_is_in_the_way(indexed, what):
    """A directory where CURRENT or a lock file belongs, a file where locks/ or refs/ does:
    `index --force` failed (a circular remedy, or an internal error), and doctor said ok for
    the lock cases."""
    import shutil
    root, home, store = indexed
    if what == "CURRENT is a directory":
        (store.ref_dir("live") / "CURRENT").unlink()
        (store.ref_dir("live") / "CURRENT").mkdir()
    elif what == "locks is a file":
        shutil.rmtree(store.dir / "locks")
        (store.dir / "locks").write_text("x")
    elif what == "the lock is a directory":
        (store.dir / "locks" / "live.lock").unlink()
        (store.dir / "locks" / "live.lock").mkdir()
    else:
        shutil.rmtree(store.dir / "refs")
        (store.dir / "refs").write_text("x")
    report = doctor(open_project(root, home), "live")
    layout = next(c for c in report["checks"] if c["check"] == "store_layout")
    assert not layout["ok"] and "index --force" in layout["remedy"], layout
    sync = cruxe("sync", "--path", str(root), "--quiet", home=home)
    assert sync.returncode == 2 and "This is a bug" not in sync.stderr, sync.stderr
    _assert_force_repairs(root, home)
    assert list(store.dir.rglob("*.broken-*"))  # kept for a post-mortem


def test_a_killed_force_leaves_no_partial_generation_after_the_next_job(indexed):
    root, home, store = indexed
    killed = cruxe("index", "--force", "--path", str(root), "--quiet", home=home, crash_at="sqlite_commit:1",
                   CRUXE_INDEX_BATCH_FILES="5")
    assert killed.returncode == -signal.SIGKILL
    assert sorted(p.name for p in store.ref_dir("live").glob("gen-*")) == ["gen-1", "gen-2"]
    assert cruxe("sync", "--path", str(root), "--quiet", home=home).returncode == 0
    assert sorted(p.name for p in store.ref_dir("live").glob("gen-*")) == ["gen-1"]


# ---- $CRUXE_HOME problems ------------------------------------------------------------------------

def test_a_full_disk_is_reported_as_such_and_status_keeps_working(indexed, monkeypatch):
    """Simulated at the boundary (the write that fails), in-process: SQLite's 'database or
    disk is full' and Tantivy's 'An index writer was killed' on a disk with no space left
    (statvfs) were reported as bugs. (A real 700 KB tmpfs gives the same message: see
    docs/BENCHMARKS.md.)"""
    import sqlite3
    from types import SimpleNamespace
    from cruxe import store as store_mod
    from cruxe.errors import CruxeError
    from cruxe.tools import Server
    root, home, _ = indexed
    (root / "pkg" / "m01.py").write_text("def changed():\n    pass\n")

    def full(*a, **k):
        raise sqlite3.OperationalError("database or disk is full")
    monkeypatch.setattr(store_mod.GenerationWriter, "commit_sqlite", full)
    with pytest.raises(CruxeError) as e:
        run_index(root, home=home)
    assert "no space left under $CRUXE_HOME" in e.value.message and "Free space" in e.value.remedy

    def killed(*a, **k):
        raise ValueError("An index writer was killed.")
    monkeypatch.setattr(store_mod.GenerationWriter, "commit_tantivy", killed)
    real = os.statvfs
    monkeypatch.setattr(store_mod.layout.os, "statvfs", lambda p: SimpleNamespace(f_bavail=0, f_frsize=real(p).f_frsize))
    with pytest.raises(CruxeError) as e:
        run_index(root, home=home)
    assert "no space left" in e.value.message
    monkeypatch.setattr(store_mod.ProjectStore, "update_job", full)  # recording the interruption fails too
    payload, is_error = Server(root, home=home).call_tool("index_status", {})
    assert not is_error and payload["file_count"] == 40, payload


def test_cruxe_home_that_is_a_file_is_a_clear_error(make_repo, tmp_path):
    root = make_repo(files(2))
    home = tmp_path / "home_file"
    home.write_text("not a directory")
    for command in (["index"], ["status"]):
        out = cruxe(*command, "--path", str(root), home=home)
        assert out.returncode == 2 and "NotADirectoryError" not in out.stderr, out.stderr
        assert f"{home} is in the way" in out.stderr and "Point CRUXE_HOME at a directory" in out.stderr


def _mount(args: list[str], target: Path) -> None:
    target.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(["mount", *args, str(target)], capture_output=True, text=True)
    if done.returncode:
        pytest.skip(f"this machine does not let the tests mount ({done.stderr.strip()})")


def test_a_read_only_cruxe_home_is_not_writable_not_corrupt(indexed, tmp_path):
    """A read-only $CRUXE_HOME (a read-only bind mount: root ignores chmod) was diagnosed as
    a corrupt state.db with the remedy `cruxe index --force`."""
    root, home, _ = indexed
    ro = tmp_path / "ro_home"
    _mount(["--bind", str(home)], ro)
    try:
        subprocess.run(["mount", "-o", "remount,bind,ro", str(ro)], check=True)
        sync = cruxe("sync", "--path", str(root), home=ro)
        assert sync.returncode == 2 and "is not writable" in sync.stderr, sync.stderr
        status = cruxe("status", "--path", str(root), home=ro)
        assert status.returncode == 0 and "corrupt" not in status.stdout + status.stderr, status
        # queries answer from it (Tantivy's read lock is taken on a private copy)
        search = cruxe("search", "f7", "--path", str(root), "--json", home=ro)
        assert search.returncode == 0, search.stderr
        assert json.loads(search.stdout)["results"][0]["path"] == "pkg/m07.py"
        located = cruxe("locate", "C3", "--path", str(root), "--json", home=ro)
        assert located.returncode == 0 and json.loads(located.stdout)["results"][0]["name"] == "C3", located
    finally:
        subprocess.run(["umount", str(ro)], check=True)


def test_a_full_tmpfs_is_no_space_left(make_repo, tmp_path):
    root = make_repo(files(400))
    disk = tmp_path / "tiny"
    _mount(["-t", "tmpfs", "-o", "size=300k", "tmpfs"], disk)
    try:
        out = cruxe("index", "--path", str(root), "--quiet", home=disk / "home")
        assert out.returncode == 2 and "no space left under $CRUXE_HOME" in out.stderr, out.stderr
        status = cruxe("status", "--path", str(root), home=disk / "home")
        assert status.returncode == 0, status.stderr
    finally:
        subprocess.run(["umount", str(disk)], check=True)
