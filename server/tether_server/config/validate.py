"""From a merged raw table to a `Config`: unknown keys, provider merging, readable errors."""

from __future__ import annotations

import types
from collections.abc import Mapping
from typing import Any, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from tether_server.config.builtins import BUILTIN_PROVIDERS
from tether_server.config.codex_keys import known_to_codex
from tether_server.config.model import Config
from tether_server.config.overrides import Table, deep_merge, leaf_paths
from tether_server.config.provider import show
from tether_server.errors import ConfigError

UNTRUSTED_MESSAGE = 'approval_policy = "untrusted" is no longer supported; remove this setting'

# Keys a profile may not set: selecting a profile from inside a profile has no meaning.
_NOT_IN_PROFILE = frozenset({"profile", "profiles"})


def build_config(raw: Table, warnings: list[str], *, strict: bool) -> Config:
    """Validate a merged table (defaults not included) into a `Config`.

    Unknown keys are dropped with a warning appended to `warnings` (or raise when `strict`).

    Raises:
        ConfigError: a known key has a bad value, or `model_provider` names no provider.
    """
    unknown: list[str] = []
    cleaned = strip_unknown(raw, Config, "", unknown)
    profiles = cleaned.get("profiles")
    if isinstance(profiles, dict):
        for name, profile in profiles.items():
            if isinstance(profile, dict):
                profiles[name] = _strip_profile(profile, f"profiles.{name}", unknown)
    report_unknown(unknown, warnings, strict=strict)
    cleaned["model_providers"] = merged_providers(cleaned)
    try:
        config = Config.model_validate(cleaned)
    except ValidationError as exc:
        raise translate(exc, cleaned) from None
    if config.model_provider not in config.model_providers:
        known = ", ".join(sorted(config.model_providers))
        raise ConfigError(
            f"config key `model_provider`: unknown model provider `{config.model_provider}` "
            f"(known: {known}; define it under [model_providers.{config.model_provider}])",
            key="model_provider",
        )
    return config


def report_unknown(unknown: list[str], warnings: list[str], *, strict: bool) -> None:
    """Append a warning per unknown key, or raise for the first when `strict`."""
    if strict and unknown:
        raise ConfigError(f"unknown config key `{unknown[0]}`", key=unknown[0])
    warnings.extend(f"unknown config key `{path}` ignored" for path in unknown)


def merged_providers(raw: Mapping[str, Any]) -> dict[str, Any]:
    """Built-in provider tables with the user's entries merged over them, names filled in.

    `openai_base_url` is applied last: it is the documented way to repoint the built-in.
    """
    user = raw.get("model_providers") or {}
    if not isinstance(user, Mapping):
        raise ConfigError(
            f"config key `model_providers`: expected a table, got {show(user)}", key="model_providers"
        )
    providers: dict[str, Any] = {pid: dict(table) for pid, table in BUILTIN_PROVIDERS.items()}
    for pid, table in user.items():
        if not isinstance(table, Mapping):
            providers[pid] = table
            continue
        merged = deep_merge(providers.get(pid, {}), table)
        merged.setdefault("name", pid)
        providers[pid] = merged
    base_url = raw.get("openai_base_url")
    if isinstance(base_url, str) and isinstance(providers["openai"], dict):
        providers["openai"]["base_url"] = base_url
    return providers


def strip_unknown(data: Mapping[str, Any], model: type[BaseModel], prefix: str, unknown: list[str]) -> Table:
    """A copy of `data` without keys `model` does not know; their dotted paths go to `unknown`.

    Keys Codex knows are left out silently (accepted and ignored): a Codex config loads clean.
    """
    cleaned: Table = {}
    for key, value in data.items():
        path = f"{prefix}.{key}" if prefix else key
        field = model.model_fields.get(key)
        if field is None:
            if not known_to_codex(_outside_profile(path)):
                unknown.extend(leaf_paths(value, path) if isinstance(value, Mapping) and value else [path])
            continue
        cleaned[key] = _strip_value(value, field.annotation, path, unknown)
    return cleaned


def _outside_profile(path: str) -> str:
    # A profile holds top-level keys: `profiles.fast.oss_provider` is Codex's `oss_provider`.
    parts = path.split(".")
    return ".".join(parts[2:]) if parts[0] == "profiles" and len(parts) > 2 else path


def _strip_profile(profile: Table, prefix: str, unknown: list[str]) -> Table:
    nested = [key for key in profile if key in _NOT_IN_PROFILE]
    unknown.extend(f"{prefix}.{key}" for key in nested)
    kept = {key: value for key, value in profile.items() if key not in _NOT_IN_PROFILE}
    return strip_unknown(kept, Config, prefix, unknown)


def _strip_value(value: Any, annotation: Any, path: str, unknown: list[str]) -> Any:
    if not isinstance(value, Mapping):
        return value
    model = _model_in(annotation)
    if model is not None:
        return strip_unknown(value, model, path, unknown)
    item_model = _dict_item_model(annotation)
    if item_model is None:
        return dict(value)
    return {
        key: strip_unknown(item, item_model, f"{path}.{key}", unknown) if isinstance(item, Mapping) else item
        for key, item in value.items()
    }


def _model_in(annotation: Any) -> type[BaseModel] | None:
    """The BaseModel a field holds, looking through Optional, unions and Annotated."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    if get_origin(annotation) in (Union, types.UnionType) or hasattr(annotation, "__metadata__"):
        for arg in get_args(annotation):
            found = _model_in(arg)
            if found is not None:
                return found
    return None


def _dict_item_model(annotation: Any) -> type[BaseModel] | None:
    if get_origin(annotation) is dict:
        return _model_in(get_args(annotation)[1])
    return None


def translate(exc: ValidationError, data: Mapping[str, Any]) -> ConfigError:
    """The first validation error as one sentence naming the dotted key."""
    error = exc.errors()[0]
    path = error_path(error, data)
    return ConfigError(f"config key `{path}`: {describe(error)}", key=path)


def error_path(error: ErrorDetails, data: Mapping[str, Any]) -> str:
    """The dotted key an error is about; union tags in `loc` are skipped (they are not data keys)."""
    parts: list[str] = []
    node: Any = data
    for item in error["loc"]:
        if isinstance(node, Mapping) and item in node:
            parts.append(str(item))
            node = node[item]
        elif isinstance(node, list | tuple) and isinstance(item, int):
            parts[-1] += f"[{item}]"
            node = node[item]
        elif error["type"] == "missing" and item == error["loc"][-1]:
            parts.append(str(item))
    return ".".join(parts)


_EXPECTED = {
    "string_type": "expected a string",
    "int_type": "expected an integer",
    "bool_type": "expected a boolean (true or false)",
    "dict_type": "expected a table",
    "model_type": "expected a table",
    "model_attributes_type": "expected a table",
    "list_type": "expected an array",
    "tuple_type": "expected an array",
    "string_too_short": "expected a non-empty string",
}


def describe(error: ErrorDetails) -> str:
    """What was expected and what was given, without pydantic's wording or URLs."""
    kind = error["type"]
    ctx = error.get("ctx") or {}
    got = f", got {show(error['input'])}"
    if kind == "missing":
        return "required key is missing"
    if kind == "config_value":
        return error["msg"]
    if kind == "literal_error":
        options = str(ctx.get("expected", "")).replace(" or ", ", ").replace("'", "")
        return f"expected one of {options}{got}"
    if kind in ("greater_than", "greater_than_equal"):
        op, bound = (">", ctx.get("gt")) if kind == "greater_than" else (">=", ctx.get("ge"))
        return f"expected a number {op} {bound}{got}"
    if kind in _EXPECTED:
        return _EXPECTED[kind] + got
    return f"{error['msg'].lower()}{got}"
