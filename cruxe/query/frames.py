"""Stack frames in a pasted trace: the places a run went through, answered as file:line first.

A pasted traceback or diagnostic names where it happened, each place with a path and a line and
often the function: Python's `File "/site-packages/pkg/x.py", line 12, in f`, JavaScript's
`at f (/app/src/x.js:12:5)`, Go's `\t/home/u/pkg/x.go:12 +0x1d`, Rust's `at ./src/x.rs:12:5` and
a panic's `src/x.rs:12:5`, a compiler's `src/x.ts:4:10: error`. A frame whose path ends with the
path of an indexed file (the longest such ending, at least the file name, naming one file) is a
location the index answers exactly: the innermost definition around that line, or the line
itself when no definition holds it. When the frame names its function and the definition around
the line has another name (the pasted run used another version of the file), the file's
definition of that name nearest the line answers instead. A frame in compiled JavaScript that no
indexed file ends (`dist/esm/x.js`, the build a TypeScript package runs as) is its TypeScript
source's (`src/x.ts`) when that source defines the function the frame names.

The frames come innermost first: Python prints the innermost frame last, the others first. The
rest of the paste (without the indented frame lines, the source lines Python prints under them
and the trace's header; a line that holds a location among words, a panic's or a compiler's,
stays whole) is searched as usual, after the frames.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import islice

from ..literals import PY_FRAME
from ..model import endings, is_non_source_path, is_test_file
from ..store import Symbol, chunks, innermost_symbols, paths_by_name, symbols_named

_SOURCE_SUFFIXES = r"(?:py|pyi|go|rs|ts|tsx|mts|cts|js|jsx|mjs|cjs)"
# `path:line[:col]`, bare or inside `at f (...)`, `--> `, Go's tab-indented frame line
_PATH = rf"(?:[A-Za-z]:)?[\w./\\@~+-]*[\w-]\.{_SOURCE_SUFFIXES}"
# ... and tsc's `src/app.ts(4,10): error TS2322`
_FRAME = re.compile(rf"(?P<path>{_PATH}):(?P<line>\d+)(?::\d+)?|(?P<tpath>{_PATH})\((?P<tline>\d+),\d+\)")
_JS_FUNC = re.compile(r"\bat\s+(?:async\s+)?(?P<func>[\w$.<>\[\]]+)\s+\(")
# Go prints each frame's function on the line above its `\tpath:line +0x..`: `main.(*T).m(...)`
_GO_FUNC = re.compile(r"^(?P<func>[\w./*()-]+)\((?:[^()]|\.\.\.)*\)\s*$")
_GOROUTINE = re.compile(r"^goroutine \d+ \[")
_GO_TEST_FAIL = re.compile(r"^\s*--- FAIL: (?P<func>\w+)")
_TRACE_HEAD = re.compile(r"^\s*(?:Traceback \(most recent call last\):|goroutine \d+ \[|stack backtrace:)")
MAX_FRAMES = 20  # a paste's first frames: a deep recursion repeats itself


@dataclass(frozen=True)
class Frame:
    path: str  # as pasted, separators made `/`
    line: int
    func: str  # "" when the frame does not say


def split_trace(query: str) -> tuple[list[Frame], str]:
    """(the frames of a pasted trace, innermost first; the paste without them). Python's source
    lines under a frame and the trace's header line go with the frames."""
    bare = _FRAME.fullmatch(query.strip().strip("`'\""))
    if bare is not None:  # a location alone (`src/parser.go:52`, `utils.py:250:8`): nothing else to search
        return [Frame(_slashes(bare["path"] or bare["tpath"]), int(bare["line"] or bare["tline"]), "")], ""
    frames: list[Frame] = []
    rest: list[str] = []
    python = False
    skip_source = False
    go_func, goroutines, test_func = "", False, ""
    for line in query.splitlines():
        m = PY_FRAME.match(line)
        if m:
            python = True
            frames.append(Frame(_slashes(m["path"]), int(m["line"]), _last_name(m["func"] or "")))
            skip_source = True
            continue
        if skip_source and line.startswith((" ", "\t")) and line.strip():
            skip_source = False  # the source line Python prints under its frame
            continue
        skip_source = False
        g = _GO_FUNC.match(line) if goroutines else None
        if g:
            go_func = g["func"]
            continue
        t = _GO_TEST_FAIL.match(line)
        if t:
            test_func = t["func"]
        goroutines = goroutines or _GOROUTINE.match(line) is not None
        found = list(_FRAME.finditer(line))
        if not found:
            # a trace's header and its frames outside any file (`at node:internal/...`) say nothing
            if not (_TRACE_HEAD.match(line) or line.lstrip().startswith("at ")):
                rest.append(line)
            continue
        func = _JS_FUNC.search(line)
        name = (_last_name(func["func"]) if func else _last_name(go_func) if go_func and line.startswith("\t")
                else test_func if line[:1].isspace() else "")
        frames += [Frame(_slashes(f["path"] or f["tpath"]), int(f["line"] or f["tline"]), name) for f in found]
        if not line[:1].isspace():  # a frame line is indented; a sentence or a diagnostic stays
            rest.append(line)
        elif not (func or go_func or line.lstrip().startswith("at ")):
            # an indented location with words after it: a Go test's `    x_test.go:25: want 1, got 2`
            tail = line[found[-1].end():].strip(" :")
            if tail and not tail.startswith("+0x"):
                rest.append(tail)
        go_func = ""
    if python:
        frames.reverse()
    return frames[:MAX_FRAMES], "\n".join(rest).strip()


def _slashes(path: str) -> str:
    path = path.replace("\\", "/")
    for prefix in ("file://", "webpack://", "webpack-internal:///"):
        if path.startswith(prefix):
            path = path[len(prefix):]
    return path


def _last_name(func: str) -> str:
    """`Object.<anonymous>` -> "", `Server.handle` -> `handle`, `main.(*T).m` -> `m`,
    `<module>` -> ""."""
    name = re.split(r"[.:]", func)[-1] if func else ""
    return name if re.fullmatch(r"[A-Za-z_$][\w$]*", name) else ""


def places(gen, repo: str, ref: str, frames: list[Frame], every_file: bool = False
           ) -> list[tuple[str, int, Symbol | None]]:
    """The repository's places among `frames`, innermost first: (path, line, the definition
    around the line or None), each definition or line once. `every_file`: a location asked
    alone (one frame) names its line in each indexed file its path ends that has the line
    (`utils.py:250`: several files), source first, at most MAX_FRAMES; none past a file's end."""
    if not frames:
        return []
    paths = paths_by_name(gen, repo, ref)
    located = [(f, p) for f in frames if (p := _locate(gen, f, paths)) is not None]
    if every_file and len(frames) == 1:
        f = frames[0]
        found = [p for _, p in located] or endings(f.path, paths)
        found.sort(key=lambda p: (is_test_file(p), is_non_source_path(p), p))
        # lazily: `__init__.py:3` may name thousands of files, each a chunk read
        located = [(f, p) for p in islice((p for p in found if _has_line(gen, repo, ref, p, f.line)), MAX_FRAMES)]
    around = innermost_symbols(gen, repo, ref, [(p, f.line) for f, p in located]) if located else {}
    out: list[tuple[str, int, Symbol | None]] = []
    seen: set[tuple[str, int]] = set()
    for f, path in located:
        s = around.get((path, f.line))
        if f.func and (s is None or s.name != f.func):
            s = _named_near(gen, path, f) or s
        key = (path, s.line_start if s is not None else f.line)
        if key not in seen:
            seen.add(key)
            out.append((path, f.line, s))
    return out


_GAP_LINES = 200  # blank and comment lines between two chunks: never this many


def _has_line(gen, repo: str, ref: str, path: str, line: int) -> bool:
    """The file reaches `line`: a chunk holds it or starts soon after (the blank lines
    between two definitions are in no chunk)."""
    return any(c.line_end >= line for c in chunks(gen, repo, ref, path, (line, line + _GAP_LINES)))


def line_text(gen, repo: str, ref: str, path: str, line: int) -> str:
    """The text of one line of an indexed file ("" when no chunk holds it)."""
    for c in chunks(gen, repo, ref, path, (line, line)):
        if c.line_start <= line <= c.line_end:
            return c.source.split("\n")[line - c.line_start]
    return ""


def repo_path(pasted: str, paths: dict[str, list[str]]) -> str | None:
    """The indexed file whose path is the longest ending of `pasted` (by whole components),
    when exactly one file has that ending; `paths` maps a file name to the files so named."""
    found = endings(pasted, paths)
    return found[0] if len(found) == 1 else None


def _locate(gen, f: Frame, paths: dict[str, list[str]]) -> str | None:
    """The frame's file: the one its path ends with; among several, the one file that defines the
    function the frame names (Go's test output: `parser_test.go:25` under `--- FAIL: TestParse`);
    none ending so, the TypeScript source a compiled JavaScript file came from (`_compiled_from`)."""
    found = endings(f.path, paths)
    if not found and f.func:
        found = _compiled_from(gen, f, paths)
    if len(found) > 1 and f.func:
        named = {s.path for s in symbols_named(gen, f.func.lower()) if s.name == f.func}
        found = [p for p in found if p in named]
    return found[0] if len(found) == 1 else None


# the TypeScript sources a compiled JavaScript file is emitted from, by extension
_COMPILED_FROM = {"js": ("ts", "tsx"), "jsx": ("tsx",), "mjs": ("mts", "ts"), "cjs": ("cts", "ts")}


def _compiled_from(gen, f: Frame, paths: dict[str, list[str]]) -> list[str]:
    """The TypeScript sources a frame in compiled JavaScript may come from (`at
    Manager.setStatus (/app/node_modules/pkg/dist/esm/collection/lifecycle.js:120:10)`: the
    repository's `src/collection/lifecycle.ts`), kept only when they define the function the frame
    names: the compiled file's lines are not the source's, so the name, not the line, says where."""
    stem, _, ext = f.path.rpartition(".")
    sources = [p for e in _COMPILED_FROM.get(ext, ()) for p in endings(f"{stem}.{e}", paths)]
    if not sources:
        return []
    named = {s.path for s in symbols_named(gen, f.func.lower()) if s.name == f.func}
    return [p for p in sources if p in named]


def _named_near(gen, path: str, f: Frame):
    rows = [s for s in symbols_named(gen, f.func.lower()) if s.path == path and s.name == f.func]
    return min(rows, key=lambda s: (abs(s.line_start - f.line), s.line_start)) if rows else None
