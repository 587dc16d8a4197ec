"""Go calls on a parameter declared with one named type: `t.Execute(...)` in
`func tmpl(t *template.Template)` is the standard library's (it resolved to the one `Execute`
method of the repository, cobra's `Command.Execute`, by its unique name), and `v.Get(k)` in
`func f(v *Viper)` is Viper's `Get` although other types have one too."""
from __future__ import annotations

from support.incremental import edge_table, symbol_names
from support.repos import indexed_files, marked_line

GO_MOD = "module example.com/m\n\ngo 1.22\n"
CMD = '''\
package cmd

type Command struct{}

func (c *Command) Execute() error { return nil }

type Viper struct{}

func (v *Viper) Get(key string) string { return key }

type Cache struct{}

func (c *Cache) Get(key string) string { return "" }

type Level interface {
	Param() string
}
'''
USE = '''\
package cmd

import "text/template"

func tmpl(t *template.Template, data any) error {
	return t.Execute(nil, data)
}

func lookup(v *Viper, fl Level, keys []string) string {
	return v.Get(keys[0]) + fl.Param()
}

func other(c *Cache) string {
	return c.Get("x")
}
'''




def test_a_call_on_a_typed_parameter_goes_to_its_type(tmp_path, monkeypatch):
    root = tmp_path / "repo"
    indexed_files(root, tmp_path / "home", {"go.mod": GO_MOD, "cmd/cmd.go": CMD, "cmd/use.go": USE})
    monkeypatch.setenv("CRUXE_HOME", str(tmp_path / "home"))
    names = symbol_names(root)
    got = {(r[1], r[3]): (names.get(r[5], ""), r[6]) for r in edge_table(root) if r[0] == "cmd/use.go"
           and r[2] == "calls"}
    assert got[(marked_line(USE, "t.Execute"), "Execute")] == ("", "external")  # not cobra's Command.Execute
    assert got[(marked_line(USE, "v.Get"), "Get")] == ("cmd.Viper.Get", "receiver")  # though Cache has a Get too
    assert got[(marked_line(USE, "v.Get"), "Param")] == ("cmd.Level.Param", "receiver")  # the interface's method spec
    assert got[(marked_line(USE, "c.Get"), "Get")] == ("cmd.Cache.Get", "receiver")


def test_the_root_package_of_a_module_in_a_subdirectory_is_ours(tmp_path, monkeypatch):
    # go-probe: cobra/go.mod says `module github.com/spf13/cobra`, and cobra/doc imports it
    files = {"cobra/go.mod": "module github.com/spf13/cobra\n\ngo 1.15\n", "cobra/cobra.go": CMD.replace(
        "package cmd", "package cobra"), "cobra/doc/doc.go": 'package doc\n\nimport "github.com/spf13/cobra"\n\n'
        'func gen(c *cobra.Command) error {\n\treturn c.Execute()\n}\n'}
    root = tmp_path / "repo"
    indexed_files(root, tmp_path / "home", files)
    monkeypatch.setenv("CRUXE_HOME", str(tmp_path / "home"))
    names = symbol_names(root)
    got = {(r[0], r[3]): (names.get(r[5], ""), r[6]) for r in edge_table(root)}
    assert got[("cobra/doc/doc.go", "github.com/spf13/cobra")] == ("", "module")
    assert got[("cobra/doc/doc.go", "Execute")] == ("cobra.Command.Execute", "receiver")
