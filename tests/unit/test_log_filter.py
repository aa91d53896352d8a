"""TETHER_LOG parsing: a bare level, `module=level` for a subtree, the longest match winning."""

from __future__ import annotations

from tether_server.log import LEVELS, LogFilter, wants_console


def test_a_bare_level_and_module_levels_are_read() -> None:
    parsed = LogFilter.parse("warning, tether_server.store=debug,tether_server.rpc=error")

    assert parsed.default == LEVELS["warning"]
    assert parsed.modules == {"tether_server.store": LEVELS["debug"], "tether_server.rpc": LEVELS["error"]}
    assert parsed.lowest == LEVELS["debug"]
    assert parsed.problems == []


def test_the_longest_module_prefix_wins_and_others_take_the_default() -> None:
    parsed = LogFilter.parse("info,tether_server.store=debug,tether_server.store.sqlite_open=error")

    assert parsed.threshold("tether_server.store.sqlite") == LEVELS["debug"]
    assert parsed.threshold("tether_server.store.sqlite_open") == LEVELS["error"]
    assert parsed.threshold("tether_server.storehouse") == LEVELS["info"]
    assert parsed.threshold("tether_server.rpc.dispatcher") == LEVELS["info"]


def test_the_log_level_flag_sets_the_default_and_bad_entries_are_reported() -> None:
    parsed = LogFilter.parse("debug,tether_server.store=loud,WARN", level="error")

    assert parsed.default == LEVELS["error"]
    assert parsed.problems == ["tether_server.store=loud"]


def test_the_format_follows_the_terminal_unless_asked() -> None:
    assert wants_console({"TETHER_LOG_FORMAT": "console"}) is True
    assert wants_console({"TETHER_LOG_FORMAT": "json"}) is False
