"""Go calls on a local whose declaration says its type: `p := newParser(src); return p.Parse()`
in hashicorp/hcl came back `ambiguous` (two types define `Parse`), and a call on any other local
was guessed by its method name. A composite literal, its address, `new(T)`, a type assertion,
`var x T` and the result of a repository function whose first declared result is a named type
now type the local, as Go's blocks scope it (the innermost declaration seen decides); a name
whose declaration says no type (a range variable), or read outside the declaring block, keeps its
guess."""
from __future__ import annotations

import pytest

from cruxe.languages.go import extract

from support.incremental import answer, edge_table, symbol_names, synced_and_whole
from support.repos import indexed_files, marked_line

GO_MOD = "module example.com/m\n\ngo 1.22\n"
BASE = '''\
package b

type Base struct{}

func (x *Base) Hello() string { return "" }

func NewBase() *Base { return &Base{} }
'''
TYPES = '''\
package a

type Parser struct{}

func (p *Parser) Parse() error { return nil }

type Other struct{}

func (o *Other) Parse() error { return nil }

func (o *Other) WriteString(s string) {}

type Runner interface {
	Run()
}

func newParser(src []byte) *Parser { return &Parser{} }

func open() (o *Other, err error) { return &Other{}, nil }

var s Other
'''
USES = '''\
package a

import (
	"strings"

	"example.com/m/b"
)

func uses(src []byte, r any) error {
	p := newParser(src)
	p.Parse() // newParser
	q, err := open()
	q.Parse() // open
	lit := Parser{}
	lit.Parse() // literal
	ptr := &Other{}
	ptr.Parse() // address
	var v Other
	v.Parse() // var value
	var w *Parser
	w.Parse() // var pointer
	n := new(Other)
	n.Parse() // builtin new
	ra, ok := r.(Runner)
	ra.Run() // assertion
	bb := b.NewBase()
	bb.Hello() // imported function
	lb := b.Base{}
	lb.Hello() // imported literal
	sb := strings.NewReplacer()
	sb.WriteString(nil, "") // outside
	_ = ok
	return err
}

func shadows(src []byte) {
	twice := newParser(src)
	if len(src) > 0 {
		twice := &Other{}
		twice.Parse() // inner twice
	}
	twice.Parse() // outer twice
	for _, twice := range []*Other{} {
		twice.Parse() // range variable
	}
	f := func(p *Other) { p.Parse() } // closure parameter
	p := newParser(src)
	p.Parse() // named like the closure parameter
	f(nil)
	if len(src) > 1 {
		s := newParser(src)
		s.Parse() // block local
	}
	s.Parse() // package variable
}

func shadowed(p *Other, cb func(p *Parser)) {
	p.Parse() // typed parameter
	for _, p := range []*Parser{} {
		p.Parse() // range over a parameter
	}
}
'''




def _resolved(tmp_path, monkeypatch, files: dict[str, str]) -> tuple[dict, list[tuple]]:
    root = tmp_path / "repo"
    indexed_files(root, tmp_path / "home", files)
    monkeypatch.setenv("CRUXE_HOME", str(tmp_path / "home"))
    names, table = symbol_names(root), edge_table(root)
    return {(r[1], r[3]): (names.get(r[5], ""), r[6]) for r in table if r[0] == "a/uses.go" and r[2] == "calls"}, table


@pytest.mark.parametrize("marker, method, target", [
    ("// newParser", "Parse", "a.Parser.Parse"),
    ("// open", "Parse", "a.Other.Parse"),
    ("// literal", "Parse", "a.Parser.Parse"),
    ("// address", "Parse", "a.Other.Parse"),
    ("// var value", "Parse", "a.Other.Parse"),
    ("// var pointer", "Parse", "a.Parser.Parse"),
    ("// builtin new", "Parse", "a.Other.Parse"),
    ("// assertion", "Run", "a.Runner.Run"),
    ("// imported function", "Hello", "b.Base.Hello"),
    ("// imported literal", "Hello", "b.Base.Hello"),
    ("// block local", "Parse", "a.Parser.Parse"),
])
def test_a_call_on_a_typed_local_goes_to_its_type(tmp_path, monkeypatch, marker, method, target):
    got, _ = _resolved(tmp_path, monkeypatch, {"go.mod": GO_MOD, "b/b.go": BASE, "a/types.go": TYPES,
                                               "a/uses.go": USES})
    assert got[(marked_line(USES, marker), method)] == (target, "receiver")


def test_a_local_from_outside_is_external_and_an_unsure_one_keeps_its_guess(tmp_path, monkeypatch):
    got, _ = _resolved(tmp_path, monkeypatch, {"go.mod": GO_MOD, "b/b.go": BASE, "a/types.go": TYPES,
                                               "a/uses.go": USES})
    # strings.Replacer's WriteString, not the repository's one method of that name
    assert got[(marked_line(USES, "// outside"), "WriteString")] == ("", "external")
    # a range variable says no type; outside the block that declares it, `s` is the package's
    for marker in ("// range variable", "// package variable", "// range over a parameter"):
        assert got[(marked_line(USES, marker), "Parse")] == ("", "ambiguous"), marker
    # the innermost declaration of the name decides: a block's own, a closure's parameter
    for marker, target in (("// inner twice", "a.Other.Parse"), ("// outer twice", "a.Parser.Parse"),
                           ("// closure parameter", "a.Other.Parse"),
                           ("// named like the closure parameter", "a.Parser.Parse"),
                           ("// typed parameter", "a.Other.Parse")):  # cb's `p` binds nothing
        assert got[(marked_line(USES, marker), "Parse")] == (target, "receiver"), marker


def test_the_extractor_writes_the_type_or_the_call_as_the_receiver():
    refs = extract(USES.encode(), "a/uses.go").references
    recv = {(r.line, r.to_name): r.receiver for r in refs if r.edge_type == "calls"}
    assert recv[(marked_line(USES, "// newParser"), "Parse")] == "newParser()"
    assert recv[(marked_line(USES, "// var pointer"), "Parse")] == "Parser{}"
    assert recv[(marked_line(USES, "// imported function"), "Hello")] == "b.NewBase()"
    assert recv[(marked_line(USES, "// imported literal"), "Hello")] == "b.Base{}"
    assert recv[(marked_line(USES, "// outer twice"), "Parse")] == "newParser()"
    assert recv[(marked_line(USES, "// range variable"), "Parse")] == "twice"
    assert recv[(marked_line(USES, "// package variable"), "Parse")] == "s"


def test_first_result_of_a_signature():
    from cruxe.refs.golang import first_result
    assert first_result("func newParser(src []byte) *Parser", "newParser") == ("", "Parser")
    assert first_result("func Open(p string) (*pkg.File, error)", "Open") == ("pkg", "File")
    assert first_result("func Open(p string) (f *pkg.File, err error)", "Open") == ("pkg", "File")
    assert first_result("func pair() (a, b T)", "pair") == ("", "T")
    assert first_result("func New[T any]() *T", "New") is None  # a type parameter
    assert first_result("func New[K any]() *List[K]", "New") == ("", "List")
    for sig in ("func f()", "func f() []T", "func f() func() T", "func f(a int, b string, c T..."):
        assert first_result(sig, "f") is None, sig


@pytest.mark.parametrize("after", ["func newParser(src []byte) *Other { return &Other{} }",
                                   "func newParser(src []byte) (*Parser, error) { return nil, nil }"])
def test_a_result_type_changed_in_another_file_moves_the_call(make_repo, tmp_path, monkeypatch, after):
    before = "func newParser(src []byte) *Parser { return &Parser{} }"
    root = make_repo({"go.mod": GO_MOD, "b/b.go": BASE, "a/types.go": TYPES, "a/uses.go": USES})
    synced, whole = synced_and_whole(root, tmp_path, monkeypatch,
                                     lambda r: (r / "a/types.go").write_text(TYPES.replace(before, after)))
    assert answer(whole, "a/uses.go", marked_line(USES, "// newParser"), "Parse") == "receiver"
    names = symbol_names(root)
    target = [names[r[5]] for r in whole if r[:2] == ("a/uses.go", marked_line(USES, "// newParser")) and r[3] == "Parse"]
    assert target == ["a.Other.Parse" if "*Other" in after else "a.Parser.Parse"]
    assert synced == whole


PARAMS = '''\
package a

import "example.com/m/ext"

func run(t *ext.T, each func(t *ext.T)) {
	t.Run("x", func(t *ext.T) {
		t.Fatal() // closure's t
	})
	t.Fatal() // function's t
}
'''


@pytest.mark.parametrize("ext", ["", "package ext\n\ntype T struct{}\n\nfunc (t *T) Fatal() {}\n"])
def test_a_package_appearing_moves_the_calls_on_parameters_of_its_types(make_repo, tmp_path, monkeypatch, ext):
    # a parameter's type is now in its calls' receiver (`ext.T{}`), so an import that starts to
    # name a package of the repository retries them; through the signature alone it did not
    files = {"go.mod": GO_MOD, "a/types.go": TYPES + "\nfunc (o *Other) Fatal() {}\n", "a/params.go": PARAMS}
    root = make_repo(files)
    synced, whole = synced_and_whole(root, tmp_path, monkeypatch,
                                     lambda r: (r / "ext").mkdir() or (r / "ext/ext.go").write_text(
                                         ext or "package ext\n\ntype T struct{}\n"))
    for marker in ("// closure's t", "// function's t"):
        line = next(i + 1 for i, text in enumerate(PARAMS.splitlines()) if marker in text)
        got = answer(whole, "a/params.go", line, "Fatal")
        # ext.T's own Fatal; without one, no longer external: ext is the repository's now
        assert got == "receiver" if ext else got != "external", marker
    assert synced == whole
