"""Running every check in order; checks that need a valid config are skipped without one."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tether_server.config import LoadedConfig, load_config
from tether_server.doctor import catalog
from tether_server.doctor.environment import check_dependencies, check_python
from tether_server.doctor.files import check_database, check_home
from tether_server.doctor.listeners import check_auth_files, check_listeners
from tether_server.doctor.provider import check_endpoint, check_key, check_model
from tether_server.doctor.report import Check, ok, skip
from tether_server.doctor.sandbox import check_sandbox
from tether_server.errors import ConfigError


@dataclass(frozen=True)
class DoctorOptions:
    """What to check.

    Attributes:
        home: the Tether home.
        overrides: `-c key=value` overrides, as the daemon would get them.
        profile: a config profile to select.
        probe_model: None: no model request; "": one to the configured model; else that model.
        environ: the environment the daemon would run with.
    """

    home: Path
    overrides: Sequence[str] = ()
    profile: str | None = None
    probe_model: str | None = None
    environ: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))


def check_config(options: DoctorOptions) -> tuple[Check, LoadedConfig | None]:
    path = options.home / "config.toml"
    try:
        loaded = load_config(options.home, options.overrides, profile=options.profile)
    except ConfigError as exc:
        return catalog.CONFIG_INVALID.found(
            exc.message, {"path": str(path)}, path=path, message=exc.message
        ), None
    details = {"path": str(path), "provider": loaded.config.model_provider, "model": loaded.config.model}
    if loaded.warnings:
        summary = "; ".join(loaded.warnings)
        return catalog.CONFIG_UNKNOWN.found(
            summary, {**details, "warnings": loaded.warnings}, path=path
        ), loaded
    where = str(path) if path.exists() else f"no {path} (defaults)"
    return ok(
        "config", f"{where}: model {loaded.config.model} via {loaded.config.provider_name}", details
    ), loaded


async def run_checks(options: DoctorOptions) -> list[Check]:
    """Every check of `catalog.CHECKS`, in that order."""
    checks = [check_python(), check_dependencies()]
    config_check, loaded = check_config(options)
    checks += [config_check, check_home(options.home), check_database(options.home), await check_sandbox()]
    if loaded is None:
        needs = "not checked: the configuration is invalid (see config)"
        checks += [skip(name, needs) for name in ("provider-key", "provider-endpoint", "provider-model")]
        checks.append(check_listeners(options.home))
        checks.append(skip("auth-files", needs))
        return checks
    config = loaded.config
    checks += [
        check_key(config, options.home, options.environ),
        await check_endpoint(config),
        await check_model(config, options.home, options.probe_model, options.environ),
        check_listeners(options.home),
        check_auth_files(options.home, config),
    ]
    return checks
