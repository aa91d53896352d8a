"""Tether's configuration: Codex-compatible config.toml keys, `-c` overrides, profiles.

Bottom layer: imports only `tether_server.errors` and `tether_server.log`.
"""

from tether_server.config.builtins import BUILTIN_PROVIDERS, PASSTHROUGH_KEYS
from tether_server.config.home import open_private, prepare_home
from tether_server.config.load import LoadedConfig, load_config, with_overrides
from tether_server.config.model import (
    ApprovalPolicy,
    Config,
    GranularApproval,
    GranularApprovalPolicy,
    SandboxMode,
    SandboxWorkspaceWrite,
    ShellEnvironmentPolicy,
)
from tether_server.config.provider import ModelProviderInfo, resolve_api_key
from tether_server.config.wire import config_to_wire, origins_to_wire
from tether_server.home_path import tether_home

__all__ = [
    "BUILTIN_PROVIDERS",
    "PASSTHROUGH_KEYS",
    "ApprovalPolicy",
    "Config",
    "GranularApproval",
    "GranularApprovalPolicy",
    "LoadedConfig",
    "ModelProviderInfo",
    "SandboxMode",
    "SandboxWorkspaceWrite",
    "ShellEnvironmentPolicy",
    "config_to_wire",
    "load_config",
    "open_private",
    "origins_to_wire",
    "prepare_home",
    "resolve_api_key",
    "tether_home",
    "with_overrides",
]
