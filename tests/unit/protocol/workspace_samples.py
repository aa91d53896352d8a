"""Reference samples of the workspace methods (config writes, hooks, skills, plugins, MCP status)
and of the experimental thread methods the Codex TUI calls (checked against the experimental schema)."""

from __future__ import annotations

from tests.unit.protocol import wire_samples as s

from tether_protocol.common import WireModel
from tether_protocol.v2 import config as cfg
from tether_protocol.v2 import mcp
from tether_protocol.v2 import thread_extras as tx
from tether_protocol.v2 import thread_goal as tg
from tether_protocol.v2 import workspace as ws

_GOAL = tg.ThreadGoal(
    thread_id=s.THREAD_ID,
    objective="ship",
    status="budgetLimited",
    token_budget=100,
    tokens_used=120,
    time_used_seconds=3,
    created_at=1,
    updated_at=2,
)


def workspace_samples() -> list[tuple[str, WireModel]]:
    """Config writes, hooks, skills, plugins, MCP status and the experimental thread methods."""
    edit = cfg.ConfigEdit(key_path='projects."/w".trust_level', value="trusted", merge_strategy="replace")
    layer = cfg.ConfigLayerMetadata(name=cfg.SessionFlagsLayerSource(), version="sha256:1")
    skill = ws.SkillMetadata(name="lint", description="Run linters.", path="/w/SKILL.md", scope="repo")
    hook = ws.HookMetadata(
        key="k",
        event_name="preToolUse",
        command="echo hi",
        timeout_sec=60,
        source_path="/h/config.toml",
        display_order=0,
        current_hash="sha256:2",
    )
    hook_entry = ws.HooksListEntry(cwd="/w", hooks=[hook], errors=[ws.HookErrorInfo(path="/p", message="m")])
    skill_entry = ws.SkillsListEntry(
        cwd="/w", skills=[skill], errors=[ws.SkillErrorInfo(path="/p", message="m")]
    )
    overridden = cfg.OverriddenMetadata(
        message="Overridden by session flags", overriding_layer=layer, effective_value=1
    )
    terminal = tx.ThreadBackgroundTerminal(item_id="i", process_id="p", command="sleep 9", cwd="/w", os_pid=7)
    return [
        ("HookErrorInfo", ws.HookErrorInfo(path="/p", message="m")),
        ("HookMetadata", hook),
        ("HooksListEntry", hook_entry),
        ("SkillErrorInfo", ws.SkillErrorInfo(path="/p", message="m")),
        ("SkillMetadata", skill),
        ("SkillsListEntry", skill_entry),
        ("OverriddenMetadata", overridden),
        ("ThreadReadStateOperation", tx.ReadOperation()),
        ("ThreadReadStateOperation", tx.UnreadOperation()),
        ("ThreadBackgroundTerminal", terminal),
        ("ThreadSearchResult", tx.ThreadSearchResult(thread=s.THREAD, snippet="x")),
        ("ConfigEdit", edit),
        (
            "ConfigValueWriteParams",
            cfg.ConfigValueWriteParams(
                key_path="model", value="m", merge_strategy="upsert", expected_version="v"
            ),
        ),
        ("ConfigBatchWriteParams", cfg.ConfigBatchWriteParams(edits=[edit], reload_user_config=True)),
        (
            "ConfigWriteResponse",
            cfg.ConfigWriteResponse(
                status="okOverridden",
                version="sha256:3",
                file_path="/h/config.toml",
                overridden_metadata=cfg.OverriddenMetadata(
                    message="Overridden by session flags", overriding_layer=layer, effective_value="x"
                ),
            ),
        ),
        (
            "ConfigRequirementsReadResponse",
            cfg.ConfigRequirementsReadResponse(supports_independent_speed_modes=True),
        ),
        ("HooksListParams", ws.HooksListParams(cwds=["/w"])),
        (
            "HooksListResponse",
            ws.HooksListResponse(
                data=[
                    ws.HooksListEntry(
                        cwd="/w",
                        hooks=[hook],
                        warnings=["w"],
                        errors=[ws.HookErrorInfo(path="/p", message="m")],
                    )
                ]
            ),
        ),
        ("SkillsListParams", ws.SkillsListParams(cwds=["/w"], force_reload=True)),
        (
            "SkillsListResponse",
            ws.SkillsListResponse(
                data=[
                    ws.SkillsListEntry(
                        cwd="/w", skills=[skill], errors=[ws.SkillErrorInfo(path="/p", message="m")]
                    )
                ]
            ),
        ),
        ("PluginInstalledParams", ws.PluginInstalledParams(cwds=["/w"])),
        ("PluginInstalledResponse", ws.PluginInstalledResponse()),
        ("ListMcpServerStatusParams", mcp.ListMcpServerStatusParams(limit=5)),
        ("ListMcpServerStatusResponse", mcp.ListMcpServerStatusResponse(data=[])),
        ("BedrockCheckGovCloudRequirementsResponse", ws.BedrockCheckGovCloudRequirementsResponse()),
        ("ThreadSearchParams", tx.ThreadSearchParams(search_term="needle", sort_key="updated_at")),
        (
            "ThreadSearchResponse",
            tx.ThreadSearchResponse(data=[tx.ThreadSearchResult(thread=s.THREAD, snippet="a needle")]),
        ),
        (
            "ThreadReadStateUpdateParams",
            tx.ThreadReadStateUpdateParams(
                thread_id=s.THREAD_ID, operation=tx.UnreadOperation(), expected_revision="r"
            ),
        ),
        ("ThreadReadStateUpdateResponse", tx.ThreadReadStateUpdateResponse(read_state=s.READ_STATE)),
        ("ThreadSettingsUpdateParams", tx.ThreadSettingsUpdateParams(thread_id=s.THREAD_ID, effort="high")),
        ("ThreadSettingsUpdateResponse", tx.ThreadSettingsUpdateResponse()),
        ("ThreadGoal", _GOAL),
        ("ThreadGoalGetParams", tg.ThreadGoalGetParams(thread_id=s.THREAD_ID)),
        ("ThreadGoalGetResponse", tg.ThreadGoalGetResponse()),
        ("ThreadGoalGetResponse", tg.ThreadGoalGetResponse(goal=_GOAL)),
        (
            "ThreadGoalSetParams",
            tg.ThreadGoalSetParams(thread_id=s.THREAD_ID, objective="ship", status="paused", token_budget=10),
        ),
        ("ThreadGoalSetResponse", tg.ThreadGoalSetResponse(goal=_GOAL)),
        ("ThreadGoalClearParams", tg.ThreadGoalClearParams(thread_id=s.THREAD_ID, origin="user")),
        ("ThreadGoalClearResponse", tg.ThreadGoalClearResponse(cleared=True)),
        (
            "ThreadBackgroundTerminalsListParams",
            tx.ThreadBackgroundTerminalsListParams(thread_id=s.THREAD_ID),
        ),
        (
            "ThreadBackgroundTerminalsListResponse",
            tx.ThreadBackgroundTerminalsListResponse(
                data=[tx.ThreadBackgroundTerminal(item_id="i", process_id="p", command="sleep 9", cwd="/w")]
            ),
        ),
    ]
