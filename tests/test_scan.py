"""Scanner: the three ignore layers, negation, and the edge cases of spec 01."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

import cruxe.scan
from cruxe.config import load_config
from cruxe.errors import CruxeError
from cruxe.index import run_index
from cruxe.project import open_project
from cruxe.scan import MAX_FILE_BYTES, MAX_IGNORE_FILE_BYTES, scan


def paths(root) -> list[str]:
    return [f.path for f in scan(root).files]


def test_builtin_defaults_prune_directories_and_suffixes(make_repo):
    root = make_repo({
        "src/a.py": "x = 1\n", "node_modules/pkg/index.js": "x", "target/debug/b.rs": "fn b() {}",
        "lib/x.min.js": "x", "gen/api.pb.go": "package gen", "m/foo_generated.rs": "", "m/ok.rs": "fn ok() {}",
        "__pycache__/a.cpython-311.pyc": "", "web/app.generated.ts": "",
    })
    res = scan(root)
    assert [f.path for f in res.files] == ["m/ok.rs", "src/a.py"]
    assert res.pruned_dirs["builtin"] == 3  # node_modules, target, __pycache__
    assert res.excluded["builtin"] == 4  # .min.js, .pb.go, _generated.rs, .generated.ts


def test_nested_gitignore_and_cruxeignore_with_negation(make_repo):
    root = make_repo({
        ".gitignore": "*.log\nsecret/\n",
        "pkg/.gitignore": "local_*.py\n",
        ".cruxeignore": "docs/\n*.ts\n!keep.ts\n",
        "a.py": "", "b.log": "", "secret/s.py": "", "pkg/local_x.py": "", "pkg/real.py": "",
        "local_y.py": "",  # the nested rule applies only inside pkg/
        "docs/d.py": "", "web/x.ts": "", "web/keep.ts": "",
    })
    res = scan(root)
    assert [f.path for f in res.files] == ["a.py", "local_y.py", "pkg/real.py", "web/keep.ts"]
    assert res.excluded["gitignore"] == 2  # b.log, pkg/local_x.py
    assert res.pruned_dirs["gitignore"] == 1  # secret/
    assert res.pruned_dirs["cruxeignore"] == 1  # docs/
    assert res.excluded["cruxeignore"] == 1  # web/x.ts (keep.ts re-included by '!')


def test_cruxeignore_can_reinclude_a_builtin_default(make_repo):
    root = make_repo({".cruxeignore": "!vendor/\n", "vendor/lib.go": "package lib\n"})
    assert "vendor/lib.go" in paths(root)


def test_invalid_cruxeignore_lines_warn_and_valid_lines_apply(make_repo):
    root = make_repo({".cruxeignore": "*.rs\n\\\n!important.rs\n", "a.rs": "", "important.rs": "", "b.py": ""})
    res = scan(root)
    assert [f.path for f in res.files if f.language] == ["b.py", "important.rs"]
    assert len(res.cruxeignore_invalid) == 1 and ".cruxeignore:2" in res.cruxeignore_invalid[0]


def test_oversized_files_are_skipped_with_a_warning(make_repo):
    root = make_repo({"big.py": "x = 1\n" * (MAX_FILE_BYTES // 6 + 10), "small.py": "y = 2\n"})
    res = scan(root)
    assert [f.path for f in res.files] == ["small.py"]
    assert res.skipped["too_large"] == 1 and "big.py" in res.warnings[0]


def test_symlinks_never_leave_the_repository_and_never_loop(make_repo, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text("password = 1\n")
    root = make_repo({"src/a.py": "a = 1\n"})
    os.symlink(outside / "secret.py", root / "src/leak.py")
    os.symlink(outside, root / "outdir")
    os.symlink(root, root / "src/loop")  # a directory loop
    os.symlink(root / "src/a.py", root / "alias.py")  # inside: allowed
    res = scan(root)
    assert [f.path for f in res.files] == ["alias.py", "src/a.py"]
    assert res.skipped["symlink"] == 3


def test_only_source_and_text_files_are_candidates(make_repo):
    root = make_repo({"a.py": "", "b.png": "", "README.md": "# hi", "Cargo.toml": "", "x.unknownext": ""})
    res = scan(root)
    assert {f.path: f.language for f in res.files} == {"Cargo.toml": None, "README.md": None, "a.py": "python"}


def test_build_dist_and_target_are_output_only_at_the_root_or_beside_a_manifest(make_repo):
    root = make_repo({
        "build/out.py": "", "dist/x.js": "", "target/debug/x.rs": "",  # root: output
        "web/package.json": "{}", "web/dist/bundle.js": "",  # beside a manifest: output
        "crate/Cargo.toml": "", "crate/target/release/y.rs": "",
        "src/go/build/build.go": "package build\n", "src/cmd/dist/main.go": "package main\n",  # real packages
        "rustfmt/tests/target/expected.rs": "fn main() {}\n",  # rustfmt's expected outputs: source
    })
    assert paths(root) == ["crate/Cargo.toml", "rustfmt/tests/target/expected.rs", "src/cmd/dist/main.go",
                           "src/go/build/build.go", "web/package.json"]


def test_a_fifo_named_gitignore_is_not_read_and_does_not_stall_the_scan(make_repo):
    """Opening a FIFO for reading blocks until a writer comes: the ignore file is opened
    without blocking and read only when it is a regular file. The scan runs in a child
    process so that a regression fails instead of hanging the suite."""
    root = make_repo({"a.py": "", "sub/b.py": "", ".cruxeignore": "sub/b.py\n"})
    os.mkfifo(root / "sub" / ".gitignore")
    code = ("import sys; from cruxe.scan import scan; r = scan(sys.argv[1]); "
            "print([f.path for f in r.files]); print(r.warnings)")
    done = subprocess.run([sys.executable, "-c", code, str(root)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    files, warnings = done.stdout.splitlines()
    assert files == "['a.py']" and "sub/.gitignore: not a regular file; not read" in warnings


class _SlowClock:
    """Stands in for `time` in cruxe.scan: each reading of the clock is ten seconds later."""

    def __init__(self):
        self.now = 0

    def monotonic(self) -> float:
        self.now += 10
        return self.now


def test_a_scan_past_its_time_limit_fails_with_a_remedy(make_repo, monkeypatch):
    root = make_repo({f"d{i}/x.py": "" for i in range(5)})
    monkeypatch.setattr(cruxe.scan, "time", _SlowClock())
    with pytest.raises(CruxeError) as e:
        scan(root, timeout_s=25)
    assert "took longer than 25 s" in e.value.message and "scan_timeout_s" in e.value.remedy
    assert len(scan(root, timeout_s=None).files) == 5


def test_an_index_job_whose_scan_times_out_fails_and_frees_the_writer(make_repo, tmp_path, monkeypatch):
    root = make_repo({f"d{i}/x.py": "def f():\n    pass\n" for i in range(5)})
    home = tmp_path / "home"
    monkeypatch.setattr(cruxe.scan, "time", _SlowClock())
    with pytest.raises(CruxeError, match="took longer than 25 s"):
        run_index(root, home=home, workers=1, scan_timeout_s=25)
    monkeypatch.undo()
    jobs = open_project(root, home).store.jobs()
    assert [j["status"] for j in jobs] == ["failed"] and "took longer" in jobs[0]["error"]
    assert run_index(root, home=home, workers=1).status == "published"  # the lock was released


def test_the_scan_time_limit_comes_from_config(tmp_path):
    env = {"CRUXE_HOME": str(tmp_path), "CRUXE_SCAN_TIMEOUT_S": "7"}
    assert load_config(None, env=env).index.scan_timeout_s == 7
    cfg = load_config(None, env={**env, "CRUXE_SCAN_TIMEOUT_S": "0"})
    assert cfg.index.scan_timeout_s == 300 and cfg.warnings


def test_an_ignore_file_over_the_size_cap_is_used_up_to_it_with_a_warning(make_repo):
    comment = "#" + "x" * (MAX_IGNORE_FILE_BYTES - 9) + "\n"  # ends 2 bytes before the cap
    root = make_repo({".gitignore": "a.py\n" + comment + "b.py\nc.py\n", "a.py": "", "b.py": "", "c.py": ""})
    res = scan(root)
    assert [f.path for f in res.files] == ["b.py", "c.py"]
    assert res.warnings == [f".gitignore:3: the file is over {MAX_IGNORE_FILE_BYTES} bytes; "
                            "this line and the rest are not used"]  # and the long comment is no pattern
