"""A Go local given a later result of a call (tidwall/gjson's `_, res, ok := parseAny(json, i,
true)` then `res.Get(path)`, `res.String()`): only the first name of a `:=` was typed, so the
calls on `res` were guessed by their method name, and a name the standard interfaces use
everywhere (`Get`, `String`) stayed opaque. Each later name now has the type the function's
signature declares at its position; a method's later result is left to the guess as before."""
from __future__ import annotations

from cruxe.languages.go import extract
from cruxe.refs.golang import first_result

from support.incremental import edge_table, symbol_names
from support.repos import indexed_files, marked_line

GO_MOD = "module example.com/doc\n\ngo 1.20\n"
RESULT_GO = '''\
package doc

// Value is one JSON value found in a document.
type Value struct {
	Raw   string
	Index int
}

// Get finds path under the value.
func (v Value) Get(path string) Value { return Find(v.Raw, path) }

// String is the value as text.
func (v Value) String() string { return v.Raw }

// Find searches json for path.
func Find(json, path string) Value { return Value{Raw: json} }

// scanValue reads the value that starts at json[i]: where it ends, the value, whether one was found.
func scanValue(json string, i int) (int, Value, bool) {
	return len(json), Value{Raw: json[i:]}, i < len(json)
}

// split reads the first two values and what is left.
func split(json string) (first, second Value, rest string) {
	return Value{}, Value{}, json
}
'''
WALK_GO = '''\
package doc

// Keys lists the key of each member found after the first.
func Keys(json string, path string) []string {
	var out []string
	for i := 0; i < len(json); i++ {
		_, val, ok := scanValue(json, i)
		if ok {
			val := val.Get(path) // the outer val
			out = append(out, val.String()) // the inner val
		}
	}
	a, b, rest := split(json)
	out = append(out, a.String(), rest) // first of two
	out = append(out, b.String()) // second named result
	return out
}

// Cache is a second type with a Get, so a guess by the name alone is no answer.
type Cache map[string]string

func (c Cache) Get(key string) string { return c[key] }
'''


def test_a_later_result_of_a_signature():
    sig = "func scanValue(json string, i int) (int, Value, bool)"
    assert first_result(sig, "scanValue", 1) == ("", "Value")
    assert first_result(sig, "scanValue", 3) is None
    assert first_result("func split(json string) (first, second Value, rest string)", "split", 1) == ("", "Value")
    assert first_result("func Find(json, path string) Value", "Find", 1) is None


def test_the_extractor_writes_the_call_and_the_position():
    refs = extract(WALK_GO.encode(), "doc/walk.go").references
    recv = {(r.line, r.to_name): r.receiver for r in refs if r.edge_type == "calls"}
    assert recv[(marked_line(WALK_GO, "// the outer val"), "Get")] == "scanValue()#1"
    assert recv[(marked_line(WALK_GO, "// second named result"), "String")] == "split()#1"
    assert recv[(marked_line(WALK_GO, "// first of two"), "String")] == "split()"


def test_calls_on_a_later_result_go_to_its_type(tmp_path, monkeypatch):
    root = tmp_path / "repo"
    indexed_files(root, tmp_path / "home", {"go.mod": GO_MOD, "doc/result.go": RESULT_GO, "doc/walk.go": WALK_GO})
    monkeypatch.setenv("CRUXE_HOME", str(tmp_path / "home"))
    names = symbol_names(root)
    got = {(r[1], r[3]): (names.get(r[5], ""), r[6]) for r in edge_table(root)
           if r[0] == "doc/walk.go" and r[2] == "calls"}
    for marker, method, target in (("// the outer val", "Get", "doc.Value.Get"),
                                   ("// the inner val", "String", "doc.Value.String"),
                                   ("// first of two", "String", "doc.Value.String"),
                                   ("// second named result", "String", "doc.Value.String")):
        assert got[(marked_line(WALK_GO, marker), method)] == (target, "receiver"), marker
