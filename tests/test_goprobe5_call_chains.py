"""Go calls on a call's value written out in one expression (`NewDecoder(r).Decode(&v)`,
`json.NewDecoder(r).Decode(&v)`, `NewDecoder(r).Strict(true).Decode(d)`: go-toml's tests decode
that way 20 times) were guessed by the method's name (ambiguous: go-toml v1 and v2 both have a
`Decoder.Decode`; a wrong unique guess for an outside package's decoder), though the same call
through a local (`d := NewDecoder(r); d.Decode(&v)`) was typed. The extractor now gives such a
receiver the form a typed local's takes (`NewDecoder()`, `json.NewDecoder()`,
`NewDecoder().Strict()`), which the resolver reads, and so does a local holding such a chain's
value (`d := New(b).Strict(true); d.Decode(x)`); a head the function declares itself (a local
function value) keeps its text, and so its guess."""
from __future__ import annotations

import pytest

from cruxe.languages.go import extract

from support.incremental import indexed_call_targets, symbol_names, synced_and_whole
from support.repos import marked_line

GO_MOD = "module example.com/m\n\ngo 1.22\n"
DECODER = '''\
package a

type Decoder struct{}

func (d *Decoder) Decode(v any) error { return nil }

func (d *Decoder) Strict(on bool) *Decoder { return d }

type Other struct{}

func (o *Other) Decode(v any) error { return nil }

func NewDecoder(s string) *Decoder { return nil }
'''
B = '''\
package b

type Reader struct{}

func (r *Reader) Decode(v any) error { return nil }

func NewReader() *Reader { return nil }
'''
USES = '''\
package a

import (
	"encoding/json"
	"strings"

	"example.com/m/b"
)

func run(s string) {
	NewDecoder(strings.Repeat("(", 2)).Decode(1) // written out
	NewDecoder(s).Strict(true).Decode(2) // through a method
	b.NewReader().Decode(3) // another package
	json.NewDecoder(strings.NewReader(s)).Decode(4) // outside
	f := NewDecoder
	f(s).Decode(5) // a local function value
	d := NewDecoder(s).Strict(false)
	d.Decode(6) // a local holding a chain's value
}
'''
FILES = {"go.mod": GO_MOD, "a/decoder.go": DECODER, "a/uses.go": USES, "b/b.go": B}




def test_the_extractor_writes_a_call_chains_receiver_as_a_typed_locals():
    refs = extract(USES.encode(), "a/uses.go").references
    recv = {r.line: r.receiver for r in refs if r.edge_type == "calls" and r.to_name == "Decode"}
    assert recv[marked_line(USES, "// written out")] == "NewDecoder()"
    assert recv[marked_line(USES, "// through a method")] == "NewDecoder().Strict()"
    assert recv[marked_line(USES, "// another package")] == "b.NewReader()"
    assert recv[marked_line(USES, "// outside")] == "json.NewDecoder()"
    assert recv[marked_line(USES, "// a local function value")] == "f(s)"
    assert recv[marked_line(USES, "// a local holding a chain's value")] == "NewDecoder().Strict()"


@pytest.fixture()
def calls(tmp_path, monkeypatch) -> dict:
    return indexed_call_targets(tmp_path, monkeypatch, FILES)


@pytest.mark.parametrize("marker, target", [
    ("// written out", ("a.Decoder.Decode", "receiver")), ("// through a method", ("a.Decoder.Decode", "receiver")),
    ("// another package", ("b.Reader.Decode", "receiver")), ("// outside", ("", "external")),
    ("// a local function value", ("", "ambiguous")), ("// a local holding a chain's value", ("a.Decoder.Decode", "receiver")),
])
def test_a_call_on_a_calls_value_goes_to_the_type_the_function_gives(calls, marker, target):
    assert calls[("a/uses.go", marked_line(USES, marker), "Decode")] == target


def test_an_edited_result_moves_the_call_in_an_incremental_sync(make_repo, tmp_path, monkeypatch):
    root = make_repo(FILES)
    edit = DECODER.replace("func NewDecoder(s string) *Decoder", "func NewDecoder(s string) *Other")
    synced, whole = synced_and_whole(root, tmp_path, monkeypatch, lambda r: (r / "a/decoder.go").write_text(edit))
    names = symbol_names(root)
    line = marked_line(USES, "// written out")
    assert [names.get(r[5], "") for r in whole if r[:2] == ("a/uses.go", line) and r[3] == "Decode"] == ["a.Other.Decode"]
    assert synced == whole
