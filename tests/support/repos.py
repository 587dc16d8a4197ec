"""Small repositories more than one test module builds (`make_repo(POOL_REPO)`)."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from cruxe.index import run_index
from cruxe.project import open_project

from .locations import FIXTURES

# one definition, two resolved calls and an import of it, two calls on unknown receivers, and
# three imports of same-named definitions from outside the repository (unresolved)
POOL_REPO = {
    "pool.py": "def createPool(size):\n    return [None] * size\n",
    "app.py": ("from pool import createPool\n\n\ndef a():\n    return createPool(1)\n\n\n"
               "def b():\n    return createPool(2)\n"),
    "dyn.py": "def c(factory):\n    factory.createPool(3)\n    return factory.other.createPool(4)\n",
    "ext1.py": "from vendor.pools import createPool\n",
    "ext2.py": "from vendor.pools import createPool\n",
    "ext3.py": "from othervendor import createPool as make\n",
}


def fixture_repo(tmp_path: Path, name: str) -> Path:
    """An indexed copy of `tests/fixtures/refs/<name>`."""
    root = tmp_path / name
    shutil.copytree(FIXTURES / "refs" / name, root)
    run_index(root)
    return root


def indexed_files(root: Path, home: Path, files: dict[str, str]) -> tuple:
    """(generation, repo, ref) of `files` (relative path -> text) written under `root` and
    indexed into `home`."""
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    run_index(root, home=home)
    project = open_project(root, home)
    ref = project.default_ref()
    return project.store.current_generation(ref), project.id, ref


def git(root: Path, *args: str) -> str:
    """Run git in `root` with an identity and `main` as the first branch; its stdout, stripped."""
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main",
                           *args], cwd=root, check=True, capture_output=True, text=True).stdout.strip()


def commit_all(root: Path, message: str) -> None:
    git(root, "add", "-A")
    git(root, "commit", "-qm", message)


def two_branches(root: Path, feature: dict[str, str | None]) -> Path:
    """`root` (its files written) as a git repository: `main` holding them, `feature` one commit
    ahead with `feature`'s files written (None: deleted); `main` checked out."""
    git(root, "init", "-q", "-b", "main")
    commit_all(root, "base")
    git(root, "switch", "-q", "-c", "feature")
    for name, text in feature.items():
        if text is None:
            (root / name).unlink()
        else:
            (root / name).write_text(text)
    commit_all(root, "feature")
    git(root, "switch", "-q", "main")
    return root


def index_switching_after_scan(root: Path, monkeypatch, branch: str) -> None:
    """Index `root` while the checkout moves: the job's scan lists the files, then `branch` is
    checked out before they are read (as a background sync running across a `git switch`)."""
    import cruxe.index as index_mod

    real_scan = index_mod.scan

    def scan_then_switch(*args, **kwargs):
        found = real_scan(*args, **kwargs)
        git(root, "switch", "-q", branch)
        return found

    monkeypatch.setattr(index_mod, "scan", scan_then_switch)
    run_index(root)
    monkeypatch.setattr(index_mod, "scan", real_scan)


def marked_line(text: str, marker: str) -> int:
    """The number (from 1) of the first line of a fixture's `text` holding `marker` (the `// name`
    comment a test puts on the line it asserts)."""
    return next(i for i, line in enumerate(text.splitlines(), 1) if marker in line)


def call_sites(answer: dict) -> list[tuple[str, int]]:
    """(path, line) of the `calls` references a find_references answer lists, in its order."""
    return [(r["path"], r["line_start"]) for r in answer["references"] if r.get("edge_type") == "calls"]
