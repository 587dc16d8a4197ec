"""Go calls on a package-level variable of another file whose declaration writes a call's result
(`var v = New()`, `var reg = codec.NewRegistry()`) or another package's type (`var d *b.Server`,
`= &b.Server{}`, `new(b.Server)`) were guessed by the method's name (ambiguous when two types
define it): the resolver read only a type of the variable's own package. It now reads them too,
through the import that binds the qualifier in the variable's file (an outside package's type:
external). An incremental sync retries such a call when what the declaration names changes:
the function's result, or the package appearing (a variable whose signature writes a dirty name
makes the variable's name dirty, `refs.resolve._with_values`)."""
from __future__ import annotations

import pytest

from support.incremental import indexed_call_targets, symbol_names, synced_and_whole
from support.repos import marked_line

GO_MOD = "module example.com/m\n\ngo 1.22\n"
B = '''\
package b

type Server struct{}

func (s *Server) Do(x int) {}

func NewServer() *Server { return nil }
'''
NEW = '''\
package a

func NewClient() *Client { return nil }
'''
TYPES = '''\
package a

import (
	"strings"

	"example.com/m/b"
)

type Client struct{}

func (c *Client) Do(x int) {}

type Other struct{}

func (o *Other) Do(x int) {}

var viaCall = NewClient()

var remote = b.NewServer()

var declared *b.Server

var made = new(b.Server)

var reader = strings.NewReader("x")

var chained = NewClient().Peer()
'''
USES = '''\
package a

func run() {
	viaCall.Do(1) // own call result
	remote.Do(2) // other package's call result
	declared.Do(3) // other package's type
	made.Do(4) // other package's new
	reader.Read(nil) // outside
	chained.Do(5) // a chain is not read
}
'''
FILES = {"go.mod": GO_MOD, "b/server.go": B, "a/new.go": NEW, "a/types.go": TYPES, "a/uses.go": USES}




@pytest.fixture()
def calls(tmp_path, monkeypatch) -> dict:
    return indexed_call_targets(tmp_path, monkeypatch, FILES)


@pytest.mark.parametrize("marker, target", [
    ("// own call result", "a.Client.Do"), ("// other package's call result", "b.Server.Do"),
    ("// other package's type", "b.Server.Do"), ("// other package's new", "b.Server.Do"),
])
def test_another_files_variable_goes_to_the_type_its_declaration_gives(calls, marker, target):
    assert calls[("a/uses.go", marked_line(USES, marker), "Do")] == (target, "receiver")


def test_an_outside_packages_value_is_external_and_a_chain_keeps_its_guess(calls):
    assert calls[("a/uses.go", marked_line(USES, "// outside"), "Read")] == ("", "external")
    assert calls[("a/uses.go", marked_line(USES, "// a chain"), "Do")] == ("", "ambiguous")


@pytest.mark.parametrize("files, edit, marker, target", [
    # the function the variable's value calls (in a third file) changes its result
    (FILES, lambda r: (r / "a/new.go").write_text(NEW.replace("*Client", "*Other")), "// own call result",
     "a.Other.Do"),
    # the package the value's function is in appears
    ({k: v for k, v in FILES.items() if k != "b/server.go"}, lambda r: (r / "b").mkdir() or (r / "b/server.go").write_text(B),
     "// other package's call result", "b.Server.Do"),
], ids=["result-changes", "package-appears"])
def test_an_edit_elsewhere_moves_the_call_in_an_incremental_sync(make_repo, tmp_path, monkeypatch, files, edit,
                                                                 marker, target):
    root = make_repo(files)
    synced, whole = synced_and_whole(root, tmp_path, monkeypatch, edit)
    names = symbol_names(root)
    line = marked_line(USES, marker)
    assert [names.get(r[5], "") for r in whole if r[:2] == ("a/uses.go", line) and r[3] == "Do"] == [target]
    assert synced == whole
