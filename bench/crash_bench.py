#!/usr/bin/env python3
"""Crash safety at volume (the CI cases are tests/test_crash.py; both use tests/support/crash.py).

usage: python3 bench/crash_bench.py [--kills 60] [--seconds 1800] [--no-damage] [--sync-kills N]

Kills: SIGKILL `cruxe index`, `cruxe index --force` or `cruxe sync` (in turn) on the stdlib
email corpus with CRUXE_INDEX_BATCH_FILES=5, half the time at a uniformly random moment of
the job and half the time a random delay after its k-th committed file; then one `cruxe sync`.
Each run is compared with a clean index of the same tree: every table row, every stored
Tantivy document, exact answers (definitions, references, the top of identifier searches),
phantom hits of broad searches, no job left running, the killed job reported as interrupted.
Broad-query overlap@10 with the clean index is recorded beside the same figure for an
uninterrupted index + edit + sync (the anchor: BM25 counts deleted documents until Tantivy
merges segments, so any sync moves the tail of broad queries a little).

Damage: every combination of a file (state.db, index.db, CURRENT, the segment files of each
Tantivy index) and a kind of damage (truncate, garbage, flip 64 bytes, empty): does doctor
name it, do queries refuse it (index_incompatible) or still answer, does `--force` repair it.

Sync kills (`--sync-kills N`, instead of the above): N incremental syncs of the same edits
killed at a random moment or at a named point of the commit sequence (CRUXE_CRASH_AT: after
each index's Tantivy commit, after the SQLite transaction, of the 1st-3rd batch), a third of
them killed twice, and half of them followed by the deletion of the sync's new files; then a
sync and one more. Counts: files whose documents disagree with the manifest after the kills
and after the sync, failed syncs, validations that indexed files again, held / failed.

Prints one JSON object. Bounded by --kills (--sync-kills) and --seconds.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from support import crash as tc  # noqa: E402
from cruxe.health import doctor  # noqa: E402
from cruxe.index import run_index  # noqa: E402
from cruxe.project import open_project  # noqa: E402
from cruxe.tools import Server  # noqa: E402

SCENARIOS = ("index", "force", "sync")
TARGETS = ["state.db", "index.db", "CURRENT"] + [f"{i}.{e}" for i in ("symbols", "snippets", "files")
                                                  for e in ("meta", "term", "idx", "store", "fast", "pos", "fieldnorm")]
HOWS = ("truncate", "garbage", "flip", "empty")


def broad_top10(root: Path, home: Path) -> list[set]:
    server = Server(root, home=home)
    out = []
    for tool, args in tc.BROAD:
        payload, _ = server.call_tool(tool, {**args, "limit": 10})
        out.append({(r["path"], r["line_start"]) for r in payload.get("results", [])})
    return out


def overlap(a: list[set], b: list[set]) -> float:
    return round(sum(len(x & y) / max(1, len(y)) for x, y in zip(a, b)) / len(b), 3)


def one_kill(root: Path, base: Path, i: int, rng: random.Random, index_seconds: float, reference, ref_top) -> dict:
    scenario = SCENARIOS[i % 3]
    home = base / f"home{i}"
    cmd = tc.prepare(scenario, root, home)
    if i % 2:
        after, delay = rng.choice([5, 10, 15, 20, 25]), rng.uniform(0, 0.3)
    else:
        after, delay = 0, rng.uniform(0.05, 1.1) * index_seconds
    job_id = f"bench{i}"
    finished = tc.kill_at_random([*cmd, "--path", str(root), "--quiet", "--workers", "1", "--job-id", job_id],
                                 home, delay, after)
    project = open_project(root, home)
    at_kill = next((j for j in project.store.jobs("live", 50) if j["job_id"] == job_id), None)
    status, _ = Server(root, home=home).call_tool("index_status", {})
    sync = tc.cruxe("sync", "--path", str(root), "--json", home=home)
    jobs = project.store.jobs("live", 50)
    project.store.close()
    snap = tc.snapshot(root, home)
    phase = ("finished" if finished is not None else "before_job" if at_kill is None
             else "after_publish" if at_kill["status"] == "published" else "mid_job")
    # killed before the project was registered: index_status answers project_not_found
    status_error = (status.get("error") or {}).get("code")
    reported = job_id in {j["job_id"] for j in (status.get("interrupted_recovery_report") or {}).get("jobs", [])}
    row = {"scenario": scenario, "phase": phase, "after_files": after, "delay_s": round(delay, 3),
           "files_done_at_kill": (at_kill or {}).get("files_done"),
           "sync_ok": sync.returncode == 0, "left_running": sum(j["status"] == "running" for j in jobs),
           "reported": reported, "status_error": status_error,
           "mismatched": [k for k in reference if snap[k] != reference[k]],
           "phantoms": len(tc.phantom_hits(root, home, reference)),
           "broad_overlap_at_10": overlap(broad_top10(root, home), ref_top)}
    shutil.rmtree(home, ignore_errors=True)
    return row


def kills(base: Path, n: int, budget: float) -> dict:
    root = base / "email"
    tc.build_tree(root, final=True)
    clean_home = base / "clean"
    t = time.monotonic()
    tc.cruxe("index", "--path", str(root), "--quiet", "--workers", "1", home=clean_home)
    index_seconds = time.monotonic() - t
    reference, ref_top = tc.snapshot(root, clean_home), broad_top10(root, clean_home)
    anchor_home = base / "anchor"
    tc.prepare("sync", root, anchor_home)
    tc.cruxe("sync", "--path", str(root), "--quiet", home=anchor_home)
    anchor_overlap = overlap(broad_top10(root, anchor_home), ref_top)
    rng = random.Random(20261122)
    rows = []
    started = time.monotonic()
    for i in range(n):
        if time.monotonic() - started > budget:
            break
        rows.append(one_kill(root, base, i, rng, index_seconds, reference, ref_top))
    mid = [r for r in rows if r["phase"] == "mid_job"]
    return {
        "corpus": "stdlib email (29 files) + edits; CRUXE_INDEX_BATCH_FILES=5",
        "clean_index_seconds": round(index_seconds, 2), "kills": len(rows),
        "phases": dict(Counter(f"{r['scenario']}:{r['phase']}" for r in rows)),
        "runs_differing_from_clean": sum(bool(r["mismatched"]) for r in rows),
        "differing_parts": dict(Counter(p for r in rows for p in r["mismatched"])),
        "runs_with_phantom_hits": sum(r["phantoms"] > 0 for r in rows),
        "failed_syncs": sum(not r["sync_ok"] for r in rows),
        "jobs_left_running": sum(r["left_running"] for r in rows),
        "index_status_errors_after_kill": dict(Counter(r["status_error"] for r in rows if r["status_error"])),
        "mid_job_kills": len(mid), "mid_job_kills_reported_interrupted": sum(r["reported"] for r in mid),
        "broad_overlap_at_10_mean": round(sum(r["broad_overlap_at_10"] for r in rows) / max(1, len(rows)), 3),
        "broad_overlap_at_10_anchor_uninterrupted_sync": anchor_overlap,
        "runs": rows,
    }


# Named points of the write sequence (`store.crash_point`): after each index's Tantivy commit
# and after the SQLite transaction, of the sync's 1st, 2nd or 3rd batch.
CRASH_POINTS = [f"{p}:{n}" for n in (1, 2, 3) for p in ("tantivy_commit_symbols", "tantivy_commit_snippets",
                                                         "tantivy_commit_files", "sqlite_commit")]
NEW_FILES = ("brand_new.py", "mime/extra.py")


def sync_kill_trials(base: Path, n: int, budget: float) -> dict:
    """Incremental syncs killed at random moments or at a named point (half each; a third of
    the trials kill the next sync too), then, half the time, the sync's new files deleted and
    one more file edited before the sync that must repair it all. Counted: files whose
    documents disagree with the manifest after the kills and after that sync, syncs that
    failed (and the one after), and validations that had to index files again."""
    from cruxe.store import disagreeing_files
    root, pristine, orig = base / "email", base / "sync_pristine", base / "email_orig"
    tc.prepare("sync", root, pristine)
    tc.build_tree(orig, final=False)
    shutil.copytree(pristine, base / "sync_timing")
    t = time.monotonic()
    tc.cruxe("sync", "--path", str(root), "--quiet", "--workers", "1", home=base / "sync_timing")
    sync_seconds = time.monotonic() - t
    rng = random.Random(20261126)
    rows: list[dict] = []
    started = time.monotonic()
    for i in range(n):
        if time.monotonic() - started > budget:
            break
        home = base / "sync_home"
        shutil.rmtree(home, ignore_errors=True)
        shutil.copytree(pristine, home)
        shutil.rmtree(root)
        shutil.copytree(orig, root)
        tc.apply_edits(root)
        kills = [_sync_kill(root, home, rng, i, k, sync_seconds) for k in range(1 + (rng.random() < 1 / 3))]
        mutated = rng.random() < 0.5
        if mutated:
            for name in NEW_FILES:
                (root / name).unlink(missing_ok=True)
            (root / "utils.py").write_text((root / "utils.py").read_text() + "\ndef after_kill():\n    pass\n")
        rows.append({"kills": kills, "mutated": mutated, **_sync_and_check(root, home, disagreeing_files)})
    return _trial_summary(rows, sync_seconds)


def _sync_kill(root: Path, home: Path, rng: random.Random, i: int, k: int, sync_seconds: float) -> dict:
    cmd = ["sync", "--path", str(root), "--quiet", "--workers", "1"]
    if (i + k) % 2:
        point = rng.choice(CRASH_POINTS)
        env = {**os.environ, **tc.BATCH_ENV, "CRUXE_HOME": str(home), "CRUXE_CRASH_AT": point}
        rc = subprocess.run([sys.executable, "-m", "cruxe", *cmd], env=env, capture_output=True, timeout=180).returncode
        return {"point": point, "killed": rc == -9}
    delay = rng.uniform(0.05, 1.1) * sync_seconds
    return {"delay_s": round(delay, 3), "killed": tc.kill_at_random(cmd, home, delay) is None}


def _sync_and_check(root: Path, home: Path, disagreeing_files) -> dict:
    def disagreeing() -> list[str]:
        project = open_project(root, home)
        try:
            return list(disagreeing_files(project.store.current_generation("live"), project.id, "live"))
        finally:
            project.store.close()
    before = disagreeing()
    sync = tc.cruxe("sync", "--path", str(root), "--json", "--workers", "1", home=home)
    report = json.loads(sync.stdout) if sync.returncode == 0 else {}
    again = tc.cruxe("sync", "--path", str(root), "--quiet", "--workers", "1", home=home)
    return {"disagreeing_after_kills": before, "sync_ok": sync.returncode == 0, "sync_error": sync.stderr[-300:],
            "validation_reindexed": any("index validation" in w for w in report.get("warnings", [])),
            "disagreeing_after_sync": disagreeing(), "next_sync_ok": again.returncode == 0}


def _trial_summary(rows: list[dict], sync_seconds: float) -> dict:
    held = [r for r in rows if r["sync_ok"] and r["next_sync_ok"] and not r["disagreeing_after_sync"]]
    return {
        "corpus": "stdlib email (29 files), 14 files changed by the sync; CRUXE_INDEX_BATCH_FILES=5",
        "sync_seconds": round(sync_seconds, 2), "trials": len(rows),
        "trials_with_a_kill_mid_job": sum(any(k["killed"] for k in r["kills"]) for r in rows),
        "trials_with_files_deleted_after_the_kill": sum(r["mutated"] for r in rows),
        "trials_with_disagreeing_documents_after_kills": sum(bool(r["disagreeing_after_kills"]) for r in rows),
        "disagreeing_files_after_kills": sum(len(r["disagreeing_after_kills"]) for r in rows),
        "validation_reindexed": sum(r["validation_reindexed"] for r in rows),
        "held": len(held), "failed": len(rows) - len(held),
        "failed_syncs": sum(not r["sync_ok"] for r in rows),
        "failed_next_syncs": sum(not r["next_sync_ok"] for r in rows),
        "disagreeing_files_after_sync": sum(len(r["disagreeing_after_sync"]) for r in rows),
        "failures": [r for r in rows if r not in held][:20],
    }


def damage_matrix(base: Path) -> dict:
    src = base / "json_repo"
    shutil.copytree(tc.STDLIB / "json", src, ignore=shutil.ignore_patterns("__pycache__"))
    pristine = base / "json_home"
    tc.cruxe("index", "--path", str(src), "--quiet", home=pristine)
    rows = []
    for target in TARGETS:
        for how in HOWS:
            home = base / "dmg_home"
            shutil.rmtree(home, ignore_errors=True)
            shutil.copytree(pristine, home)
            index, _, ext = target.partition(".")
            try:
                if ext == "meta":
                    path = tc.target_file(src, home, f"{index}.store").parent / "meta.json"
                else:
                    path = tc.target_file(src, home, target)
            except ValueError:  # no segment file with that extension in this index
                continue
            tc.damage(path, how)
            rows.append({"target": target, "how": how, **_judge(src, home)})
    undetected_broken = [r for r in rows if r["doctor_ok"] and r["query"] not in ("ok", "index_incompatible")]
    return {"cases": len(rows),
            "doctor_named": sum(not r["doctor_ok"] for r in rows),
            "queries_refused_index_incompatible": sum(r["query"] == "index_incompatible" for r in rows),
            "queries_still_ok": sum(r["query"] == "ok" for r in rows),
            "repaired_by_force": sum(r["repaired"] for r in rows),
            "undetected_and_broken": undetected_broken,
            "cases_detail": rows}


def _judge(root: Path, home: Path) -> dict:
    rep = doctor(open_project(root, home), "live")
    outcomes = []
    for tool, args in (("locate_symbol", {"name": "JSONDecoder"}), ("search_code", {"query": "decode json"})):
        payload, is_error = Server(root, home=home).call_tool(tool, args)
        outcomes.append(payload["error"]["code"] if is_error else "ok")
    query = next((o for o in outcomes if o != "ok"), "ok")
    try:
        run_index(root, home=home, force=True, workers=1)
        payload, is_error = Server(root, home=home).call_tool("search_code", {"query": "decode json"})
        repaired = not is_error and bool(payload["results"]) and doctor(open_project(root, home), "live")["ok"]
    except Exception as e:  # noqa: BLE001 - recorded
        repaired = f"{type(e).__name__}: {e}"
    return {"doctor_ok": rep["ok"], "doctor_failing": [c["check"] for c in rep["checks"] if not c["ok"]],
            "query": query, "repaired": repaired is True}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kills", type=int, default=60)
    ap.add_argument("--seconds", type=float, default=1800, help="time budget for the kills")
    ap.add_argument("--no-damage", action="store_true")
    ap.add_argument("--sync-kills", type=int, default=0,
                    help="incremental-sync kill trials (bounded by --seconds too), instead of the rest")
    a = ap.parse_args()
    import logging
    logging.disable(logging.CRITICAL)
    os.environ.update(tc.BATCH_ENV)
    with tempfile.TemporaryDirectory(prefix="cruxe-crash-") as tmp:
        base = Path(tmp)
        os.environ["CRUXE_HOME"] = str(base / "default_home")
        t = time.monotonic()
        result = {"bench": "crash", "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                  "machine": {"platform": platform.platform(), "cpus": os.cpu_count(),
                              "python": platform.python_version()}}
        if a.sync_kills:
            result["sync_kills"] = sync_kill_trials(base, a.sync_kills, a.seconds)
        else:
            result["kill"] = kills(base, a.kills, a.seconds)
        if not a.no_damage and not a.sync_kills:
            result["damage"] = damage_matrix(base)
        result["seconds"] = round(time.monotonic() - t, 1)
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
