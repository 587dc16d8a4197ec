"""Go messages found by the seventh user probe (labstack/echo, Masterminds/semver).

semver's `fmt.Errorf("improper constraint: %s", v)` prints two words, a colon and the constraint
(`improper constraint: >== 1.2.3`): no failure word a question lacks, and its one two-word run is
too short for the message probe, so the paste was read as a question.

echo's `HTTPError.Error` wraps every handler error alike (`code=%d, message=%v, internal=%v`),
and the message it holds (`Syntax error: offset=%v, error=%v` of the binder) wraps the standard
library's JSON error, which the tests assert again and again: the snippets channel found the
tests and the wrapper first, the binder's chunk below the chunks whose messages it reads, and
the wrapper came first although the literals channel had read that the binder's message explains
more of the paste."""
from __future__ import annotations

from cruxe.intent import classify
from cruxe.query.messages import FIT_DEPTH, by_fit
from cruxe.query.planner import plan as build_plan
from cruxe.store.reads import Chunk

from support.messages import assert_pastes_find_sites
from support.repos import indexed_files

ECHO_GO = '''\
package echo

import "fmt"

// HTTPError represents an error that occurred while handling a request.
type HTTPError struct {
	Code     int         `json:"-"`
	Message  interface{} `json:"message"`
	Internal error       `json:"-"` // Stores the error returned by an external dependency
}

// Error makes it compatible with `error` interface.
func (he *HTTPError) Error() string {
	if he.Internal == nil {
		return fmt.Sprintf("code=%d, message=%v", he.Code, he.Message)
	}
	return fmt.Sprintf("code=%d, message=%v, internal=%v", he.Code, he.Message, he.Internal)
}
'''

BIND_GO = '''\
package echo

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"net/http"
	"strings"
)

// BindBody binds request body contents to bindable object
// NB: then binding forms take note that this implementation uses standard library form parsing
// which parses form data from BOTH URL and BODY if content type is not MIMEMultipartForm
func (b *DefaultBinder) BindBody(c Context, i interface{}) (err error) {
	req := c.Request()
	if req.ContentLength == 0 {
		return
	}

	ctype := req.Header.Get(HeaderContentType)
	switch {
	case strings.HasPrefix(ctype, MIMEApplicationJSON):
		if err = json.NewDecoder(req.Body).Decode(i); err != nil {
			if ute, ok := err.(*json.UnmarshalTypeError); ok {
				return NewHTTPError(http.StatusBadRequest, fmt.Sprintf("Unmarshal type error: expected=%v, got=%v, field=%v, offset=%v", ute.Type, ute.Value, ute.Field, ute.Offset)).SetInternal(err)
			} else if se, ok := err.(*json.SyntaxError); ok {
				return NewHTTPError(http.StatusBadRequest, fmt.Sprintf("Syntax error: offset=%v, error=%v", se.Offset, se.Error())).SetInternal(err)
			}
			return NewHTTPError(http.StatusBadRequest, err.Error()).SetInternal(err)
		}
	case strings.HasPrefix(ctype, MIMEApplicationXML), strings.HasPrefix(ctype, MIMETextXML):
		if err = xml.NewDecoder(req.Body).Decode(i); err != nil {
			if ute, ok := err.(*xml.UnsupportedTypeError); ok {
				return NewHTTPError(http.StatusBadRequest, fmt.Sprintf("Unsupported type error: type=%v, error=%v", ute.Type, ute.Error())).SetInternal(err)
			} else if se, ok := err.(*xml.SyntaxError); ok {
				return NewHTTPError(http.StatusBadRequest, fmt.Sprintf("Syntax error: line=%v, error=%v", se.Line, se.Error())).SetInternal(err)
			}
			return NewHTTPError(http.StatusBadRequest, err.Error()).SetInternal(err)
		}
	case strings.HasPrefix(ctype, MIMEApplicationForm), strings.HasPrefix(ctype, MIMEMultipartForm):
		params, err := c.FormParams()
		if err != nil {
			return NewHTTPError(http.StatusBadRequest, err.Error()).SetInternal(err)
		}
		if err = b.bindData(i, params, "form"); err != nil {
			return NewHTTPError(http.StatusBadRequest, err.Error()).SetInternal(err)
		}
	default:
		return ErrUnsupportedMediaType
	}
	return nil
}
'''

CONSTRAINTS_GO = '''\
package semver

import "fmt"

// NewConstraint returns a Constraints instance that a Version instance can
// be checked against. If there is a parse error it will be returned.
func NewConstraint(c string) (*Constraints, error) {
	ors := strings.Split(c, "||")
	or := make([][]*constraint, len(ors))
	for k, v := range ors {
		if !validConstraintRegex.MatchString(v) {
			return nil, fmt.Errorf("improper constraint: %s", v)
		}
		or[k] = parseAll(v)
	}
	return &Constraints{constraints: or}, nil
}
'''


def test_a_statement_then_a_value_without_letters_is_a_message():
    assert classify("improper constraint: >== 1.2.3")[0] == "error"
    assert classify("invalid port: 70000")[0] == "error"
    # a question, and a statement whose value is a word or a path, stay questions
    assert classify("how many retries: 3")[0] == "natural_language"
    assert classify("parse the config file: config.toml")[0] == "natural_language"
    assert classify("session handling: middleware")[0] == "natural_language"


PASTE = ("code=400, message=Syntax error: offset=17, error=invalid character '}' looking for beginning of object key "
         "string, internal=invalid character '}' looking for beginning of object key string")


def test_a_chunk_the_other_channel_read_keeps_its_fit_in_this_one():
    """The literals channel reads the binder's and the wrapper's messages among its first chunks;
    the snippets channel ranks both below FIT_DEPTH test chunks that assert the JSON decoder's
    message. The binder's message explains more of the paste than the wrapper's: first in both."""
    p = build_plan(PASTE, intent="error")
    wrapper = Chunk("echo/echo.go", 12, 18, "go", ECHO_GO.split("\n", 11)[-1], "function")
    binder = Chunk("echo/bind.go", 11, 52, "go", BIND_GO.split("\n", 10)[-1], "function")
    seen: dict = {}
    ordered, lines = by_fit([(2.0, wrapper), (1.0, binder)], p, seen)
    assert [d.path for _, d in ordered] == ["echo/bind.go", "echo/echo.go"]
    tests = [(1.0, Chunk("echo/bind_test.go", 10 * n + 1, 10 * n + 8, "go", "\tassert.EqualError(t, err, want)\n",
                         "function")) for n in range(FIT_DEPTH + 2)]
    ordered, lines = by_fit([*tests, (0.5, wrapper), (0.2, binder)], p, seen)
    assert [d.path for _, d in ordered[:2]] == ["echo/bind.go", "echo/echo.go"]
    want = next(i + 11 for i, line in enumerate(BIND_GO.splitlines()[10:]) if '"Syntax error: offset=' in line)
    assert lines[("echo/bind.go", 11)][0] == want


def test_pasted_messages_find_their_emitting_sites(tmp_path):
    files = {"echo/echo.go": ECHO_GO, "echo/bind.go": BIND_GO, "semver/constraints.go": CONSTRAINTS_GO}
    index = indexed_files(tmp_path / "repo", tmp_path / "home", files)
    assert_pastes_find_sites(index, files, ((PASTE, "echo/bind.go", '"Syntax error: offset='),
                                            ("improper constraint: >== 1.2.3", "semver/constraints.go",
                                             '"improper constraint:')))
