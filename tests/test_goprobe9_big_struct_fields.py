"""A call on the value of a field that a big struct of another file declares after its
signature's length limit (ninth user probe: gojsonschema's `subSchema` declares some forty
fields, `anyOf []*subSchema` and `not *subSchema` among the last; `validation.go` calls
`currentSubSchema.not.subValidateWithContext(..)` and then `.Valid()` on the result). The
resolver read the field's type in the struct's signature, cut after its first fields, so the
call fell back to a guess by name: ambiguous among the repository's `Valid` methods. A cut
signature is read whole from the struct's text now (found by its declaration: the indexed text
of a file leaves out the blank lines between its chunks, so its lines are not the file's), and
an edit after the cut still moves the call in an incremental sync (a cut type signature counts
as changed with its file)."""
from __future__ import annotations

from support.gofields import GO_MOD, TYPES, assert_edit_moves_call, indexed_call_targets
from support.gofields import marker_line as _line

SCHEMA = '''\
package a

const (
	keyAnyOf = "anyOf"
	keyNot   = "not"
)

var keywords = []string{keyAnyOf, keyNot}

// isKeyword reports whether a property name is one of the keywords read here.
func isKeyword(name string) bool {
	for _, k := range keywords {
		if k == name {
			return true
		}
	}
	return false
}

// subSchema holds one node of a parsed schema: its keywords and its children.
type subSchema struct {
	draft       *int
	id          *string
	title       *string
	description *string
	property    string

	// Quick pass/fail for boolean schemas
	pass *bool

	// hierarchy
	parent                      *subSchema
	itemsChildren               []*subSchema
	itemsChildrenIsSingleSchema bool
	propertiesChildren          []*subSchema

	// validation : number / integer
	multipleOf       *float64
	maximum          *float64
	exclusiveMaximum *float64
	minimum          *float64
	exclusiveMinimum *float64

	// validation : string
	minLength *int `json:"minLength,omitempty"`
	maxLength *int `json:"maxLength,omitempty"`
	pattern   *string

	// validation : object
	minProperties int
	maxProperties *int
	required      []string
	dependencies  map[string]interface{}

	// validation : array
	minItems    int
	maxItems    *int
	uniqueItems bool
	callback    func(x int) bool

	engine  *Engine // a helper after the cut
	engines []*Engine
	not     *Other
}
'''
VALIDATE = '''\
package a

func (v *subSchema) validate(current *subSchema, x int) {
	current.engine.handle(x) // field after the cut
	for _, e := range current.engines {
		e.handle(x) // element after the cut
	}
	current.not.handle(x) // other type after the cut
}
'''


def _calls(tmp_path, monkeypatch) -> dict:
    return indexed_call_targets(tmp_path, monkeypatch, {"a/schema.go": SCHEMA, "a/validate.go": VALIDATE})


def test_a_field_after_the_signatures_cut_types_the_call(tmp_path, monkeypatch):
    got = _calls(tmp_path, monkeypatch)
    assert got[("a/validate.go", _line(VALIDATE, "// field after the cut"), "handle")] == ("a.Engine.handle", "receiver")
    assert got[("a/validate.go", _line(VALIDATE, "// element after the cut"), "handle")] == ("a.Engine.handle",
                                                                                             "receiver")
    assert got[("a/validate.go", _line(VALIDATE, "// other type after the cut"), "handle")] == ("a.Other.handle",
                                                                                                "receiver")


def test_an_edit_after_the_cut_moves_the_call_in_an_incremental_sync(make_repo, tmp_path, monkeypatch):
    root = make_repo({"go.mod": GO_MOD, "a/types.go": TYPES, "a/schema.go": SCHEMA, "a/validate.go": VALIDATE})
    assert_edit_moves_call(root, tmp_path, monkeypatch, "a/schema.go",
                           SCHEMA.replace("engine  *Engine // a helper", "engine  *Other // a helper"),
                           ("a/validate.go", _line(VALIDATE, "// field after the cut")), "a.Other.handle")
