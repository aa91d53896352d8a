"""`modelProvider/config/write`: create or edit a custom provider as Codex 0.169.0's settings form does.

Checked as Codex checks, in its order (base URL, key variable, name, then what a new provider
needs), with its words and `config_write_error_code`s; then written with the config writer (one
locked, atomic, validated edit of config.toml), so nothing changes when anything is refused. A new
provider's id is its name in lowercase with every other run of characters a dash (`custom` when
nothing is left), `-2`, `-3`, … when taken; it gets `wire_api = "responses"`.
"""

from __future__ import annotations

import json
import re
from urllib.parse import urlsplit

from tether_protocol.v2 import model_provider_write as mw
from tether_server.config.builtins import BUILTIN_PROVIDERS
from tether_server.config.write import ConfigWriteError, Edit, write_config
from tether_server.errors import InvalidRequest
from tether_server.processor.methods.model_provider import summary
from tether_server.processor.state import ServerState
from tether_server.rpc.context import RequestContext

BAD_URL = "Enter an HTTP(S) base URL without credentials, a query, or a fragment."
BAD_ENV_KEY = "Invalid API key environment variable name."
NO_NAME = "Enter a provider name."
NO_URL = "A base URL is required to create a custom provider."
BUILTIN_ID = "A custom provider or gateway cannot use a built-in provider ID."
RESERVED_NAME = "This name is reserved for a built-in provider. Enter a different custom provider name."
UNKNOWN_ID = "Unknown provider ID."
NULL_NAME = "Invalid request: invalid type: null, expected a string"
NOT_SUPPORTED = "{kind} provider settings are not supported by Tether; configure a custom provider instead"
# Codex's built-in providers beyond Tether's own: their ids are not for custom providers.
_CODEX_BUILTINS = frozenset({"amazon-bedrock", "amazon-bedrock-runtime", "gcp"})
_RESERVED_IDS = frozenset(BUILTIN_PROVIDERS) | _CODEX_BUILTINS
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _invalid(message: str) -> ConfigWriteError:
    return ConfigWriteError(message, "configValidationError")


def _base_url(raw: str) -> str:
    url = raw.strip()
    try:
        parts = urlsplit(url)
        port_ok = parts.port is None or parts.port > 0
    except ValueError:
        raise _invalid(BAD_URL) from None
    plain = not (
        parts.username or parts.password or parts.query or parts.fragment or "#" in url or "?" in url
    )
    if parts.scheme not in ("http", "https") or not parts.hostname or not plain or not port_ok:
        raise _invalid(BAD_URL)
    return url


def _env_key(raw: str) -> str:
    name = raw.strip()
    if not _ENV_NAME.fullmatch(name):
        raise _invalid(BAD_ENV_KEY)
    return name


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "custom"


def _new_id(name: str, taken: set[str]) -> str:
    base = _slug(name)
    if base in _CODEX_BUILTINS:
        raise _invalid(RESERVED_NAME)
    candidate, n = base, 1
    while candidate in taken:
        n += 1
        candidate = f"{base}-{n}"
    return candidate


async def config_write(
    state: ServerState, ctx: RequestContext, params: mw.ModelProviderConfigWriteParams
) -> mw.ModelProviderConfigWriteResponse:
    patch = params.settings
    if not isinstance(patch, mw.CustomGatewayProviderSettingsPatch):
        kind = "Amazon Bedrock" if patch.type == "bedrock" else "GCP"
        raise InvalidRequest(NOT_SUPPORTED.format(kind=kind))
    given = patch.model_fields_set
    if "name" in given and patch.name is None:
        raise InvalidRequest(NULL_NAME)
    values: dict[str, str | None] = {}
    if "base_url" in given:
        values["base_url"] = None if patch.base_url is None else _base_url(patch.base_url)
    if "env_key" in given:
        values["env_key"] = None if patch.env_key is None else _env_key(patch.env_key)
    if patch.name is not None:
        values["name"] = patch.name.strip()
        if not values["name"]:
            raise _invalid(NO_NAME)
    providers = state.config.config.model_providers
    if patch.provider_id is None:
        name = values.get("name")
        if name is None:
            raise _invalid(NO_NAME)
        if values.get("base_url") is None:
            raise _invalid(NO_URL)
        provider_id = _new_id(name, set(providers) | _RESERVED_IDS)
        table = {key: value for key, value in sorted(values.items()) if value is not None}
        edits = [Edit(f"model_providers.{provider_id}", {**table, "wire_api": "responses"})]
    else:
        provider_id = patch.provider_id
        if provider_id in _RESERVED_IDS:
            raise _invalid(BUILTIN_ID)
        if provider_id not in providers:
            raise ConfigWriteError(UNKNOWN_ID, "configPathNotFound")
        where = f"model_providers.{json.dumps(provider_id)}"
        edits = [Edit(f"{where}.{key}", value) for key, value in values.items()]
    result = write_config(state.config, edits)
    # New threads read the daemon's config: the provider is usable at once.
    state.config = result.loaded
    info = result.loaded.config.model_providers[provider_id]
    return mw.ModelProviderConfigWriteResponse(provider=summary(provider_id, info))
