"""Pasted messages among sites that emit the same words (issue 17, items 3 and 4 of the errors
work): the site whose message, holes filled, is the whole paste comes first (its case, its
quotes, a value that fits its verb), source before tests; and a message pasted without any
`Error:`-style prefix is still searched as a message when the code emits it."""
from __future__ import annotations

from pathlib import Path

import pytest

from cruxe.literals import FULL_FIT, emitted_messages, message_fit
from cruxe.query import plan, search_code

from support.repos import indexed_files

# Several sites per message: the same constant words, told apart by what the paste shows.
FILES = {
    "schema/util.ts": '''\
export function pick(schema: Schema, mask: Mask) {
  if (schema.hasRefinements) {
    throw new Error(".pick() cannot be used on object schemas containing refinements");
  }
  return build(schema, mask);
}

export function omit(schema: Schema, mask: Mask) {
  if (schema.hasRefinements) {
    throw new Error(".omit() cannot be used on object schemas containing refinements");
  }
  return build(schema, mask);
}

export function modifier(schema: Schema, name: string) {
  if (schema.hasRefinements) {
    throw new Error(`.${name}() cannot be used on object schemas containing refinements`);
  }
  return build(schema, name);
}
''',
    "schema/union.ts": '''\
export function optionsMap(options: Option[]) {
  for (const value of values(options)) {
    if (seen.has(value)) throw new Error(`Duplicate discriminator value "${String(value)}"`);
  }
}
''',
    "schema/compile.ts": '''\
export function compileUnion(options: Option[]) {
  for (const value of values(options)) {
    if (seen.has(value)) throw new CompileError(`duplicate discriminator value ${String(value)}`);
  }
}
''',
    "src/alloc.rs": '''\
pub fn default_oom_hook(layout: Layout) {
    rtprintpanic!("memory allocation of {} bytes failed\\n", layout.size());
}

pub fn oom_panic(size: usize) -> ! {
    panic!("memory allocation of {size} bytes failed")
}
''',
    "store/seg.go": '''\
package store

import "fmt"

func checkCount(n int) error {
	return fmt.Errorf("segment table holds %d entries past its end", n)
}

func checkName(name string) error {
	return fmt.Errorf("segment table holds %q entries past its end", name)
}
''',
    "store/seg_test.go": '''\
package store

func TestCount(t *testing.T) {
	t.Fatalf("segment table holds %d entries past its end", 3)
}
''',
    "style/console.py": '''\
from . import errors
from .color import parse_color


def get_style(name):
    try:
        return parse_color(name)
    except errors.StyleSyntaxError as error:
        raise errors.MissingStyle(f"Failed to get style {name!r}; {error}") from None
''',
    "style/color.py": '''\
from . import errors


def parse_color(word):
    if not word.startswith("#"):
        raise errors.StyleSyntaxError(f"unable to parse {word!r} as color; {word!r} is not a valid color")
    return word
''',
    "style/errors.py": "class StyleSyntaxError(Exception):\n    pass\n\n\nclass MissingStyle(Exception):\n    pass\n",
    "text/funcs.go": '''\
package text

import "errors"

func indexArg(item reflect.Value) (reflect.Value, error) {
	if item.IsNil() {
		return reflect.Value{}, errors.New("index of nil pointer")
	}
	return lookupIndex(item)
}

// pointerIndex returns the index of a pointer in the table of nil pointers
func pointerIndex(table []uintptr, p uintptr) int {
	for i, x := range table {
		if x == p {
			return i
		}
	}
	return -1
}
''',
    "check/kinds.go": '''\
package check

import "fmt"

func typeCheck(validator string, v reflect.Value) error {
	switch v.Kind() {
	case reflect.String:
		return nil
	default:
		return fmt.Errorf("Validator %s doesn't support kind %s", validator, v.Kind())
	}
}

func mapKey(k string) error {
	return fmt.Errorf("map key %q is not an email address", k)
}
''',
}


@pytest.fixture(scope="module")
def indexed(tmp_path_factory):
    return indexed_files(tmp_path_factory.mktemp("errrank"), tmp_path_factory.mktemp("errrankhome"), FILES)


def _line_of(path: str, marker: str) -> int:
    lines = [i + 1 for i, line in enumerate(FILES[path].splitlines()) if marker in line]
    assert len(lines) == 1, (marker, lines)
    return lines[0]


# (pasted message, file of the site that printed it, marker of its line)
SAME_WORDS = [
    # a hole where the other sites wrote a name
    ("Error: .partial() cannot be used on object schemas containing refinements", "schema/util.ts", "`.${name}()"),
    # the case and the quotes as printed
    ("Error: duplicate discriminator value orders_2024", "schema/compile.ts", "duplicate discriminator"),
    ('Error: Duplicate discriminator value "orders_2024"', "schema/union.ts", "Duplicate discriminator"),
    # the panic's message ends where the paste's quote does; the hook's line goes on with a newline
    ("thread 'main' panicked at 'memory allocation of 37 bytes failed', src/main.rs:41:10", "src/alloc.rs",
     "{size}"),
    # a value that fits the verb: a number for %d, a quoted name for %q; the test's Fatalf after source
    ("segment table holds 12 entries past its end", "store/seg.go", "%d entries"),
    ('segment table holds "idx" entries past its end', "store/seg.go", "%q entries"),
]


@pytest.mark.parametrize("message,path,marker", SAME_WORDS, ids=[m[:48] for m, _, _ in SAME_WORDS])
def test_the_site_whose_message_is_the_whole_paste_comes_first(indexed, message, path, marker):
    gen, repo, ref = indexed
    line = _line_of(path, marker)
    hits, _, intent = search_code(gen, repo, ref, message, limit=5)
    assert intent["intent"] == "error"
    top = hits[0]
    assert (top.path, top.line_start <= line <= top.line_end) == (path, True), hits[:3]


def test_an_answer_emitting_the_whole_paste_lists_only_the_sites_that_do(indexed):
    gen, repo, ref = indexed
    # `%d` in checkCount and in the test's Fatalf take 12; checkName's `%q` does not, and
    # pointerIndex only shares the words `index`, `nil` and `pointer`
    hits, _, _ = search_code(gen, repo, ref, "segment table holds 12 entries past its end", limit=5)
    assert [(h.path, h.name) for h in hits] == [("store/seg.go", "checkCount"), ("store/seg_test.go", "TestCount")]
    hits, _, _ = search_code(gen, repo, ref, "index of nil pointer", limit=5)
    assert [(h.path, h.name) for h in hits] == [("text/funcs.go", "indexArg")]


def test_the_site_of_a_whole_message_is_the_method_that_emits_it_not_its_class_too():
    # werkzeug: `Rule.__init__` raises "URL rule '...' must start with a slash." at line 475, and
    # the class `Rule` (330-928), also a result, holds that line too
    from cruxe.model import Hit
    from cruxe.query.messages import whole_sites_only

    path = "routing/rules.py"
    method, cls = Hit("symbol", path, 459, 516, "method", "__init__"), Hit("symbol", path, 330, 928, "class", "Rule")
    other = Hit("symbol", "routing/map.py", 10, 40, "method", "add")
    whole = {(path, 475): 2.4}
    assert whole_sites_only([method, cls, other], whole) == [method]
    assert whole_sites_only([cls, method, other], whole) == [method]
    # the first emits nothing of the paste (it shares words, other channels voted for it): the
    # site still comes first, alone (hcl's `%s: unsupported type to struct: %s` had stood below
    # gin's ErrMultiFileHeader = errors.New("unsupported field type for ..."))
    assert whole_sites_only([other, method, cls], whole) == [method]
    # ... but a first result that emits a part of it (a wrapper's inner message) keeps its place
    assert whole_sites_only([other, method, cls], {**whole, ("routing/map.py", 20): 1.2}) == [other, method, cls]
    assert whole_sites_only([other, method, cls], {}) == [other, method, cls]  # no site at all
    assert whole_sites_only([method, cls, other], {(path, 475): 1.4}) == [method, cls, other]  # a part only


def test_an_answer_whose_first_site_explains_part_of_the_paste_keeps_the_others(indexed):
    gen, repo, ref = indexed
    # the message is a part of a longer log line: no site is the whole paste
    paste = "Error: compaction failed: segment table holds 12 entries past its end, retry 3 of 5"
    hits, _, intent = search_code(gen, repo, ref, paste, limit=5)
    assert intent["intent"] == "error"
    assert (hits[0].path, hits[0].name) == ("store/seg.go", "checkCount")
    assert len(hits) > 2, hits


def test_a_wrapper_raising_the_printed_exception_class_stays_first(indexed):
    # the wrapper's message ends in a hole holding the parser's message; the paste names the
    # class the wrapper raises, so its raise is where the trace ends (rich's Console.get_style)
    gen, repo, ref = indexed
    paste = ("style.errors.MissingStyle: Failed to get style 'headline'; unable to parse 'headline' as color; "
             "'headline' is not a valid color")
    hits, _, _ = search_code(gen, repo, ref, paste, limit=5)
    assert (hits[0].path, hits[0].name) == ("style/console.py", "get_style"), hits[:3]


def test_a_message_pasted_without_a_prefix_is_searched_as_a_message(indexed):
    gen, repo, ref = indexed
    # the classifier alone reads a sentence; the code emitting it as a message decides
    assert plan("index of nil pointer").intent == "natural_language"
    hits, _, intent = search_code(gen, repo, ref, "index of nil pointer", limit=5)
    assert intent["intent"] == "error"
    line = _line_of("text/funcs.go", "errors.New")
    assert (hits[0].path, hits[0].line_start <= line <= hits[0].line_end) == ("text/funcs.go", True), hits[:3]


def test_a_message_whose_filled_values_are_words_of_other_messages_is_searched_as_a_message(indexed):
    gen, repo, ref = indexed
    # `email` and `map` are words other messages hold, so no run of the paste is cut at them:
    # the paste is still the whole of one message with its holes filled
    paste = "Validator email doesn't support kind map"
    assert plan(paste).intent == "natural_language"
    hits, _, intent = search_code(gen, repo, ref, paste, limit=5)
    assert intent["intent"] == "error"
    line = _line_of("check/kinds.go", "doesn't support kind")
    assert (hits[0].path, hits[0].line_start <= line <= hits[0].line_end) == ("check/kinds.go", True), hits[:3]


@pytest.mark.parametrize("q", [
    "where is the index of nil pointer returned?",  # a question about the message
    "how does the table hold entries past its end",  # a question holding a message's words
    "pointer table lookup by index",  # a few words of a message, not most of the query
])
def test_sentences_that_share_words_with_a_message_stay_sentences(indexed, q):
    gen, repo, ref = indexed
    _, _, intent = search_code(gen, repo, ref, q, limit=5)
    assert intent["intent"] == "natural_language"


def test_emitted_messages_keep_their_holes_and_join_their_pieces():
    assert emitted_messages('raise E(f"no {x!r} in " "{y}: giving up")', "python") == ["no {x!r} in {y}: giving up"]
    assert emitted_messages('return fmt.Errorf("bad size %d for %q\\n", n, s)', "go") == ["bad size %d for %q\\n"]
    assert emitted_messages('x = "not a message at all"', "python") == []


def test_fit_orders_sites_by_what_the_paste_shows():
    paste = "bad size 12 for \"x\""
    full = message_fit("bad size %d for %q", paste)
    assert full > message_fit("Bad size %d for %q", paste)  # the case as printed
    assert full > message_fit("bad size %d for %q\\n", paste)  # no trailing newline in the paste
    assert message_fit("bad size %d for %q", 'bad size twelve for "x"') < full  # `twelve` is no %d
    # a message inside a longer paste explains part of it; a sliver explains nothing
    inner = message_fit("open config file {}", "could not open config file /etc/app.toml")
    assert 0 < inner < full
    assert message_fit("config file", "could not open config file /etc/app.toml: permission denied") == 0
    # a constant that the paste does not hold is another message
    assert message_fit(".pick() cannot be used", ".omit() cannot be used") == 0


def test_a_message_of_several_lines_is_found_by_its_first_line():
    # @tanstack/router-plugin throws a message of several lines joined with `+`; the user pastes
    # the line printed beside `Error:`, which the whole message (every line's words) cannot explain
    src = ("throw new Error(\n  `Plugin order error: '${p.pkg}' is placed before '@tanstack/router-plugin'.\\n\\n` +\n"
           "    `The TanStack Router plugin must come BEFORE JSX transformation plugins.\\n\\n` +\n"
           "    `Please update your Vite config:\\n\\n`,\n)")
    message, = emitted_messages(src, "typescript")
    paste = "Plugin order error: '@vitejs/plugin-react' is placed before '@tanstack/router-plugin'."
    fit = message_fit(message, paste)
    assert fit > FULL_FIT  # the first line, its hole filled, is the whole paste
    # a site whose whole message is the paste goes before one that prints more lines
    assert message_fit("Plugin order error: '${p.pkg}' is placed before '@tanstack/router-plugin'.", paste) > fit
    # later lines alone do not explain a paste of the first: only leading lines are read
    assert message_fit("Settings:\\nPlugin order error: '${p.pkg}' is placed before it", paste) == 0
    # a template literal spanning lines is read the same way
    assert message_fit("Unknown target ${t}.\nUse react or solid.", "Unknown target svelte.") > FULL_FIT


def test_a_paste_cut_short_is_explained_by_the_message_it_starts():
    message = "The groupings for the route \"${id}\" are invalid. Each grouping must hold at least one property"
    cut = 'The groupings for the route "/posts" are invalid. Each grouping must'
    fit = message_fit(message, cut)
    assert 0 < fit < FULL_FIT  # a part of the message, never the whole of it
    # the cut must end in enough of the message: a few words could be any message's
    assert message_fit("Unknown route ${id}: no such file or directory in the routes folder", "Unknown route x: no") == 0


def test_a_long_paste_that_cannot_be_mostly_one_message_costs_no_probe(indexed, monkeypatch):
    from cruxe.query import messages

    gen, repo, ref = indexed
    calls = []
    real = messages.search_index
    monkeypatch.setattr(messages, "search_index", lambda *a, **k: calls.append(a) or real(*a, **k))
    # 60 words: a phrase is searched with 24 words at most, which cannot be 60% of them
    p = plan(" ".join(f"word{i} and more" for i in range(20)))
    assert p.intent == "natural_language"
    assert not messages.emits_message(gen, repo, ref, p) and calls == []
    assert messages.emits_message(gen, repo, ref, plan("index of nil pointer")) and len(calls) == 1


def test_search_plan_shows_the_plan_the_search_runs(make_repo):
    """`cruxe search --plan` probes the index as the search does: a sentence the code emits as a
    message is planned as an error there too; without an index, the pure plan says it is one."""
    import json
    import os
    import subprocess
    import sys

    from cruxe.index import run_index

    root = make_repo({"text/funcs.go": FILES["text/funcs.go"]})
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}

    def cli(*args: str) -> dict:
        r = subprocess.run([sys.executable, "-P", "-m", "cruxe", "search", *args], cwd=root, env=env,
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
        return json.loads(r.stdout)

    unprobed = cli("index of nil pointer", "--plan")
    assert unprobed["intent"] == "natural_language" and any("not probed" in n for n in unprobed["notes"])
    run_index(root)
    assert cli("index of nil pointer", "--json")["query_intent"]["intent"] == "error"
    probed = cli("index of nil pointer", "--plan")
    assert probed["intent"] == "error" and not any("not probed" in n for n in probed["notes"])


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    from cruxe.index import run_index
    from cruxe.tools import Server

    root, home = tmp_path_factory.mktemp("errsite"), tmp_path_factory.mktemp("errsitehome")
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    run_index(root, home=home)
    return Server(root, home=home)


def test_a_paste_no_code_emits_says_so_and_a_found_one_does_not(served):
    # the words of a message the files hold, in a message none of them emits
    payload, is_error = served.call_tool("search_code", {"query": "Error: segment schemas still hold refinements"})
    assert not is_error and payload["query_intent"]["intent"] == "error"
    assert payload["results"], payload  # the words still find something to show
    assert [w.split(":")[0] for w in payload["metadata"].get("warnings", [])] == ["no_emitting_site"]
    payload, _ = served.call_tool("search_code", {"query": "Error: segment table holds 12 entries past its end"})
    assert payload["results"][0]["path"] == "store/seg.go"
    assert "warnings" not in payload["metadata"]
    # no result at all says enough by itself
    payload, _ = served.call_tool("search_code", {"query": "Error: zzqx wvyk qqpl"})
    assert payload["query_intent"]["intent"] == "error" and payload["results"] == []
    assert "warnings" not in payload["metadata"]
    # a sentence is no paste: nothing is said of emitting sites
    payload, _ = served.call_tool("search_code", {"query": "where are refinements of object schemas checked"})
    assert payload["query_intent"]["intent"] == "natural_language" and "warnings" not in payload["metadata"]


def test_a_message_concatenated_with_values_has_holes_there():
    src = ('if (id in stepsByID) throw new RangeError("Duplicate use of step JSON ID " + id)\n'
           'throw new Error(name + " is not a function");\n'
           'raise ValueError("bad value " + str(x) + " for key " + key)\n')
    for lang in ("typescript", "python"):
        # a value before the first piece is no hole: a throw helper's `str + " (in ...)"` would
        # otherwise be the whole of every message its callers pass it
        assert emitted_messages(src, lang) == ["Duplicate use of step JSON ID {}", " is not a function",
                                               "bad value {} for key {}"]
    # so the paste is that message whole, its values in the holes
    assert message_fit("Duplicate use of step JSON ID {}", "Duplicate use of step JSON ID addMark") >= 2
    # a throw helper's frame around its callers' messages gets no holes: it would explain their
    # pastes better than their own sites do (prosemirror's TokenStream.err)
    helper = 'err(str) { throw new SyntaxError(str + " (in content expression \'" + this.string + "\')") }'
    assert emitted_messages(helper, "typescript") == [" (in content expression '"]
    # Rust joins with format!, never `+`
    assert emitted_messages('panic!("index out of range " + n)', "rust") == ["index out of range "]
