"""Go messages found by the sixth user probe (gopkg.in/yaml.v3, urfave/cli).

yaml.v3 is a port of C's libyaml and keeps its names: the scanner's and parser's messages are
arguments of `yaml_parser_set_scanner_error(parser, context, mark, problem)` and its kin, the
snake spelling of a name with `Error` in it, which an emitting call already was; a paste of
`yaml: line 7: mapping values are not allowed in this context` found no emitting site.

urfave/cli's `Required flag "config" not set` names what failed in quotes and says `not set`,
a failure as `not found` is: it was read as a question (natural language), and its two-word
runs between the value are too short for the message probe.

logrus tells its user what went wrong writing to the standard error stream
(`fmt.Fprintf(os.Stderr, "Failed to obtain reader, %v\\n", err)`), as Rust's `eprintln!` does: that
literal was no message, and its paste found no emitting site."""
from __future__ import annotations

from cruxe.intent import classify
from cruxe.literals import emitted_segments

from support.messages import assert_pastes_find_sites
from support.repos import indexed_files

SCANNER_GO = '''\
package yaml

// Set the scanner error and return false.
func yaml_parser_set_scanner_error(parser *yaml_parser_t, context string, context_mark yaml_mark_t, problem string) bool {
	parser.error = yaml_SCANNER_ERROR
	parser.context = context
	parser.context_mark = context_mark
	parser.problem = problem
	parser.problem_mark = parser.mark
	return false
}

// Produce the VALUE token.
func yaml_parser_fetch_value(parser *yaml_parser_t) bool {
	if parser.flow_level == 0 {
		// Check if we are allowed to start a complex value.
		if !parser.simple_key_allowed {
			return yaml_parser_set_scanner_error(parser, "", parser.mark,
				"mapping values are not allowed in this context")
		}
	}
	return true
}

func yaml_parser_fetch_next_token(parser *yaml_parser_t) bool {
	// If we don't determine the token type so far, it is an error.
	return yaml_parser_set_scanner_error(parser,
		"while scanning for the next token", parser.mark,
		"found character that cannot start any token")
}
'''

TEST_GO = '''\
package yaml

func assert_error(t *testing.T, text string, want string) {}

func TestScanner(t *testing.T) {
	assert_error(t, "a: b: c", "mapping values are not allowed in this context")
}
'''

CONTEXT_GO = '''\
package cli

import (
	"fmt"
	"strings"
)

type errRequiredFlags struct {
	missingFlags []string
}

func (e *errRequiredFlags) Error() string {
	numberOfMissingFlags := len(e.missingFlags)
	if numberOfMissingFlags == 1 {
		return fmt.Sprintf("Required flag %q not set", e.missingFlags[0])
	}
	joinedMissingFlags := strings.Join(e.missingFlags, ", ")
	return fmt.Sprintf("Required flags %q not set", joinedMissingFlags)
}

// IsRequired returns whether or not the flag is required
func (f StringFlag) IsRequired() bool {
	return f.Required
}
'''


def test_a_snake_case_helper_named_for_an_error_emits_its_message():
    assert emitted_segments(SCANNER_GO, "go") == [
        ["mapping", "values", "are", "not", "allowed", "in", "this", "context", "|"],
        ["while", "scanning", "for", "the", "next", "token", "|"],
        ["found", "character", "that", "cannot", "start", "any", "token", "|"],
    ]
    assert emitted_segments('\treport_error(node, "unexpected end of the input")\n', "python") == [
        ["unexpected", "end", "of", "the", "input", "|"]]
    # a test's assertion that an error says something emits nothing; nor does a word that merely ends in it
    assert emitted_segments(TEST_GO, "go") == []
    assert emitted_segments('\tx := terror_level("two words")\n', "go") == []


ENTRY_GO = '''\
package logrus

import (
	"fmt"
	"os"
)

func (entry *Entry) write() {
	serialized, err := entry.Logger.Formatter.Format(entry)
	if err != nil {
		fmt.Fprintf(os.Stderr, "Failed to obtain reader, %v\\n", err)
		return
	}
	if _, err := entry.Logger.Out.Write(serialized); err != nil {
		fmt.Fprintf(os.Stderr, "Failed to write to log, %v\\n", err)
	}
}

// Reader opens the log for reading, or says why it failed to.
func (entry *Entry) Reader() {
	fmt.Fprintf(entry.Logger.Out, "obtain a reader for the log\\n")
}
'''


def test_a_go_print_to_standard_error_emits_its_message():
    assert emitted_segments(ENTRY_GO, "go") == [["failed", "to", "obtain", "reader", "|"],
                                                 ["failed", "to", "write", "to", "log", "|"]]
    assert emitted_segments('\tfmt.Fprintln(os.Stderr, "Error: Logrus exit handler error:", err)\n', "go") == [
        ["error", "logrus", "exit", "handler", "error", "|"]]


def test_a_quoted_value_then_not_set_is_a_message():
    assert classify('Required flag "config" not set')[0] == "error"
    assert classify("the value is not set")[0] == "natural_language"


def test_pasted_messages_find_their_emitting_sites(tmp_path):
    files = {"yaml/scannerc.go": SCANNER_GO, "yaml/scanner_test.go": TEST_GO, "cli/context.go": CONTEXT_GO,
             "logrus/entry.go": ENTRY_GO}
    index = indexed_files(tmp_path / "repo", tmp_path / "home", files)
    assert_pastes_find_sites(index, files, (
        ("yaml: line 7: mapping values are not allowed in this context", "yaml/scannerc.go", "mapping values"),
        ("yaml: line 3: found character that cannot start any token", "yaml/scannerc.go", "cannot start any"),
        ('Required flag "config" not set', "cli/context.go", '"Required flag %q'),
        ("Failed to obtain reader, io: read/write on closed pipe", "logrus/entry.go", "Failed to obtain")))
