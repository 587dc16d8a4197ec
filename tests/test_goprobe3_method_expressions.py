"""Go prints a method with its receiver in parentheses (`gin.(*Context).JSON` in a stack
trace or pprof, `(*List[T]).Push` in docs) and declares it as `(c *Context) JSON`; asked so,
locate_symbol and find_references answered "0 of 0" (complete), a confident zero for a method
that exists. Those forms, and `*Context.JSON`, now name the method JSON of Context."""
from __future__ import annotations

import pytest

from cruxe.intent import parse_name
from cruxe.query import locate_symbol

from support.repos import indexed_files


@pytest.mark.parametrize("written, segments", [
    ("(*Context).JSON", ["Context", "JSON"]),
    ("gin.(*Context).JSON", ["gin", "Context", "JSON"]),
    ("(Context).JSON", ["Context", "JSON"]),
    ("(c *Context) JSON", ["Context", "JSON"]),
    ("(*List[T]).Push", ["List", "Push"]),
    ("*Client.ReadDir", ["Client", "ReadDir"]),
    # unchanged
    ("Context.JSON", ["Context", "JSON"]),
    ("foo()", ["foo"]),
    ("<Span as Drop>::drop", ["Span", "drop"]),
])
def test_go_receiver_forms_name_the_method(written, segments):
    assert parse_name(written, "name") == segments


def test_locate_answers_a_method_written_as_go_prints_it(tmp_path):
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home", {
        "go.mod": "module example.com/gin\n\ngo 1.22\n",
        "context.go": "package gin\n\ntype Context struct{}\n\nfunc (c *Context) JSON(code int) {}\n\n"
                      "type Other struct{}\n\nfunc (o *Other) JSON(code int) {}\n"})
    for written in ("gin.(*Context).JSON", "(c *Context) JSON", "*Context.JSON"):
        hits = locate_symbol(gen, repo, ref, written)[0]
        assert [(h.path, h.line_start) for h in hits] == [("context.go", 5)], written
