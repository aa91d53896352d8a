"""What config/read reports: snake_case keys, origins as layers, no secrets."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
from tests.support.schema import reference_dir

from tether_server.config import config_to_wire, load_config, origins_to_wire

SCHEMA = reference_dir() / "codex_app_server_protocol.v2.schemas.json"


def write(home: Path, text: str) -> None:
    (home / "config.toml").write_text(text, encoding="utf-8")


def test_config_read_mirrors_config_toml_keys(tmp_path: Path) -> None:
    write(tmp_path, 'model = "o3"\nsandbox_mode = "workspace-write"\n')

    wire = config_to_wire(load_config(tmp_path))

    assert wire["model"] == "o3"
    assert wire["model_provider"] == "openai"
    assert wire["approval_policy"] == "on-request"
    assert wire["sandbox_mode"] == "workspace-write"
    assert wire["sandbox_workspace_write"]["writable_roots"] == []
    assert "model_verbosity" not in wire
    json.dumps(wire)


def test_config_read_withholds_header_values_and_tokens(tmp_path: Path) -> None:
    write(
        tmp_path,
        'model_provider = "corp"\n[model_providers.corp]\nbase_url = "https://corp/v1"\n'
        'http_headers = { Authorization = "Bearer sk-secret" }\nexperimental_bearer_token = "tok-secret"\n'
        '[shell_environment_policy.set]\nGITHUB_TOKEN = "ghp-secret"\nEDITOR = "vi"\n',
    )

    wire = config_to_wire(load_config(tmp_path))

    text = json.dumps(wire)
    assert "secret" not in text
    assert wire["model_providers"]["corp"]["http_headers"] == {"Authorization": "<redacted>"}
    assert wire["shell_environment_policy"]["set"]["EDITOR"] == "vi"


def test_origins_name_the_layer_each_key_came_from(tmp_path: Path) -> None:
    write(tmp_path, 'model = "o3"\n[profiles.p]\nmodel_verbosity = "low"\n')

    loaded = load_config(tmp_path, ["sandbox_mode=workspace-write"], profile="p")
    origins = origins_to_wire(loaded)

    assert origins["model"]["name"] == {"type": "user", "file": str(tmp_path / "config.toml")}
    assert origins["model_verbosity"]["name"]["profile"] == "p"
    assert origins["sandbox_mode"]["name"] == {"type": "sessionFlags"}
    assert origins["model"]["version"].startswith("sha256:")
    assert "approval_policy" not in origins


def test_a_config_read_response_validates_against_the_codex_schema(tmp_path: Path) -> None:
    write(
        tmp_path,
        'model_reasoning_summary = "concise"\nmodel_verbosity = "low"\n'
        "[approval_policy.granular]\nsandbox_approval = true\nrules = true\nmcp_elicitations = false\n",
    )
    loaded = load_config(tmp_path, ["model_reasoning_effort=high"])
    schema: dict[str, Any] = json.loads(SCHEMA.read_text(encoding="utf-8"))
    response = {"config": config_to_wire(loaded), "origins": origins_to_wire(loaded), "layers": None}

    validator = jsonschema.Draft7Validator({**schema, "$ref": "#/definitions/ConfigReadResponse"})

    assert list(validator.iter_errors(response)) == []
