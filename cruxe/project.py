"""Which project a repository path is, where its data lives, and `cruxe init` (FR-001)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from . import __version__, vcs
from .config import cruxe_home
from .errors import CruxeError
from .model import project_id as compute_project_id
from .store import ProjectInfo, ProjectStore

LIVE_REF = "live"


def canonical_root(path: str | Path) -> Path:
    p = Path(path).expanduser()
    if not p.exists():
        raise CruxeError("invalid_input", f"repository path does not exist: {path}")
    if not p.is_dir():
        raise CruxeError("invalid_input", f"repository path is not a directory: {path}")
    return p.resolve()


@dataclass(frozen=True, slots=True)
class Project:
    root: Path
    store: ProjectStore
    info: ProjectInfo | None

    @property
    def id(self) -> str:
        return self.store.project_id

    def default_ref(self) -> str:
        """The branch checked out now (VCS mode) or `live`; falls back to the registered ref."""
        branch = vcs.head_branch(self.root)
        if branch:
            return branch
        if self.info is not None and not self.info.vcs_mode:
            return LIVE_REF
        return self.info.default_ref if self.info else LIVE_REF


def open_project(path: str | Path, home: Path | None = None) -> Project:
    root = canonical_root(path)
    store = ProjectStore(home or cruxe_home(), compute_project_id(str(root)))
    info = store.project() if store.exists() else None
    return Project(root, store, info)


def init_project(path: str | Path, home: Path | None = None) -> tuple[Project, bool]:
    """Register the project (idempotent). Returns (project, created)."""
    project = open_project(path, home)
    created = project.info is None
    project.store.ensure_schema()
    is_git = vcs.git_dir(project.root) is not None
    ref = vcs.head_branch(project.root) or (project.info.default_ref if project.info and is_git else None) or LIVE_REF
    project.store.upsert_project(str(project.root), is_git, ref, __version__)
    return Project(project.root, project.store, project.store.project()), created


def require_project(path: str | Path, home: Path | None = None) -> Project:
    project = open_project(path, home)
    if project.info is None:
        raise CruxeError("project_not_found", f"{project.root} is not registered with cruxe",
                         {"repo_root": str(project.root)})
    return project
