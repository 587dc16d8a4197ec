"""Go methods promoted from embedded structs: `o.Save()` inside a method of `Order`, whose
struct embeds `*Base`, calls `Base.Save` (Go's selector rule: the shallowest embedding that
holds the name). Before, such calls were `ambiguous` as soon as another type had a method of
that name, so find_references missed them."""
from __future__ import annotations

from pathlib import Path

import pytest

from cruxe.index import run_index
from cruxe.languages.go import extract
from support.incremental import answer, edge_table, symbol_names, synced_and_whole
from support.repos import marked_line

GO_MOD = "module example.com/m\n\ngo 1.22\n"
SHOP = '''\
package shop

import "sync"

type Base struct{ n int }

func (b *Base) Save() error { return nil }

func (b *Base) Name() string { return "base" }

type Other struct{}

func (o *Other) Save() error { return nil }

func (o *Other) Name() string { return "other" }

type Order struct {
	*Base
	sync.Mutex
	id int
}

func (o *Order) Name() string { return "order" }

type Both struct {
	Base
	Other
}

type Cart struct {
	Order `json:"order"`
}
'''
USES = '''\
package shop

func (o *Order) Commit() error {
	return o.Save()
}

func (o *Order) Label() string {
	return o.Name()
}

func (c Cart) Checkout() error {
	return c.Save()
}

func (b Both) Store() error {
	return b.Save()
}

func (o *Order) Guard() {
	o.Lock()
}

func (o *Order) Commit2() error {
	return Order.Save(o)
}
'''
OTHER_PKG = '''\
package other

import "example.com/m/shop"

type Wrapped struct {
	shop.Base
}

func (w *Wrapped) Go() error {
	return w.Save()
}
'''




def _target(table: list[tuple], path: str, line: int, name: str) -> tuple[str, str]:
    """(the qualified name the one edge by `name` at path:line resolves to, or "", its confidence)."""
    got = [r for r in table if r[:2] == (path, line) and r[3] == name]
    assert len(got) == 1, got
    return got[0][5], got[0][6]


def test_a_struct_signature_lists_the_types_it_embeds():
    sigs = {s.name: s.signature for s in extract(SHOP.encode(), "shop/shop.go").symbols}
    assert sigs["Order"] == "type Order struct { *Base; sync.Mutex; id int }"  # embedded first, then fields
    assert sigs["Cart"] == "type Cart struct { Order }"  # its tag left out
    assert sigs["Base"] == "type Base struct { n int }"


@pytest.fixture()
def repo(make_repo) -> Path:
    return make_repo({"go.mod": GO_MOD, "shop/shop.go": SHOP, "shop/uses.go": USES, "other/use.go": OTHER_PKG})


def _ids(root: Path) -> dict[str, str]:
    """qualified name -> symbol id, as the edges view writes it (16 hex digits)."""
    return {qname: sid for sid, qname in symbol_names(root).items()}


def test_a_method_promoted_from_an_embedded_struct_resolves_to_it(repo):
    run_index(repo)
    table, ids = edge_table(repo), _ids(repo)
    base_save, order_name = ids["shop.Base.Save"], ids["shop.Order.Name"]

    def to(path: str, text: str, marker: str, name: str) -> tuple[str, str]:
        return _target(table, path, marked_line(text, marker), name)
    assert to("shop/uses.go", USES, "return o.Save()", "Save") == (base_save, "receiver")
    assert to("shop/uses.go", USES, "return c.Save()", "Save") == (base_save, "receiver")  # two levels down
    assert to("shop/uses.go", USES, "return Order.Save(o)", "Save") == (base_save, "receiver")  # method expression
    assert to("other/use.go", OTHER_PKG, "return w.Save()", "Save") == (base_save, "receiver")  # through an import
    # the struct's own method shadows the embedded one; two at the same depth are Go's ambiguity
    assert to("shop/uses.go", USES, "return o.Name()", "Name") == (order_name, "receiver")
    assert to("shop/uses.go", USES, "return b.Save()", "Save")[1] == "ambiguous"
    # an embedded type from outside the repository promotes nothing of ours
    assert to("shop/uses.go", USES, "o.Lock()", "Lock")[1] != "receiver"


@pytest.mark.parametrize("edit", ["embedding_added", "embedding_removed"])
def test_an_embedding_edited_in_another_file_moves_the_promoted_calls(make_repo, tmp_path, monkeypatch, edit):
    # the calls are in uses.go, left alone; only the struct's embedding changes, in shop.go
    before = SHOP if edit == "embedding_removed" else SHOP.replace("\t*Base\n", "")
    root = make_repo({"go.mod": GO_MOD, "shop/shop.go": before, "shop/uses.go": USES})
    after = SHOP.replace("\t*Base\n", "") if edit == "embedding_removed" else SHOP
    synced, whole = synced_and_whole(root, tmp_path, monkeypatch, lambda r: (r / "shop/shop.go").write_text(after))
    line = marked_line(USES, "return o.Save()")
    # without *Base, Order embeds only sync.Mutex, a type from outside: a `Save` it had would be promoted from there
    assert answer(whole, "shop/uses.go", line, "Save") == ("external" if edit == "embedding_removed" else "receiver")
    assert synced == whole
