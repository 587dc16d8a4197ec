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
