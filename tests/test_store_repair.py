"""Index store robustness: kills at named points of the commit sequence, documents the
manifest does not know, damage that doctor must report and `--force` must get past, replaced
generations a server must let go of, and problems with `$CRUXE_HOME` itself.

Kills use the `CRUXE_CRASH_AT=<point>[:<n>]` knob (`store.crash_point`): the indexer SIGKILLs
itself the n-th time it reaches that point, so each case lands exactly where it means to.
"""
from __future__ import annotations

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
