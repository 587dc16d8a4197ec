"""Go locals whose value is a method's result: `sibling := node.NextSibling()` with `node
ast.Node`, then `sibling.Kind()` (goldmark's renderers walk their trees so), or `it := p.next()`
on the enclosing method's receiver `p`. The local's type is the first result that method
declares, so the call is that type's method (an interface's spec included); before, it was
guessed by its name, `ambiguous` among the 34 `Kind` methods of goldmark."""
from __future__ import annotations

from cruxe.languages.go import extract

from support.incremental import answer, edge_table, symbol_names, synced_and_whole
from support.repos import indexed_files, marked_line

GO_MOD = "module example.com/m\n\ngo 1.22\n"
AST = '''\
package ast

type Node interface {
	Kind() int
	NextSibling() Node
	Parent() Node
}

type Text struct{}

func (t *Text) Kind() int { return 1 }

func (t *Text) NextSibling() Node { return nil }

func (t *Text) Parent() Node { return nil }

type Heading struct{}

func (h *Heading) Kind() int { return 2 }

type item struct{}

func (i item) Label() string { return "" }

type lexer struct{}

func (l *lexer) next() item { return item{} }

func (l *lexer) peek() (r rune) { return 0 }

func (l *lexer) scan() string {
	it := l.next()
	r := l.peek()
	_ = r
	return it.Label()
}
'''
RENDER = '''\
package render

import "example.com/m/ast"

type Label struct{}

func (l Label) Label() string { return "" }

func text(node ast.Node) int {
	sibling := node.NextSibling()
	for c := node.Parent(); c != nil; c = c.NextSibling() {
		if c.Kind() == 2 {
			return 2
		}
	}
	next := sibling.NextSibling()
	return sibling.Kind() + next.Kind()
}

func chained(n ast.Node) int {
	return n.Parent().Kind()
}

func later(block ast.Node) int {
	k := block.Kind()
	var ast int
	return k + ast
}

func shadowed(node ast.Node, other Label) string {
	sibling := node.NextSibling()
	{
		sibling := other
		return sibling.Label()
	}
}
'''




def test_a_local_given_a_methods_result_names_its_type_and_method():
    recv = {(r.to_name, r.line): r.receiver for r in extract(RENDER.encode(), "render/render.go").references}
    assert recv[("Kind", marked_line(RENDER, "if c.Kind()"))] == "ast.Node{}.Parent()"
    assert recv[("NextSibling", marked_line(RENDER, "next := sibling.NextSibling()"))] == "ast.Node{}.NextSibling()"
    # `sibling.Kind() + next.Kind()`: next is the result of sibling's method, a chain of two
    got = [r.receiver for r in extract(RENDER.encode(), "render/render.go").references
           if r.to_name == "Kind" and r.line == marked_line(RENDER, "return sibling.Kind()")]
    assert sorted(got) == ["ast.Node{}.NextSibling()", "ast.Node{}.NextSibling().NextSibling()"]
    assert recv[("Label", marked_line(RENDER, "return sibling.Label()"))] == "Label{}"  # `sibling := other`
    recv = {(r.to_name, r.line): r.receiver for r in extract(AST.encode(), "ast/ast.go").references}
    assert recv[("Label", marked_line(AST, "return it.Label()"))] == "l.next()"  # the receiver's type: the resolver's


def test_a_call_on_a_methods_result_goes_to_the_result_types_method(tmp_path, monkeypatch):
    root = tmp_path / "repo"
    indexed_files(root, tmp_path / "home", {"go.mod": GO_MOD, "ast/ast.go": AST, "render/render.go": RENDER})
    monkeypatch.setenv("CRUXE_HOME", str(tmp_path / "home"))
    names = symbol_names(root)
    got = {(r[0], r[1], r[3]): (names.get(r[5], ""), r[6]) for r in edge_table(root) if r[2] == "calls"}
    r = "render/render.go"
    assert got[(r, marked_line(RENDER, "return sibling.Kind()"), "Kind")] == ("ast.Node.Kind", "receiver")
    assert got[(r, marked_line(RENDER, "if c.Kind()"), "Kind")] == ("ast.Node.Kind", "receiver")
    # two links: next := sibling.NextSibling(), sibling's type known from its own declaration
    assert got[(r, marked_line(RENDER, "next := sibling.NextSibling()"), "NextSibling")] == ("ast.Node.NextSibling", "receiver")
    # the inner block's `sibling` is a Label: its own type decides
    assert got[(r, marked_line(RENDER, "return sibling.Label()"), "Label")] == ("render.Label.Label", "receiver")
    # a call's receiver calling a typed local's method
    assert got[(r, marked_line(RENDER, "return n.Parent().Kind()"), "Kind")] == ("ast.Node.Kind", "receiver")
    # the parameter's `ast.Node` names the package: the local `ast` is declared after it
    assert got[(r, marked_line(RENDER, "k := block.Kind()"), "Kind")] == ("ast.Node.Kind", "receiver")
    # on the enclosing method's receiver: it := l.next() is an item
    assert got[("ast/ast.go", marked_line(AST, "return it.Label()"), "Label")] == ("ast.item.Label", "receiver")


def test_a_method_result_type_edited_in_another_file_moves_the_calls(make_repo, tmp_path, monkeypatch):
    # only ast.go changes: NextSibling now returns a *Text, whose Kind is Text's own
    root = make_repo({"go.mod": GO_MOD, "ast/ast.go": AST, "render/render.go": RENDER})
    after = AST.replace("func (t *Text) NextSibling() Node", "func (t *Text) NextSibling() *Text").replace(
        "\tNextSibling() Node\n", "\tNextSibling() *Text\n")
    synced, whole = synced_and_whole(root, tmp_path, monkeypatch, lambda r: (r / "ast/ast.go").write_text(after))
    assert answer(whole, "render/render.go", marked_line(RENDER, "if c.Kind()"), "Kind") == "receiver"
    assert synced == whole
