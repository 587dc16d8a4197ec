"""Go messages found by the eighth user probe (robfig/cron, gorilla/handlers).

gorilla/handlers answers a request with `fmt.Sprintf("Unsupported content type %q; expected one
of %q", ct, allowed)` where `allowed` is a []string: Go's fmt prints `%q` of a slice as its
quoted elements in brackets (`["application/json"]`), which the typed-verb check took for no
quoted value, so the emitting site did not explain the paste whole and four results that only
share its words came after it.

robfig/cron's `fmt.Errorf("provided bad location %s: %v", name, err)` ends with the standard
library's message (`unknown time zone Mars/Olympus`): the code emits only half of the paste's
words, so the message probe read it as a question although one message explains all of it (the
words before the colon are the code's).
Its `fmt.Errorf("unrecognized descriptor: %s", d)` opens with a failure word the classifier
did not know."""
from __future__ import annotations

from cruxe.intent import classify
from cruxe.literals import FULL_FIT, message_fit
from cruxe.query.search import search_code

from support.messages import assert_pastes_find_sites
from support.repos import indexed_files

MIDDLEWARE_GO = '''\
package middleware

import (
	"fmt"
	"net/http"
	"strings"
)

// RequireContentType answers 415 to a request whose body is none of the allowed media types.
func RequireContentType(next http.Handler, allowed ...string) http.Handler {
	for i, t := range allowed {
		allowed[i] = strings.ToLower(t)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet || r.Method == http.MethodHead {
			next.ServeHTTP(w, r)
			return
		}
		got := strings.ToLower(r.Header.Get("Content-Type"))
		for _, t := range allowed {
			if strings.HasPrefix(got, t) {
				next.ServeHTTP(w, r)
				return
			}
		}
		msg := fmt.Sprintf("Unsupported content type %q; expected one of %q", got, allowed)
		http.Error(w, msg, http.StatusUnsupportedMediaType)
	})
}

// contentWriter keeps the content type a handler wrote so the wrapper can decide on encoding.
type contentWriter struct {
	http.ResponseWriter
	contentType string
}

func (w *contentWriter) WriteHeader(code int) {
	w.contentType = w.Header().Get("Content-Type")
	w.ResponseWriter.WriteHeader(code)
}
'''

SCHEDULE_GO = '''\
package schedule

import (
	"fmt"
	"strings"
	"time"
)

// Parse reads a spec with an optional leading TZ=<zone> and a descriptor such as @daily.
func Parse(spec string) (time.Duration, *time.Location, error) {
	loc := time.Local
	if strings.HasPrefix(spec, "TZ=") {
		end := strings.Index(spec, " ")
		var err error
		if loc, err = time.LoadLocation(spec[3:end]); err != nil {
			return 0, nil, fmt.Errorf("provided bad location %s: %v", spec[3:end], err)
		}
		spec = strings.TrimSpace(spec[end:])
	}
	d, err := descriptor(spec)
	return d, loc, err
}

func descriptor(d string) (time.Duration, error) {
	switch d {
	case "@hourly":
		return time.Hour, nil
	case "@daily", "@midnight":
		return 24 * time.Hour, nil
	case "@weekly":
		return 7 * 24 * time.Hour, nil
	}
	return 0, fmt.Errorf("unrecognized descriptor: %s", d)
}

// checkField refuses a spec field a descriptor already sets.
func checkField(name string) error {
	if name == "seconds" || name == "minutes" {
		return fmt.Errorf("%s is not allowed here", name)
	}
	return nil
}
'''

CONTENT_TYPE_PASTE = 'Unsupported content type "text/plain"; expected one of ["application/json" "text/xml"]'


def test_a_typed_verb_prints_a_slice_as_its_elements_in_brackets():
    message = "Unsupported content type %q; expected one of %q"
    assert message_fit(message, CONTENT_TYPE_PASTE) >= FULL_FIT
    assert message_fit("expected %d fields, found %d", "expected [5 6] fields, found 4") >= FULL_FIT
    # each element must still be what the verb prints
    assert message_fit("expected %d fields, found %d", "expected [5 six] fields, found 4") < FULL_FIT
    assert message_fit(message, 'Unsupported content type "text/plain"; expected one of [json]') < FULL_FIT


def test_unrecognized_opens_a_message():
    assert classify("unrecognized descriptor: @fortnightly")[0] == "error"
    assert classify("unrecognised option: --colour")[0] == "error"
    # a question or a description naming it stays one
    assert classify("where are unrecognized descriptors rejected?")[0] == "natural_language"
    assert classify("skip unrecognized flags when parsing arguments")[0] == "natural_language"


def test_pasted_messages_find_their_emitting_sites(tmp_path):
    files = {"middleware/content.go": MIDDLEWARE_GO, "schedule/parse.go": SCHEDULE_GO}
    index = indexed_files(tmp_path / "repo", tmp_path / "home", files)
    assert_pastes_find_sites(index, files, (
        (CONTENT_TYPE_PASTE, "middleware/content.go", '"Unsupported content type'),
        ("provided bad location Mars/Olympus: unknown time zone Mars/Olympus", "schedule/parse.go",
         '"provided bad location'),
        ("unrecognized descriptor: @fortnightly", "schedule/parse.go", '"unrecognized descriptor:')))
    # a sentence that a message with a hole first would explain whole stays a question: the
    # code emits too few of its words
    _, _, intent = search_code(*index, "find the code that decides a field is not allowed here", limit=5)
    assert intent["intent"] == "natural_language"
    # the site explains the whole paste: nothing that only shares its words comes after it
    hits, _, _ = search_code(*index, CONTENT_TYPE_PASTE, limit=5)
    assert [(h.path, h.name) for h in hits] == [("middleware/content.go", "RequireContentType")]
