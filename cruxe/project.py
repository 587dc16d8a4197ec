"""Which project a repository path is, where its data lives, and `cruxe init` (FR-001)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from . import __version__, vcs
from .config import cruxe_home
from .errors import CruxeError, invalid_input
from .model import project_id as compute_project_id
from .store import ProjectInfo, ProjectStore

LIVE_REF = "live"
# The working tree's ref when HEAD is detached (a tag or commit checked out, a rebase or bisect
# under way): git's own name for what is checked out. Indexing a detached tree under the branch
# last registered would store other code as that branch's, then call it fresh.
DETACHED_REF = "HEAD"
_REF_REMEDY = ("Name an existing branch, tag or full commit id (`git branch --list`, `git tag --list`), "
               "or leave ref out to use the branch checked out now.")


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
        """The branch checked out now (VCS mode), `HEAD` when detached, or `live`; falls back to
        the registered ref when HEAD is unreadable."""
        branch = vcs.head_branch(self.root)
        if branch:
            return branch
        if vcs.head_detached(self.root):
            return DETACHED_REF
        if self.info is not None and not self.info.vcs_mode:
            return LIVE_REF
        return self.info.default_ref if self.info else LIVE_REF


def project_root(path: Path, home: Path) -> Path:
    """The repository a directory belongs to: the nearest of itself and its ancestors that is
    registered with Cruxe or holds a `.git`; the directory itself when none does. So every
    command and the server work from any subdirectory, and `init` below a git repository's
    root registers the repository, not a second project for the subdirectory."""
    for d in (path, *path.parents):
        if ProjectStore(home, compute_project_id(str(d))).exists() or vcs.git_dir(d) is not None or vcs.is_bare(d):
            return d
    return path


def open_project(path: str | Path, home: Path | None = None) -> Project:
    home = home or cruxe_home()
    root = project_root(canonical_root(path), home)
    store = ProjectStore(home, compute_project_id(str(root)))
    info = store.project() if store.exists() else None
    return Project(root, store, info)


def init_project(path: str | Path, home: Path | None = None) -> tuple[Project, bool]:
    """Register the project (idempotent). Returns (project, created)."""
    project = open_project(path, home)
    _refuse_bare(project.root)
    created = project.info is None
    project.store.ensure_schema()
    is_git = vcs.git_dir(project.root) is not None
    ref = vcs.head_branch(project.root) or (project.info.default_ref if project.info and is_git else None) or (
        DETACHED_REF if is_git else LIVE_REF)
    project.store.upsert_project(str(project.root), is_git, ref, __version__)
    return Project(project.root, project.store, project.store.project()), created


def _refuse_bare(root: Path) -> None:
    if vcs.is_bare(root):
        # its files live only in git's objects, which Cruxe does not read: indexing the directory
        # would store git's internals as the code, and answer "nothing found" marked fresh
        raise invalid_input(f"{root} is a bare git repository (no working tree to index)", field="path",
                            remedy=f"Check out a working tree (`git -C {root} worktree add <dir> <branch>`, "
                                   "or `git clone`) and run cruxe there.")


def require_project(path: str | Path, home: Path | None = None) -> Project:
    project = open_project(path, home)
    if project.info is None:
        _refuse_bare(project.root)
        raise CruxeError("project_not_found", f"{project.root} is not registered with cruxe",
                         {"repo_root": str(project.root)})
    return project


def checked_ref(project: Project, ref: str | None, *, write: bool = False) -> str:
    """The ref a call names (the default ref when it names none), refused with invalid_input
    unless this repository has it: the one place a ref from a person or an agent is checked.

    `live` and the default ref (the branch checked out now, even before its first commit)
    always pass. Otherwise, in a git repository, the name must follow git's ref-name rules and
    name an existing branch, tag, `refs/...` ref or full commit id; without git, `live` is the
    only ref. A read may also name a ref already in the index (a deleted branch stays
    queryable); a write (`index`, `sync`) may not: it needs the ref's commit (a ref that is not
    checked out is indexed from git's objects, `index._source`)."""
    if not ref or ref == DETACHED_REF:  # `HEAD` is whatever is checked out, as in git
        return project.default_ref()
    if ref == LIVE_REF or ref == project.default_ref():
        return ref
    if not write and _in_store(project, ref):
        return ref
    if not vcs.check_ref_format(ref):
        raise invalid_input(f"ref {ref!r} is not a valid ref name", field="ref", remedy=_REF_REMEDY)
    if vcs.git_dir(project.root) is None:
        raise invalid_input(f"ref {ref!r}: {project.root} is not a git repository, its only ref is "
                            f"{LIVE_REF!r}", field="ref", remedy="Leave ref out (or pass 'live').")
    if vcs.resolve_ref(project.root, ref) is None:
        raise invalid_input(f"ref {ref!r} is not a branch, tag or commit of this repository",
                            field="ref", remedy=_REF_REMEDY)
    return ref


def is_working_tree_ref(project: Project, ref: str) -> bool:
    """The ref whose files are the working tree's: `live`, or the branch checked out now.
    Only this ref is (re)indexed from disk; any other from git's objects."""
    return ref == LIVE_REF or ref == project.default_ref()


def _in_store(project: Project, ref: str) -> bool:
    try:
        return project.store.ref_dir(ref).is_dir()
    except (UnicodeEncodeError, ValueError):  # a name no index can have been built under
        return False
