"""A hostile repository's metadata (`.git/*`, `.cruxe/config.toml`) and hostile ref names.

A repository is untrusted input: its HEAD must not read files outside it, a FIFO or
`/dev/zero` in its metadata must not hang or exhaust Cruxe, its config must not raise the
user's resource limits, and a ref must name something the repository has. Whatever could
hang runs in a child process with a timeout, so a regression fails instead of hanging.
"""
from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from cruxe import vcs
from cruxe.config import load_config
from cruxe.project import init_project, open_project
from cruxe.safeio import FileTooLarge, NotRegularFile, read_prefix
from cruxe.tools import Server
from support.locations import REPO_ROOT

FAKE_SHA = "ab" * 20  # what a secret outside the repository holds: hex, so only the path rule stops it
GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t", "GIT_CONFIG_NOSYSTEM": "1"}


@pytest.fixture(autouse=True)
def no_hang():
    """In-process reads of a FIFO would block forever on a regression: the alarm ends them."""
    def expire(signum, frame):
        raise TimeoutError("a metadata read blocked")
    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(120)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


def git(root: Path, *args: str) -> str:
    out = subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True,
                         env={**os.environ, **GIT_ENV})
    return out.stdout.strip()


@pytest.fixture
def git_repo(tmp_path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "a.py").write_text("def alpha():\n    pass\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "one")
    return root


def _bounded_memory() -> None:
    # a regression that reads /dev/zero whole fails here at once instead of eating the machine
    resource.setrlimit(resource.RLIMIT_AS, (CHILD_MEMORY, CHILD_MEMORY))


CHILD_MEMORY = 2 << 30


def child(*argv: str, timeout: float = 60) -> subprocess.CompletedProcess:
    """A Python child importing the Cruxe under test, bounded in memory and time: a hang raises
    TimeoutExpired and a runaway read MemoryError in the child (the test fails either way)."""
    # glibc reserves 64 MB of address space per malloc arena, an arena per thread that meets a
    # busy one: under load a child's threads could reach the bound without reading anything
    # (a flaky ENOMEM seen once in a full run); two arenas keep the bound about reads.
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "MALLOC_ARENA_MAX": "2"}
    return subprocess.run([sys.executable, *argv], capture_output=True, text=True, timeout=timeout,
                          env=env, stdin=subprocess.DEVNULL, preexec_fn=_bounded_memory)


def cli(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    """`cruxe ARGS` in a child process (see `child`)."""
    return child("-m", "cruxe", *args, timeout=timeout)


def head_commit_in_child(root: Path) -> str:
    done = child("-c", f"from pathlib import Path; from cruxe import vcs; print(vcs.head_commit(Path({str(root)!r})))")
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def status(root: Path) -> dict:
    done = cli("status", "--path", str(root), "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


# ---- .git/HEAD and refs ---------------------------------------------------------------------------

@pytest.mark.parametrize("head", ["ref: ../../secret", "ref: refs/heads/../../../secret",
                                  "ref: /SECRET", "ref: refs/heads/main\x00../../../secret"])
def test_head_naming_a_file_outside_the_repository_is_not_read(git_repo, head):
    secret = git_repo.parent / "secret"
    secret.write_text(FAKE_SHA + "\n")
    (git_repo / ".git" / "HEAD").write_text(head.replace("/SECRET", str(secret)) + "\n")
    assert vcs.head_commit(git_repo) is None and vcs.head_branch(git_repo) is None
    assert cli("index", "--path", str(git_repo), "--quiet").returncode == 0
    st = status(git_repo)
    assert FAKE_SHA not in json.dumps(st) and st["last_indexed_commit"] is None


def test_a_loose_ref_or_ref_directory_linked_outside_is_not_followed(git_repo):
    secret = git_repo.parent / "secret"
    secret.write_text(FAKE_SHA + "\n")
    head = git_repo / ".git" / "refs" / "heads" / "main"
    real = vcs.head_commit(git_repo)
    assert real is not None and real != FAKE_SHA  # control: the real ref is read
    head.unlink()
    head.symlink_to(secret)
    assert vcs.head_commit(git_repo) is None
    outside_refs = git_repo.parent / "refs_heads"
    outside_refs.mkdir()
    (outside_refs / "main").write_text(FAKE_SHA + "\n")
    head.unlink()
    (git_repo / ".git" / "refs" / "heads").rmdir()
    (git_repo / ".git" / "refs" / "heads").symlink_to(outside_refs)
    assert vcs.head_commit(git_repo) is None


def test_a_branch_name_that_reads_as_an_option_is_no_default_ref(git_repo):
    (git_repo / ".git" / "HEAD").write_text("ref: refs/heads/--force\n")
    assert vcs.head_branch(git_repo) is None
    assert open_project(git_repo).default_ref() == "live"


@pytest.mark.parametrize("content", ["not a sha\n", "ab" * 19 + "\n", "AB" * 20 + "\n", ("ab" * 20 + "\n") * 200])
def test_only_a_full_lowercase_object_id_is_a_commit(git_repo, content):
    (git_repo / ".git" / "HEAD").write_text(content)
    assert vcs.head_commit(git_repo) is None


def test_a_fifo_as_head_does_not_hang_index_or_status(git_repo):
    head = git_repo / ".git" / "HEAD"
    head.unlink()
    os.mkfifo(head)
    done = cli("index", "--path", str(git_repo), "--quiet")
    assert done.returncode == 0, done.stderr
    assert status(git_repo)["index_status"] == "ready"


@pytest.mark.parametrize("name", ["packed-refs", "refs/heads/main", "commondir", "refs/tags/v1"])
def test_a_fifo_among_the_refs_does_not_hang(git_repo, name):
    path = git_repo / ".git" / name
    if path.exists():
        path.unlink()
    os.mkfifo(path)
    done = cli("index", "--path", str(git_repo), "--quiet", "--ref", "v1")
    assert done.returncode != 0 and "invalid_input" in done.stderr  # v1 is no ref here: answered
    done = cli("index", "--path", str(git_repo), "--quiet")
    assert done.returncode == 0, done.stderr
    assert status(git_repo)["index_status"] == "ready"


def test_packed_refs_are_read_and_bounded(git_repo):
    sha = git(git_repo, "rev-parse", "HEAD")
    git(git_repo, "pack-refs", "--all")
    assert not (git_repo / ".git" / "refs" / "heads" / "main").exists()
    assert vcs.head_commit(git_repo) == sha  # control: packed refs are found
    packed = git_repo / ".git" / "packed-refs"
    packed.unlink()
    packed.symlink_to("/dev/zero")
    assert head_commit_in_child(git_repo) == "None"
    packed.unlink()
    os.mkfifo(packed)
    assert head_commit_in_child(git_repo) == "None"


def test_a_git_file_pointing_at_another_repository_is_refused(git_repo, tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    (other / ".git").write_text(f"gitdir: {git_repo / '.git'}\n")
    assert vcs.git_dir(other) is None and vcs.head_commit(other) is None
    (other / ".git").unlink()
    (other / ".git").symlink_to(git_repo / ".git")
    assert vcs.git_dir(other) is None and vcs.head_commit(other) is None


@pytest.mark.parametrize("text", ["gitdir: a\x00b", "gitdir: " + "y" * 300, "gitdir: " + "x/" * 5000,
                                  "gitdir: /dev/zero", "gitdir: loop", "gitdir:"])
def test_a_malformed_git_file_is_no_git_directory(tmp_path, text):
    root = tmp_path / "odd"
    root.mkdir()
    (root / "loop").symlink_to(root / "loop")
    (root / ".git").write_text(text + "\n")
    assert vcs.git_dir(root) is None and vcs.head_commit(root) is None and vcs.head_branch(root) is None


def test_a_malformed_commondir_is_ignored(git_repo, tmp_path):
    git(git_repo, "branch", "side")
    worktree = tmp_path / "wt"
    git(git_repo, "worktree", "add", "-q", str(worktree), "side")
    sha = vcs.head_commit(worktree)
    (git_repo / ".git" / "worktrees" / "wt" / "commondir").write_text("../..\x00/x\n")
    assert vcs.head_branch(worktree) == "side" and vcs.head_commit(worktree) is None
    assert sha is not None


def test_worktrees_and_submodules_are_still_git_repositories(git_repo, tmp_path):
    sha = git(git_repo, "rev-parse", "HEAD")
    git(git_repo, "branch", "side")
    worktree = tmp_path / "wt"
    git(git_repo, "worktree", "add", "-q", str(worktree), "side")
    assert vcs.head_branch(worktree) == "side" and vcs.head_commit(worktree) == sha
    assert vcs.resolve_ref(worktree, "main") == sha  # branches live in the common directory
    # worktree.useRelativePaths (git 2.48): both links relative
    wt_git_dir = git_repo / ".git" / "worktrees" / "wt"
    (wt_git_dir / "gitdir").write_text(os.path.relpath(worktree / ".git", wt_git_dir) + "\n")
    (worktree / ".git").write_text(f"gitdir: {os.path.relpath(wt_git_dir, worktree)}\n")
    assert vcs.head_commit(worktree) == sha
    outer = tmp_path / "outer"
    outer.mkdir()
    git(outer, "init", "-q", "-b", "main")
    git(outer, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(git_repo), "sub")
    assert (outer / "sub" / ".git").is_file()
    assert vcs.head_commit(outer / "sub") == sha


def test_a_worktree_commondir_elsewhere_is_not_followed(git_repo, tmp_path):
    git(git_repo, "branch", "side")
    worktree = tmp_path / "wt"
    git(git_repo, "worktree", "add", "-q", str(worktree), "side")
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "refs" / "heads").mkdir(parents=True)
    (elsewhere / "refs" / "heads" / "side").write_text(FAKE_SHA + "\n")
    (git_repo / ".git" / "worktrees" / "wt" / "commondir").write_text(str(elsewhere) + "\n")
    assert vcs.head_commit(worktree) is None


# ---- .cruxe/config.toml ------------------------------------------------------------------------------

def test_a_fifo_as_repository_config_does_not_hang(git_repo):
    (git_repo / ".cruxe").mkdir()
    os.mkfifo(git_repo / ".cruxe" / "config.toml")
    done = cli("index", "--path", str(git_repo), "--quiet")
    assert done.returncode == 0, done.stderr
    assert "not a regular file" in done.stderr
    assert status(git_repo)["index_status"] == "ready"


def test_repository_config_linked_to_dev_zero_is_not_read(git_repo):
    (git_repo / ".cruxe").mkdir()
    (git_repo / ".cruxe" / "config.toml").symlink_to("/dev/zero")
    done = cli("index", "--path", str(git_repo), "--quiet")
    assert done.returncode == 0, done.stderr
    assert "internal_error" not in done.stderr and "MemoryError" not in done.stderr


def test_the_bounded_reader_refuses_devices_fifos_and_oversized_files(tmp_path):
    with pytest.raises(NotRegularFile):
        read_prefix("/dev/zero", 100, follow=True)
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(NotRegularFile):
        read_prefix(tmp_path / "fifo", 100)
    big = tmp_path / "big"
    with big.open("wb") as fh:
        fh.truncate(1 << 40)  # sparse: a terabyte that costs nothing on disk
    assert read_prefix(big, 10) == b"\0" * 10
    with pytest.raises(FileTooLarge):
        read_prefix(big, 10, whole=True)


def test_an_oversized_repository_config_is_a_warning(git_repo):
    (git_repo / ".cruxe").mkdir()
    with (git_repo / ".cruxe" / "config.toml").open("wb") as fh:
        fh.write(b"[index]\nworkers = 1\n")
        fh.truncate(1 << 40)
    cfg = load_config(str(git_repo))
    assert any("larger than" in w for w in cfg.warnings)


def test_repository_config_symlinked_outside_is_refused_with_a_warning(git_repo, tmp_path):
    outside = tmp_path / "outside.toml"
    outside.write_text('[search]\nfreshness_policy = "strict"\n')
    (git_repo / ".cruxe").mkdir()
    (git_repo / ".cruxe" / "config.toml").symlink_to(outside)
    cfg = load_config(str(git_repo))
    assert cfg.search.freshness_policy == "balanced"
    assert any("outside the repository" in w for w in cfg.warnings)
    (git_repo / ".cruxe" / "config.toml").unlink()
    (git_repo / ".cruxe").rmdir()
    (tmp_path / "outdir").mkdir()
    (tmp_path / "outdir" / "config.toml").write_text('[search]\nfreshness_policy = "strict"\n')
    (git_repo / ".cruxe").symlink_to(tmp_path / "outdir")
    assert load_config(str(git_repo)).search.freshness_policy == "balanced"
    (git_repo / "inside.toml").write_text('[search]\nfreshness_policy = "strict"\n')
    (git_repo / ".cruxe").unlink()
    (git_repo / ".cruxe").mkdir()
    (git_repo / ".cruxe" / "config.toml").symlink_to(git_repo / "inside.toml")
    assert load_config(str(git_repo)).search.freshness_policy == "strict"  # a link inside is read


def test_repository_config_may_lower_limits_but_not_raise_them(git_repo, cruxe_home, monkeypatch):
    (git_repo / ".cruxe").mkdir()
    repo_cfg = git_repo / ".cruxe" / "config.toml"
    repo_cfg.write_text("[index]\nmax_file_bytes = 67108864\nworkers = 64\n"
                        "[search]\nmax_response_bytes = 16777216\ndefault_limit = 100\n")
    cfg = load_config(str(git_repo))
    assert cfg.index.max_file_bytes == 1024 * 1024 and cfg.index.workers <= 4
    assert cfg.search.max_response_bytes == 65536 and cfg.search.default_limit == 5
    assert sum("may only lower" in w for w in cfg.warnings) == 4
    # the user's own config sets the ceiling: the repository may go up to it, not past it
    (cruxe_home / "config.toml").write_text("[index]\nworkers = 8\nmax_file_bytes = 4194304\n")
    repo_cfg.write_text("[index]\nworkers = 6\nmax_file_bytes = 8388608\n")
    cfg = load_config(str(git_repo))
    assert cfg.index.workers == 6 and cfg.index.max_file_bytes == 4194304
    # an invalid value must not reset a limit to a default above the user's
    (cruxe_home / "config.toml").write_text("[index]\nworkers = 1\n")
    repo_cfg.write_text('[index]\nworkers = "many"\n')
    assert load_config(str(git_repo)).index.workers == 1
    repo_cfg.write_text("[index]\nworkers = 1\nmax_file_bytes = 2048\n[search]\ndefault_limit = 3\n")
    cfg = load_config(str(git_repo))
    assert (cfg.index.workers, cfg.index.max_file_bytes, cfg.search.default_limit) == (1, 2048, 3)
    assert cfg.warnings == ()


def test_trusted_layers_may_still_raise_limits(git_repo, cruxe_home, tmp_path):
    (git_repo / ".cruxe").mkdir()
    (git_repo / ".cruxe" / "config.toml").write_text("[index]\nworkers = 64\n")
    (cruxe_home / "config.toml").write_text("[index]\nmax_file_bytes = 67108864\n")
    explicit = tmp_path / "explicit.toml"
    explicit.write_text("[index]\nworkers = 12\n")
    cfg = load_config(str(git_repo), str(explicit))
    assert cfg.index.max_file_bytes == 67108864 and cfg.index.workers == 12
    cfg = load_config(str(git_repo), env={"CRUXE_HOME": str(cruxe_home), "CRUXE_WORKERS": "16"})
    assert cfg.index.workers == 16


# ---- ref names -----------------------------------------------------------------------------------

HOSTILE_REFS = ["../../x", "--force", "a\nb", "nope", "refs/heads/../../x", "main.lock", "@", "x..y", "-x",
                "a b", "HEAD~1", "a" * 300]


@pytest.mark.parametrize("ref", HOSTILE_REFS)
def test_cli_refuses_a_ref_the_repository_does_not_have(git_repo, cruxe_home, ref):
    done = cli("index", "--path", str(git_repo), "--json", f"--ref={ref}")
    assert done.returncode != 0
    err = json.loads(done.stdout)["error"]
    assert err["code"] == "invalid_input" and "git branch" in err["data"]["remedy"]
    data = cruxe_home / "data"
    assert not data.exists() or not any(data.glob("*/refs/*"))


@pytest.mark.parametrize("ref", HOSTILE_REFS[:4])
def test_mcp_refuses_a_ref_the_repository_does_not_have(git_repo, ref):
    init_project(git_repo)
    server = Server(git_repo)
    for tool, args in [("index_repo", {}), ("sync_repo", {}), ("search_code", {"query": "alpha"}),
                       ("locate_symbol", {"name": "alpha"}), ("index_status", {})]:
        payload, is_error = server.call_tool(tool, {**args, "ref": ref})
        assert is_error and payload["error"]["code"] == "invalid_input", (tool, payload)
        assert payload["error"]["data"]["field"] == "ref"
    refs = open_project(git_repo).store.dir / "refs"
    assert not refs.exists() or not any(refs.iterdir())


@pytest.mark.slow
def test_existing_branches_tags_and_commits_are_accepted(git_repo, cruxe_home):
    sha = git(git_repo, "rev-parse", "HEAD")
    git(git_repo, "tag", "v1")
    git(git_repo, "branch", "side")
    git(git_repo, "gc", "-q")  # objects packed: a commit id is found in the pack index
    assert vcs.resolve_ref(git_repo, sha) == sha and vcs.resolve_ref(git_repo, "f" * 40) is None
    for ref in ("v1", "side", "refs/heads/side", sha):  # real refs, not the working tree's: from git's objects
        done = cli("index", "--path", str(git_repo), "--json", "--ref", ref)
        assert done.returncode == 0 and json.loads(done.stdout)["ref"] == ref, (ref, done.stdout, done.stderr)
    quiet = {"name": "alpha", "ref": "side", "freshness_policy": "best_effort"}  # no background sync
    payload, is_error = Server(git_repo).call_tool("locate_symbol", quiet)
    assert not is_error and payload["results"][0]["name"] == "alpha"
    git(git_repo, "branch", "-D", "side")  # a deleted branch's index stays queryable
    payload, is_error = Server(git_repo).call_tool("locate_symbol", quiet)
    assert not is_error and payload["metadata"]["ref"] == "side"
    payload, is_error = Server(git_repo).call_tool("index_repo", {"ref": "side"})
    assert is_error and payload["error"]["code"] == "invalid_input"  # but is not indexed again


def test_an_unborn_branch_and_live_are_accepted(tmp_path):
    root = tmp_path / "fresh"
    root.mkdir()
    (root / "a.py").write_text("def alpha():\n    pass\n")
    git(root, "init", "-q", "-b", "trunk")
    assert cli("index", "--path", str(root), "--quiet", "--ref", "trunk").returncode == 0
    assert cli("index", "--path", str(root), "--quiet", "--ref", "live").returncode == 0


def test_a_repository_without_git_has_only_live(make_repo):
    root = make_repo({"a.py": "def alpha():\n    pass\n"})
    done = cli("index", "--path", str(root), "--json", "--ref", "main")
    assert done.returncode != 0 and json.loads(done.stdout)["error"]["code"] == "invalid_input"
    assert cli("index", "--path", str(root), "--quiet", "--ref", "live").returncode == 0
