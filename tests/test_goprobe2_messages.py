"""Go messages found by the second user probe (BurntSushi/toml, mitchellh/mapstructure):
a project's own panicking helpers (`p.panicItemf(it, "Invalid integer %q: ...", v)`,
`encPanic(fmt.Errorf(...))`) emit what their arguments say, and a pasted error that a wrapper
printed around an inner message (`toml: line 3 (last key "a"): <inner>`) finds the site of
the inner message before the wrapper's formatter."""
from __future__ import annotations

from cruxe.literals import emitted_segments, inner_paste
from cruxe.query import search_code

from support.repos import indexed_files


def test_a_call_of_a_panicking_helper_emits_its_message():
    assert emitted_segments('\t\tp.panicItemf(it, "Invalid integer %q: cannot have leading zeroes", it.val)\n',
                            "go") == [["invalid", "integer", "|", "cannot", "have", "leading", "zeroes", "|"]]
    assert emitted_segments('\tencPanic(fmt.Errorf("unsupported type for key \'%s\': %s", key, k))\n', "go") == [
        ["unsupported", "type", "for", "key", "|"]]
    assert emitted_segments('\tmustPanic("two words")\n', "go") == [["two", "words", "|"]]
    # a name that merely holds the letters is no panicking helper
    assert emitted_segments('\tx := hispanic("two words")\n', "go") == []
    assert emitted_segments('\tx := panics("two words")\n', "go") == []


ERROR_GO = '''\
package toml

import "fmt"

type ParseError struct {
	Line    int
	LastKey string
	Message string
}

func (pe ParseError) Error() string {
	if pe.LastKey == "" {
		return fmt.Sprintf("toml: line %d: %s", pe.Line, pe.Message)
	}
	return fmt.Sprintf("toml: line %d (last key %q): %s", pe.Line, pe.LastKey, pe.Message)
}
'''
PARSE_GO = '''\
package toml

import "fmt"

type parser struct{ line int }

func (p *parser) fail(format string, v ...interface{}) {
	panic(ParseError{Line: p.line, Message: fmt.Sprintf(format, v...)})
}

func (p *parser) integer(s string) {
	if len(s) > 1 && s[0] == '0' {
		p.fail("Invalid integer %q: cannot have leading zeroes", s)
	}
}

func (p *parser) key(k string) {
	p.fail("Key '%s' has already been defined.", k)
}
'''


def test_the_inner_message_of_a_wrapper_is_what_it_holds():
    pasted = 'toml: line 3 (last key "server.port"): Invalid integer "0123": cannot have leading zeroes'
    assert inner_paste(ERROR_GO, "go", pasted) == 'Invalid integer "0123": cannot have leading zeroes'
    assert inner_paste(ERROR_GO, "go", "toml: line 3: oops") == ""  # one word: no message
    assert inner_paste(PARSE_GO, "go", pasted) == ""  # no wrapper: its message ends in a constant


def test_a_pasted_wrapped_error_finds_the_inner_site_before_the_wrapper(tmp_path):
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home",
                                   {"toml/error.go": ERROR_GO, "toml/parse.go": PARSE_GO})
    for paste, marker in (('toml: line 3 (last key "server.port"): Invalid integer "0123": cannot have leading zeroes',
                           "cannot have leading zeroes"),
                          ("toml: line 7 (last key \"owner.name\"): Key 'owner.name' has already been defined.",
                           "has already been defined")):
        want = next(i + 1 for i, text in enumerate(PARSE_GO.splitlines()) if marker in text)
        hits, _, intent = search_code(gen, repo, ref, paste, limit=5)
        assert intent["intent"] == "error", paste
        assert (hits[0].path, hits[0].line_start <= want <= hits[0].line_end) == ("toml/parse.go", True), hits[:3]
        assert "toml/error.go" in [h.path for h in hits[:3]]  # the wrapper still listed
