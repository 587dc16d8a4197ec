"""Small repositories more than one test module builds (`make_repo(POOL_REPO)`)."""
from __future__ import annotations

import shutil
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
