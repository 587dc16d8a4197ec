"""Code from the repository never runs (issue 18, critical items).

A repository plants modules that Python would import if a Cruxe process put the repository
(its working directory) on `sys.path`: `cruxe.py` or a `cruxe/` package, `multiprocessing/`,
`json.py`, `encodings/`. Each writes a marker file outside the repository when imported. Every
entry point is run from inside the repository, as an MCP host starts a server in the project:
the CLI, MCP on stdio and over HTTP (each spawning an index job), the `balanced` background sync
a query starts, and the single-file `.pyz`. No marker may appear.

The positive control plants the same modules and runs `python -c "import json"` from the
repository, so a planted module that could not work at all fails the control, not the test.
"""
from __future__ import annotations

import http.client
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from support.jobs import wait_jobs
from support.stdio import opening

pytestmark = pytest.mark.slow  # every test starts the installed console script

ROOT = Path(__file__).resolve().parents[1]
PLANTED = ("cruxe_py", "cruxe_pkg", "cruxe_main", "multiprocessing", "json", "encodings")


def _marker_code(out: Path, name: str) -> str:
    return f"open({str(out / name)!r}, 'w').write('ran')\n"


def _hostile_repo(base: Path, package: bool) -> tuple[Path, Path]:
    """A repository with enough Python files for a parser pool, and the planted modules.
    `package`: a `cruxe/` package instead of `cruxe.py` (a directory wins over a module)."""
    repo, out = base / ("repo_pkg" if package else "repo_mod"), base / ("out_pkg" if package else "out_mod")
    out.mkdir()
    repo.mkdir()
    for i in range(220):  # past the in-process threshold: the job starts a parser pool
        (repo / "src").mkdir(exist_ok=True)
        (repo / "src" / f"m{i}.py").write_text(f"def function_{i}():\n    return {i}\n")
    if package:
        (repo / "cruxe").mkdir()
        (repo / "cruxe" / "__init__.py").write_text(_marker_code(out, "cruxe_pkg"))
        (repo / "cruxe" / "__main__.py").write_text(_marker_code(out, "cruxe_main"))
    else:
        (repo / "cruxe.py").write_text(_marker_code(out, "cruxe_py"))
    for pkg in ("multiprocessing", "encodings"):
        (repo / pkg).mkdir()
        (repo / pkg / "__init__.py").write_text(_marker_code(out, pkg))
    (repo / "json.py").write_text(_marker_code(out, "json"))
    return repo, out


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["CRUXE_HOME"] = str(home)
    # the Cruxe under test (a checkout may not be the installed one); never the repository
    env["PYTHONPATH"] = str(ROOT)
    return env


def _cruxe() -> list[str]:
    """The installed console script, as users and MCP configurations start Cruxe."""
    exe = shutil.which("cruxe")
    if exe is None:
        if os.environ.get("CI"):
            pytest.fail("the cruxe console script is not installed (pip install -e .)")
        pytest.skip("the cruxe console script is not installed")
    return [exe]


def _markers(out: Path) -> list[str]:
    return sorted(p.name for p in out.iterdir())


def _wait_jobs(home: Path, count: int) -> None:
    assert wait_jobs(home, count, timeout=120), f"expected {count} finished index jobs"


@pytest.fixture(params=[False, True], ids=["cruxe.py", "cruxe-package"])
def hostile(request, tmp_path):
    repo, out = _hostile_repo(tmp_path, package=request.param)
    return repo, out, tmp_path / "home"


def test_positive_control_the_planted_modules_run_when_the_repository_is_on_sys_path(hostile):
    repo, out, _ = hostile
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    subprocess.run([sys.executable, "-c", "import json, multiprocessing"], cwd=repo, env=env, check=True)
    assert {"json", "multiprocessing"} <= set(_markers(out))


def test_cli_index_in_the_repository(hostile):
    repo, out, home = hostile
    r = subprocess.run([*_cruxe(), "index", "--workers", "2"], cwd=repo, env=_env(home),
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    # the pool ran and resolution ran: the job really used worker processes
    assert _markers(out) == []


def _stdio(cmd: list[str], repo: Path, env: dict[str, str], calls: list[dict]) -> list[dict]:
    msgs = opening("t", msg_id=0)
    msgs += [{"jsonrpc": "2.0", "id": i + 1, "method": "tools/call", "params": c} for i, c in enumerate(calls)]
    proc = subprocess.Popen([*cmd, "serve-mcp"], cwd=repo, env=env, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    replies = []
    try:
        for m in msgs:
            proc.stdin.write(json.dumps(m) + "\n")
            proc.stdin.flush()
            if "id" in m:
                replies.append(json.loads(proc.stdout.readline()))
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)
    return replies


def test_mcp_stdio_index_repo_in_the_repository(hostile):
    repo, out, home = hostile
    replies = _stdio(_cruxe(), repo, _env(home), [{"name": "index_repo", "arguments": {}}])
    assert "result" in replies[-1], replies[-1]
    _wait_jobs(home, 1)
    assert _markers(out) == []


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=repo, check=True,
                   capture_output=True)


def test_background_sync_started_by_a_query(hostile):
    """A query on an index whose HEAD moved starts the `balanced` background sync."""
    repo, out, home = hostile
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", "src")
    _git(repo, "commit", "-qm", "one")
    env = _env(home)
    subprocess.run([*_cruxe(), "index", "--path", str(repo)], env=env, cwd=home.parent, check=True,
                   capture_output=True, timeout=300)
    (repo / "src" / "m0.py").write_text("def moved_on():\n    return 0\n")
    _git(repo, "commit", "-qam", "two")
    replies = _stdio(_cruxe(), repo, env, [{"name": "search_code", "arguments": {"query": "function_1"}}])
    assert "result" in replies[-1], replies[-1]
    meta = json.loads(replies[-1]["result"]["content"][0]["text"])["metadata"]
    assert meta.get("freshness_status") in ("stale", "syncing"), meta  # the sync really was started
    _wait_jobs(home, 2)
    assert _markers(out) == []


def test_mcp_http_index_repo_in_the_repository(hostile):
    repo, out, home = hostile
    proc = subprocess.Popen([*_cruxe(), "serve-mcp", "--transport", "http", "--port", "0"], cwd=repo,
                            env=_env(home), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    try:
        port = None
        deadline = time.monotonic() + 30
        while port is None and time.monotonic() < deadline:
            m = re.search(r"http://[\d.]+:(\d+)/mcp", proc.stderr.readline())
            port = int(m.group(1)) if m else None
        assert port, "HTTP server did not start"
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                           "params": {"name": "index_repo", "arguments": {}}})
        conn.request("POST", "/mcp", body=body, headers={"Content-Type": "application/json"})
        reply = json.loads(conn.getresponse().read())
        assert "result" in reply, reply
        _wait_jobs(home, 1)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    assert _markers(out) == []


@pytest.fixture(scope="session")
def pyz(tmp_path_factory) -> Path:
    if shutil.which("shiv") is None and subprocess.run([sys.executable, "-m", "shiv", "--version"],
                                                       capture_output=True).returncode != 0:
        if os.environ.get("CI"):
            pytest.fail("shiv is not installed (pip install -e '.[dev]')")
        pytest.skip("shiv is not installed")
    out = tmp_path_factory.mktemp("pyz") / "cruxe.pyz"
    subprocess.run(["bash", str(ROOT / "build_pyz.sh"), str(out)], check=True, capture_output=True, timeout=600)
    return out


@pytest.mark.slow
def test_the_single_file_in_the_repository(hostile, pyz):
    repo, out, home = hostile
    env = _env(home)
    del env["PYTHONPATH"]  # the .pyz carries its own Cruxe
    env["SHIV_ROOT"] = str(home.parent / "shiv")
    r = subprocess.run([sys.executable, str(pyz), "index", "--workers", "2"], cwd=repo, env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    replies = _stdio([sys.executable, str(pyz)], repo, env, [{"name": "index_repo", "arguments": {"force": True}}])
    assert "result" in replies[-1], replies[-1]
    _wait_jobs(home, 2)
    assert _markers(out) == []
