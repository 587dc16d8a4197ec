"""Go messages that live outside an emitting call: the body of an `Error() string` method (what
the `error` interface prints) and a constant of any case (`const ( fieldErrMsg = "..." )`),
found by user probes on viper and go-playground/validator."""
from __future__ import annotations

from cruxe.literals import emitted_segments
from cruxe.query import search_code

from support.repos import indexed_files

ERRORS_GO = '''\
package config

import "fmt"

const (
	fieldErrMsg = "Key: '%s' Error:Field validation for '%s' failed on the '%s' tag"
	tagSeparator = ","
)

// UnsupportedConfigError denotes encountering an unsupported configuration filetype.
type UnsupportedConfigError string

func (str UnsupportedConfigError) Error() string {
	return fmt.Sprintf("Unsupported Config Type %q", string(str))
}

type NilError struct{ Type string }

func (e *NilError) Error() string {
	if e.Type == "" {
		return "validator: (nil)"
	}
	return "validator: (nil " + e.Type + ")"
}

type fieldError struct{ ns, field, tag string }

func (fe *fieldError) Error() string {
	return fmt.Sprintf(fieldErrMsg, fe.ns, fe.field, fe.tag)
}
'''

# Sites that mention the same words without emitting them: a label, a format helper, a test.
OTHER_GO = '''\
package config

import "fmt"

var typeLabel = "unsupported config type label"

func describe(kind string) string {
	return fmt.Sprintf("Unsupported Config Type %q is a label here", kind)
}

func notAMessage() string {
	x := "validator nil check"
	return x
}
'''

TEST_GO = '''\
package config

import "testing"

func TestUnsupported(t *testing.T) {
	want := "Unsupported Config Type \\"ini2\\""
	if got := UnsupportedConfigError("ini2").Error(); got != want {
		t.Fatal(got)
	}
}
'''


def test_an_error_method_body_is_what_the_error_prints():
    assert emitted_segments(ERRORS_GO, "go") == [
        ["key", "|", "error", "field", "validation", "for", "|", "failed", "on", "the", "|", "tag", "|"],
        ["unsupported", "config", "type", "|"],
        ["validator", "nil", "|"],
        ["validator", "nil", "|"],
    ]
    # other languages have no such method: the same text is no message there
    assert emitted_segments('def Error() string {\n    return "two words"\n}\n', "python") == []


def test_a_go_constant_of_any_case_holds_a_message():
    assert emitted_segments('const msgMissing = "no such key in the map"\n', "go") == [
        ["no", "such", "key", "in", "the", "map", "|"]]
    assert emitted_segments('const (\n\ta = 1\n\tmsg string = "bad key value"\n)\n', "go") == [
        ["bad", "key", "value", "|"]]
    # a snippet chunk of a long block's last constants does not hold the block's opening
    tail = '\t// msgA is shown when\n\tmsgA = "first message here"\n\tkind = iota\n\tmsgB = "second message " +\n\t\t"in two pieces"\n)\n'
    assert emitted_segments(tail, "go") == [["first", "message", "here", "|"],
                                            ["second", "message", "in", "two", "pieces", "|"]]
    # not a constant: a var, an assignment after the block closed, a struct field
    assert emitted_segments('var label = "a plain label text"\n', "go") == []
    assert emitted_segments('var (\n\tlabel = "a plain label text"\n)\n', "go") == []
    assert emitted_segments('const (\n\ta = 1\n)\n\nfunc f() {\n\tx = "two words here"\n}\n', "go") == []
    assert emitted_segments('func f() T {\n\treturn T{name: "two words"}\n}\n', "go") == []


def test_pasted_go_messages_find_the_error_method_or_the_constant(tmp_path):
    files = {"config/errors.go": ERRORS_GO, "config/other.go": OTHER_GO, "config/errors_test.go": TEST_GO}
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home", files)
    for paste, line in (('Unsupported Config Type "conf"', "Unsupported Config Type %q\", string(str)"),
                        ("validator: (nil *main.User)", 'return "validator: (nil " + e.Type'),
                        ("Key: 'User.Email' Error:Field validation for 'Email' failed on the 'email' tag",
                         "fieldErrMsg = ")):
        want = next(i + 1 for i, text in enumerate(ERRORS_GO.splitlines()) if line in text)
        hits, _, intent = search_code(gen, repo, ref, paste, limit=5)
        assert intent["intent"] == "error", paste
        top = hits[0]
        assert (top.path, top.line_start <= want <= top.line_end) == ("config/errors.go", True), (paste, hits[:3])
