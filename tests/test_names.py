"""One name parser (issue 19): locate_symbol's `name` and find_references' `symbol_name` are
read alike, so a name one tool finds the other finds too."""
from __future__ import annotations

import pytest

from cruxe.errors import CruxeError
from cruxe.intent import parse_name
from cruxe.project import open_project
from cruxe.query import locate_symbol
from cruxe.refs import find_references

from support.repos import fixture_repo


@pytest.mark.parametrize("written, segments", [
    ("auth::jwt::validate", ["auth", "jwt", "validate"]), ("Order.total", ["Order", "total"]),
    ("Order->total", ["Order", "total"]), ("Order#total", ["Order", "total"]), ("`helper`", ["helper"]),
    ("fn helper", ["helper"]), ("println!", ["println"]), ("Circle.area()", ["Circle", "area"]),
    # a path's anchors name no definition
    ("crate::util::spawn", ["util", "spawn"]), ("super::super::io::read", ["io", "read"]),
    ("self::spawn", ["spawn"]), ("Self::new", ["new"]), ("self.render", ["render"]), ("this.load", ["load"]),
    ("crate", ["crate"]),
    # Rust's fully qualified form names the impl's type, or the trait for a generic parameter
    ("<Span as Drop>::drop", ["Span", "drop"]), ("<Vec<T> as IntoIterator>::into_iter", ["Vec", "into_iter"]),
    ("<HashMap<K, V, S> as Extend<(K, V)>>::extend", ["HashMap", "extend"]),
    ("<T as Default>::default", ["Default", "default"]), ("<&mut W as Write>::write", ["Write", "write"]),
    # JavaScript names a method by its prototype; a member named `prototype` is still asked for
    ("FormApi.prototype.validate", ["FormApi", "validate"]), ("Function.prototype", ["Function", "prototype"]),
])
def test_a_name_is_read_into_its_segments(written, segments):
    assert parse_name(written, "name") == segments


def test_what_is_no_name_is_refused_on_the_field_given():
    with pytest.raises(CruxeError) as e:
        parse_name("::", "symbol_name")
    assert e.value.code == "invalid_input" and e.value.data["field"] == "symbol_name"


@pytest.mark.parametrize("written", ["Circle.area", "Circle::area", "Circle->area", "Circle#area", "`Circle.area`"])
def test_both_tools_find_the_definition_a_name_names(tmp_path, written):
    root = fixture_repo(tmp_path, "python_same_name")
    project = open_project(root)
    gen = project.store.current_generation("live")
    hits, _ = locate_symbol(gen, project.id, "live", written)
    answer = find_references(gen, project.id, "live", written)
    assert hits[0].qualified_name == answer["symbol"]["qualified_name"] == "shapes.Circle.area"
