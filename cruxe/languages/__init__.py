"""Language registry: file extension -> language, language -> extractor.

Each language module exposes an extractor `(source: bytes, path: str) -> FileExtract`
(`extract`; `typescript` has one per grammar), built from the tree-sitter query in
`queries/<lang>.scm` (data, its capture names the contract) plus Python hooks for what a query
cannot say; `_common` holds the pieces they share, and no language module imports another.
Modules and grammars are imported lazily, and a language whose grammar or module is missing
has no extractor (its files are indexed as text only): it disables only itself.
"""
from __future__ import annotations

import importlib
from typing import Callable

from ..model import FileExtract

EXTENSIONS: dict[str, str] = {
    ".py": "python", ".pyi": "python",
    ".rs": "rust",
    ".go": "go",
    ".ts": "typescript", ".mts": "typescript", ".cts": "typescript",
    ".tsx": "tsx",
    ".js": "javascript", ".jsx": "javascript", ".mjs": "javascript", ".cjs": "javascript",
}

# language -> (module, function)
_EXTRACTORS: dict[str, tuple[str, str]] = {
    "python": ("python", "extract"),
    "rust": ("rust", "extract"),
    "go": ("go", "extract"),
    "typescript": ("typescript", "extract_typescript"),
    "tsx": ("typescript", "extract_tsx"),
    "javascript": ("typescript", "extract_javascript"),
}

# language -> grammar package, for doctor/health reporting
GRAMMAR_PACKAGES: dict[str, str] = {
    "python": "tree_sitter_python", "rust": "tree_sitter_rust", "go": "tree_sitter_go",
    "typescript": "tree_sitter_typescript", "tsx": "tree_sitter_typescript",
    "javascript": "tree_sitter_javascript",
}

Extractor = Callable[[bytes, str], FileExtract]
_cache: dict[str, Extractor | None] = {}


def detect_language(path: str) -> str | None:
    dot = path.rfind(".")
    if dot < 0 or dot < path.rfind("/"):
        return None
    return EXTENSIONS.get(path[dot:].lower())


def get_extractor(language: str) -> Extractor | None:
    """The extractor for a language, or None when its grammar or module is unavailable."""
    if language not in _cache:
        spec = _EXTRACTORS.get(language)
        fn: Extractor | None = None
        if spec is not None:
            try:
                # the grammar first: a module loads its grammar only when it first parses
                importlib.import_module(GRAMMAR_PACKAGES[language])
                mod = importlib.import_module(f"{__name__}.{spec[0]}")
                fn = getattr(mod, spec[1])
            except (ImportError, AttributeError):
                fn = None
        _cache[language] = fn
    return _cache[language]


def grammar_status() -> dict[str, list[str]]:
    """Languages whose grammar loads, and those whose grammar is missing."""
    available, missing = [], []
    for lang, pkg in GRAMMAR_PACKAGES.items():
        try:
            importlib.import_module(pkg)
            available.append(lang)
        except ImportError:
            missing.append(lang)
    return {"available": available, "missing": missing}
