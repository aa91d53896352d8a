"""Credential stores on real files and real keyring backends (keyrings.alt's plaintext, keyring's fail)."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest
from keyring.backends import fail
from keyrings.alt.file import PlaintextKeyring

from tether_server.auth import CredentialStoreError, FileStore, KeyringProbe, StoredAuth, open_store

KEY = "sk-unit-0123456789abcdef"


def _plaintext(tmp_path: Path) -> PlaintextKeyring:
    backend = PlaintextKeyring()
    backend.file_path = str(tmp_path / "keyring.cfg")
    return backend


def _refusing() -> object:
    """keyring's own "no keyring" backend: every write raises."""
    backend: object = fail.Keyring()  # type: ignore[no-untyped-call]
    return backend


def _recommended(backend: object) -> KeyringProbe:
    return KeyringProbe(backend, usable=True, recommended=True, reason="")


def test_auth_json_keeps_codex_field_names_and_owner_only_mode(tmp_path: Path) -> None:
    store = open_store(tmp_path, "file")

    store.save(StoredAuth(KEY))

    data = json.loads((tmp_path / "auth.json").read_text())
    assert data == {"auth_mode": "apikey", "OPENAI_API_KEY": KEY, "tokens": None, "last_refresh": None}
    assert stat.S_IMODE((tmp_path / "auth.json").stat().st_mode) == 0o600
    assert store.load() == StoredAuth(KEY)


def test_a_codex_auth_json_with_chatgpt_tokens_only_holds_no_key_but_the_sign_in(tmp_path: Path) -> None:
    (tmp_path / "auth.json").write_text(json.dumps({"OPENAI_API_KEY": None, "tokens": {"id_token": "x"}}))

    loaded = FileStore(tmp_path / "auth.json").load()

    assert loaded is not None and (loaded.api_key, loaded.tokens) == (None, {"id_token": "x"})


def test_a_corrupt_auth_json_is_an_error_that_says_how_to_recover(tmp_path: Path) -> None:
    (tmp_path / "auth.json").write_text("{not json")

    with pytest.raises(CredentialStoreError, match="tether logout"):
        FileStore(tmp_path / "auth.json").load()


def test_auth_json_that_is_a_symlink_is_not_followed(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text(json.dumps({"OPENAI_API_KEY": "sk-planted"}))
    (tmp_path / "auth.json").symlink_to(elsewhere)

    with pytest.raises(CredentialStoreError, match="cannot read"):
        FileStore(tmp_path / "auth.json").load()


def test_auto_prefers_a_system_keyring_and_removes_the_old_auth_json(tmp_path: Path) -> None:
    FileStore(tmp_path / "auth.json").save(StoredAuth("sk-old"))
    backend = _plaintext(tmp_path)
    store = open_store(tmp_path, "auto", lambda: _recommended(backend))

    store.save(StoredAuth(KEY))

    assert not (tmp_path / "auth.json").exists()
    assert store.load() == StoredAuth(KEY)
    assert store.delete() is True
    assert store.load() is None
    assert store.delete() is False


def test_auto_falls_back_to_the_file_when_the_keyring_refuses_the_write(tmp_path: Path) -> None:
    store = open_store(tmp_path, "auto", lambda: _recommended(_refusing()))

    store.save(StoredAuth(KEY))

    assert json.loads((tmp_path / "auth.json").read_text())["OPENAI_API_KEY"] == KEY


def test_keyring_mode_reports_a_refused_write_and_writes_no_file(tmp_path: Path) -> None:
    store = open_store(tmp_path, "keyring", lambda: _recommended(_refusing()))

    with pytest.raises(CredentialStoreError, match="cannot write the keyring"):
        store.save(StoredAuth(KEY))
    assert not (tmp_path / "auth.json").exists()


def test_two_homes_get_separate_keyring_entries(tmp_path: Path) -> None:
    backend = _plaintext(tmp_path)
    one = open_store(tmp_path / "one", "keyring", lambda: _recommended(backend))
    two = open_store(tmp_path / "two", "keyring", lambda: _recommended(backend))

    one.save(StoredAuth(KEY))

    assert one.load() == StoredAuth(KEY)
    assert two.load() is None


def test_ephemeral_keeps_nothing_on_disk(tmp_path: Path) -> None:
    store = open_store(tmp_path, "ephemeral")

    store.save(StoredAuth(KEY))

    assert store.load() == StoredAuth(KEY)
    assert list(tmp_path.iterdir()) == []


def test_saving_over_a_planted_symlink_replaces_the_link_and_leaves_its_target_alone(tmp_path: Path) -> None:
    target = tmp_path / "victim.txt"
    target.write_text("precious\n")
    (tmp_path / "auth.json").symlink_to(target)

    FileStore(tmp_path / "auth.json").save(StoredAuth(KEY))

    assert target.read_text() == "precious\n"
    assert not (tmp_path / "auth.json").is_symlink()
    assert stat.S_IMODE((tmp_path / "auth.json").stat().st_mode) == 0o600
    assert FileStore(tmp_path / "auth.json").load() == StoredAuth(KEY)
