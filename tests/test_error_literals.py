"""Pasted error messages found by their literal (issue 17, item 3): the site that emits a
message built with an f-string, `%`, `.format`, Go verbs, Rust `{}` or a TS template, pasted
with values filled in (a path, a number, a URL), ranks above a test asserting the same text."""
from __future__ import annotations

import pytest

from cruxe.literals import emitted_segments, message_segments, unwrap_message
from cruxe.query import plan, search_code
from cruxe.query.messages import FIT_DEPTH

from support.repos import indexed_files

# (file, source, the emitting line's marker); tests repeat each message with the holes filled.
SOURCES = {
    "python": ("store/loader.py", '''\
import logging

log = logging.getLogger(__name__)


def load_manifest(path, expected):
    rows = read(path)
    if len(rows) != expected:
        raise ManifestError(f"manifest {path} holds {len(rows)} rows but the header promised {expected}")
    return rows


def fetch_remote(url, retries):
    log.warning("giving up on mirror %s after %d retries", url, retries)
    raise MirrorUnreachable("mirror %s refused the connection after %d retries" % (url, retries))


def render(name):
    raise TemplateMissing("template {} is not registered with any loader".format(name))
''', "tests/test_loader.py", '''\
def test_manifest_mismatch():
    with pytest.raises(ManifestError, match="holds 3 rows but the header promised 4"):
        load_manifest("manifest holds rows but the header promised", 4)
    assert "mirror refused the connection after retries" in caplog.text
    assert str(err) == "template is not registered with any loader"
'''),
    "go": ("store/loader.go", '''\
package store

import (
	"errors"
	"fmt"
)

var ErrClosed = errors.New("store: operation on a closed segment file")

func Open(path string, size int) (*Segment, error) {
	if size < 0 {
		return nil, fmt.Errorf("store: segment %q has negative size %d after recovery", path, size)
	}
	return &Segment{path: path}, nil
}
''', "store/loader_test.go", '''\
package store

func TestOpen(t *testing.T) {
	want := "store: segment has negative size after recovery"
	if err.Error() != "store: segment \\"/tmp/x\\" has negative size -1 after recovery" {
		t.Fatalf("got %v want %v", err, want)
	}
}
'''),
    "rust": ("src/pool.rs", '''\
pub fn checkout(&mut self, slot: usize) -> &Conn {
    if slot >= self.conns.len() {
        panic!("pool slot {} is out of range for a pool of {} connections", slot, self.conns.len());
    }
    self.conns[slot].as_ref().expect("pool slot was checked out twice without a release")
}
''', "tests/pool.rs", '''\
#[test]
#[should_panic(expected = "is out of range for a pool of 2 connections")]
fn slot_out_of_range() {
    // pool slot is out of range for a pool of connections
    let msg = "pool slot 7 is out of range for a pool of 2 connections";
    assert_eq!(msg, "pool slot is out of range for a pool of connections");
}
'''),
    "typescript": ("src/registry.ts", '''\
export function register(url: string, name: string): Plugin {
  if (registry.has(name)) {
    throw new Error(`plugin ${name} was already registered from ${url} in this session`);
  }
  return load(url);
}
''', "src/registry.test.ts", '''\
test("duplicate", () => {
  expect(() => register("https://x.example.com/p.js", "auth")).toThrow(
    "plugin auth was already registered from https://x.example.com/p.js in this session");
  expect(msg).toBe("plugin was already registered from in this session");
});
'''),
}

# (language, pasted message with values, marker of the emitting line)
PASTED = [
    ("python", "ManifestError: manifest /var/lib/app/manifest.json holds 3 rows but the header promised 4",
     "raise ManifestError"),
    ("python", "MirrorUnreachable: mirror https://mirror.example.org/pub refused the connection after 5 retries",
     "raise MirrorUnreachable"),
    ("python", "TemplateMissing: template emails/welcome.html is not registered with any loader",
     "raise TemplateMissing"),
    ("go", 'store: segment "/data/seg-0001.log" has negative size -1 after recovery', "fmt.Errorf"),
    ("go", "store: operation on a closed segment file", "errors.New"),
    ("rust", "thread 'main' panicked at 'pool slot 7 is out of range for a pool of 2 connections', "
             "src/main.rs:41:10", "panic!"),
    ("rust", "thread 'main' panicked at 'pool slot was checked out twice without a release', src/main.rs:9:5",
     ".expect("),
    ("typescript", "Error: plugin auth was already registered from https://cdn.example.com/auth.js in this session",
     "throw new Error"),
]


@pytest.fixture(scope="module")
def indexed(tmp_path_factory):
    files = {rel: text for src_path, src, test_path, test in SOURCES.values()
             for rel, text in ((src_path, src), (test_path, test))}
    return indexed_files(tmp_path_factory.mktemp("errrepo"), tmp_path_factory.mktemp("errhome"), files)


def _emitting_line(language: str, marker: str) -> tuple[str, int]:
    path, src = SOURCES[language][0], SOURCES[language][1]
    lines = [i + 1 for i, line in enumerate(src.splitlines()) if marker in line]
    assert len(lines) == 1, (marker, lines)
    return path, lines[0]


@pytest.mark.parametrize("language,message,marker", PASTED, ids=[m[:40] for _, m, _ in PASTED])
def test_pasted_message_with_values_finds_the_emitting_site_first(indexed, language, message, marker):
    gen, repo, ref = indexed
    path, line = _emitting_line(language, marker)
    hits, _, intent = search_code(gen, repo, ref, message, limit=5)
    assert intent["intent"] == "error"
    top = hits[0]
    assert (top.path, top.line_start <= line <= top.line_end) == (path, True), hits[:3]


def test_segments_of_each_language_literal():
    assert emitted_segments('raise E(f"no {x!r} in {y}: giving up")', "python") == [
        ["no", "|", "in", "|", "giving", "up", "|"]]
    assert emitted_segments('log.error("cannot %(op)s the %s file", d)', "python") == [
        ["cannot", "|", "the", "|", "file", "|"]]
    assert emitted_segments('return fmt.Errorf("bad size %d for %q\\n", n, s)', "go") == [
        ["bad", "size", "|", "for", "|"]]
    assert emitted_segments('bail!("slot {slot} of {:?} is gone", p)', "rust") == [
        ["slot", "|", "of", "|", "is", "gone", "|"]]
    assert emitted_segments("throw new TypeError(`key ${k.name} has no value`)", "typescript") == [
        ["key", "|", "has", "no", "value", "|"]]


def test_only_literals_inside_an_emitting_call_are_kept():
    src = 'x = "a message that is only data"\nraise E("the raised message")\nprint(f(y), "after the call")\n'
    assert emitted_segments(src, "python") == [["the", "raised", "message", "|"]]
    # pieces of one message written side by side are one literal
    assert emitted_segments('raise E("first half of a "\n      "message in two")', "python") == [
        ["first", "half", "of", "a", "message", "in", "two", "|"]]
    assert emitted_segments('raise E(b"raw bytes not text")', "python") == []
    # the emitting call may be an outer one; a test's expectation is no emitting call
    assert emitted_segments('panic(fmt.Sprintf("bad %d entries", n))', "go") == [["bad", "|", "entries", "|"]]
    assert emitted_segments('raise E(_("gettext wrapped message"))', "python") == [
        ["gettext", "wrapped", "message", "|"]]
    assert emitted_segments('with pytest.raises(E, match="the raised message"): f()', "python") == []
    # tsx and javascript files read like TypeScript
    assert emitted_segments("throw new Error(`bad ${x} value`)", "tsx") == [["bad", "|", "value", "|"]]
    # a doc comment's example is not where a message comes from
    assert emitted_segments('/// panic!("example in a doc comment")\nfn f() {}', "rust") == []


def test_a_message_kept_in_a_capitalised_constant_is_a_message():
    # tokio: `const CONTEXT_MISSING_ERROR: &str =\n    "there is no reactor running, ..."`, panicked with
    # `panic!("{}", CONTEXT_MISSING_ERROR)`: the constant holds the only text of the message
    rust = 'pub(crate) const CONTEXT_MISSING_ERROR: &str =\n    "there is no reactor running";\n'
    assert emitted_segments(rust, "rust") == [["there", "is", "no", "reactor", "running", "|"]]
    assert emitted_segments('class Form:\n    INVALID_MSG = "enter a valid value"\n', "python") == [
        ["enter", "a", "valid", "value", "|"]]
    assert emitted_segments("export const NOT_FOUND = 'no such plugin registered';", "typescript") == [
        ["no", "such", "plugin", "registered", "|"]]
    # not a constant: a variable in lower case, a comparison, a call's result
    assert emitted_segments('label = "a plain label text"\nif MODE == "two words":\n    pass\n', "python") == []
    assert emitted_segments('MSG = render("a template name here")', "python") == []


def test_a_typescript_table_of_messages_holds_messages():
    # immer: `export const errors = [function(plugin) { return `The plugin for '${plugin}' ...` },
    # "This object has been frozen ...", ...]`, thrown by index (`die(2)`): the table holds the
    # only text of each message, far more than one window away from the declaration's name
    filler = "".join(f'\t"entry number {i} of the table",\n' for i in range(30))
    ts = ("export const errors =\n\tprocess.env.NODE_ENV !== \"production\"\n\t\t? [\n"
          "\t\t\tfunction(plugin: string) {\n\t\t\t\treturn `The plugin for '${plugin}' has not been loaded`\n\t\t\t},\n"
          + filler + '\t"This object has been frozen and should not be mutated",\n\t\t]\n\t\t: []\n'
          "const labels = ['first label text', 'second label text']\n"
          "export const errorMessages: Record<Codes, string> = { [Codes.X]: 'Illegal comment here.' }\n")
    segs = emitted_segments(ts, "typescript")
    assert segs[0] == ["the", "plugin", "for", "|", "has", "not", "been", "loaded", "|"]
    assert ["this", "object", "has", "been", "frozen", "and", "should", "not", "be", "mutated", "|"] in segs
    assert ["illegal", "comment", "here", "|"] in segs
    assert not any("label" in s for s in segs)  # a list not named as messages
    # Python's tables too (tests/test_pyprobe2_messages.py), a list not so named is none
    assert emitted_segments('errors = ["two words"]', "python") == [["two", "words", "|"]]
    assert emitted_segments('labels = ["two words"]', "python") == []


def test_a_translated_or_failed_literal_is_a_message():
    # click builds its messages apart from the raise (`message = _("No such option: {name}")...`),
    # Django keeps them in dicts of `_()`; `self.fail(...)` raises click's BadParameter
    assert emitted_segments('message = _("No such option: {name}").format(name=n)', "python") == [
        ["no", "such", "option", "|"]]
    assert emitted_segments('messages = {"invalid": gettext_lazy("Enter a valid value.")}', "python") == [
        ["enter", "a", "valid", "value", "|"]]
    assert emitted_segments('self.fail(f"{value!r} is not a valid integer", param, ctx)', "python") == [
        ["is", "not", "a", "valid", "integer", "|"]]
    assert emitted_segments('x = some_("not a translation call")', "python") == []


def test_a_scanners_err_method_emits_its_message():
    # hashicorp/hcl's scanner reports through `s.err("illegal char")`, printed as "At 3:7: illegal char"
    assert emitted_segments('\t\ts.err("illegal char")\n', "go") == [["illegal", "char", "|"]]
    assert emitted_segments('err := check("not a report")\n', "go") == []


def test_a_message_given_to_a_variable_or_returned_by_a_message_function_is_a_message():
    # the style linters ask of Python (ruff EM101/EM102): `msg = f"..."` then `raise E(msg)`
    assert emitted_segments('msg = f"bad value {x} here"\nraise ValueError(msg)\n', "python") == [
        ["bad", "value", "|", "here", "|"]]
    assert emitted_segments('errMsg := fmt.Sprintf("bad value %d here", x)\n', "go") == [
        ["bad", "value", "|", "here", "|"]]
    # jinja2's parser builds its message in a list, then fails with the joined text
    assert emitted_segments('        message = [f"Encountered unknown tag {name!r}."]\n', "python") == [
        ["encountered", "unknown", "tag", "|"]]
    assert emitted_segments('    message.append(\n        "The innermost block that needs to be closed"\n', "python") == [
        ["the", "innermost", "block", "that", "needs", "to", "be", "closed", "|"]]
    # jinja2's Undefined: `def _undefined_message(self): ... return f"{obj!r} has no attribute {name!r}"`
    src = 'def _undefined_message(self) -> str:\n    if x:\n        return f"{a!r} has no attribute {b!r}"\n'
    assert emitted_segments(src, "python") == [["has", "no", "attribute", "|"]]
    src = 'def _undefined_message(self):\n    return (\n        f"{a!r} has no"\n        f" element {b!r}"\n    )\n'
    assert emitted_segments(src, "python") == [["has", "no", "element", "|"]]
    # not messages: other names, other functions' returns
    assert emitted_segments('message_id = "abc def"\nlabel = "two words"\n', "python") == []
    assert emitted_segments('def render(self):\n    return f"some text here"\n', "python") == []


def test_f_string_pieces_of_one_message_are_one_literal():
    src = 'msg = (\n    f"first part "\n    f"second part {x}"\n)\n'
    assert emitted_segments(src, "python") == [["first", "part", "second", "part", "|"]]


def test_a_name_prefix_that_is_no_exception_stays_a_candidate_of_the_message():
    from cruxe.literals import named_segments
    # cobra: fmt.Errorf("RegisterFlagCompletionFunc: flag '%s' does not exist", name)
    assert named_segments("RegisterFlagCompletionFunc: flag 'port' does not exist") == [
        ("registerflagcompletionfunc", "flag")]
    # an exception's name is the runtime's wrapper, never the message's
    assert named_segments("ValueError: bad value here") == []
    assert named_segments("django.core.exceptions.ImproperlyConfigured: Requested setting") == []
    assert named_segments("plain words without a prefix") == []


def test_a_pasted_panic_finds_the_constant_that_holds_its_message(tmp_path):
    files = {
        "src/util/error.rs": 'pub(crate) const CONTEXT_MISSING_ERROR: &str =\n'
                             '    "there is no reactor running, must be called from the context of a Tokio 1.x runtime";\n',
        "src/runtime/handle.rs": 'pub fn current() -> Handle {\n'
                                 '    match try_current() {\n        Some(h) => h,\n'
                                 '        None => panic!("{}", crate::util::error::CONTEXT_MISSING_ERROR),\n    }\n}\n',
        "src/runtime/driver.rs": 'pub fn io(&self) -> &Handle {\n'
                                 '    self.io.as_ref().expect("must be called from the context of a runtime with IO enabled")\n}\n',
    }
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home", files)
    paste = ("thread 'main' panicked at 'there is no reactor running, must be called from the context of a "
             "Tokio 1.x runtime', src/main.rs:5:5")
    hits, _, intent = search_code(gen, repo, ref, paste, limit=5)
    assert intent["intent"] == "error"
    assert (hits[0].path, hits[0].line_start) == ("src/util/error.rs", 1), hits[:3]


def test_a_dereferencing_assignment_line_is_code_not_a_comment():
    """A line that starts with `*` is a block comment's continuation only when a space, `/` or
    another `*` follows; `*out = ...` (Rust, Go, C-like dereference) is code whose message counts."""
    src = 'fn f(out: &mut String, v: Vec<u8>) {\n    *out = String::from_utf8(v).expect("the data must be valid utf-8");\n}\n'
    assert emitted_segments(src, "rust") == [["the", "data", "must", "be", "valid", "utf", "8", "|"]]
    assert emitted_segments('\t*p = mustParse("bad value in the header")\n', "go") == []  # not an emitting call
    assert emitted_segments('\t*p = errors.New("bad value in the header")\n', "go") == [
        ["bad", "value", "in", "the", "header", "|"]]
    # block comments' continuation lines stay comments
    assert emitted_segments('/*\n * panic!("in a block comment")\n */', "rust") == []
    assert emitted_segments('/**\n *panic!("in a block comment")\n**/', "rust") == []
    assert emitted_segments('/**\n ** throw new Error("in a doc block")\n */', "typescript") == []


def test_pasted_wrappers_and_values_are_taken_off():
    assert unwrap_message("thread 'main' panicked at 'slot 3 gone', src/main.rs:4:9") == "slot 3 gone"
    assert unwrap_message("panic: store: closed") == "store: closed"
    assert unwrap_message("KeyError: Error: missing key") == "Error: missing key"
    assert unwrap_message('"no such key"') == "no such key"
    # a quoted value at the end stays quoted (a value, not a word of the message)
    assert message_segments('json: bad type "*fs.PathError": "*fs.PathError"') == [("json", "bad", "type")]
    assert message_segments("ValueError: cannot open /tmp/a.txt after 3 tries from https://x.org/y") == [
        ("cannot", "open"), ("tries", "from"), ("after",)]


def test_error_plan_searches_segments_as_phrases_in_emitted_messages():
    p = plan("ManifestError: manifest /var/x.json holds 3 rows but the header promised 4")
    assert p.intent == "error"
    literal = next(c for c in p.channels if c.name == "literals")
    assert literal.index == "snippets"
    phrases = {(c.field, c.terms) for c in literal.clauses if c.phrase}
    assert ("error_literals", ("rows", "but", "the", "header", "promised")) in phrases
    assert ("error_literals", ("manifest",)) not in phrases
    words = {t for ch in p.channels for c in ch.clauses if not c.phrase for t in c.terms}
    assert not words & {"var", "x", "json", "3", "4"}


def test_a_value_that_no_message_holds_is_cut_from_every_phrase(tmp_path):
    """`data must be str, not NoneType`: the type name filled into `%s` is a word of the code
    (`NoneType = type(None)`) but of no message, so a phrase through it matches nothing in
    the code either; cut there, the emitting line's text is found by the content channel too
    and outranks the sites that emit a message with the same words (`name must be str, not
    {}`), found by the words' bag in both channels, more of them than the
    channels' first places that are read for their messages (`messages.FIT_DEPTH`)."""
    competitors = {f"data/str_type_{i}.py": (
        "NoneType = type(None)\n\n\n"
        f"def data_str_{i}(data, name):\n"
        "    if not isinstance(name, str) or isinstance(data, NoneType):\n"
        "        raise TypeError(f'data name must be str, not {type(name)}: data must be data')\n"
        "    return str(data)\n") for i in range(FIT_DEPTH + 4)}
    files = {**competitors, "store/text.py": (
        "def write_text(path, data):\n"
        "    if not isinstance(data, str):\n"
        "        raise TypeError('data must be str, not %s' % data.__class__.__name__)\n"
        "    path.write(data)\n")}
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home", files)
    for pasted in ("TypeError: data must be str, not NoneType", "TypeError: data must be str, not int"):
        hits, _, intent = search_code(gen, repo, ref, pasted, limit=5)
        assert intent["intent"] == "error"
        assert (hits[0].path, hits[0].line_start <= 3 <= hits[0].line_end) == ("store/text.py", True), hits[:3]


def test_outside_python_a_scan_thrown_off_by_a_stray_quote_loses_no_later_chunk():
    from cruxe.literals import field_texts
    # zod's comments quote code in backticks; one left open (or a regular expression holding a
    # quote) is a string's start to a lexical scan, which then reads the file inside out
    text = ("// a `keys or `` pair, as markdown writes it\n"
            "function a() {\n  return 1;\n}\n"
            "function b() {\n  throw new Error(`Duplicate discriminator value ${v} here`);\n}\n")
    fields = field_texts(text, "typescript", [(1, 4), (5, 7)])
    assert fields[1] == "duplicate discriminator value | here |"


def test_a_quote_in_a_comment_opens_no_literal():
    from cruxe.literals import emitted_messages
    # @tanstack/router-generator's `checkRouteFullPathUniqueness`: an apostrophe and a code span
    # in a comment made the scan read the rest of the function inside out, losing its message
    ts = ("export function checkPaths(routes: Array<Route>) {\n"
          "  // A route group's layout keeps its stripped path `''` here, so one without\n"
          "  // child routes yet doesn't conflict with the index route\n"
          "  const conflicting = findDuplicates(routes)\n"
          "  if (conflicting !== undefined) {\n"
          "    const errorMessage = `Conflicting configuration paths were found for the following route"
          "${conflicting.length > 1 ? 's' : ''}: ${conflicting.map((p) => `\"${p.fullPath}\"`).join(', ')}.`\n"
          "    throw new Error(errorMessage)\n"
          "  }\n"
          "}\n")
    found = emitted_messages(ts, "typescript")
    assert len(found) == 1 and found[0].startswith("Conflicting configuration paths were found for the following")
    # Go's `text/scanner`: a rune holding a backtick is no raw string's start
    go = ("func (s *Scanner) scanRawString() {\n"
          "\tch := s.next() // the one after the opening quote\n"
          "\tfor ch != '`' {\n"
          "\t\tif ch < 0 {\n"
          "\t\t\ts.error(\"raw string literal not terminated\")\n"
          "\t\t\treturn\n"
          "\t\t}\n"
          "\t\tch = s.next()\n"
          "\t}\n"
          "}\n\n"
          "func isQuote(ch rune) bool {\n"
          "\treturn ch == '`' || ch == '\"'\n"
          "}\n")
    assert emitted_messages(go, "go") == ["raw string literal not terminated"]
    # a comment's words are no message, and `//` inside a string is no comment
    assert emitted_messages('/* throw new Error("not this one") */\nthrow new Error("see http://x.io/a for more")\n',
                            "typescript") == ["see http://x.io/a for more"]
