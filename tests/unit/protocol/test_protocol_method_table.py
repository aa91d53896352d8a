"""The method tables are complete and consistent with protocol.md §5, §6, §8 and §9."""

from __future__ import annotations

import pytest
from pydantic.alias_generators import to_camel

from tether_protocol.methods import CLIENT_METHODS, SERVER_NOTIFICATIONS, SERVER_REQUESTS

# Stable methods of the plugin, app, account-settings and import families: in the table, and
# (touching no thread) unscoped.
EXTENSIONS_AND_SETTINGS = (
    "marketplace/add",
    "marketplace/remove",
    "marketplace/upgrade",
    "plugin/list",
    "plugin/read",
    "plugin/install",
    "plugin/uninstall",
    "plugin/reconcile",
    "plugin/skill/read",
    "plugin/share/save",
    "plugin/share/updateTargets",
    "plugin/share/list",
    "plugin/share/checkout",
    "plugin/share/delete",
    "app/list",
    "app/read",
    "app/installed",
    "account/gatewayOAuth/read",
    "account/gatewayOAuth/login",
    "account/gatewayOAuth/cancel",
    "account/rateLimitResetCredit/consume",
    "account/sendAddCreditsNudgeEmail",
    "windowsSandbox/readiness",
    "windowsSandbox/setupStart",
    "mcpServer/oauth/login",
    "externalAgentConfig/detect",
    "externalAgentConfig/import",
    "externalAgentConfig/import/recordHistory",
    "externalAgentConfig/import/readHistories",
    "modelProvider/config/write",
)

CORE_METHODS = {
    "initialize",
    "account/read",
    "account/login/start",
    "account/logout",
    "thread/start",
    "thread/resume",
    "thread/fork",
    "thread/list",
    "thread/read",
    "thread/turns/list",
    "thread/items/list",
    "thread/archive",
    "thread/unarchive",
    "thread/delete",
    "thread/name/set",
    "thread/compact/start",
    "thread/revert",
    "thread/unsubscribe",
    "thread/loaded/list",
    "thread/shellCommand",
    "turn/start",
    "turn/steer",
    "turn/interrupt",
    "command/exec",
    "command/exec/write",
    "command/exec/resize",
    "command/exec/terminate",
    "model/list",
    "config/read",
    "fs/readFile",
    "fs/writeFile",
    "fs/createDirectory",
    "fs/getMetadata",
    "fs/readDirectory",
    "fs/remove",
    "fs/copy",
    "fs/watch",
    "fs/unwatch",
    "fuzzyFileSearch",
    "review/start",
    "config/value/write",
    "config/batchWrite",
    "configRequirements/read",
    "hooks/list",
    "skills/list",
    "skills/extraRoots/set",
    "skills/config/write",
    "plugin/installed",
    "mcpServerStatus/list",
    "thread/goal/set",
    "thread/goal/get",
    "thread/goal/clear",
    "config/mcpServer/reload",
    "mcpServer/tool/call",
    "mcpServer/resource/read",
    "modelProvider/list",
    "modelProvider/capabilities/read",
    "experimentalFeature/list",
    "experimentalFeature/enablement/set",
    "permissionProfile/list",
    "account/rateLimits/read",
    "account/usage/read",
    "account/workspaceMessages/read",
    "account/securitySetup/read",
    "account/login/cancel",
    "feedback/save",
    "feedback/upload",
    "threadSection/list",
    "threadSection/create",
    "threadSection/update",
    "threadSection/delete",
    "thread/section/move",
    "thread/metadata/update",
    "thread/inject_items",
    "thread/attachment/add",
    "thread/attachment/list",
    "thread/attachment/remove",
    "thread/attachmentOwner/list",
    "thread/approveGuardianDeniedAction",
    *EXTENSIONS_AND_SETTINGS,
}
UNSCOPED = {
    "initialize",
    "account/read",
    "account/login/start",
    "account/logout",
    "thread/start",
    "thread/list",
    "thread/loaded/list",
    "thread/turns/list",
    "thread/items/list",
    "model/list",
    "config/read",
    "fs/readFile",
    "fs/writeFile",
    "fs/createDirectory",
    "fs/getMetadata",
    "fs/readDirectory",
    "fs/remove",
    "fs/copy",
    "fs/watch",
    "fs/unwatch",
    "fuzzyFileSearch",
    "command/exec",
    "command/exec/write",
    "command/exec/resize",
    "command/exec/terminate",
    "config/value/write",
    "config/batchWrite",
    "configRequirements/read",
    "hooks/list",
    "skills/list",
    "skills/extraRoots/set",
    "skills/config/write",
    "plugin/installed",
    "mcpServerStatus/list",
    "thread/goal/get",
    "config/mcpServer/reload",
    "mcpServer/tool/call",
    "mcpServer/resource/read",
    "modelProvider/list",
    "modelProvider/capabilities/read",
    "experimentalFeature/list",
    "experimentalFeature/enablement/set",
    "permissionProfile/list",
    "account/rateLimits/read",
    "account/usage/read",
    "account/workspaceMessages/read",
    "account/securitySetup/read",
    "account/login/cancel",
    "feedback/save",
    "feedback/upload",
    "threadSection/list",
    "threadSection/create",
    "threadSection/update",
    "threadSection/delete",
    "thread/attachment/list",
    "thread/attachmentOwner/list",
    *EXTENSIONS_AND_SETTINGS,
}


EXPERIMENTAL_METHODS = {
    "collaborationMode/list",
    "fuzzyFileSearch/sessionStart",
    "fuzzyFileSearch/sessionUpdate",
    "fuzzyFileSearch/sessionStop",
    "account/bedrock/checkGovCloudRequirements",
    "thread/search",
    "thread/readState/update",
    "thread/settings/update",
    "thread/backgroundTerminals/list",
    "thread/backgroundTerminals/terminate",
    "thread/backgroundTerminals/clean",
    "process/spawn",
    "process/writeStdin",
    "process/kill",
    "process/resizePty",
    "thread/items/read",
    "thread/searchOccurrences",
    "thread/timeline/list",
    "turn/settings/update",
    "thread/queue/add",
    "thread/queue/list",
    "thread/queue/update",
    "thread/queue/delete",
    "thread/queue/reorder",
    "thread/queue/start",
    "project/list",
    "project/read",
    "project/create",
    "project/import",
    "project/update",
    "project/move",
    "project/delete",
    "plugin/search",
}


def test_client_table_holds_exactly_the_core_methods_and_the_experimental_ones() -> None:
    assert set(CLIENT_METHODS) == CORE_METHODS | EXPERIMENTAL_METHODS
    assert {name for name, spec in CLIENT_METHODS.items() if spec.experimental} == EXPERIMENTAL_METHODS


@pytest.mark.parametrize("name", sorted(CORE_METHODS))
def test_serialised_methods_are_scoped_on_their_thread_id(name: str) -> None:
    spec = CLIENT_METHODS[name]
    expected = None if name in UNSCOPED else "thread_id"
    assert spec.scope == expected
    if spec.scope is not None:
        assert spec.scope in spec.params.model_fields
        assert spec.params.model_fields[spec.scope].is_required()


@pytest.mark.parametrize("name", sorted(CORE_METHODS))
def test_core_methods_are_stable_and_documented(name: str) -> None:
    spec = CLIENT_METHODS[name]
    assert not spec.experimental
    assert spec.doc and "\n" not in spec.doc


@pytest.mark.parametrize("name", sorted(CORE_METHODS))
def test_experimental_fields_are_camel_case_wire_names(name: str) -> None:
    for field in CLIENT_METHODS[name].experimental_fields:
        assert field == to_camel(field), field


def test_modelled_experimental_fields_use_the_same_wire_names() -> None:
    start = CLIENT_METHODS["thread/start"]
    wire_names = {f.alias or n for n, f in start.params.model_fields.items()}
    assert {"permissions", "runtimeWorkspaceRoots", "historyMode", "mockExperimentalField"} <= wire_names
    assert start.experimental_fields & wire_names >= {"permissions", "historyMode"}
    assert "collaborationMode" in CLIENT_METHODS["turn/start"].experimental_fields
    assert "deferOutput" in CLIENT_METHODS["thread/items/list"].experimental_fields


def test_notification_table_covers_protocol_section_9() -> None:
    section_9 = {
        "thread/started",
        "thread/status/changed",
        "thread/closed",
        "thread/archived",
        "thread/unarchived",
        "thread/deleted",
        "thread/name/updated",
        "thread/reverted",
        "thread/tokenUsage/updated",
        "thread/compacted",
        "turn/started",
        "turn/completed",
        "turn/diff/updated",
        "turn/plan/updated",
        "item/started",
        "item/completed",
        "item/agentMessage/delta",
        "item/plan/delta",
        "item/reasoning/summaryTextDelta",
        "item/reasoning/summaryPartAdded",
        "item/reasoning/textDelta",
        "item/commandExecution/outputDelta",
        "item/commandExecution/terminalInteraction",
        "item/fileChange/outputDelta",
        "item/fileChange/patchUpdated",
        "serverRequest/resolved",
        "error",
        "warning",
        "deprecationNotice",
        "configWarning",
        "command/exec/outputDelta",
        "thread/goal/cleared",
        "remoteControl/status/changed",
    }
    assert section_9 <= set(SERVER_NOTIFICATIONS)


def test_server_request_table_holds_the_approval_and_user_input_requests() -> None:
    assert set(SERVER_REQUESTS) == {
        "item/commandExecution/requestApproval",
        "item/fileChange/requestApproval",
        "item/tool/requestUserInput",
        "mcpServer/elicitation/request",
        "item/tool/call",
        "account/chatgptAuthTokens/refresh",
    }
