#!/usr/bin/env python3
"""The adversarial suite: hostile repositories and abusive clients against the real CLI and server.

usage: python3 bench/hostile_bench.py [--only NAME[,NAME]] [--list] [--kills N] [--kill-seconds S] [--json]

Each check builds its own hostile repository (or client) in a temporary directory with a private
CRUXE_HOME, runs the real `cruxe` (the console script where the working directory matters, else
`python -P -m cruxe` with this checkout first on PYTHONPATH) with a time limit, and says whether
the defence HELD or FAILED, with a one-line reason. A hang is a failure at its limit, never a hang
of the suite. `--kills N` also runs N kill trials of each kind of bench/crash_bench.py (jobs at random moments;
incremental syncs at random moments and named points) and reports their counts.

The threat model is docs/SECURITY.md: a repository's content and config are untrusted; the
command line, the environment and $CRUXE_HOME are trusted. The CI-sized versions of these checks
are tests (tests/test_repo_code_never_runs.py and the tests each issue-18 fix added); this suite
runs them all together, at the sizes of the issue's reproductions, and prints held/failed counts
(recorded in docs/BENCHMARKS.md). Loopback only: every client connects to 127.0.0.1.
"""
from __future__ import annotations

import argparse
import http.client
import json
import os
import platform
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from support.jobs import wait_jobs  # noqa: E402
from support.stdio import opening  # noqa: E402

CHECKS: dict[str, Callable[["Box"], "Outcome"]] = {}


@dataclass
class Outcome:
    held: bool
    detail: str


def check(fn: Callable[["Box"], Outcome]) -> Callable[["Box"], Outcome]:
    CHECKS[fn.__name__] = fn
    return fn


class Box:
    """One check's sandbox: a work directory, a private CRUXE_HOME, and ways to run Cruxe."""

    def __init__(self, base: Path):
        self.base = base
        self.home = base / "home"
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "CRUXE_"))}
        self.env.update(CRUXE_HOME=str(self.home), PYTHONPATH=str(ROOT))

    def repo(self, files: dict[str, str | bytes], name: str = "repo") -> Path:
        root = self.base / name
        root.mkdir(parents=True, exist_ok=True)
        for rel, content in files.items():
            p = root / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(content if isinstance(content, bytes) else content.encode())
        return root

    def cmd(self, console: bool = False) -> list[str]:
        exe = shutil.which("cruxe") if console else None
        return [exe] if exe else [sys.executable, "-P", "-m", "cruxe"]

    def run(self, args: list[str], timeout: float, cwd: Path | None = None, console: bool = False,
            stdin: str | None = None) -> subprocess.CompletedProcess | None:
        """None when the command did not finish within `timeout` (it is killed, group and all)."""
        proc = subprocess.Popen([*self.cmd(console), *args], cwd=cwd or self.base, env=self.env,
                                stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                start_new_session=True)
        try:
            out, err = proc.communicate(stdin, timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)
            proc.communicate()
            return None
        return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def _bug(r: subprocess.CompletedProcess) -> bool:
    """Reported as a bug: internal_error's default remedy (an environment problem such as a full
    disk is internal_error too, but with a remedy that says what to do)."""
    return "This is a bug" in r.stdout + r.stderr


def _finished(r: subprocess.CompletedProcess | None, what: str, limit: float, ok_codes=(0,)) -> Outcome:
    if r is None:
        return Outcome(False, f"{what} did not finish in {limit:.0f} s")
    if _bug(r):
        return Outcome(False, f"{what} reported a bug: {(r.stdout + r.stderr).strip()[:200]}")
    if r.returncode not in ok_codes:
        return Outcome(False, f"{what} exited {r.returncode}: {(r.stdout + r.stderr).strip()[:200]}")
    return Outcome(True, f"{what} finished (exit {r.returncode})")


# ---- code from the repository ---------------------------------------------------------------

def _planted(box: Box) -> tuple[Path, Path]:
    out = box.base / "markers"
    out.mkdir()
    code = lambda name: f"open({str(out / name)!r}, 'w').write('ran')\n"  # noqa: E731
    files: dict[str, str | bytes] = {f"src/m{i}.py": f"def f{i}():\n    return {i}\n" for i in range(220)}
    files.update({"cruxe.py": code("cruxe.py"), "multiprocessing/__init__.py": code("multiprocessing"),
                  "json.py": code("json"), "encodings/__init__.py": code("encodings")})
    return box.repo(files), out


@check
def planted_modules_cli(box: Box) -> Outcome:
    repo, out = _planted(box)
    r = box.run(["index", "--workers", "2"], 300, cwd=repo, console=True)
    if (o := _finished(r, "cruxe index", 300)) and not o.held:
        return o
    ran = sorted(p.name for p in out.iterdir())
    return Outcome(not ran, f"planted modules ran: {ran}" if ran else "no planted module ran")


def _mcp_session(box: Box, cwd: Path, calls: list[dict], timeout: float) -> list[dict] | None:
    msgs = opening("b", msg_id=0)
    msgs += [dict(c, jsonrpc="2.0") for c in calls]
    r = box.run(["serve-mcp"], timeout, cwd=cwd, console=True, stdin="".join(json.dumps(m) + "\n" for m in msgs))
    if r is None:
        return None
    return [json.loads(line) for line in r.stdout.splitlines() if line.strip()]


@check
def planted_modules_mcp(box: Box) -> Outcome:
    repo, out = _planted(box)
    replies = _mcp_session(box, repo, [{"id": 1, "method": "tools/call", "params": {"name": "index_repo", "arguments": {}}}], 120)
    if replies is None:
        return Outcome(False, "serve-mcp did not answer in 120 s")
    if not wait_jobs(box.home, 1, 300):
        return Outcome(False, "the index job never registered or never finished")
    ran = sorted(p.name for p in out.iterdir())
    return Outcome(not ran, f"planted modules ran: {ran}" if ran else "no planted module ran")


# ---- repository metadata ----------------------------------------------------------------------

def _git_repo(box: Box) -> Path:
    repo = box.repo({"a.py": "def alpha():\n    return 1\n"})
    env = {**box.env, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b", "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@b"}
    for args in (["init", "-q", "-b", "main"], ["add", "."], ["commit", "-qm", "one"]):
        subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)
    return repo


@check
def head_points_outside(box: Box) -> Outcome:
    repo = _git_repo(box)
    secret = box.base / "secret"
    secret.write_text("0123456789abcdef0123456789abcdef01234567\n")  # a plausible commit id outside
    (repo / ".git" / "HEAD").write_text(f"ref: {os.path.relpath(secret, repo / '.git')}\n")
    box.run(["index", "--path", str(repo)], 120)
    r = box.run(["status", "--path", str(repo), "--json"], 60)
    if r is None:
        return Outcome(False, "status did not finish")
    leaked = "0123456789abcdef0123456789abcdef01234567" in r.stdout
    return Outcome(not leaked, "HEAD's target outside .git was read and reported" if leaked else "not read")


def _fifo_case(box: Box, rel: str) -> Outcome:
    repo = _git_repo(box)
    target = repo / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.exists():
        target.unlink()
    os.mkfifo(target)
    for args in (["index", "--path", str(repo)], ["status", "--path", str(repo)]):
        r = box.run(args, 30)
        if r is None or _bug(r):
            return _finished(r, " ".join(args[:1]), 30, ok_codes=range(0, 256))
    replies = _mcp_session(box, repo, [{"id": 1, "method": "ping"}], 15)
    if replies is None or not any(m.get("id") == 1 for m in replies):
        return Outcome(False, "serve-mcp did not answer ping")
    return Outcome(True, "index, status and ping answered")


@check
def fifo_git_head(box: Box) -> Outcome:
    return _fifo_case(box, ".git/HEAD")


@check
def fifo_repo_config(box: Box) -> Outcome:
    return _fifo_case(box, ".cruxe/config.toml")


@check
def dev_zero_repo_config(box: Box) -> Outcome:
    repo = box.repo({"a.py": "def alpha():\n    pass\n"})
    (repo / ".cruxe").mkdir()
    (repo / ".cruxe" / "config.toml").symlink_to("/dev/zero")
    return _finished(box.run(["index", "--path", str(repo)], 60), "index with config -> /dev/zero", 60)


@check
def repo_config_raises_limits(box: Box) -> Outcome:
    repo = box.repo({"big.py": "x = 1\n" * 400_000, "a.py": "def alpha():\n    pass\n"})  # 2.4 MB
    (repo / ".cruxe").mkdir()
    (repo / ".cruxe" / "config.toml").write_text("[index]\nmax_file_bytes = 67108864\nworkers = 64\n")
    r = box.run(["index", "--path", str(repo), "--json"], 120)
    if (o := _finished(r, "index", 120)) and not o.held:
        return o
    s = box.run(["status", "--path", str(repo), "--json"], 60)
    files = json.loads(s.stdout).get("file_count") if s and s.returncode == 0 else None
    return Outcome(files == 1, f"files indexed: {files} (the 2.4 MB file must stay over the limit)")


@check
def gitignore_redos(box: Box) -> Outcome:
    deep = "/".join(["a" * 30] * 12)
    files = {f"{deep}/f{i}.py": "x = 1\n" for i in range(20)}
    files[".gitignore"] = "*a*a*a*a*a*a*a*a*a*a*a*a*b\n"
    repo = box.repo(files)
    return _finished(box.run(["index", "--path", str(repo)], 60), "index with a backtracking .gitignore", 60)


@check
def hostile_ref_names(box: Box) -> Outcome:
    repo = _git_repo(box)
    bad = []
    for ref in ("../../x", "--force", "a\nb", "nonexistent-branch"):
        r = box.run(["index", "--path", str(repo), f"--ref={ref}"], 60)
        if r is None or r.returncode == 0 or _bug(r):
            bad.append(ref)
    return Outcome(not bad, f"accepted or crashed on: {bad!r}" if bad else "every hostile ref refused")


@check
def backtracking_tsconfig(box: Box) -> Outcome:
    # quotes and backslashes without an end: a comment-stripping pattern retried from every
    # quote is quadratic in them (400 KB, each config read while imports are resolved)
    crafted = '{"compilerOptions": {"baseUrl": "' + '"\\' * 200_000
    repo = box.repo({"tsconfig.json": crafted, "package.json": '{"name": "x", "main": "' + "\\a" * 200_000,
                     "src/a.ts": "import { b } from 'x/b';\nexport function a() { return b(); }\n",
                     "src/b.ts": "export function b() { return 1; }\n"})
    return _finished(box.run(["index", "--path", str(repo)], 60), "index with a crafted tsconfig.json", 60)


# ---- content ----------------------------------------------------------------------------------

@check
def deep_nesting(box: Box) -> Outcome:
    repo = box.repo({"deep.py": "x = " + "[" * 100_000 + "]" * 100_000 + "\n\ndef after():\n    pass\n"})
    return _finished(box.run(["index", "--path", str(repo)], 120), "index of 100k nested lists", 120)


@check
def minified_one_line(box: Box) -> Outcome:
    body = "".join(f"function f{i}(a){{return a+{i}}}" for i in range(30_000))  # ~1 MB, one line
    repo = box.repo({"min.js": body[: 1_000_000] + "\n"})
    return _finished(box.run(["index", "--path", str(repo)], 20), "index of a 1 MB one-line file", 20)


@check
def line_breaks_counted_as_newlines(box: Box) -> Outcome:
    """Only \\n ends a line (tree-sitter's rows); Python's splitlines also splits on these."""
    odd = "\x0c\x0b\x1c\x1d\x1e\x85\u2028\u2029"
    src = f"a = 1\nb = '{odd}'\n# {odd}\n\ndef target_fn():\n    return 'zyxwvu_marker'\n"
    repo = box.repo({"m.py": src, "cr.py": "x = 1\rdef cr_only():\r    pass\r"})
    box.run(["index", "--path", str(repo)], 60)
    lines = src.split("\n")
    want = {"target_fn": lines.index("def target_fn():") + 1,
            "zyxwvu_marker": next(i for i, t in enumerate(lines, 1) if "zyxwvu_marker" in t)}
    got = {}
    for q, verb in (("target_fn", "locate"), ("zyxwvu_marker", "search")):
        r = box.run([verb, q, "--path", str(repo), "--json"], 60)
        try:
            top = json.loads(r.stdout)["results"][0]
        except Exception:  # noqa: BLE001 - any failure to answer is the finding
            return Outcome(False, f"{verb} {q}: no answer: {(r.stdout + r.stderr)[:200] if r else 'timeout'}")
        # a definition starts on the line; a search hit (the function holding the text) spans it
        start, end = top["line_start"], top.get("line_end", top["line_start"])
        got[q] = want[q] if (start == want[q] if verb == "locate" else start <= want[q] <= end) else (start, end)
    return Outcome(got == want, f"lines {got}, counted by \\n {want}")


@check
def outline_deep_defs(box: Box) -> Outcome:
    src = "".join("    " * i + f"def nested_{i}():\n" for i in range(500)) + "    " * 500 + "pass\n"
    repo = box.repo({"deep_defs.py": src})
    box.run(["index", "--path", str(repo)], 60)
    return _finished(box.run(["outline", "deep_defs.py", "--path", str(repo), "--json"], 60), "outline", 60, (0, 1))


@check
def odd_file_names(box: Box) -> Outcome:
    repo = box.repo({"back\\slash.py": "def bs():\n    pass\n", " lead.py": "def lead():\n    pass\n"})
    box.run(["index", "--path", str(repo)], 60)
    bad = [n for n in ("back\\slash.py", " lead.py")
           if (r := box.run(["outline", n, "--path", str(repo), "--json"], 60)) is None or r.returncode != 0]
    return Outcome(not bad, f"outline refused: {bad!r}" if bad else "both outlined")


@check
def control_chars_in_names(box: Box) -> Outcome:
    repo = box.repo({"evil\x1b[31m.py": "def evil():\n    pass\n"})
    box.run(["index", "--path", str(repo)], 60)
    r = box.run(["tags", "--path", str(repo)], 60)
    raw = r is not None and "\x1b" in r.stdout
    return Outcome(r is not None and not raw, "raw escape on the terminal" if raw else "escaped")


# ---- home and store ---------------------------------------------------------------------------

@check
def home_is_a_file(box: Box) -> Outcome:
    repo = box.repo({"a.py": "def alpha():\n    pass\n"})
    box.home.write_text("not a directory")
    r = box.run(["index", "--path", str(repo)], 60)
    if r is None:
        return Outcome(False, "did not finish")
    return Outcome(r.returncode != 0 and not _bug(r), (r.stdout + r.stderr).strip()[:160])


# ---- HTTP -------------------------------------------------------------------------------------

class HttpServer:
    def __init__(self, box: Box, repo: Path, stderr_unread: bool = False):
        self.proc = subprocess.Popen([*box.cmd(), "serve-mcp", "--transport", "http", "--port", "0", "--path", str(repo)],
                                     env=box.env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, text=True, start_new_session=True)
        deadline, self.port = time.monotonic() + 30, None
        while self.port is None and time.monotonic() < deadline:
            m = re.search(r"http://[\d.]+:(\d+)/mcp", self.proc.stderr.readline())
            self.port = int(m.group(1)) if m else None
        if not stderr_unread:  # drain: only the wedge check leaves the pipe unread
            threading.Thread(target=lambda: [None for _ in self.proc.stderr], daemon=True).start()

    def ping(self, timeout: float = 5) -> int | None:
        try:
            c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
            c.request("POST", "/mcp", body=json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}),
                      headers={"Content-Type": "application/json"})
            return c.getresponse().status
        except OSError:
            return None

    def raw(self, data: bytes, timeout: float = 5) -> bytes:
        with socket.create_connection(("127.0.0.1", self.port), timeout=timeout) as s:
            s.sendall(data)
            chunks = []
            try:
                while chunk := s.recv(65536):
                    chunks.append(chunk)
            except OSError:
                pass
            return b"".join(chunks)

    def close(self) -> None:
        try:
            os.killpg(self.proc.pid, 9)
        except ProcessLookupError:
            pass
        self.proc.wait()


def _indexed(box: Box) -> Path:
    repo = box.repo({"a.py": "def alpha():\n    return 1\n"})
    box.run(["index", "--path", str(repo)], 60)
    return repo


@check
def http_slowloris(box: Box) -> Outcome:
    srv = HttpServer(box, _indexed(box))
    socks = []
    try:
        for _ in range(70):
            s = socket.create_connection(("127.0.0.1", srv.port), timeout=5)
            s.sendall(b"P")
            socks.append(s)
        stop = time.monotonic() + 25
        while time.monotonic() < stop:  # one byte a second each, as the reproduction does
            for s in socks:
                try:
                    s.sendall(b"O")
                except OSError:
                    pass
            if srv.ping(timeout=1) == 200:
                return Outcome(True, f"a real request answered after {25 - (stop - time.monotonic()):.0f} s of slow clients")
            time.sleep(1)
        return Outcome(False, "every real request refused while 70 slow clients held the slots")
    finally:
        for s in socks:
            s.close()
        srv.close()


@check
def http_resets_with_unread_stderr(box: Box) -> Outcome:
    srv = HttpServer(box, _indexed(box), stderr_unread=True)
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                       "params": {"name": "search_code", "arguments": {"query": "alpha"}}}).encode()
    try:
        for _ in range(400):
            s = socket.create_connection(("127.0.0.1", srv.port), timeout=5)
            s.sendall(b"POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                      b"Content-Length: %d\r\n\r\n" % len(body) + body)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            s.close()  # RST before the answer is read
        status = srv.ping(timeout=10)
        return Outcome(status == 200, f"after 400 resets: {status}")
    finally:
        srv.close()


@check
def http_duplicate_origin_and_garbage(box: Box) -> Outcome:
    srv = HttpServer(box, _indexed(box))
    try:
        body = b'{"jsonrpc":"2.0","id":1,"method":"ping"}'
        dup = srv.raw(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: http://127.0.0.1\r\nOrigin: http://evil.example\r\n"
                      b"Content-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % len(body) + body)
        garbage = srv.raw(b"\x16\x03\x01garbage\r\n\r\n")
        problems = []
        if not dup.startswith(b"HTTP/1.1 403") and not dup.startswith(b"HTTP/1.0 403"):
            problems.append(f"two Origins: {dup[:40]!r}")
        if b"<html" in garbage.lower() or b"<!doctype" in garbage.lower():
            problems.append("garbage request line answered with HTML")
        return Outcome(not problems, "; ".join(problems) or "both refused plainly")
    finally:
        srv.close()


@check
def http_parallel_force_index(box: Box) -> Outcome:
    repo = _indexed(box)
    srv = HttpServer(box, repo)
    codes: list[str] = []

    def one() -> None:
        try:
            c = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=120)
            c.request("POST", "/mcp", headers={"Content-Type": "application/json"},
                      body=json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                       "params": {"name": "index_repo", "arguments": {"force": True}}}))
            reply = json.loads(c.getresponse().read())
            res = reply.get("result", {})
            text = json.loads(res["content"][0]["text"]) if res.get("content") else {}
            codes.append(text.get("error", {}).get("code") or text.get("status") or "?")
        except Exception as e:  # noqa: BLE001
            codes.append(type(e).__name__)

    try:
        threads = [threading.Thread(target=one) for _ in range(40)]
        [t.start() for t in threads]
        [t.join(180) for t in threads]
        started = sum(1 for c in codes if c not in ("index_in_progress", "sync_in_progress"))
        failed = codes.count("failed")
        return Outcome(started <= 1 and failed == 0, f"{started} jobs started, {failed} 'failed', answers {sorted(set(codes))}")
    finally:
        wait_jobs(box.home, 1, 120)
        srv.close()


def run_check(name: str) -> dict:
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix=f"hostile_{name}_") as d:
        try:
            o = CHECKS[name](Box(Path(d)))
        except Exception as e:  # noqa: BLE001 - a check that crashes is a failed defence or a bench bug: reported
            o = Outcome(False, f"check raised {type(e).__name__}: {e}"[:300])
    return {"check": name, "held": o.held, "detail": o.detail, "seconds": round(time.monotonic() - t0, 1)}


def kill_trials(n: int, seconds: float) -> dict:
    """n kills of index/--force/sync at random moments, then n incremental-sync kills at random
    moments and named points of the commit sequence (bench/crash_bench.py, each bounded)."""
    out = {}
    for name, args in (("jobs", ["--kills", str(n), "--no-damage"]), ("syncs", ["--sync-kills", str(n)])):
        r = subprocess.run([sys.executable, str(ROOT / "bench" / "crash_bench.py"), *args, "--seconds", str(seconds)],
                           capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
        try:
            out[name] = json.loads(r.stdout)
        except json.JSONDecodeError:
            out[name] = {"error": (r.stdout + r.stderr)[-500:]}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", default="", help="comma-separated check names")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--kills", type=int, default=0, help="kill trials of bench/crash_bench.py to add (each kind)")
    ap.add_argument("--kill-seconds", type=float, default=900, help="time budget of each kind of kill trial")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    if a.list:
        print("\n".join(CHECKS))
        return
    names = [n for n in a.only.split(",") if n] or list(CHECKS)
    unknown = [n for n in names if n not in CHECKS]
    if unknown:
        ap.error(f"unknown checks: {unknown}")
    rows = []
    for n in names:
        rows.append(run_check(n))
        if not a.json:
            r = rows[-1]
            print(f"{'HELD' if r['held'] else 'FAILED':6} {r['check']:36} {r['seconds']:6.1f}s  {r['detail']}", flush=True)
    report = {"date": time.strftime("%Y-%m-%d %H:%M"), "machine": f"{platform.machine()}, {os.cpu_count()} cores",
              "held": sum(r["held"] for r in rows), "failed": sum(not r["held"] for r in rows), "checks": rows}
    if a.kills:
        report["kill_trials"] = kill_trials(a.kills, a.kill_seconds)
    print(json.dumps(report) if a.json else f"held {report['held']}, failed {report['failed']}")


if __name__ == "__main__":
    main()
