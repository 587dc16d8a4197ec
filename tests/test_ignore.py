"""Ignore rules: git is the oracle, and no pattern makes matching take forever.

The differential test builds small trees with nested `.gitignore` files (negations, anchors,
`**`, classes, escapes) in a temporary git repository and checks that the scanner keeps exactly
the files `git ls-files --others --exclude-standard` lists.
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cruxe import ignore
from cruxe.scan import scan

GIT_ENV = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull,
           "HOME": tempfile.gettempdir(), "XDG_CONFIG_HOME": os.devnull, "LC_ALL": "C"}

# Names chosen to hit the corners: spaces, '!', '#', brackets, a star, two-byte UTF-8.
DIRS = ["a", "b", "ab", "sub", "é", "a b"]
FILES = ["a.py", "b.py", "ab.py", "ba.py", "a b.py", "#a.py", "!a.py", "é.py", "[a].py", "a*.py", "aa.py"]
ATOMS = ["a", "b", "ab", "*", "?", "**", "[ab]", "[!a]", "[^b]", "[a-b]", "[]a]", "[[:alpha:]]", "*.py",
         "a*", "*b*", "é", "?.py", "a?.py", "\\!a.py", "\\#a.py", "a\\ b.py", "\\[a].py", "a\\*.py", "sub",
         "[é]", "*a*a*b"]


def _git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, env=GIT_ENV, check=True, capture_output=True).stdout.decode()


def _git_kept(root: Path) -> set[str]:
    out = _git(root, "ls-files", "--others", "--exclude-standard", "-z")
    return {p for p in out.split("\0") if p.endswith(".py")}


def _decide(patterns: str, path: str, is_dir: bool = False) -> bool | None:
    warnings: list[str] = []
    rules = ignore.parse(patterns.encode(), ".gitignore", warnings)
    p = path.encode()
    return rules.decide(p, p.rsplit(b"/", 1)[-1], is_dir)


@pytest.mark.parametrize("patterns, path, is_dir, expected", [
    ("*.log", "a/b.log", False, True),
    ("build/", "build", False, None),  # directory-only
    ("build/", "src/build", True, True),
    ("/top", "a/top", False, None),  # a leading slash anchors
    ("a/b", "x/a/b", False, None),  # so does a middle one
    ("a/**/b", "a/b", False, True),
    ("a/**/b", "a/x/y/b", False, True),
    ("a/**", "a", True, None),  # everything inside, not the directory itself
    ("a/**", "a/x/y", False, True),
    ("**/x", "q/w/x", False, True),
    ("a**b", "a/b", False, None),  # not a whole segment: an ordinary star
    ("a/*/b", "a/x/y/b", False, None),
    ("?.py", "é.py", False, None),  # '?' is one byte, as in git
    ("[]a]", "]", False, True),
    ("x\\ ", "x ", False, True),  # an escaped trailing space stays
    ("x  ", "x", False, True),  # unescaped ones go
    ("\\!x", "!x", False, True),
    ("\\#x", "#x", False, True),
    ("*.py\n!keep.py", "keep.py", False, False),
    ("[z-ab]", "b", False, True),  # git keeps the rest of a class with a reversed range
])
def test_git_wildmatch_semantics(patterns, path, is_dir, expected):
    assert _decide(patterns, path, is_dir) is expected


@pytest.mark.parametrize("line, reason", [
    ("\\", "trailing backslash"), ("foo\\", "trailing backslash"), ("!", "negates nothing"),
    ("[abc", "never closed"), ("[[:nope:]]", "unknown character class"), ("[z-a]", "reversed"),
])
def test_unusable_lines_are_warned_about_with_file_and_line(line, reason):
    warnings: list[str] = []
    ignore.parse(f"ok\n{line}\n".encode(), "sub/.gitignore", warnings)
    assert len(warnings) == 1 and warnings[0].startswith(f"sub/.gitignore:2: invalid ignore pattern {line!r}")
    assert reason in warnings[0]


def test_an_overlong_pattern_and_too_many_patterns_are_capped_with_a_warning():
    warnings: list[str] = []
    long_line = "a" * (ignore.MAX_PATTERN_BYTES + 1)
    lines = [long_line] + [f"f{i}" for i in range(ignore.MAX_PATTERNS + 5)]
    rules = ignore.parse("\n".join(lines).encode(), ".cruxeignore", warnings)
    assert len(rules.rules) == ignore.MAX_PATTERNS
    assert warnings[0].startswith(".cruxeignore:1: ignore pattern of 4097 bytes is over the 4096-byte limit")
    assert warnings[1].startswith(f".cruxeignore:{ignore.MAX_PATTERNS + 2}: over {ignore.MAX_PATTERNS} ignore patterns")
    assert rules.decide(b"f0", b"f0", False) is True and rules.decide(long_line.encode(), long_line.encode(), False) is None


@st.composite
def _pattern(draw) -> str:
    segments = draw(st.lists(st.sampled_from(ATOMS + DIRS), min_size=1, max_size=3))
    text = "/".join(segments)
    if draw(st.booleans()):
        text = "/" + text
    if draw(st.integers(0, 4)) == 0:
        text += "/"
    if draw(st.integers(0, 3)) == 0:
        text = "!" + text
    return text + draw(st.sampled_from(["", "", "", "  "]))


@st.composite
def _tree(draw) -> tuple[list[str], dict[str, list[str]]]:
    dirs = draw(st.lists(st.lists(st.sampled_from(DIRS), max_size=3).map("/".join), min_size=1, max_size=5))
    files = sorted({f"{d}/{f}" if d else f for d in dirs for f in draw(st.lists(st.sampled_from(FILES),
                                                                               min_size=1, max_size=4))})
    ignore_dirs = draw(st.lists(st.sampled_from(sorted(set(dirs) | {""})), min_size=1, max_size=3, unique=True))
    ignores = {d: draw(st.lists(_pattern(), min_size=1, max_size=5)) for d in ignore_dirs}
    return files, ignores


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])  # 1,500 pass too
@given(_tree())
def test_the_scanner_keeps_exactly_what_git_keeps(tree):
    files, ignores = tree
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        _git(root, "init", "-q")
        for rel in files:
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text("x = 1\n")
        for d, patterns in ignores.items():
            (root / d).mkdir(parents=True, exist_ok=True)
            (root / d / ".gitignore").write_text("\n".join(patterns) + "\n")
        assert {f.path for f in scan(root).files} == _git_kept(root), ignores


NAME_ALPHABET = "ab]-[!^*?\\ :é"
PATTERN_PIECES = list(NAME_ALPHABET) + ["[:alpha:]", "[:digit:]", "[:punct:]", "[:space:]", "**", "\\", "a-b"]


@pytest.mark.slow
@settings(max_examples=150, deadline=None)  # 1,500 pass too; each example runs git twice
@given(st.lists(st.lists(st.sampled_from(PATTERN_PIECES), min_size=1, max_size=8).map("".join),
                min_size=1, max_size=6),
       st.lists(st.text(NAME_ALPHABET, min_size=1, max_size=6), min_size=1, max_size=30))
def test_one_segment_patterns_match_as_git_matches_them(patterns, names):
    """Classes, ranges, escapes and stars in one path segment, checked name by name against
    `git check-ignore` (the names need not exist)."""
    # a leading ":" is pathspec magic to check-ignore, not part of a name
    names = sorted({n for n in names if n not in (".", "..") and not n.startswith((".git", ":"))})
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        _git(root, "init", "-q")
        (root / ".gitignore").write_text("\n".join(patterns) + "\n")
        done = subprocess.run(["git", "check-ignore", "--no-index", "-z", "--stdin"], cwd=root, env=GIT_ENV,
                              input="\0".join(names).encode(), capture_output=True)
    assert done.returncode in (0, 1), done.stderr
    by_git = set(done.stdout.decode().split("\0")) - {""}
    ours = {n for n in names if _decide("\n".join(patterns), n)}
    assert ours == by_git, patterns


REDOS = "*a*a*a*a*a*a*a*a*a*a*a*a*b"


def test_a_backtracking_pattern_does_not_stall_the_scan(tmp_path):
    """The regex translation `[^/]*a[^/]*a...` took forever on these names; the scan runs in a
    child process with a timeout so that a regression fails instead of hanging the suite."""
    root = tmp_path / "repo"
    deep = root / "/".join(["a" * 200] * 10)
    deep.mkdir(parents=True)
    for i in range(20):
        (deep / ("a" * (200 + i) + ".py")).write_text("x = 1\n")
    (root / ".gitignore").write_text(f"{REDOS}\n**/{REDOS}/**\n/{'a' * 200}/{REDOS}\n")
    code = "import sys; from cruxe.scan import scan; print(len(scan(sys.argv[1]).files))"
    t0 = time.monotonic()
    done = subprocess.run([sys.executable, "-c", code, str(root)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) == 20 and time.monotonic() - t0 < 30


@pytest.mark.parametrize("pattern, subject", [
    (REDOS, b"a" * 4000),  # one segment, stars between repeated letters
    ("**/a/**/a/**/a/**/a/**/b", b"/".join([b"a"] * 2000)),  # `**` groups over many components
    ("*" + "?*" * 1000 + "b", b"a" * 4000),  # many stars between one-byte pieces
    ("*" + "a*" * 1000 + "b", b"a" * 4000),
    ("/".join(["*a*a*a*b"] * 100), b"/".join([b"a" * 40] * 100)),
])
def test_the_worst_cases_stay_polynomial(pattern, subject):
    """Each of these subjects almost matches: a backtracking matcher explores an exponential
    number of splits. The bound is generous: it catches exponential behaviour, not noise."""
    warnings: list[str] = []
    rules = ignore.parse(pattern.encode(), ".gitignore", warnings)
    t0 = time.process_time()
    assert rules.decide(subject, subject.rsplit(b"/", 1)[-1], False) is None
    assert time.process_time() - t0 < 2.0 and not warnings
