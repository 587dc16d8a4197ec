"""Go struct fields as definitions (round 10; a user probe asked `locate_symbol subSchema.anyOf`
and got nothing: a struct's fields were no symbols, only words of its signature).

Each name of a struct's named fields is a `variable`, a child of its struct, qualified
`pkg.T.field`, its signature the field's declaration line, its doc the comment above it; an
embedded field (`*Base`) is none (its name is its type's). Its uses are `references` edges: on a
receiver whose type the resolver knows (the method's receiver, a typed local, a field's value, a
struct literal's type) the field, promoted through embedding as Go selects it; on any other an
unresolved candidate, never a guess by the name. A field does not make the callers of a function
or method of the same name ambiguous."""
from __future__ import annotations

import pytest

from cruxe.extract import MAX_SYMBOLS_PER_FILE, extract
from cruxe.index import run_index
from cruxe.tools import Server
from support.references import refs, sites
from support.repos import marked_line

GO_MOD = "module example.com/shop\n\ngo 1.21\n"
ORDER = '''\
package orders

import (
	"sync"
	"time"
)

// Base carries what every stored record has.
type Base struct {
	// Created is when the record was first stored.
	Created time.Time
	version int
}

// Order is one customer's order.
type Order struct {
	sync.Mutex
	*Base
	// ID and Ref identify the order; Ref is the customer's own.
	ID, Ref string `json:"id"`
	items   []Item
	Total   func() int // a field holding a function, named like the function below
	opts    struct {
		rush bool
	}
}

// Item is one line of an order.
type Item struct {
	SKU   string
	Count int
}

// Total sums an order's items.
func Total(o *Order) int {
	n := 0
	for _, it := range o.items { // receiver: a typed parameter
		n += it.Count
	}
	return n
}

// Add appends an item and bumps the record's version.
func (o *Order) Add(it Item) {
	o.Lock()
	o.items = append(o.items, it) // a write and a read
	o.version++ // promoted from *Base
}
'''
USE = '''\
package orders

import "fmt"

// NewOrder starts an order.
func NewOrder(id string) *Order {
	o := &Order{ID: id} // a struct literal's key
	fmt.Println(o.Ref) // a typed local
	return o
}

// Describe prints what it is given.
func Describe(byID map[string]*Order) {
	fmt.Println(byID["a"].ID) // a receiver whose type is not read
	fmt.Println(Total(nil))
}
'''


def _index(make_repo):
    root = make_repo({"go.mod": GO_MOD, "orders/order.go": ORDER, "orders/use.go": USE})
    run_index(root)
    return root


def _symbols(source: str) -> dict[str, object]:
    return {s.qualified_name: s for s in extract("orders/order.go", source.encode(), "go").symbols}


def test_each_named_field_is_a_variable_of_its_struct():
    syms = _symbols(ORDER)
    order = list(syms).index("orders.Order")
    for name, marker in (("ID", "ID, Ref string"), ("Ref", "ID, Ref string"), ("items", "items   []Item"),
                         ("Total", "Total   func() int"), ("opts", "opts    struct {")):
        s = syms[f"orders.Order.{name}"]
        assert (s.kind, s.name, s.line_start, s.parent) == ("variable", name, marked_line(ORDER, marker), order)
    assert syms["orders.Order.ID"].signature == 'ID, Ref string `json:"id"`'
    assert syms["orders.Order.ID"].doc == "ID and Ref identify the order; Ref is the customer's own."
    assert syms["orders.Base.Created"].doc == "Created is when the record was first stored."
    assert syms["orders.Order.items"].visibility == "private"
    # embedded fields are their types' names, no new definitions; nor the anonymous struct's fields
    assert "orders.Order.Mutex" not in syms and "orders.Order.Base" not in syms
    assert not [q for q in syms if q.endswith(".rush")]
    # the struct's own definition and signature are unchanged
    assert syms["orders.Order"].kind == "struct"
    assert syms["orders.Order"].signature.startswith("type Order struct { sync.Mutex; *Base; ID, Ref string;")


def test_a_big_structs_fields_are_all_definitions_past_its_signatures_cut():
    body = "".join(f"\tfield{i:03d} map[string][]*SomeLongTypeName // the {i}th\n" for i in range(60))
    source = f"package big\n\ntype Big struct {{\n{body}}}\n"
    syms = _symbols(source)
    assert syms["big.Big"].signature.endswith("...")
    assert [q for q in syms if q.startswith("big.Big.")] == [f"big.Big.field{i:03d}" for i in range(60)]
    assert syms["big.Big.field059"].line_start == 63


def test_the_per_file_symbol_cap_counts_fields(monkeypatch):
    import cruxe.extract as ex
    monkeypatch.setattr(ex, "MAX_SYMBOLS_PER_FILE", 5)
    fx = ex.extract("orders/order.go", ORDER.encode(), "go")
    assert len(fx.symbols) == 5 and any("symbols, more than the 5 kept" in w for w in fx.warnings)
    assert all(s.parent is None or s.parent < 5 for s in fx.symbols)
    assert MAX_SYMBOLS_PER_FILE > 5


def test_locate_outline_and_kind_find_a_field(make_repo):
    root = _index(make_repo)
    server = Server(root)

    def locate(args):
        payload, is_error = server.call_tool("locate_symbol", args)
        assert not is_error, payload
        return [(r["path"], r["line_start"], r["kind"]) for r in payload["results"]]
    at = ("orders/order.go", marked_line(ORDER, "ID, Ref string"), "variable")
    assert locate({"name": "Order.ID"}) == [at]
    assert locate({"name": "orders.Order.Ref"}) == [("orders/order.go", at[1], "variable")]
    assert at in locate({"name": "ID", "kind": "variable"})
    outline, is_error = server.call_tool("get_file_outline", {"path": "orders/order.go"})
    assert not is_error
    text = repr(outline)
    assert "'ID'" in text and "'items'" in text and "'Created'" in text


def test_find_references_on_a_field_lists_typed_uses_and_the_rest_unresolved(make_repo):
    root = _index(make_repo)
    items = refs(root, "Order.items")
    assert sites(items["references"]) == [("orders/order.go", marked_line(ORDER, "// receiver: a typed parameter")),
                                          ("orders/order.go", marked_line(ORDER, "// a write and a read"))]
    assert all(r["edge_type"] == "references" for r in items["references"])
    assert sites(refs(root, "Order.Ref")["references"]) == [("orders/use.go", marked_line(USE, "// a typed local"))]
    assert sites(refs(root, "Order.ID")["references"]) == [("orders/use.go", marked_line(USE, "// a struct literal"))]
    assert sites(refs(root, "Base.version")["references"]) == [
        ("orders/order.go", marked_line(ORDER, "// promoted from *Base"))]
    # `it` of a range over a typed parameter's field: its element
    assert sites(refs(root, "Item.Count")["references"]) == [("orders/order.go", marked_line(ORDER, "n += it.Count"))]
    ident = refs(root, "Order.ID")  # `byID["a"].ID`: an element of a map not typed here, a candidate
    assert ident["unresolved_count"] == 1
    assert sites(ident["unresolved"]) == [("orders/use.go", marked_line(USE, 'fmt.Println(byID["a"].ID)'))]
    # a field no code uses: found, with nothing to list (not "symbol not found")
    assert refs(root, "Item.SKU")["references"] == []


def test_a_field_named_like_a_function_leaves_the_functions_callers_alone(make_repo):
    root = _index(make_repo)
    total = refs(root, "Total")  # the function and the field `Order.Total`: the bare name is the function
    assert [d for d in total.get("definitions", [])] == []
    assert sites(total["references"]) == [("orders/use.go", marked_line(USE, "Total(nil)"))]
    assert [f["qualified_name"] for f in total["fields"]] == ["orders.Order.Total"]
    in_file = refs(root, "Total", path="orders/order.go")
    assert sites(in_file["references"]) == [("orders/use.go", marked_line(USE, "Total(nil)"))]
    assert refs(root, "Order.Total")["references"] == []


def test_a_method_and_a_field_of_one_name_on_two_types_keep_the_methods_callers(make_repo):
    root = make_repo({"go.mod": GO_MOD, "a/a.go": '''\
package a

type Job struct {
	Run func() error // the job's body
}

type Runner struct{ job Job }

// Run runs the runner's job.
func (r *Runner) Run() error { return r.job.Run() }

func start(r *Runner) error {
	return r.Run() // the method
}
'''})
    run_index(root)
    run = refs(root, "Run")
    assert sorted(sites(run["references"])) == [("a/a.go", 13)]
    assert [f["qualified_name"] for f in run["fields"]] == ["a.Job.Run"]
    assert sites(refs(root, "Job.Run")["references"]) == [("a/a.go", 10)]


@pytest.mark.parametrize("name", ["Order.items", "Item.SKU", "Base.Created"])
def test_find_references_never_says_symbol_not_found_for_a_field(make_repo, name):
    root = _index(make_repo)
    assert "symbol" in refs(root, name)


def test_a_build_tagged_struct_variants_field_is_its_own_files_not_the_other_variants_method(make_repo):
    # fsnotify: `Watcher` is declared once per backend; kqueue's has a field `isClosed`, inotify's a
    # method `isClosed()`; the field's reads in kqueue's file are no calls of inotify's method
    root = make_repo({"go.mod": GO_MOD, "w/inotify.go": '''\
//go:build linux

package w

type Watcher struct{ fd int }

func (w *Watcher) isClosed() bool { return w.fd < 0 }

func (w *Watcher) Close() error {
	if w.isClosed() { // the method
		return nil
	}
	return nil
}
''', "w/kqueue.go": '''\
//go:build darwin

package w

type Watcher struct {
	isClosed bool // set by Close
}

func (w *Watcher) Close() error {
	if w.isClosed { // the field
		return nil
	}
	w.isClosed = true
	return nil
}
'''})
    run_index(root)
    method = refs(root, "isClosed", path="w/inotify.go")
    assert sites(method["references"]) == [("w/inotify.go", 10)]
    field = refs(root, "isClosed", path="w/kqueue.go")
    assert sites(field["references"]) == [("w/kqueue.go", 10), ("w/kqueue.go", 13)]


def test_locate_ranks_a_bare_names_fields_after_its_methods_and_types(make_repo):
    # jwt-go's `ValidationError.Errors uint32` in errors.go (a path naming the word) beside
    # gojsonschema's method `Result.Errors` and govalidator's type `Errors`
    root = make_repo({"go.mod": GO_MOD, "jwt/errors.go": '''\
package jwt

// ValidationError says why a token is not valid.
type ValidationError struct {
	Inner  error
	Errors uint32 // bit field of the failed checks
}
''', "schema/result.go": '''\
package schema

type Result struct{ errs []string }

// Errors lists what failed.
func (v *Result) Errors() []string { return v.errs }
''', "valid/error.go": '''\
package valid

// Errors is a list of failures.
type Errors []error
'''})
    run_index(root)
    payload, is_error = Server(root).call_tool("locate_symbol", {"name": "Errors"})
    assert not is_error
    got = [(r["path"], r["kind"]) for r in payload["results"]]
    assert got[-1] == ("jwt/errors.go", "variable") and len(got) == 3
    assert sorted(got[:2]) == [("schema/result.go", "method"), ("valid/error.go", "type_alias")]


def test_an_alias_of_a_struct_type_has_its_fields(make_repo):
    # internal/fuzz's `type CorpusEntry = struct { Parent string; ... }`
    source = "package fuzz\n\ntype CorpusEntry = struct {\n\t// Parent is the entry it came from.\n\tParent string\n\tData   []byte\n}\n"
    syms = _symbols(source)
    assert syms["fuzz.CorpusEntry"].kind == "type_alias"
    assert (syms["fuzz.CorpusEntry.Parent"].kind, syms["fuzz.CorpusEntry.Parent"].line_start) == ("variable", 5)
    assert syms["fuzz.CorpusEntry.Parent"].doc == "Parent is the entry it came from."
    root = make_repo({"go.mod": GO_MOD, "fuzz/fuzz.go": source, "fuzz/use.go": '''\
package fuzz

func parentOf(e CorpusEntry) string {
	return e.Parent
}
'''})
    run_index(root)
    assert sites(refs(root, "CorpusEntry.Parent")["references"]) == [("fuzz/use.go", 4)]


@pytest.mark.parametrize("edit", [
    ("items   []Item", "entries []Item"),  # the field renamed: its uses are no longer its
    ("*Base\n", "Base2 *Base\n"),  # the embedded type named: `o.version` is no longer promoted
    ("ID, Ref string", "ID, Reference string"),  # a field another file reads (`o.Ref` in use.go) renamed
])
def test_an_edited_field_moves_its_uses_in_an_incremental_sync(make_repo, tmp_path, monkeypatch, edit):
    from support.incremental import synced_and_whole

    root = make_repo({"go.mod": GO_MOD, "orders/order.go": ORDER, "orders/use.go": USE})
    monkeypatch.setenv("CRUXE_HOME", str(tmp_path / "home"))

    def change(r):
        (r / "orders/order.go").write_text(ORDER.replace(*edit))
    synced, whole = synced_and_whole(root, tmp_path, monkeypatch, change)
    assert synced == whole
