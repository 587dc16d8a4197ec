"""Go names used as values: a package-level constant or variable read, a function passed as a
value, `pkg.Value` through an import. Before, Go had reference edges for calls and types only,
so find_references on validator's `fieldErrMsg` or viper's `SupportedExts` answered 0 with
nothing unresolved: a confident zero."""
from __future__ import annotations

from cruxe.languages.go import extract
from cruxe.refs import find_references

from support.repos import indexed_files, marked_line

GO_MOD = "module example.com/m\n\ngo 1.22\n"
CONF = '''\
package conf

import "fmt"

const fieldErrMsg = "Key: '%s' failed on the '%s' tag"

var SupportedExts = []string{"json", "yaml"}

func run() error { return nil }

type Command struct {
	Use  string
	RunE func() error
}

func describe(ns, tag string) string {
	return fmt.Sprintf(fieldErrMsg, ns, tag)
}

func root() *Command {
	return &Command{Use: "app", RunE: run}
}

func shadow(SupportedExts []string) int {
	return len(SupportedExts) // the parameter, not the package's variable
}

func local() int {
	run := 3 // a local of the same name
	return run
}
'''
APP = '''\
package app

import (
	"example.com/m/conf"
)

func exts() []string {
	return conf.SupportedExts
}
'''


def _sites(answer: dict) -> set[tuple[str, int]]:
    return {(r["path"], r["line_start"]) for r in answer["references"]}




def test_value_uses_are_references(tmp_path):
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home",
                                   {"go.mod": GO_MOD, "conf/conf.go": CONF, "app/app.go": APP})
    got = find_references(gen, repo, ref, "fieldErrMsg")
    assert _sites(got) == {("conf/conf.go", marked_line(CONF, "fmt.Sprintf(fieldErrMsg"))}
    got = find_references(gen, repo, ref, "SupportedExts")
    # the parameter of the same name shadows it in `shadow`; `conf.SupportedExts` goes through the import
    assert _sites(got) == {("app/app.go", marked_line(APP, "conf.SupportedExts"))}
    got = find_references(gen, repo, ref, "run")
    assert _sites(got) == {("conf/conf.go", marked_line(CONF, "RunE: run"))}  # not `run := 3`, not the struct key


def test_struct_literal_keys_and_declarations_are_no_value_uses():
    refs = {(r.to_name, r.line, r.receiver) for r in extract(CONF.encode(), "conf/conf.go").references
            if r.edge_type == "references"}
    assert ("Use", marked_line(CONF, "Use: \"app\""), "") not in refs  # a key of the literal
    assert ("RunE", marked_line(CONF, "RunE: run"), "") not in refs
    assert ("run", marked_line(CONF, "RunE: run"), "") in refs
    assert not any(name in {"ns", "tag", "run"} and line == marked_line(CONF, "fmt.Sprintf") for name, line, _ in refs
                   if name != "fieldErrMsg")
    assert ("Sprintf", marked_line(CONF, "fmt.Sprintf"), "fmt") not in refs  # a call is a call edge, not a value use
