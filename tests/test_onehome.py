"""One home per idea (issue 19, section 3): one compact JSON encoder, the CLI's choices and help
taken from the vocabulary the tools accept, short functions in the shells."""
from __future__ import annotations

import ast
import dataclasses
import math
import re
from pathlib import Path

import pytest

from cruxe import __main__ as cli, jsonenc, jsonrpc, shape, store, tools
from cruxe.model import KIND_ALIASES, KIND_VALUES

CRUXE = Path(cli.__file__).parent
MAX_FUNCTION_LINES = 60


def test_every_json_writer_uses_the_one_encoder():
    value = {"é": [1, 2.5, None], "b": "\u2028"}
    assert shape.to_json is jsonenc.to_json and store.writer.to_json is jsonenc.to_json
    assert jsonrpc.encode(value) == jsonenc.to_json(value).encode()
    with pytest.raises(ValueError):  # what the wire refuses, the store refuses too
        store.writer.to_json({"x": math.nan})
    package = Path(jsonenc.__file__).parent  # and no module keeps an encoder of its own
    writers = sorted(str(p.relative_to(package)) for p in package.rglob("*.py")
                     if "json.dumps(" in p.read_text(encoding="utf-8") and p.name != "jsonenc.py")
    assert writers == []


def _choices(parser, command: str, option: str):
    sub = next(a for a in parser._actions if a.dest == "command").choices[command]
    return next(a for a in sub._actions if option in a.option_strings)


@pytest.mark.parametrize("command, option, tool, prop", [
    ("search", "--lang", "search_code", "language"), ("search", "--role", "search_code", "role"),
    ("search", "--detail", "search_code", "detail_level"), ("search", "--explain", "search_code", "ranking_explain_level"),
    ("search", "--freshness", "search_code", "freshness_policy"), ("outline", "--depth", "get_file_outline", "depth"),
    ("refs", "--kind", "find_references", "kind"),
])
def test_cli_choices_are_the_tool_schema_enums(command, option, tool, prop):
    action = _choices(cli.build_parser(), command, option)
    assert list(action.choices) == tools.TOOLS[tool].input_schema["properties"][prop]["enum"]


def test_locate_kind_help_names_every_kind_and_alias():
    text = _choices(cli.build_parser(), "locate", "--kind").help
    assert set(KIND_VALUES) | set(KIND_ALIASES) <= set(re.findall(r"\w+", text))


@pytest.mark.parametrize("module", ["__main__.py", "tools.py", "shape.py", "jsonrpc.py", "http.py",
                                    "procs.py", "config.py", "scan.py", "jsonenc.py"])
def test_no_function_over_sixty_lines(module):
    tree = ast.parse((CRUXE / module).read_text())
    long = [f"{n.name}: {n.end_lineno - n.lineno + 1}" for n in ast.walk(tree)
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.end_lineno - n.lineno + 1 > MAX_FUNCTION_LINES]
    assert not long, long


def _tool_name_checks(module: str) -> list[str]:
    """Comparisons of a value with a tool's name (`tool == "locate_symbol"`, `name in (...)`)."""
    names = set(tools.TOOLS)
    found = []
    for node in ast.walk(ast.parse((CRUXE / module).read_text())):
        if not isinstance(node, ast.Compare):
            continue
        for side in (node.left, *node.comparators):
            consts = side.elts if isinstance(side, (ast.Tuple, ast.List, ast.Set)) else [side]
            hits = [c.value for c in consts if isinstance(c, ast.Constant) and c.value in names]
            found += [f"{module}:{node.lineno} {h}" for h in hits]
    return found


def test_tool_behaviour_is_a_field_of_the_tool_not_a_name_check():
    found = [f for m in ("tools.py", "shape.py", "jsonrpc.py", "http.py", "jobs.py") for f in _tool_name_checks(m)]
    assert not found, found


def test_the_outline_handler_never_sees_the_contract_only_language(make_repo, monkeypatch):
    seen: list[dict] = []
    tool = tools.TOOLS["get_file_outline"]
    monkeypatch.setitem(tools.TOOLS, tool.name, dataclasses.replace(tool, handler=lambda s, a, p: seen.append(a) or {}))
    server = tools.Server(make_repo({"a.py": "x = 1\n"}))
    payload, is_error = server.call_tool(tool.name, {"path": "a.py", "language": "python"})
    assert not is_error and seen == [{"path": "a.py", "depth": "all"}]
    payload, is_error = server.call_tool(tool.name, {"path": "a.py", "language": "cobol"})
    assert is_error and payload["error"]["code"] == "invalid_input"  # still checked against the contract


@pytest.mark.parametrize("cpus, cap, want", [(16, None, 4), (16, 8, 4), (16, 2, 2), (2, None, 2), (1, 3, 1)])
def test_one_worker_count_rule(monkeypatch, cpus, cap, want):
    """Resolution takes the default worker count, never more; a smaller `--workers` wins."""
    from cruxe import config
    from cruxe.refs import resolve

    monkeypatch.setattr(config.os, "cpu_count", lambda: cpus)
    assert config.default_workers() == min(cpus, 4)
    assert resolve._workers(resolve.PARALLEL_EDGES + 1, cap) == (want if want >= 2 else 1)
