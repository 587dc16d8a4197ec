"""Go calls on a value read from a struct field (`s.conn.Write(b)`, `c.engine.handle(x)`) were
guessed by the method's name (ambiguous when two types define it, a wrong unique guess when the
field's type is from outside). When the struct is declared in the call's own file, the field's
declared type now types the call (embedded structs of that file followed, the shallowest first;
a slice's or map's element only when the field is indexed), and so does a call on a local
given such a value or its method's result (`r := s.engine.spawn()`); any other keeps its guess."""
from __future__ import annotations

import pytest

from cruxe.languages.go import extract

from support.gofields import GO_MOD, TYPES, assert_edit_moves_call, indexed_call_targets
from support.gofields import marker_line as _line

SERVER = '''\
package a

import "strings"

type Base struct {
	inner *Engine
}

type Server struct {
	*Base
	engine  *Engine
	other   Other `json:"other"`
	engines []*Engine
	byName  map[string]*Other
	b       strings.Builder
	a, c    *Other
}

type Box[T any] struct {
	item T
}

func (s *Server) run() {
	s.engine.handle(1) // field
	s.other.handle(2) // value field
	s.engines[0].handle(3) // slice element
	s.byName["k"].handle(4) // map element
	s.b.WriteString("x") // outside
	s.inner.handle(5) // promoted field
	s.c.handle(6) // grouped field
	s.engines.handle(7) // slice unindexed
}

func use(b *Box[Engine]) {
	x := &Server{}
	x.engine.handle(8) // typed local
	b.item.handle(9) // type parameter
}

func (s *Server) locals() {
	e := s.engine
	e.handle(12) // local from a field
	o := s.byName["k"]
	o.handle(13) // local from a map element
	r := s.engine.spawn()
	r.handle(14) // local from a field's method
	p := &s.other
	p.handle(15) // local from a field's address
}

func (s *Server) shadow() {
	s := &Other{}
	s.engine.handle(10) // shadowed receiver
}
'''
ELSEWHERE = '''\
package a

func (s *Server) other() {
	s.engine.handle(11) // another file
}
'''


def _calls(tmp_path, monkeypatch) -> dict:
    return indexed_call_targets(tmp_path, monkeypatch, {"a/server.go": SERVER, "a/elsewhere.go": ELSEWHERE})


@pytest.mark.parametrize("marker, target", [
    ("// field", "a.Engine.handle"),
    ("// value field", "a.Other.handle"),
    ("// slice element", "a.Engine.handle"),
    ("// map element", "a.Other.handle"),
    ("// promoted field", "a.Engine.handle"),
    ("// grouped field", "a.Other.handle"),
    ("// typed local", "a.Engine.handle"),
    ("// local from a field", "a.Engine.handle"),
    ("// local from a map element", "a.Other.handle"),
    ("// local from a field's method", "a.Other.handle"),
    ("// local from a field's address", "a.Other.handle"),
])
def test_a_call_on_a_field_goes_to_the_fields_type(tmp_path, monkeypatch, marker, target):
    got = _calls(tmp_path, monkeypatch)
    assert got[("a/server.go", _line(SERVER, marker), "handle")] == (target, "receiver")


def test_a_field_of_an_outside_type_is_external_and_an_unsure_one_keeps_its_guess(tmp_path, monkeypatch):
    got = _calls(tmp_path, monkeypatch)
    assert got[("a/server.go", _line(SERVER, "// outside"), "WriteString")] == ("", "external")
    for marker in ("// slice unindexed", "// type parameter", "// shadowed receiver"):
        assert got[("a/server.go", _line(SERVER, marker), "handle")] == ("", "ambiguous"), marker
    # the struct declared in another file of the package: the resolver reads its fields in its
    # signature (tests/test_goprobe4_field_calls_across_files.py)
    assert got[("a/elsewhere.go", _line(ELSEWHERE, "// another file"), "handle")] == ("a.Engine.handle", "receiver")


def test_the_extractor_writes_the_fields_type_as_the_receiver():
    refs = extract(SERVER.encode(), "a/server.go").references
    recv = {(r.line, r.to_name): r.receiver for r in refs if r.edge_type == "calls"}
    assert recv[(_line(SERVER, "// field"), "handle")] == "Engine{}"
    assert recv[(_line(SERVER, "// outside"), "WriteString")] == "strings.Builder{}"
    assert recv[(_line(SERVER, "// slice unindexed"), "handle")] == "s.engines"


def test_a_field_type_changed_moves_the_call_in_an_incremental_sync(make_repo, tmp_path, monkeypatch):
    root = make_repo({"go.mod": GO_MOD, "a/types.go": TYPES, "a/server.go": SERVER, "a/elsewhere.go": ELSEWHERE})
    assert_edit_moves_call(root, tmp_path, monkeypatch, "a/server.go", SERVER.replace("engine  *Engine", "engine  *Other"),
                           ("a/server.go", _line(SERVER, "// field")), "a.Other.handle")
