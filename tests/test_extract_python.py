"""Python extraction: a hand-written fixture with expected symbols, references, robustness
inputs, and the stdlib `json/` package scored against Python's own `ast` (the bench oracle)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cruxe.extract import extract as extract_any
from cruxe.languages.python import extract, module_path
from support import benches
from support.extract import by_qname, rows
from support.locations import STDLIB, require_oracle

FIXTURES = Path(__file__).parent / "fixtures" / "python"
SAMPLE = (FIXTURES / "sample.py").read_bytes()
EXPECTED = json.loads((FIXTURES / "sample.expected.json").read_text())




# ---- the fixture ---------------------------------------------------------------------------

def test_fixture_symbols_match_hand_written_expectations():
    fx = extract(SAMPLE, EXPECTED["path"])
    assert rows(fx) == EXPECTED["symbols"]
    assert fx.parse_errors == 0 and fx.language == "python"


def test_signatures_docs_and_visibility():
    s = by_qname(extract(SAMPLE, EXPECTED["path"]))
    assert s["pkg.sample.top"].signature == "def top(a, b: int = 2, *args, **kw) -> int"
    assert s["pkg.sample.top"].doc == "Add things.\n\nMore words."
    assert s["pkg.sample.fetch"].signature == "async def fetch(url: str) -> bytes"
    # the comment inside the parameter list is not part of the signature
    assert s["pkg.sample.decorated"].signature == "def decorated(self, value,)"
    assert s["pkg.sample.Point"].signature == "class Point(Base, metaclass=Meta)"
    assert s["pkg.sample.Base"].signature == "class Base"
    assert s["pkg.sample.Base"].doc == "Base class doc."
    assert s["pkg.sample.MAX_SIZE"].signature == "MAX_SIZE = 1024"  # first binding wins
    assert s["pkg.sample.Point.y"].signature == "y: float = 0.0"
    assert s["pkg.sample.Base._helper"].visibility == "private"
    assert s["pkg.sample._PRIVATE_LIMIT"].visibility == "private"
    assert s["pkg.sample.Base.__init__"].visibility == "public"  # dunder is not private
    assert s["pkg.sample.Base"].visibility == "public"


def test_parents_are_indices_of_enclosing_symbols():
    fx = extract(SAMPLE, EXPECTED["path"])
    for i, s in enumerate(fx.symbols):
        if s.parent is not None:
            p = fx.symbols[s.parent]
            assert s.parent < i
            assert p.line_start <= s.line_start and s.line_end <= p.line_end
            assert s.qualified_name == f"{p.qualified_name}.{s.name}"


@pytest.mark.parametrize("path,module", [
    ("src/pkg/mod.py", "pkg.mod"),
    ("lib/pkg/mod.py", "pkg.mod"),
    ("Lib/json/decoder.py", "json.decoder"),
    ("pkg/__init__.py", "pkg"),
    ("pkg/sub/__init__.pyi", "pkg.sub"),
    ("django/db/models/query.py", "django.db.models.query"),
    ("src.py", "src"),
    ("__init__.py", ""),
])
def test_module_path(path, module):
    assert module_path(path) == module


def test_qualified_name_of_package_init():
    fx = extract(b"class QuerySet:\n    def filter(self):\n        pass\n", "django/db/models/__init__.py")
    assert [s.qualified_name for s in fx.symbols] == [
        "django.db.models.QuerySet", "django.db.models.QuerySet.filter"]


def test_long_signatures_are_cut():
    params = ", ".join(f"p{i}: int = {i}" for i in range(100))
    src = f"def wide({params}) -> None:\n    pass\nTABLE = [{', '.join(map(str, range(1000)))}]\n".encode()
    s = by_qname(extract(src, "m.py"))
    assert s["m.wide"].signature.startswith("def wide(p0: int = 0, p1")
    assert len(s["m.wide"].signature) == 300 and s["m.wide"].signature.endswith("...")
    assert s["m.TABLE"].signature.startswith("TABLE = [0, 1, 2")
    assert len(s["m.TABLE"].signature) == 120 and s["m.TABLE"].signature.endswith("...")


# ---- references ----------------------------------------------------------------------------

def test_imports():
    fx = extract(SAMPLE, EXPECTED["path"])
    imports = [(r.to_name, r.module, r.alias, r.line, r.from_symbol)
               for r in fx.references if r.edge_type == "imports"]
    assert imports == [
        ("os", "os", "", 2, None),
        ("os.path", "os.path", "osp", 3, None),
        ("OrderedDict", "collections", "OD", 4, None),
        ("defaultdict", "collections", "", 4, None),
        ("sibling", ".", "", 5, None),
        ("thing", "..parent.mod", "", 6, None),
        ("other", "..parent.mod", "alias", 7, None),
        ("json", "json", "", 18, None),
    ]


def test_calls_name_receiver_and_enclosing_symbol():
    fx = extract(SAMPLE, EXPECTED["path"])
    calls = [(r.to_name, r.receiver, r.line,
              fx.symbols[r.from_symbol].qualified_name if r.from_symbol is not None else None)
             for r in fx.references if r.edge_type == "calls"]
    assert calls == [
        ("innermost", "", 37, "pkg.sample.top.inner"),
        ("inner", "", 38, "pkg.sample.top"),
        ("join", "os.path", 38, "pkg.sample.top"),
        ("get", "", 42, "pkg.sample.fetch"),
        # a decorator runs in the scope around its definition: here the module's
        ("decorator", "other", 46, None),
        ("upper", "self.name", 66, "pkg.sample.Base.label"),
    ]


def test_module_level_call_has_no_enclosing_symbol_and_long_receiver_is_cut():
    src = b"setup()\nx = (" + b"a + " * 100 + b"b).strip()\n"
    fx = extract(src, "m.py")
    setup, strip = [r for r in fx.references if r.edge_type == "calls"]
    assert (setup.to_name, setup.from_symbol) == ("setup", None)
    assert strip.from_symbol == 0 and fx.symbols[0].name == "x"
    assert strip.receiver.startswith("(a + a") and strip.receiver.endswith("...")
    assert len(strip.receiver) <= 80


# ---- robustness ----------------------------------------------------------------------------

def test_crlf_gives_the_same_symbols():
    lf = extract(SAMPLE, EXPECTED["path"])
    crlf = extract(SAMPLE.replace(b"\n", b"\r\n"), EXPECTED["path"])
    assert rows(crlf) == rows(lf)
    assert by_qname(crlf)["pkg.sample.top"].signature == by_qname(lf)["pkg.sample.top"].signature


def test_bom_prefixed_file_keeps_lines():
    fx = extract_any(EXPECTED["path"], b"\xef\xbb\xbf" + SAMPLE, "python")
    assert rows(fx) == EXPECTED["symbols"]
    # the language extractor alone must not fail on a BOM either
    direct = extract(b"\xef\xbb\xbfdef f():\n    pass\n", "m.py")
    assert [(s.name, s.line_start) for s in direct.symbols] == [("f", 1)]


def test_latin1_file_with_coding_cookie_is_decoded():
    src = b"# -*- coding: latin-1 -*-\nGREETING = 'caf\xe9'\ndef f\xe9e():\n    pass\ndef ok():\n    pass\n"
    fx = extract(src, "m.py")
    assert [(s.name, s.line_start) for s in fx.symbols] == [("GREETING", 2), ("f\xe9e", 3), ("ok", 5)]
    assert fx.symbols[0].signature == "GREETING = 'caf\xe9'"


def test_invalid_utf8_without_cookie_does_not_crash():
    src = b"GREETING = 'caf\xe9'\ndef f\xe9e():\n    pass\ndef ok():\n    pass\n"
    fx = extract(src, "m.py")
    names = {s.name: s for s in fx.symbols}
    assert names["GREETING"].line_start == 1 and names["ok"].line_start == 4
    assert "\ufffd" in names["GREETING"].signature  # decoded with replacement
    assert any(s.line_start == 2 and s.kind == "function" for s in fx.symbols)


def test_syntax_errors_recover_the_rest():
    src = b"def good_one():\n    pass\n\ndef broken(:\n    return )(\n\nclass Fine:\n    def m(self):\n        pass\n"
    fx = extract(src, "m.py")
    assert fx.parse_errors > 0
    got = {s.qualified_name: (s.kind, s.line_start) for s in fx.symbols}
    assert got["m.good_one"] == ("function", 1)
    assert got["m.Fine"] == ("class", 7)
    assert got["m.Fine.m"] == ("method", 8)


# What an identifier is, by its parent: a name being defined/imported/keyword ("name"),
# a function-local binding ("local"), a `global` declaration, or else a use.
_PARENT_ROLES = {
    **dict.fromkeys(("function_definition", "class_definition", "dotted_name", "aliased_import",
                     "import_statement", "import_from_statement", "keyword_separator"), "name"),
    **dict.fromkeys(("parameters", "lambda_parameters", "typed_parameter", "list_splat_pattern",
                     "dictionary_splat_pattern", "pattern_list", "tuple_pattern", "list_pattern",
                     "as_pattern_target", "nonlocal_statement"), "local"),
    "global_statement": "global"}
# parent type -> (its field that is not a use, what the identifier is there)
_FIELD_ROLES = {"default_parameter": ("name", "local"), "typed_default_parameter": ("name", "local"),
                "assignment": ("left", "local"), "augmented_assignment": ("left", "local"),
                "for_statement": ("left", "local"), "for_in_clause": ("left", "local"),
                "keyword_argument": ("name", "name"), "attribute": ("attribute", "name"),
                "call": ("function", "name")}


def _role(node) -> str:
    """What `node` is at its place, from its parent (the spelled-out rule the capture names of
    queries/python.scm must agree with): "use", or a role of _PARENT_ROLES / _FIELD_ROLES."""
    parent = node.parent
    if parent is None:
        return "name"
    role = _PARENT_ROLES.get(parent.type)
    if role is not None:
        return role
    field = _FIELD_ROLES.get(parent.type)
    if field is not None and parent.child_by_field_name(field[0]) == node:
        return field[1]
    return "use"


def _never_a_use(node) -> bool:
    """The identifier places the name patterns of queries/python.scm leave out."""
    parent = node.parent
    if parent.type in ("function_definition", "class_definition", "dotted_name", "aliased_import", "call"):
        return parent.type != "call" or parent.child_by_field_name("function") == node
    field = {"attribute": "attribute", "keyword_argument": "name"}.get(parent.type)
    return field is not None and parent.child_by_field_name(field) == node


@pytest.mark.slow
def test_name_patterns_capture_every_identifier_but_those_never_a_use():
    # against the one pattern they replace, over real code of every kind (the stdlib's
    # asyncio, email, json, tomllib and unittest packages) and broken code
    import tree_sitter as ts
    from cruxe.languages import python as py
    from cruxe.languages._common import language, parse, query
    stdlib = STDLIB
    sources = [p.read_bytes() for pkg in ("asyncio", "email", "json", "tomllib", "unittest")
               for p in sorted((stdlib / pkg).rglob("*.py"))]
    sources += [SAMPLE, b"def broken(:\n    return x)(\nclass A(B, metaclass=M):\n    y = [z for z in w if q]\n",
                b"try:\n    pass\nexcept (A, B) as err:\n    raise C from err\nmatch p:\n    case K(a=b) | [c, *d]:\n"
                b"        pass\n", b"lambda *a, k=v, **kw: a\nf'{x!r:{w}}'\nprint >> sys.stderr, 'x'\n"]
    assert len(sources) > 100
    # and each is captured as what it is there: @name and @obj (an attribute's object) are
    # uses, @local and @global bindings, as the parent-based _role says
    every = ts.Query(language("python"), "(identifier) @name")
    roles = {"name": "use", "obj": "use", "local": "local", "global": "global"}
    seen = dict.fromkeys(roles, 0)
    for src in sources:
        root = parse("python", src).root_node
        want = {(n.start_byte, n.end_byte) for n in ts.QueryCursor(every).captures(root).get("name", ())
                if not _never_a_use(n)}
        caps = ts.QueryCursor(query("python", py.QUERY)).captures(root)
        got = {}
        for capture, role in roles.items():
            for n in caps.get(capture, ()):
                assert _role(n) == role, (capture, n.parent.type)
                assert capture != "obj" or n.parent.type == "attribute"
                got[(n.start_byte, n.end_byte)] = capture
            seen[capture] += len(caps.get(capture, ()))
        assert set(got) == want
    assert min(seen.values()) >= 10 and sum(seen.values()) > 50_000


@pytest.mark.slow
def test_bound_attributes_are_those_the_parent_based_role_says():
    # @objset marks the objects of attributes that are bound, not read (`self.x = 1`): what
    # _role says of the attribute node from its parent, for every attribute that is no callee
    import tree_sitter as ts
    from cruxe.languages import python as py
    from cruxe.languages._common import parse, query
    stdlib = STDLIB
    sources = [p.read_bytes() for pkg in ("asyncio", "email", "unittest") for p in sorted((stdlib / pkg).rglob("*.py"))]
    sources.append(b"a.b, c.d = 1, 2\nfor e.f in g: pass\n[h.i for j.k in l]\nm.n += 1\n(o.p, *q.r) = s\n"
                   b"with t as u.v: pass\nw.x = y.z = 0\ndef broken(:\n    aa.bb = )(\n")
    bound = reads = 0
    for src in sources:
        caps = ts.QueryCursor(query("python", py.QUERY)).captures(parse("python", src).root_node)
        marked = {n.start_byte for n in caps.get("objset", ())}
        callees = {n.start_byte for n in caps.get("callee", ())}
        for n in caps.get("obj", ()):
            attr = n.parent.child_by_field_name("attribute")
            if attr.start_byte in callees:
                continue
            is_bound = _role(n.parent) != "use"
            assert (n.start_byte in marked) == is_bound, (src[n.parent.start_byte:n.parent.end_byte], n.parent.parent.type)
            bound += is_bound
            reads += not is_bound
    assert bound > 1_000 and reads > 5_000


@pytest.mark.slow
def test_attribute_names_read_from_the_text_are_those_of_the_tree():
    # name_uses skips `self.x` reads of names the file does not define by the text after the
    # object; where that text gives a name, it must be the attribute's own
    import tree_sitter as ts
    from cruxe.languages import python as py
    from cruxe.languages._common import parse, query
    stdlib = STDLIB
    sources = [p.read_bytes() for pkg in ("asyncio", "email", "unittest") for p in sorted((stdlib / pkg).rglob("*.py"))]
    sources.append("x = self .  foo\ny = self.\\\n  bar\nz = cls.d\u00eda + cls.d\n".encode())
    matched = 0
    for src in sources:
        for n in ts.QueryCursor(query("python", py.QUERY)).captures(parse("python", src).root_node).get("obj", ()):
            m = py._ATTRIBUTE_NAME.match(src, n.end_byte)
            if m is not None:
                attr = n.parent.child_by_field_name("attribute")
                assert (m.group(1), m.start(1)) == (src[attr.start_byte:attr.end_byte], attr.start_byte)
                matched += 1
    assert matched > 10_000
    # and the reads the text cannot tell are still found through the tree
    fx = extract("class A:\n    foo = bar = d\u00eda = 1\n    def m(self):\n"
                 "        return (self .  foo, self.\\\n bar, self.d\u00eda, self.gone)\n".encode(), "m.py")
    assert sorted(r.to_name for r in fx.references if r.receiver == "self") == ["bar", "d\u00eda", "foo"]


@pytest.mark.parametrize("expr", [
    b"(" * 20000 + b"1" + b")" * 20000,
    b"+".join([b"a"] * 20000),
    b"f(" * 5000 + b"1" + b")" * 5000,
])
def test_deeply_nested_expressions_do_not_crash(expr):
    src = b"x = " + expr + b"\ndef after():\n    return " + expr + b"\n"
    fx = extract(src, "m.py")
    got = {s.name: (s.line_start, s.line_end) for s in fx.symbols}
    assert got["x"] == (1, 1) and got["after"] == (2, 3)


def test_deeply_nested_definitions():
    depth = 300
    src = b"".join(b"    " * i + f"def f{i}():\n".encode() for i in range(depth)) + b"    " * depth + b"pass\n"
    fx = extract(src, "m.py")
    assert len(fx.symbols) == depth
    assert fx.symbols[-1].qualified_name == "m." + ".".join(f"f{i}" for i in range(depth))
    assert [s.parent for s in fx.symbols] == [None] + list(range(depth - 1))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_never_raises_on_mangled_input(data):
    """Random slices, splices and byte noise of the fixture: always a FileExtract."""
    a = data.draw(st.integers(0, len(SAMPLE)))
    b = data.draw(st.integers(a, len(SAMPLE)))
    noise = data.draw(st.binary(max_size=64))
    src = SAMPLE[:a] + noise + SAMPLE[b:]
    fx = extract(src, "pkg/m.py")
    for s in fx.symbols:
        assert 1 <= s.line_start <= s.line_end
        assert s.parent is None or 0 <= s.parent < len(fx.symbols)
    for r in fx.references:
        assert r.from_symbol is None or 0 <= r.from_symbol < len(fx.symbols)


# ---- a small real corpus, against the oracle -----------------------------------------------

def _bench():
    return benches.load(benches.BENCH / "extract_recall.py")


def test_stdlib_json_against_ast_oracle(tmp_path):
    require_oracle("py_gt.py")
    corpus = str(STDLIB / "json")
    summary = tmp_path / "summary.json"
    assert _bench().main(["--lang", "python", corpus, "--out", str(tmp_path), "--json", str(summary)]) == 0
    got = json.loads(summary.read_text())
    assert got["oracle_symbols"] >= 30  # json/ has ~34 defs and classes
    assert got["recall"] >= 0.99
    assert got["end_exact"] >= 0.97
    assert got["extraction_failures"] == 0
