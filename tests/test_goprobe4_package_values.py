"""Go calls on a package-level variable (`CommandLine.Parse(args)`, `DefaultClient.Do(r)`) were
guessed by the method's name (ambiguous when two types define it), though the variable's
declaration says its type. A call on a name that the enclosing function does not declare and no
import binds is on a package-level name: a variable of the call's own file gets the receiver its
declaration gives (`T{}`, `pkg.T{}`, `New()`), as a typed local does; one of another file gets
`Default=`, and the resolver reads the type from the variable's signature when it writes a type
of its own package (`var d *T`, `var d = &T{}`, `new(T)`); a local of the same name keeps its
guess. (Another package's type or a call's result there kept its guess too until probe 5 read
them: tests/test_goprobe5_package_values.py.)"""
from __future__ import annotations

import pytest

from cruxe.languages.go import extract

from support.incremental import call_targets, symbol_names, synced_and_whole
from support.repos import indexed_files, marked_line

GO_MOD = "module example.com/m\n\ngo 1.22\n"
TYPES = '''\
package a

import "strings"

type Client struct{}

func (c *Client) Do(x int) {}

type Server struct{}

func (s *Server) Do(x int) {}

func NewClient() *Client { return nil }

var Default = &Client{}

var std *Server

var made = new(Client)

var viaCall = NewClient()

var builder strings.Builder
'''
USES = '''\
package a

import "strings"

var here = NewClient()

var mine strings.Builder

func run() {
	Default.Do(1) // composite
	std.Do(2) // declared type
	made.Do(3) // new
	viaCall.Do(4) // call result
	builder.WriteString("x") // outside
	here.Do(7) // this file's call result
	mine.WriteString("y") // this file's outside type
}

func shadow(std *Client) {
	std.Do(5) // parameter
}

func local() {
	for _, Default := range []*Server{} {
		Default.Do(6) // range variable
	}
}
'''




@pytest.fixture()
def calls(tmp_path, monkeypatch) -> dict:
    root = tmp_path / "repo"
    indexed_files(root, tmp_path / "home", {"go.mod": GO_MOD, "a/types.go": TYPES, "a/uses.go": USES})
    monkeypatch.setenv("CRUXE_HOME", str(tmp_path / "home"))
    return call_targets(root)


@pytest.mark.parametrize("marker, target", [
    ("// composite", "a.Client.Do"), ("// declared type", "a.Server.Do"), ("// new", "a.Client.Do"),
    ("// this file's call result", "a.Client.Do"),
    ("// parameter", "a.Client.Do"),  # the parameter's own type, as before
])
def test_a_call_on_a_package_level_variable_goes_to_its_declared_type(calls, marker, target):
    assert calls[("a/uses.go", marked_line(USES, marker), "Do")] == (target, "receiver")


def test_another_files_call_result_or_another_package_is_read_and_a_local_keeps_its_guess(calls):
    # another file's call result and outside type are read since probe 5
    # (tests/test_goprobe5_package_values.py)
    assert calls[("a/uses.go", marked_line(USES, "// this file's outside type"), "WriteString")] == ("", "external")
    assert calls[("a/uses.go", marked_line(USES, "// outside"), "WriteString")] == ("", "external")
    assert calls[("a/uses.go", marked_line(USES, "// call result"), "Do")] == ("a.Client.Do", "receiver")
    assert calls[("a/uses.go", marked_line(USES, "// range variable"), "Do")] == ("", "ambiguous")


def test_the_extractor_marks_only_names_the_function_does_not_declare():
    refs = extract(USES.encode(), "a/uses.go").references
    recv = {r.line: r.receiver for r in refs if r.edge_type == "calls"}
    assert recv[marked_line(USES, "// composite")] == "Default="
    assert recv[marked_line(USES, "// this file's call result")] == "NewClient()"
    assert recv[marked_line(USES, "// this file's outside type")] == "strings.Builder{}"
    assert recv[marked_line(USES, "// range variable")] == "Default"
    assert recv[marked_line(USES, "// parameter")] == "Client{}"


@pytest.mark.parametrize("edit, marker, target", [
    (lambda t: t.replace("var std *Server", "var std *Client"), "// declared type", "a.Client.Do"),
    # the function a variable of the call's own file is given changes its result
    (lambda t: t.replace("func NewClient() *Client", "func NewClient() *Server"), "// this file's call result",
     "a.Server.Do"),
])
def test_an_edit_in_another_file_moves_the_call_in_an_incremental_sync(make_repo, tmp_path, monkeypatch,
                                                                       edit, marker, target):
    root = make_repo({"go.mod": GO_MOD, "a/types.go": TYPES, "a/uses.go": USES})
    synced, whole = synced_and_whole(root, tmp_path, monkeypatch,
                                     lambda r: (r / "a/types.go").write_text(edit(TYPES)))
    names = symbol_names(root)
    line = marked_line(USES, marker)
    assert [names[r[5]] for r in whole if r[:2] == ("a/uses.go", line) and r[3] == "Do"] == [target]
    assert synced == whole
