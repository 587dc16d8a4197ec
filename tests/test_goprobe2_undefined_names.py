"""An identifier query for a name that no definition holds (another package's constant
`unix.IN_Q_OVERFLOW`): the code that writes the name whole comes first, as rg finds it. Before,
the symbol channel's definitions that share a part of the name (`ErrEventOverflow`) took the
first places. (A Go struct field such as mapstructure's `ErrorUnused` was such a name too; it is
a definition since round 10, and answers first itself.)"""
from __future__ import annotations

from cruxe.query import search_code

from support.repos import indexed_files

CONFIG_GO = '''\
package config

// Error collects the errors of one decode.
type Error struct{ Errors []string }

func (e *Error) Error() string { return "decode failed" }

// ErrorCount counts them.
func ErrorCount(e *Error) int { return len(e.Errors) }

type Unused struct{}

// DecoderConfig says how to decode.
type DecoderConfig struct {
	// If set, keys the struct lacks are an error.
	ErrorUnused bool
	Squash      bool
}

func check(c *DecoderConfig, keys []string) error {
	if c.ErrorUnused && len(keys) > 0 {
		return &Error{Errors: keys}
	}
	return nil
}
'''
WATCH_GO = '''\
package watch

import "golang.org/x/sys/unix"

var ErrEventOverflow = errorString("queue overflow")

type errorString string

func (e errorString) Error() string { return string(e) }

func readEvents(mask uint32) error {
	if mask&unix.IN_Q_OVERFLOW != 0 {
		return ErrEventOverflow
	}
	return nil
}
'''


def test_a_name_nothing_defines_finds_where_the_code_writes_it(tmp_path):
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home",
                                   {"config/config.go": CONFIG_GO, "watch/watch.go": WATCH_GO})
    hits, _, intent = search_code(gen, repo, ref, "IN_Q_OVERFLOW", limit=5)
    assert intent["intent"] == "symbol"
    assert hits[0].name == "readEvents", [(h.name, h.path) for h in hits]


def test_a_struct_field_is_its_own_definition_first(tmp_path):
    # a struct's field is a definition now (round 10): the field itself answers, not its
    # struct or the code reading it
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home", {"config/config.go": CONFIG_GO})
    hits, _, intent = search_code(gen, repo, ref, "ErrorUnused", limit=5)
    assert intent["intent"] == "symbol"
    line = CONFIG_GO.splitlines().index("\tErrorUnused bool") + 1
    assert (hits[0].name, hits[0].kind, hits[0].path, hits[0].line_start) == ("ErrorUnused", "variable",
                                                                               "config/config.go", line)


def test_a_defined_name_still_finds_its_definition_first(tmp_path):
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home", {"config/config.go": CONFIG_GO})
    hits, _, _ = search_code(gen, repo, ref, "ErrorCount", limit=5)
    assert (hits[0].name, hits[0].kind) == ("ErrorCount", "function")
