"""The one compact JSON encoder: what the transports send, the CLI prints, the safety limit
measures and the store keeps are the same bytes for the same value."""
from __future__ import annotations

import json
from typing import Any


def to_json(value: Any) -> str:
    """Compact JSON in the order produced, non-ASCII characters as themselves. NaN and the
    infinities are refused (ValueError): they are not JSON, and a client would fail on them."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def to_json_bytes(value: Any) -> bytes:
    """`to_json` as UTF-8. ``backslashreplace`` turns a lone surrogate (legal in a JSON string
    escape, illegal in UTF-8) back into its ``\\udXXX`` escape instead of failing the whole value."""
    return to_json(value).encode("utf-8", "backslashreplace")
