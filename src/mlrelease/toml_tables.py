"""Typed TOML tables (pure): a frozen dataclass from a TOML table, every key and type checked.

TOML keys are kebab-case (``report-dir``), fields are snake_case (``report_dir``). An unknown
key (usually a typo, with the closest known one offered), a value of the wrong type or a missing
required key raises :class:`~mlrelease.errors.ConfigError` naming the key, what was expected and
what was found. :mod:`mlrelease.config` reads ``[tool.mlrelease]`` with it, and every feature
table and gate-options table gets the same checks and the same errors.
"""

from __future__ import annotations

import dataclasses
import difflib
import types
import typing
from collections.abc import Iterable, Mapping
from typing import Any, Literal, TypeVar, Union

from mlrelease.errors import ConfigError

T = TypeVar("T")


def parse_section(cls: type[T], table: Any, *, prefix: str, source: str) -> T:
    """Build dataclass ``cls`` from a TOML table, checking every key and type."""
    return parse_dataclass(cls, table, prefix=prefix, source=source)


def parse_sections(
    registered: Mapping[str, type], table: Mapping[str, Any], *, prefix: str, source: str
) -> dict[str, Any]:
    """Each of ``registered``'s tables (key -> dataclass) read from ``table`` and built with
    :func:`parse_section`, in ``registered``'s order (an absent one: its defaults)."""
    return {
        key: parse_section(cls, table.get(key, {}), prefix=f"{prefix}.{key}", source=source)
        for key, cls in registered.items()
    }


def parse_dataclass(
    cls: type[T], table: Any, *, prefix: str, source: str, known: Iterable[str] = ()
) -> T:
    """``known`` are keys read elsewhere (the features' tables), offered when a key is a typo."""
    if not isinstance(table, Mapping):
        raise ConfigError(prefix, "a table", describe(table), source=source)
    fields = {
        f.name: f
        for f in dataclasses.fields(cls)  # type: ignore[arg-type]
        if f.metadata.get("toml", True)
    }
    hints = typing.get_type_hints(cls)
    values: dict[str, Any] = {}
    for key, value in table.items():
        name = key.replace("-", "_")
        if name not in fields:
            keys = sorted({*(f.replace("_", "-") for f in fields), *known})
            close = difflib.get_close_matches(key, keys, n=1)
            hint = f"Did you mean '{close[0]}'?" if close else f"Known keys: {', '.join(keys)}."
            raise ConfigError(
                f"{prefix}.{key}", "a known key", "an unknown key", source=source, hint=hint
            )
        values[name] = _convert(hints[name], value, f"{prefix}.{key}", source)
    for name, f in fields.items():
        required = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        if required and name not in values:
            raise ConfigError(
                f"{prefix}.{name.replace('_', '-')}",
                f"a value ({_expect(hints[name])})",
                "nothing (the key is required)",
                source=source,
            )
    return cls(**values)


def _convert(hint: Any, value: Any, key: str, source: str) -> Any:
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if hint is Any:
        return value
    if dataclasses.is_dataclass(hint):
        return parse_section(typing.cast(type, hint), value, prefix=key, source=source)
    if origin in (Union, types.UnionType):
        options = [a for a in args if a is not type(None)]
        errors: list[ConfigError] = []
        for option in options:
            try:
                return _convert(option, value, key, source)
            except ConfigError as exc:
                errors.append(exc)
        if len(errors) == 1:  # an optional value: the one real option's error says more
            raise errors[0]
        raise ConfigError(key, _expect(hint), describe(value), source=source)
    if origin is Literal:
        if value in args:
            return value
        choices = ", ".join(repr(a) for a in args)
        raise ConfigError(key, f"one of {choices}", describe(value), source=source)
    if origin is list:
        if not isinstance(value, list):
            raise ConfigError(key, _expect(hint), describe(value), source=source)
        return [_convert(args[0], item, f"{key}[{i}]", source) for i, item in enumerate(value)]
    if origin is dict:
        if not isinstance(value, Mapping):
            raise ConfigError(key, _expect(hint), describe(value), source=source)
        return {k: _convert(args[1], v, f"{key}.{k}", source) for k, v in value.items()}
    if hint is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if hint in (str, int, float, bool):
        # bool is an int in Python; TOML keeps them apart, and so do we.
        if isinstance(value, hint) and not (hint is int and isinstance(value, bool)):
            return value
        raise ConfigError(key, _expect(hint), describe(value), source=source)
    raise TypeError(f"unsupported configuration type {hint!r} for {key}")  # a bug in mlrelease


def _expect(hint: Any) -> str:
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if dataclasses.is_dataclass(hint):
        return "a table"
    if origin in (Union, types.UnionType):
        return " or ".join(_expect(a) for a in args if a is not type(None))
    if origin is Literal:
        return "one of " + ", ".join(repr(a) for a in args)
    if origin is list:
        return f"a list of {_plural(args[0])}"
    if origin is dict:
        return f"a table of {_plural(args[1])}"
    names = {str: "a string", int: "an integer", float: "a number", bool: "true or false"}
    return names.get(hint, str(hint))


def _plural(hint: Any) -> str:
    names = {str: "strings", int: "integers", float: "numbers", bool: "booleans"}
    if hint in names:
        return names[hint]
    if typing.get_origin(hint) is dict or dataclasses.is_dataclass(hint):
        return "tables"
    if hint is Any:
        return "values"
    return _expect(hint)


def describe(value: Any) -> str:
    """A TOML value as an error shows it: its kind and (shortened) its text."""
    kinds = {
        bool: "a boolean",
        int: "an integer",
        float: "a number",
        str: "a string",
        list: "a list",
        dict: "a table",
    }
    kind = next((name for t, name in kinds.items() if isinstance(value, t)), type(value).__name__)
    shown = repr(value)
    if len(shown) > 60:
        shown = shown[:57] + "..."
    return f"{kind} ({shown})"
