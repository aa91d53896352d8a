"""Writing config.toml in place: comments and layout kept, all-or-nothing, version-checked, atomic."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tether_server.config import load_config
from tether_server.config.load import content_version
from tether_server.config.write import ConfigWriteError, Edit, write_config

SEEDED = """# Tether settings (hand-written)
model = "gpt-5.5"   # the usual one

# approvals
approval_policy = "on-request"

[tui]
# keep quiet
notifications = false
"""


def _home(tmp_path: Path, text: str = SEEDED) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text(text)
    return home


def test_a_write_changes_only_the_key_and_keeps_comments_and_layout(tmp_path: Path) -> None:
    home = _home(tmp_path)
    result = write_config(load_config(home), [Edit("approval_policy", "never")])
    written = (home / "config.toml").read_text()
    assert written == SEEDED.replace('approval_policy = "on-request"', 'approval_policy = "never"')
    assert result.version == content_version(written)
    assert result.loaded.config.approval_policy == "never"
    assert result.overridden is None


def test_new_keys_go_into_tables_and_quoted_project_paths_work(tmp_path: Path) -> None:
    home = _home(tmp_path)
    edits = [
        Edit('projects."/srv/my.repo".trust_level', "trusted"),
        Edit("model_reasoning_effort", "high"),
        Edit("tui", {"animations": False}, "upsert"),
    ]
    write_config(load_config(home), edits)
    written = (home / "config.toml").read_text()
    assert written.startswith("# Tether settings (hand-written)\n")
    assert "# keep quiet\nnotifications = false" in written
    reread = load_config(home)
    assert reread.config.model_reasoning_effort == "high"
    assert reread.config.projects == {"/srv/my.repo": {"trust_level": "trusted"}}
    assert reread.config.tui == {"notifications": False, "animations": False}


def test_replace_overwrites_a_table_and_null_removes_a_key(tmp_path: Path) -> None:
    home = _home(tmp_path)
    write_config(load_config(home), [Edit("tui", {"animations": True}), Edit("approval_policy", None)])
    reread = load_config(home)
    assert reread.config.tui == {"animations": True}
    assert "approval_policy" not in (home / "config.toml").read_text()


def test_a_stale_expected_version_is_a_conflict_and_changes_nothing(tmp_path: Path) -> None:
    home = _home(tmp_path)
    loaded = load_config(home)
    seen = loaded.versions["user"]
    (home / "config.toml").write_text(SEEDED + "\n# edited by someone else\n")
    with pytest.raises(ConfigWriteError) as caught:
        write_config(loaded, [Edit("model", "other")], expected_version=seen)
    assert caught.value.data == {"config_write_error_code": "configVersionConflict"}
    assert "modified since last read" in caught.value.message
    assert (home / "config.toml").read_text().endswith("# edited by someone else\n")
    current = content_version((home / "config.toml").read_text())
    write_config(loaded, [Edit("model", "other")], expected_version=current)
    assert load_config(home).config.model == "other"


def test_an_invalid_value_is_refused_with_the_key_and_the_file_is_unchanged(tmp_path: Path) -> None:
    home = _home(tmp_path)
    with pytest.raises(ConfigWriteError) as caught:
        write_config(load_config(home), [Edit("model", "fine"), Edit("model_context_window", -5)])
    assert caught.value.data == {"config_write_error_code": "configValidationError"}
    assert "model_context_window" in caught.value.message
    assert (home / "config.toml").read_text() == SEEDED
    assert sorted(p.name for p in home.iterdir()) == ["config.toml", "config.toml.lock"]


def test_only_the_user_config_can_be_written(tmp_path: Path) -> None:
    home = _home(tmp_path)
    other = tmp_path / "other.toml"
    with pytest.raises(ConfigWriteError) as caught:
        write_config(load_config(home), [Edit("model", "x")], file_path=str(other))
    assert caught.value.data == {"config_write_error_code": "configLayerReadonly"}
    assert not other.exists()


def test_a_key_a_cli_flag_masks_is_written_and_reported_overridden(tmp_path: Path) -> None:
    home = _home(tmp_path)
    loaded = load_config(home, ['model="from-flag"'])
    result = write_config(loaded, [Edit("model", "from-file")])
    assert 'model = "from-file"' in (home / "config.toml").read_text()
    assert result.overridden is not None and result.overridden.effective_value == "from-flag"
    assert result.loaded.config.model == "from-flag"
    same = write_config(result.loaded, [Edit("model", "from-flag")])
    assert same.overridden is None


def test_the_file_keeps_its_mode_and_a_missing_file_is_created_private(tmp_path: Path) -> None:
    home = _home(tmp_path)
    (home / "config.toml").chmod(0o640)
    write_config(load_config(home), [Edit("model", "a")])
    assert (home / "config.toml").stat().st_mode & 0o777 == 0o640
    fresh = tmp_path / "fresh"
    write_config(load_config(fresh), [Edit("model", "b")])
    assert (fresh / "config.toml").stat().st_mode & 0o777 == 0o600
    assert (fresh / "config.toml").read_text() == 'model = "b"\n'


WRITER = """
import sys
from pathlib import Path
from tether_server.config import load_config
from tether_server.config.write import Edit, write_config
home, tag = Path(sys.argv[1]), sys.argv[2]
for i in range(25):
    write_config(load_config(home), [Edit(f"tui.{tag}_{i}", i)])
"""


def test_concurrent_writers_in_two_processes_lose_no_edit(tmp_path: Path) -> None:
    home = _home(tmp_path)
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(home), tag]) for tag in ("a", "b")]
    assert [p.wait(timeout=120) for p in procs] == [0, 0]
    tui = load_config(home).config.tui
    assert {f"{tag}_{i}" for tag in ("a", "b") for i in range(25)} <= set(tui)
    assert (home / "config.toml").read_text().startswith("# Tether settings (hand-written)\n")
