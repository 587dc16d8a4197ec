#!/usr/bin/env python3
"""Cross-ref leakage and stale answers marked fresh over random git operations (issue 20, goal 1).

usage: python3 bench/branch_ops_bench.py [--src DIR] [--work DIR] [--ops 200] [--seed 20] [--switch-clean]
                                         [--pause 0.1] [--details]

Copies SRC (default: the standard library's `email` package, about 30 Python files) into a fresh
git repository under WORK with two branches, `main` and `feature`, then runs OPS seeded random
operations on it: edits (a function added, removed or renamed, a file added, deleted or renamed),
commits, branch switches (uncommitted edits carried across, as git does), rebases of `feature` onto
`main`, HEAD detached at the commit checked out (until the next switch), a force-push simulated by
moving a branch not checked out back one commit, syncs
(`run_index`, as `cruxe sync` or watch mode would), and queries. A query asks `locate_symbol` for
one name, once on the ref checked out (ref left out, as an agent asks) and once on the other branch
(`ref` given), through one long-lived in-process `Server` with the default policy (`balanced`),
as an MCP client would.

Each answer is compared with an oracle: a clean index, in a CRUXE_HOME of its own, of that ref's
content at that moment (the working tree, uncommitted edits included, for the ref checked out; the
branch's commit, exported with `git archive`, for the other). Oracle indexes are cached by content.
An answer is a set of (path, line) hits. Counted per answer:
  correct            = the oracle's hits exactly (correct_marked_stale: of those, flagged stale)
  stale_marked_fresh = different hits while freshness_status says fresh (the failure that matters)
  honest_stale       = different hits, flagged stale or syncing
  leakage            = answers with a hit that is not in the oracle of the ref asked about but is in
                       the oracle of the other ref (its content at that moment), and never was the
                       ref's own: not in its oracle's earlier answers for that name, nor in the
                       commit its index records, nor in the commit the ref names now (`leaked`)
  refusals           = an error (by code; index_not_ready before a branch was ever indexed)
  layered            = answers whose hits say `source_layer` (the ref was an overlay on its base)
One JSON object on stdout; --details adds the first failures.
"""
from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import random
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

DEFAULT_SRC = Path(sysconfig.get_paths()["stdlib"]) / "email"
BRANCHES = ("main", "feature")
DEF = re.compile(r"^\s*(?:def|class) (\w+)", re.M)
# op -> weight: queries dominate, as in an agent's session; syncs as often as an agent or watch would
OPS = {"add_fn": 16, "drop_fn": 5, "rename_fn": 5, "add_file": 4, "delete_file": 4, "rename_file": 4,
       "commit": 12, "switch": 10, "detach": 2, "rebase": 4, "reset_other": 3, "sync": 8, "query": 25}


def git(repo: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-c", "user.name=bench", "-c", "user.email=b@b", "-c", "advice.detachedHead=false",
                           *args], cwd=repo, check=check, capture_output=True)


# ---- the repository and its operations --------------------------------------------------------

class Session:
    def __init__(self, repo: Path, rng: random.Random):
        self.repo, self.rng, self.n = repo, rng, 0
        self.names: list[str] = []  # every name the run defined or renamed: queried later, present or not
        self.counts: Counter = Counter()
        self.seen: defaultdict = defaultdict(set)  # (ref, name) -> every hit its oracle gave so far
        self.corpus_names: list[str] = []
        self.switch_clean = False  # commit before every switch: no uncommitted edit is carried away
        self.op_index = 0

    def branch(self) -> str:
        """The branch checked out, or `HEAD` when detached (Cruxe's name for that ref)."""
        return git(self.repo, "branch", "--show-current").stdout.decode().strip() or "HEAD"

    def commit_of(self, ref: str) -> str | None:
        """The commit `ref` names now (`HEAD`: the one checked out), None when it names none."""
        done = git(self.repo, "rev-parse", "--verify", "-q", f"{ref}^{{commit}}", check=False)
        return done.stdout.decode().strip() or None

    def other(self) -> str:
        return BRANCHES[1] if self.branch() == BRANCHES[0] else BRANCHES[0]

    def files(self) -> list[Path]:
        return sorted(p for p in self.repo.rglob("*.py") if ".git" not in p.parts)

    def fresh_name(self, stem: str) -> str:
        self.n += 1
        name = f"{stem}_{self.n}"
        self.names.append(name)
        return name

    def dirty(self) -> bool:
        return bool(git(self.repo, "status", "--porcelain").stdout.strip())

    def commit(self) -> bool:
        if not self.dirty():
            return False
        git(self.repo, "add", "-A")
        git(self.repo, "commit", "-qm", f"bench {self.n}")
        return True

    # edits on disk (uncommitted until a commit op)
    def add_fn(self) -> None:
        path = self.rng.choice(self.files())
        with open(path, "a") as f:
            f.write(f"\n\ndef {self.fresh_name('bench_fn')}():\n    return {self.n}\n")

    def drop_fn(self) -> None:
        for path in self.rng.sample(self.files(), k=len(self.files())):
            text = path.read_text()
            found = re.findall(r"\n\ndef (bench_fn_\d+)\(\):\n    return \d+\n", text)
            if found:
                victim = self.rng.choice(found)
                path.write_text(re.sub(rf"\n\ndef {victim}\(\):\n    return \d+\n", "", text))
                return

    def rename_fn(self) -> None:
        path = self.rng.choice(self.files())
        text = path.read_text()
        defs = re.findall(r"^def (\w+)\(", text, re.M)
        if defs:
            old = self.rng.choice(defs)
            self.names.append(old)
            path.write_text(re.sub(rf"^def {old}\(", f"def {self.fresh_name(old[:20])}(", text, count=1, flags=re.M))

    def add_file(self) -> None:
        name = self.fresh_name("bench_mod")
        (self.repo / f"{name}.py").write_text(f"def {name}_fn():\n    return 1\n\n\nclass {name.title()}:\n    pass\n")
        self.names += [f"{name}_fn", name.title()]

    def delete_file(self) -> None:
        path = self.rng.choice(self.files())
        self.names += DEF.findall(path.read_text())[:3]
        path.unlink()

    def rename_file(self) -> None:
        path = self.rng.choice(self.files())
        self.names += DEF.findall(path.read_text())[:3]
        path.rename(path.with_name(f"{self.fresh_name('renamed')}_{path.name}"))

    # git operations
    def switch(self) -> None:
        target = self.other()
        if self.switch_clean:
            self.commit()
        if git(self.repo, "switch", "-q", target, check=False).returncode != 0:
            self.counts["switch_committed_first"] += 1  # the carried edits would conflict
            self.commit()
            git(self.repo, "switch", "-q", target)

    def detach(self) -> None:
        """HEAD detached at the commit checked out (edits carried), as a stopped rebase leaves it."""
        git(self.repo, "checkout", "-q", "--detach")

    def rebase(self) -> None:
        if self.branch() != "feature":
            return
        self.commit()
        if git(self.repo, "rebase", "main", check=False).returncode != 0:
            self.counts["rebase_aborted"] += 1
            git(self.repo, "rebase", "--abort", check=False)
        else:
            self.counts["rebase_done"] += 1

    def reset_other(self) -> None:
        other = self.other()
        if git(self.repo, "rev-parse", "--verify", "-q", f"{other}~1", check=False).returncode == 0:
            git(self.repo, "branch", "-f", other, f"{other}~1")


# ---- the oracle ------------------------------------------------------------------------------

class Oracle:
    """A clean index per distinct content, in a CRUXE_HOME of its own."""

    def __init__(self, work: Path):
        self.work = work
        self.servers: dict[str, object] = {}
        self.builds = 0

    def export(self, repo: Path, ref: str | None) -> dict[str, bytes]:
        """The content of `ref`'s commit, or of the working tree (untracked files included) when None."""
        if ref is None:
            return {str(p.relative_to(repo)): p.read_bytes() for p in repo.rglob("*")
                    if p.is_file() and ".git" not in p.relative_to(repo).parts}
        tar = git(repo, "archive", "--format=tar", ref).stdout
        with tarfile.open(fileobj=io.BytesIO(tar)) as t:
            return {m.name: t.extractfile(m).read() for m in t.getmembers() if m.isfile()}

    def answer(self, files: dict[str, bytes], name: str) -> set[tuple[str, int]]:
        key = hashlib.sha1(b"".join(p.encode() + b"\0" + hashlib.sha1(c).digest()
                                    for p, c in sorted(files.items()))).hexdigest()[:16]
        if key not in self.servers:
            self.servers[key] = self._build(key, files)
        payload, is_error = self.servers[key].call_tool(
            "locate_symbol", {"name": name, "limit": 50, "freshness_policy": "best_effort"})
        assert not is_error, payload
        return {(r["path"], r["line_start"]) for r in payload["results"]}

    def _build(self, key: str, files: dict[str, bytes]):
        from cruxe.index import run_index
        from cruxe.tools import Server
        tree, home = self.work / key / "tree", self.work / key / "home"
        for rel, content in files.items():
            (tree / rel).parent.mkdir(parents=True, exist_ok=True)
            (tree / rel).write_bytes(content)
        tree.mkdir(parents=True, exist_ok=True)
        run_index(tree, home=home, workers=1)
        self.builds += 1
        return Server(tree, home=home)


# ---- the run ---------------------------------------------------------------------------------

def classify(payload: dict, is_error: bool, truth: set) -> str:
    """The outcome of one answer against the oracle of the ref asked about."""
    from cruxe.shape import full_metadata
    if is_error:
        return "refused:" + payload["error"]["code"]
    got = {(r["path"], r["line_start"]) for r in payload["results"]}
    status = full_metadata(payload["metadata"])["freshness_status"]
    if got == truth:
        return "correct_marked_stale" if status != "fresh" else "correct"
    return "stale_marked_fresh" if status == "fresh" else "honest_stale"


def leaked(session: Session, server, oracle: Oracle, ref: str, name: str, extra: set, other_truth: set) -> bool:
    """Whether a hit the oracle of `ref` lacks is the other ref's and never was this ref's: not in
    an earlier answer of the oracle for this ref and name, nor in the commit its index was built
    from, nor in the commit the ref names now (for the ref checked out, HEAD's: a hit its
    uncommitted edits took away is the branch's own, stale). A job that saw the checkout move
    records no commit, so the last is what tells such a hit from another branch's (seed 23: a
    file the working tree renamed, listed under its committed path)."""
    suspects = (extra & other_truth) - session.seen[(ref, name)]
    if not suspects:
        return False
    status, _ = server.call_tool("index_status", {"ref": ref})
    for commit in {status.get("last_indexed_commit"), session.commit_of(ref)} - {None}:
        suspects -= oracle.answer(oracle.export(session.repo, commit), name)
    return bool(suspects)


def _hits(hits: set) -> list[str]:
    return [f"{p}:{line}" for p, line in sorted(hits)][:6]


def query(session: Session, server, oracle: Oracle, results: Counter, failures: list) -> None:
    name = session.rng.choice(session.names) if session.names and session.rng.random() < 0.6 \
        else session.rng.choice(session.corpus_names)
    here, other = session.branch(), session.other()
    contents = {here: oracle.export(session.repo, None), other: oracle.export(session.repo, other)}
    truths = {ref: oracle.answer(contents[ref], name) for ref in (here, other)}
    for ref, args in ((here, {}), (other, {"ref": other})):
        payload, is_error = server.call_tool("locate_symbol", {"name": name, "limit": 50, **args})
        truth, other_truth = truths[ref], truths[other if ref == here else here]
        outcome = classify(payload, is_error, truth)
        got = {(r["path"], r["line_start"]) for r in payload.get("results", [])}
        leak = not is_error and leaked(session, server, oracle, ref, name, got - truth, other_truth)
        which = "checked_out" if ref == here else "other"
        results[f"{which}:{outcome}"] += 1
        results[outcome.split(":")[0]] += 1
        results["leakage"] += leak
        results[f"layered:{which}"] += any("source_layer" in r for r in payload.get("results", []))
        if outcome in ("stale_marked_fresh", "honest_stale") or leak:
            failures.append({"op": session.op_index, "ref": ref, "which": which, "name": name, "outcome": outcome,
                             "leaked": leak, "missing": _hits(truth - got), "extra": _hits(got - truth)})
    for ref in (here, other):
        session.seen[(ref, name)] |= truths[ref]


def sync(session: Session) -> None:
    from cruxe.errors import CruxeError
    from cruxe.index import run_index
    try:
        run_index(session.repo, workers=1)
    except CruxeError as e:  # a background sync of the balanced policy holds the ref
        session.counts[f"sync_refused:{e.code}"] += 1


def setup(src: Path, work: Path) -> Path:
    if work.exists():
        shutil.rmtree(work)
    repo = work / "repo"
    shutil.copytree(src, repo, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "corpus")
    git(repo, "branch", "feature")
    return repo


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--src", type=Path, default=DEFAULT_SRC)
    ap.add_argument("--work", type=Path, default=Path("/tmp/cruxe_branch_ops"))
    ap.add_argument("--ops", type=int, default=200)
    ap.add_argument("--seed", type=int, default=20)
    ap.add_argument("--pause", type=float, default=0.1, help="seconds between operations (an agent's think time)")
    ap.add_argument("--switch-clean", action="store_true", help="commit before each switch (no edit carried across)")
    ap.add_argument("--details", action="store_true")
    a = ap.parse_args()
    repo = setup(a.src, a.work)
    os.environ["CRUXE_HOME"] = str(a.work / "home")
    from cruxe.index import run_index
    from cruxe.tools import Server
    run_index(repo, workers=1)
    rng = random.Random(a.seed)
    session = Session(repo, rng)
    session.switch_clean = a.switch_clean
    session.corpus_names = sorted({n for p in session.files() for n in DEF.findall(p.read_text())})
    server, oracle = Server(repo), Oracle(a.work / "oracle")
    results, failures, ops, trace = Counter(), [], Counter(), []
    t0 = time.perf_counter()
    for i in range(a.ops):
        session.op_index = i
        op = rng.choices(list(OPS), weights=list(OPS.values()))[0]
        ops[op] += 1
        trace.append(f"{i}:{op}@{session.branch()}")
        if op == "query":
            query(session, server, oracle, results, failures)
        elif op == "sync":
            sync(session)
        else:
            getattr(session, op)()
        time.sleep(a.pause)
    out = {"src": str(a.src), "files": len(session.files()), "ops": dict(ops), "seed": a.seed,
           "switch_clean": a.switch_clean,
           "answers": sum(v for k, v in results.items() if ":" in k and k.startswith(("checked_out", "other"))),
           "results": dict(sorted(results.items())), "events": dict(session.counts),
           "oracle_indexes": oracle.builds, "seconds": round(time.perf_counter() - t0, 1),
           "load": round(os.getloadavg()[0], 2)}
    if a.details:
        out["failures"] = failures[:15]
        out["trace"] = " ".join(trace)
    print(json.dumps(out, indent=1 if a.details else None))


if __name__ == "__main__":
    main()
