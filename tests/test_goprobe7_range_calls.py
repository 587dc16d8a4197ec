"""Go calls on a range clause's value variable (found by the seventh user probe: gobwas/glob's
`for _, m := range self.Matchers { if m.Match(s) ...` in `AnyOf`, `EveryOf` and `Row`).

The variable was no typed local, so the call was a guess by the method's name (`Match` has 23
definitions: ambiguous), and `find_references` of the interface method `Matcher.Match` missed
those three calls. A range over a field's value (`for _, e := range p.engines`) now types its value
variable as the field's element (`p.engines[]`, as `p.engines[i]` is); a field whose type is a named
slice or map type (`type Matchers []Matcher`) holds the element that declaration writes, which the
resolver reads."""
from __future__ import annotations

import pytest

from support.gofields import GO_MOD, TYPES, assert_edit_moves_call, indexed_call_targets
from support.gofields import marker_line as _line

ENGINES = "package a\n\ntype Engines []*Engine\n"
POOL = '''\
package a

type Pool struct {
	engines []*Engine
	named   Engines
	byName  map[string]*Other
}

func (p *Pool) run() {
	for _, e := range p.engines {
		e.handle(1) // slice field
	}
	for _, e := range p.named {
		e.handle(2) // named slice type
	}
	for _, o := range p.byName {
		o.handle(3) // map field
	}
	for _, e := range p.engines {
		e := &Other{}
		e.handle(4) // shadowed in the body
	}
}
'''
ELSEWHERE = '''\
package a

type Others map[string]*Other

type Hub struct {
	others Others
}

func (p *Pool) stop() {
	for _, e := range p.named {
		e.handle(5) // struct of another file
	}
}

func (h *Hub) each() {
	for k, o := range h.others {
		o.handle(6) // named map type
		_ = k
	}
}
'''


FILES = {"a/engines.go": ENGINES, "a/pool.go": POOL, "a/elsewhere.go": ELSEWHERE}


@pytest.fixture()
def calls(tmp_path, monkeypatch) -> dict:
    return indexed_call_targets(tmp_path, monkeypatch, FILES)


@pytest.mark.parametrize("path, marker, target", [
    ("a/pool.go", "// slice field", "a.Engine.handle"),
    ("a/pool.go", "// named slice type", "a.Engine.handle"),
    ("a/pool.go", "// map field", "a.Other.handle"),
    ("a/pool.go", "// shadowed in the body", "a.Other.handle"),
    ("a/elsewhere.go", "// struct of another file", "a.Engine.handle"),
    ("a/elsewhere.go", "// named map type", "a.Other.handle"),
])
def test_a_call_on_a_range_value_over_a_field_goes_to_the_elements_type(calls, path, marker, target):
    assert calls[(path, _line(FILES[path], marker), "handle")] == (target, "receiver")


def test_a_named_slice_type_edited_in_its_own_file_moves_the_call_in_an_incremental_sync(make_repo, tmp_path,
                                                                                          monkeypatch):
    # the call's receiver (`Pool{}.named[]`) names the struct, whose signature writes the named type
    root = make_repo({"go.mod": GO_MOD, "a/types.go": TYPES, **FILES})
    assert_edit_moves_call(root, tmp_path, monkeypatch, "a/engines.go", ENGINES.replace("[]*Engine", "[]*Other"),
                           ("a/pool.go", _line(POOL, "// named slice type")), "a.Other.handle")
