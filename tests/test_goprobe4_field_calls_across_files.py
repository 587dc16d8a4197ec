"""Go calls on a field's value (`s.engine.handle(x)`) resolved only when the struct was declared
in the call's own file; in another file of the package the call was a guess by the method's name
(ambiguous when two types define it). A struct's signature now lists its fields after the types
it embeds, and the extractor leaves a field chain it cannot read in its own file to the resolver
(`Server{}.engine`), which reads the fields in the structs' signatures (embedded structs followed,
the shallowest first; an element only when indexed; a type parameter types nothing). An edit of
a field in another file changes that signature, so an incremental sync moves the call too."""
from __future__ import annotations

import pytest

from cruxe.languages.go import extract

from support.gofields import GO_MOD, TYPES, indexed_call_targets
from support.gofields import marker_line as _line
from support.incremental import symbol_names, synced_and_whole

SERVER = '''\
package a

import "strings"

type Base struct {
	inner *Engine
}

type Server struct {
	*Base
	engine  *Engine
	engines []*Engine
	byName  map[string]*Other
	b       strings.Builder
	a, c    *Other
}

type Box[T any] struct {
	item T
}
'''
ELSEWHERE = '''\
package a

func (s *Server) run() {
	s.engine.handle(1) // field
	s.engines[0].handle(2) // slice element
	s.byName["k"].handle(3) // map element
	s.b.WriteString("x") // outside
	s.inner.handle(4) // promoted field
	s.c.handle(5) // grouped field
	s.engines.handle(6) // slice unindexed
	r := s.engine.spawn()
	r.handle(7) // local from a field's method
}

func use(b *Box[Engine]) {
	x := &Server{}
	x.engine.handle(8) // typed local
	b.item.handle(9) // type parameter
}
'''


@pytest.fixture()
def calls(tmp_path, monkeypatch) -> dict:
    return indexed_call_targets(tmp_path, monkeypatch, {"a/server.go": SERVER, "a/elsewhere.go": ELSEWHERE})


@pytest.mark.parametrize("marker, target", [
    ("// field", "a.Engine.handle"),
    ("// slice element", "a.Engine.handle"),
    ("// map element", "a.Other.handle"),
    ("// promoted field", "a.Engine.handle"),
    ("// grouped field", "a.Other.handle"),
    ("// local from a field's method", "a.Other.handle"),
    ("// typed local", "a.Engine.handle"),
])
def test_a_call_on_a_field_of_a_struct_of_another_file_goes_to_the_fields_type(calls, marker, target):
    assert calls[("a/elsewhere.go", _line(ELSEWHERE, marker), "handle")] == (target, "receiver")


def test_an_outside_field_is_external_and_an_unsure_one_keeps_its_guess(calls):
    assert calls[("a/elsewhere.go", _line(ELSEWHERE, "// outside"), "WriteString")] == ("", "external")
    for marker in ("// slice unindexed", "// type parameter"):
        assert calls[("a/elsewhere.go", _line(ELSEWHERE, marker), "handle")] == ("", "ambiguous"), marker


def test_the_extractor_leaves_the_fields_of_another_files_struct_to_the_resolver():
    refs = extract(ELSEWHERE.encode(), "a/elsewhere.go").references
    recv = {(r.line, r.to_name): r.receiver for r in refs if r.edge_type == "calls"}
    assert recv[(_line(ELSEWHERE, "// field"), "handle")] == "Server{}.engine"
    assert recv[(_line(ELSEWHERE, "// slice element"), "handle")] == "Server{}.engines[]"
    assert recv[(_line(ELSEWHERE, "// local from a field's method"), "handle")] == "Server{}.engine.spawn()"


def test_the_signature_gives_the_fields_a_cut_keeps_those_before_it():
    from cruxe.refs.golang import type_parts
    sig = {s.name: s.signature for s in extract(SERVER.encode(), "a/server.go").symbols}["Server"]
    embeds, fields, params = type_parts(sig)
    assert embeds == ("*Base",) and params == frozenset()
    assert fields == {"Base": "*Base", "engine": "*Engine", "engines": "[]*Engine", "byName": "map[string]*Other",
                      "b": "strings.Builder", "a": "*Other", "c": "*Other"}
    assert type_parts(sig[:sig.index("byName") + 12] + "...")[1].keys() == {"Base", "engine", "engines"}
    assert type_parts("type Box[T any] struct { item T }")[2] == {"T"}


@pytest.mark.parametrize("edit, target", [
    (lambda t: t.replace("engine  *Engine", "engine  *Other"), "a.Other.handle"),  # the field's type
    (lambda t: t.replace("\t*Base\n", "\t*Holder\n") + "\ntype Holder struct {\n\tinner *Other\n}\n",
     "a.Other.handle"),  # another embedded struct promotes the field
])
def test_a_field_edited_in_another_file_moves_the_call_in_an_incremental_sync(make_repo, tmp_path, monkeypatch,
                                                                              edit, target):
    root = make_repo({"go.mod": GO_MOD, "a/types.go": TYPES, "a/server.go": SERVER, "a/elsewhere.go": ELSEWHERE})
    synced, whole = synced_and_whole(root, tmp_path, monkeypatch,
                                     lambda r: (r / "a/server.go").write_text(edit(SERVER)))
    names = symbol_names(root)
    marker = "// field" if "engine  *Other" in edit(SERVER) else "// promoted field"
    line = _line(ELSEWHERE, marker)
    assert [names[r[5]] for r in whole if r[:2] == ("a/elsewhere.go", line) and r[3] == "handle"] == [target]
    assert synced == whole


def test_an_embedded_struct_swapped_in_a_third_file_moves_the_call(make_repo, tmp_path, monkeypatch):
    # neither the call's receiver (`Server{}.inner`) nor its name is written in the edited
    # signature: the fields of the types it embeds, old and new, are what is dirty
    holders = TYPES + "\ntype X struct {\n\tinner *Engine\n}\n\ntype Y struct {\n\tinner *Other\n}\n"
    server = SERVER.replace("type Base struct {\n\tinner *Engine\n}", "type Base struct {\n\t*X\n}")
    root = make_repo({"go.mod": GO_MOD, "a/types.go": holders, "a/server.go": server, "a/elsewhere.go": ELSEWHERE})
    synced, whole = synced_and_whole(root, tmp_path, monkeypatch,
                                     lambda r: (r / "a/server.go").write_text(server.replace("\t*X\n", "\t*Y\n")))
    names = symbol_names(root)
    line = _line(ELSEWHERE, "// promoted field")
    assert [names[r[5]] for r in whole if r[:2] == ("a/elsewhere.go", line) and r[3] == "handle"] == ["a.Other.handle"]
    assert synced == whole
