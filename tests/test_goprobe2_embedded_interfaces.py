"""Go interfaces embedded in interfaces: `type ReadWriter interface { Reader; Writer }`, so a
parameter typed `ReadWriter` calling `.Read` calls `Reader.Read`'s spec. Before, only the
interface's own specs were looked at, and such a call was `opaque` (Read is a name every
package has) or fell to a unique-name guess."""
from __future__ import annotations

from cruxe.index import run_index
from cruxe.languages.go import extract
from support.incremental import answer, edge_table, symbol_names, synced_and_whole
from support.repos import marked_line

GO_MOD = "module example.com/m\n\ngo 1.22\n"
IO = '''\
package io

type Reader interface {
	Read(p []byte) (int, error)
}

type Writer interface {
	Write(p []byte) (int, error)
}

type Closer interface {
	Close() error
}

type ReadWriter interface {
	Reader
	Writer
}

type ReadWriteCloser interface {
	ReadWriter
	Closer
}

type Number interface {
	~int | ~float64
}
'''
USE = '''\
package use

import "example.com/m/io"

type File struct{}

func (f *File) Read(p []byte) (int, error) { return 0, nil }

type Conn struct {
	io.ReadWriter
}

func copyAll(rw io.ReadWriter, buf []byte) {
	rw.Read(buf)
	rw.Write(buf)
}

func closeAll(c io.ReadWriteCloser, buf []byte) {
	c.Read(buf)
	c.Close()
}

func (c *Conn) Pump(buf []byte) {
	c.Write(buf)
}
'''




def test_an_interface_signature_lists_the_interfaces_it_embeds():
    sigs = {s.name: s.signature for s in extract(IO.encode(), "io/io.go").symbols if s.parent is None}
    assert sigs["ReadWriter"] == "type ReadWriter interface { Reader; Writer }"
    assert sigs["ReadWriteCloser"] == "type ReadWriteCloser interface { ReadWriter; Closer }"
    assert sigs["Number"] == "type Number interface"  # a type set names no methods
    assert sigs["Reader"] == "type Reader interface"


def test_a_call_through_an_embedding_interface_reaches_the_embedded_spec(make_repo):
    root = make_repo({"go.mod": GO_MOD, "io/io.go": IO, "use/use.go": USE})
    run_index(root)
    names = symbol_names(root)
    got = {(r[1], r[3]): (names.get(r[5], ""), r[6]) for r in edge_table(root)
           if r[0] == "use/use.go" and r[2] == "calls"}
    assert got[(marked_line(USE, "rw.Read("), "Read")] == ("io.Reader.Read", "receiver")
    assert got[(marked_line(USE, "rw.Write("), "Write")] == ("io.Writer.Write", "receiver")
    assert got[(marked_line(USE, "c.Read("), "Read")] == ("io.Reader.Read", "receiver")  # two levels down
    assert got[(marked_line(USE, "c.Close("), "Close")] == ("io.Closer.Close", "receiver")
    # a struct embedding an interface promotes its methods
    assert got[(marked_line(USE, "c.Write(buf)"), "Write")] == ("io.Writer.Write", "receiver")


def test_an_embedding_edited_in_another_file_moves_the_calls(make_repo, tmp_path, monkeypatch):
    # A call whose receiver names the edited interface is retried (an `opaque` call through an
    # interface that embeds it: the test below)
    before = IO.replace("\tReader\n\tWriter\n", "\tWriter\n")
    use = USE[:USE.index("func closeAll")]
    root = make_repo({"go.mod": GO_MOD, "io/io.go": before, "use/use.go": use})
    synced, whole = synced_and_whole(root, tmp_path, monkeypatch, lambda r: (r / "io/io.go").write_text(IO))
    assert answer(whole, "use/use.go", marked_line(USE, "rw.Read("), "Read") == "receiver"
    assert synced == whole


def test_an_opaque_call_through_an_interface_embedding_the_edited_one_is_retried(make_repo, tmp_path, monkeypatch):
    # `c.Read` on a ReadWriteCloser is `opaque` while ReadWriter embeds no Reader (Read is a name
    # every package has, so no unique-name guess); once the edit embeds it, a sync must tie it
    # to Reader.Read as a whole index does
    before = IO.replace("\tReader\n\tWriter\n", "\tWriter\n")
    root = make_repo({"go.mod": GO_MOD, "io/io.go": before, "use/use.go": USE})
    synced, whole = synced_and_whole(root, tmp_path, monkeypatch, lambda r: (r / "io/io.go").write_text(IO))
    assert answer(whole, "use/use.go", marked_line(USE, "c.Read("), "Read") == "receiver"
    assert synced == whole
