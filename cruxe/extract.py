"""`extract(path, source, language) -> FileExtract`: a pure function over bytes.

Runs in worker processes. Never raises for bad input: a file that fails to parse yields
what can be recovered plus a warning naming the file.
"""
from __future__ import annotations

import logging

from .languages import get_extractor
from .model import FileExtract

log = logging.getLogger(__name__)

_BOM = b"\xef\xbb\xbf"


def extract(path: str, source: bytes, language: str) -> FileExtract:
    fn = get_extractor(language)
    if fn is None:
        return FileExtract(path, language, warnings=[f"{path}: no grammar for {language}; indexed as text only"])
    if source.startswith(_BOM):
        # Keep byte offsets and line numbers: blank the BOM instead of removing it.
        source = b"   " + source[3:]
    try:
        out = fn(source, path)
    except RecursionError:
        return FileExtract(path, language, warnings=[f"{path}: nesting too deep to extract; indexed as text only"])
    except Exception as e:  # noqa: BLE001 - one bad file never stops a run
        log.debug("extract failed for %s", path, exc_info=True)
        return FileExtract(path, language, warnings=[f"{path}: extraction failed ({type(e).__name__}: {e}); indexed as text only"])
    if out.parse_errors:
        out.warnings.append(f"{path}: {out.parse_errors} syntax error region(s); recovered what parsed")
    return out
