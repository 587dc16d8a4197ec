"""Go messages found by the ninth user probe (xeipuuv/gojsonschema).

gojsonschema keeps its messages in a locale: each is the one literal a method returns
(`func (l DefaultLocale) NumberGTE() string { return `Must be greater than or equal to
{{.min}}` }`), rendered later by text/template with `{{.field}}: {{.description}}` around it. No
emitting call holds the literal, so it was not among the messages at all (the answer warned that
no site emits the paste), and `{{.min}}` was read as the constant braces around a `{.min}` hole,
so even a message holding it could not explain a paste with `18` in its place.

hashicorp/go-version's `fmt.Errorf("Malformed version: %s", v)` opens with a failure word the
classifier did not know; with two words before its value it is too short for the message probe,
so the paste was read as a question."""
from __future__ import annotations

from cruxe.intent import classify
from cruxe.literals import FULL_FIT, message_fit

from support.messages import assert_pastes_find_sites
from support.repos import indexed_files

LOCALES_GO = '''\
package schema

type (
	// locale is the interface the messages of a validation failure are read through
	locale interface {
		Required() string
		InvalidType() string
		NumberGTE() string
		StringGTE() string
		KeyGTEZero() string
	}

	// DefaultLocale is the English locale
	DefaultLocale struct{}
)

// Required returns a format-string for "required" schema validation errors
func (l DefaultLocale) Required() string {
	return `{{.property}} is required`
}

// InvalidType returns a format-string for "invalid type" schema validation errors
func (l DefaultLocale) InvalidType() string {
	return `Invalid type. Expected: {{.expected}}, given: {{.given}}`
}

// NumberGTE returns the format string to format a NumberGTEError
func (l DefaultLocale) NumberGTE() string {
	return `Must be greater than or equal to {{.min}}`
}

// StringGTE returns a format-string to format a StringLengthGTEError
func (l DefaultLocale) StringGTE() string {
	return `String length must be greater than or equal to {{.min}}`
}

// KeyGTEZero returns a format-string for a schema keyword below zero
func (l DefaultLocale) KeyGTEZero() string {
	return `{{.key}} must be greater than or equal to 0`
}
'''

ERRORS_GO = '''\
package schema

import (
	"bytes"
	"text/template"
)

// ErrorDetails holds the values a message template is filled with
type ErrorDetails map[string]interface{}

// errUnknownDraft is returned when a schema names a draft this package does not know
type errUnknownDraft struct{}

func (errUnknownDraft) Error() string { return "the schema names an unknown draft" }

func formatDescription(format string, details ErrorDetails) string {
	tmpl, err := template.New("description").Parse(format)
	if err != nil {
		return format
	}
	var buf bytes.Buffer
	if err := tmpl.Execute(&buf, details); err != nil {
		return format
	}
	return buf.String()
}

func describe(loc locale, field string, min int) string {
	desc := formatDescription(loc.NumberGTE(), ErrorDetails{"min": min})
	return formatDescription("{{.field}}: {{.description}}", ErrorDetails{"field": field, "description": desc})
}
'''

PARSE_GO = '''\
package schema

import "fmt"

// checkMinLength reads the minLength keyword of a schema
func checkMinLength(v interface{}) (int, error) {
	n, ok := v.(int)
	if !ok {
		return 0, fmt.Errorf("minLength must be an integer, given: %v", v)
	}
	if n < 0 {
		return 0, fmt.Errorf("minLength must be greater than or equal to 0, given: %d", n)
	}
	return n, nil
}
'''


def test_a_double_brace_placeholder_is_one_hole():
    assert message_fit("Must be greater than or equal to {{.min}}", "Must be greater than or equal to 18") >= FULL_FIT
    assert message_fit("Invalid type. Expected: {{.expected}}, given: {{ .given }}",
                       "Invalid type. Expected: string, given: integer") >= FULL_FIT
    # the words around the hole must still be there
    assert message_fit("Must be greater than or equal to {{.min}}", "Must be less than or equal to 18") == 0


def test_a_literal_a_function_only_returns_is_a_message(tmp_path):
    files = {"schema/locales.go": LOCALES_GO, "schema/errors.go": ERRORS_GO, "schema/parse.go": PARSE_GO}
    index = indexed_files(tmp_path / "repo", tmp_path / "home", files)
    assert_pastes_find_sites(index, files, (
        ("age: Must be greater than or equal to 18", "schema/locales.go", "`Must be greater than or equal to"),
        ("age: Invalid type. Expected: string, given: integer", "schema/locales.go", "`Invalid type."),
        ("name: String length must be greater than or equal to 3", "schema/locales.go", "`String length must"),
        ("the schema names an unknown draft", "schema/errors.go", '"the schema names an unknown draft"')))


VERSION_GO = '''\
package version

import (
	"fmt"
	"regexp"
)

var versionRegexp = regexp.MustCompile(`^v?([0-9]+(\\.[0-9]+)*)(-([0-9A-Za-z\\-]+))?$`)

// Version represents a single version.
type Version struct {
	original string
	segments []int64
}

// NewVersion parses the given version and returns a new Version.
func NewVersion(v string) (*Version, error) {
	matches := versionRegexp.FindStringSubmatch(v)
	if matches == nil {
		return nil, fmt.Errorf("Malformed version: %s", v)
	}
	return &Version{original: v}, nil
}

// Segments returns the numeric segments of the version as a slice of ints.
func (v *Version) Segments() []int64 {
	return v.segments
}
'''


def test_malformed_opens_a_message():
    assert classify("Malformed version: 1.2.x")[0] == "error"
    assert classify("malformed constraint: ~> foo")[0] == "error"
    # a question or a description naming it stays one
    assert classify("where are malformed versions rejected?")[0] == "natural_language"
    assert classify("reject a malformed version string")[0] == "natural_language"


def test_a_short_malformed_message_finds_its_site(tmp_path):
    files = {"version/version.go": VERSION_GO}
    index = indexed_files(tmp_path / "repo", tmp_path / "home", files)
    assert_pastes_find_sites(index, files, (("Malformed version: 1.2.x", "version/version.go", '"Malformed version'),))
