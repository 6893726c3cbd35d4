"""Validation at the boundary: clear TypeError / ValueError before anything reaches the C++ core."""
from __future__ import annotations

import os
from typing import Any, Optional


def text(value: Any, name: str) -> str:
    """A str, or bytes that are valid UTF-8 (a ValueError names the first bad byte)."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        raw = bytes(value)
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise ValueError(f"{name} is not valid UTF-8: byte {e.start} (0x{raw[e.start]:02x}) {e.reason}") from None
    if not isinstance(value, str):
        raise TypeError(f"{name} must be str or UTF-8 bytes, not {type(value).__name__}")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as e:
        raise ValueError(f"{name} cannot be encoded as UTF-8: character {e.start} ({e.reason})") from None
    return value


def string(value: Any, name: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be str, not {type(value).__name__}")
    return text(value, name)


def path(value: Any, name: str) -> str:
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if not isinstance(value, str):
        raise TypeError(f"{name} must be str or os.PathLike, not {type(value).__name__}")
    return text(value, name)


INT32_MAX = 2**31 - 1
INT64_MAX = 2**63 - 1
UINT64_MAX = 2**64 - 1
# The most resamples or simulations an analysis takes (as ascviz-cli's --resamples and --simulations).
MAX_RESAMPLES = 100_000


def integer(value: Any, name: str, minimum: Optional[int] = None, maximum: Optional[int] = INT64_MAX) -> int:
    """An int within [minimum, maximum]: a ValueError naming `name` otherwise (never a value too large for the
    C++ side to take, which nanobind would refuse with its signature instead of the argument's name)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be int, not {type(value).__name__}")
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name} must be <= {maximum}, got {value}")
    return value


def number(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a number, not {type(value).__name__}")
    return float(value)


def choice(value: Any, name: str, allowed: tuple) -> str:
    value = string(value, name)
    if value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(allowed)}, got {value!r}")
    return value


def flag(value: Any, name: str) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be bool, not {type(value).__name__}")
    return value


AGGREGATIONS = ("median", "mean", "max", "min")
