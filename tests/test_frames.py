"""A pasted trace's frames: parsed, mapped to the repository's files, answered first."""
from __future__ import annotations

from cruxe.index import run_index
from cruxe.project import open_project
from cruxe.query import search_code
from cruxe.query.frames import Frame, repo_path, split_trace

PY_TRACE = """Traceback (most recent call last):
  File "app.py", line 5, in <module>
    t.render()
  File "/usr/lib/python3/site-packages/tmpl/environment.py", line 9, in render
    return self.finish(ctx)
  File "/usr/lib/python3/site-packages/tmpl/environment.py", line 13, in finish
    raise UndefinedError(self.describe(ctx))
tmpl.errors.UndefinedError: 'user' is undefined"""

REPO = {
    "src/tmpl/environment.py": (
        "from .errors import UndefinedError\n\n\n"          # 1-3
        "class Environment:\n"                               # 4
        "    def __init__(self):\n        self.x = 1\n\n"    # 5-7
        "    def render(self, ctx):\n"                       # 8
        "        return self.finish(ctx)\n\n"                # 9-10
        "    def finish(self, ctx):\n"                       # 11
        "        value = ctx.get('user')\n"                  # 12
        "        raise UndefinedError(self.describe(ctx))\n\n"  # 13-14
        "    def describe(self, ctx):\n"                     # 15
        "        name = 'user'\n"                            # 16
        "        return f'{name!r} is undefined'\n"),        # 17
    "src/tmpl/errors.py": "class UndefinedError(Exception):\n    pass\n",
    "tests/test_environment.py": ("def test_undefined():\n    message = 'user is undefined'\n"
                                  "    assert message == 'user is undefined'\n"),
}


def test_python_frames_come_innermost_first_and_leave_the_message():
    frames, message = split_trace(PY_TRACE)
    assert frames == [Frame("/usr/lib/python3/site-packages/tmpl/environment.py", 13, "finish"),
                      Frame("/usr/lib/python3/site-packages/tmpl/environment.py", 9, "render"),
                      Frame("app.py", 5, "")]
    assert message == "tmpl.errors.UndefinedError: 'user' is undefined"


def test_javascript_go_rust_and_compiler_locations():
    js = ("TypeError: Cannot read properties of undefined (reading 'x')\n"
          "    at Command.action (/app/node_modules/commander/lib/command.js:530:10)\n"
          "    at Object.<anonymous> (C:\\app\\index.js:3:1)\n"
          "    at node:internal/main/run_main_module:22:47")
    frames, message = split_trace(js)
    assert frames == [Frame("/app/node_modules/commander/lib/command.js", 530, "action"),
                      Frame("C:/app/index.js", 3, "")]
    assert message == "TypeError: Cannot read properties of undefined (reading 'x')"
    go = ("panic: runtime error: index out of range [3] with length 3\n\ngoroutine 1 [running]:\n"
          "main.(*Parser).parse(...)\n\t/home/u/proj/hcl/parser/parser.go:52 +0x1d\n"
          "main.main()\n\t/home/u/proj/main.go:10 +0x25\nexit status 2")
    frames, message = split_trace(go)
    assert frames == [Frame("/home/u/proj/hcl/parser/parser.go", 52, "parse"), Frame("/home/u/proj/main.go", 10, "main")]
    assert message.splitlines()[0] == "panic: runtime error: index out of range [3] with length 3"
    # a panic's or a compiler's line keeps its words: the message search reads them whole
    rust = "thread 'main' panicked at 'range end out of bounds', src/bytes.rs:120:9"
    assert split_trace(rust) == ([Frame("src/bytes.rs", 120, "")], rust)
    tsc = "src/app.ts:4:10 - error TS2322: Type 'string' is not assignable to type 'number'."
    assert split_trace(tsc)[0] == [Frame("src/app.ts", 4, "")]
    assert split_trace("src/app.ts(4,10): error TS2322: Type 'string'")[0] == [Frame("src/app.ts", 4, "")]
    assert split_trace("where is the config parsed") == ([], "where is the config parsed")


def test_a_pasted_path_maps_to_the_one_file_with_its_longest_ending():
    paths = {"environment.py": ["src/tmpl/environment.py", "docs/environment.py"],
             "mod.rs": ["a/src/mod.rs", "b/src/mod.rs"]}
    assert repo_path("/usr/lib/python3/site-packages/tmpl/environment.py", paths) == "src/tmpl/environment.py"
    assert repo_path("environment.py", paths) is None  # two files end so: no guess
    assert repo_path("/build/x/src/mod.rs", paths) is None
    assert repo_path("/build/b/src/mod.rs", paths) == "b/src/mod.rs"
    assert repo_path("app.py", paths) is None


def _search(root, query):
    run_index(root)
    project = open_project(root)
    ref = project.default_ref()
    return search_code(project.store.current_generation(ref), project.id, ref, query)


def test_a_pasted_traceback_answers_its_frames_first_then_what_emits_the_message(make_repo):
    hits, total, intent = _search(make_repo(REPO), PY_TRACE)
    found = [(h.path, h.name) for h in hits]
    assert found[:2] == [("src/tmpl/environment.py", "finish"), ("src/tmpl/environment.py", "render")], found
    assert ("src/tmpl/environment.py", "describe") in found[2:]  # the message's own site, after
    assert intent["intent"] == "error" and "emitting_site" not in intent
    assert hits[0].score == hits[0].signals["final_score"] == hits[0].signals["stack_frame"]
    assert hits[0].score > hits[1].score > hits[2].score
    from cruxe import shape
    parts = ("bm25_score", "exact_match_boost", "qualified_name_boost", "path_affinity", "definition_boost",
             "kind_match", "test_file_penalty", "declaration_penalty", "query_coverage", "bodyless_penalty",
             "stack_frame")
    for r in shape.ranking_reasons(hits, "full"):  # the explanation adds up, frames and the rest
        assert round(sum(r[k] for k in parts), 4) == r["final_score"]


def test_a_frame_of_another_version_of_the_file_finds_its_function_by_name(make_repo):
    # the run's file had two more lines above `finish`: line 15 is in `describe` here
    trace = ('Traceback (most recent call last):\n'
             '  File "/srv/tmpl/environment.py", line 15, in finish\n    raise X\nValueError: boom')
    hits, _, _ = _search(make_repo(REPO), trace)
    assert (hits[0].path, hits[0].name) == ("src/tmpl/environment.py", "finish")


def test_a_go_test_failure_picks_the_same_named_file_that_defines_the_failing_test(make_repo):
    test = "package {p}\n\nimport \"testing\"\n\nfunc {t}(t *testing.T) {{\n\tt.Errorf(\"want 1, got %d\", 2)\n}}\n"
    root = make_repo({"hcl/parser/parser_test.go": test.format(p="parser", t="TestParse"),
                      "json/parser/parser_test.go": test.format(p="parser", t="TestObjectKey")})
    output = "--- FAIL: TestObjectKey (0.00s)\n    parser_test.go:6: want 1, got 2\nFAIL\n"
    frames, message = split_trace(output)
    assert frames == [Frame("parser_test.go", 6, "TestObjectKey")] and "want 1, got 2" in message
    hits, _, _ = _search(root, output)
    assert (hits[0].path, hits[0].name) == ("json/parser/parser_test.go", "TestObjectKey")


# A location asked alone: `path:line` names that line and nothing else; a file name shared by
# several files names the line in each that has it; a line no file has names the files.
SAME_NAMES = {
    "src/app/utils.py": "import os\n\n\ndef slug(text):\n    return text.lower()\n\n\ndef strip(text):\n"
                        "    return text.strip()\n",                                   # 9 lines
    "examples/demo/utils.py": "def demo():\n    return 1\n",                           # 2 lines
    "tests/utils.py": "\n\n\n\ndef helper():\n    return 2\n\n\n\n\ndef other():\n    return 3\n",  # 12 lines
    "src/app/views.py": "from .utils import slug\n\n\ndef index(title):\n    return slug(title)\n",
}


def test_a_location_alone_answers_that_line_only(make_repo):
    hits, total, _ = _search(make_repo(SAME_NAMES), "src/app/utils.py:5")
    assert [(h.path, h.name) for h in hits] == [("src/app/utils.py", "slug")] and total == 1


def test_a_file_name_shared_by_several_files_names_the_line_in_each_that_has_it(make_repo):
    hits, _, _ = _search(make_repo(SAME_NAMES), "utils.py:9")
    # source first, then tests; the 2-line example has no line 9; a blank line shows as itself
    assert [(h.path, h.line_start, h.name) for h in hits] == [("src/app/utils.py", 8, "strip"), ("tests/utils.py", 9, "utils.py")]
    assert hits[1].result_type == "snippet" and hits[1].snippet is None


def test_a_line_no_file_has_names_the_files_and_a_name_no_file_has_names_none(make_repo):
    root = make_repo(SAME_NAMES)
    hits, _, _ = _search(root, "utils.py:400")
    assert {h.path for h in hits[:3]} == {"src/app/utils.py", "examples/demo/utils.py", "tests/utils.py"}
    assert all(h.result_type == "file" for h in hits)  # (then views.py, which imports `.utils`)
    hits, _, _ = _search(root, "src/app/views.py:400")  # one file, which ends before the line
    assert [(h.path, h.result_type) for h in hits][:1] == [("src/app/views.py", "file")]
    hits, total, intent = _search(root, "nosuchfile.py")  # `.py` alone is not a match
    assert intent["intent"] == "path" and hits == [] and total == 0
