"""Python references the sixth probe (sqlparse, h11, jsonschema, boltons) met:
- a package whose `__init__` imports its own submodules by name (sqlparse's `from sqlparse import
  formatter`, `from . import lexer`): `formatter.validate_options(...)` in the `__init__`, and
  `sqlparse.formatter.validate_options(...)` in a module that did `import sqlparse`, call the
  submodule's function. The package's own import of the name led back to the package, a cycle
  that answered nothing, and the submodule was never tried (both calls were left unresolved)."""
from __future__ import annotations

from cruxe.index import run_index

from support.references import refs, sites

FILES = {
    "sqlfmt/setup.py": "from setuptools import setup\n\nsetup(name='sqlfmt')\n",
    "sqlfmt/sqlfmt/__init__.py": ("from sqlfmt import formatter\n"
                                  "from . import lexer\n\n\n"
                                  "def format(sql, **options):\n"
                                  "    options = formatter.validate_options(options)\n"
                                  "    return ' '.join(lexer.tokenize(sql))\n"),
    "sqlfmt/sqlfmt/formatter.py": "def validate_options(options):\n    return dict(options)\n",
    "sqlfmt/sqlfmt/lexer.py": "def tokenize(text):\n    return text.split()\n",
    "sqlfmt/sqlfmt/cli.py": ("import sqlfmt\n\n\n"
                             "def main(argv):\n"
                             "    opts = sqlfmt.formatter.validate_options({'reindent': True})\n"
                             "    return sqlfmt.lexer.tokenize(argv[0]), opts\n"),
}


def test_a_package_importing_its_own_submodule_reaches_the_submodule(make_repo):
    root = make_repo(FILES)
    run_index(root)
    assert sites(refs(root, "validate_options")["references"]) == [("sqlfmt/sqlfmt/__init__.py", 6),
                                                                    ("sqlfmt/sqlfmt/cli.py", 5)]
    assert sites(refs(root, "tokenize")["references"]) == [("sqlfmt/sqlfmt/__init__.py", 7),
                                                            ("sqlfmt/sqlfmt/cli.py", 6)]
