"""Docs that cannot drift: the tool page matches the registry, README commands exist."""
from __future__ import annotations

import re
from pathlib import Path

from cruxe.__main__ import build_parser
from cruxe.tools import TOOLS

ROOT = Path(__file__).resolve().parents[1]


def test_every_tool_and_parameter_is_documented():
    page = (ROOT / "docs" / "TOOLS.md").read_text()
    for tool in TOOLS.values():
        assert f"## `{tool.name}`" in page and tool.description in page
        for param in tool.input_schema["properties"]:
            assert param == "workspace" or f"| `{param}` |" in page, (tool.name, param)


def test_every_tool_has_a_description_and_a_strict_schema():
    for tool in TOOLS.values():
        assert 20 <= len(tool.description) <= 200
        schema = tool.input_schema
        assert schema["type"] == "object" and schema["additionalProperties"] is False
        assert set(schema["required"]) <= set(schema["properties"])


def test_readme_commands_exist():
    readme = (ROOT / "README.md").read_text()
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    used = set(re.findall(r"^cruxe ([a-z-]+)", readme, re.M)) | set(re.findall(r"&& cruxe ([a-z-]+)", readme))
    assert used and used <= set(sub.choices), used - set(sub.choices)
    for name, flag in re.findall(r"cruxe ([a-z-]+)[^\n`]*?(--[a-z-]+)", readme):
        if name in sub.choices:
            opts = {o for a in sub.choices[name]._actions for o in a.option_strings}
            assert flag in opts, (name, flag)
