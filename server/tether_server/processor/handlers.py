"""The handler map: each method of the table bound to its processor function, checked both ways.

`_route` ties a `MethodSpec[P, R]` to a function taking `P` and returning `R` (or `Deferred[R]`),
so mypy rejects a handler whose params or result do not match the table. `check_routes` (run by
the dispatcher at start and by the tests) rejects a table method with no handler that is not
listed in `UNIMPLEMENTED`, and a handler for a method the table does not have.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from tether_protocol import methods as m
from tether_protocol import methods_accounts as macc
from tether_protocol import methods_desktop as mdesk
from tether_protocol import methods_goals as mg
from tether_protocol import methods_plugins as mpl
from tether_protocol import methods_processes as mp
from tether_protocol import methods_projects as mpj
from tether_protocol import methods_queue as mq
from tether_protocol import methods_sections as msec
from tether_protocol import methods_settings as ms
from tether_protocol import methods_skills as msk
from tether_protocol import methods_timeline as mtl
from tether_protocol import methods_workspace as mws
from tether_protocol.common import WireModel
from tether_protocol.spec import MethodSpec
from tether_server.processor.lazy_handlers import lazy_modules
from tether_server.processor.state import ServerState
from tether_server.rpc.context import Deferred, RequestContext
from tether_server.rpc.routes import AnyRoute, Route

# The handler modules load with the first request of one of their methods (lazy_handlers): mypy
# checks each `_route` against the real module, the daemon binds a stand-in until the first call.
if TYPE_CHECKING:
    from tether_server.processor.methods import (
        account,
        account_extras,
        account_limits,
        apps,
        background_terminals,
        command,
        config,
        experimental_feature,
        external_agent,
        feedback,
        fs,
        fuzzy,
        hooks,
        initialize,
        marketplace,
        mcp,
        mcp_oauth,
        model,
        model_provider,
        model_provider_write,
        plugin,
        process,
        project,
        review,
        skills,
        thread,
        thread_attachment,
        thread_extras,
        thread_goal,
        thread_guardian,
        thread_history,
        thread_metadata,
        thread_queue,
        thread_section,
        thread_timeline,
        turn,
    )
else:
    # A module's stand-in never replaces a name this module already has (an alias like `m`).
    _lazy = lazy_modules("tether_server.processor.methods", str(Path(__file__).parent / "methods"))
    globals().update({name: module for name, module in _lazy.items() if name not in globals()})
    # Every session starts, resumes or lists threads: that module loads with the daemon (while the
    # stdio front answers `initialize`), not with the first thread request, where it was a quarter
    # of a first `thread/resume` of a 10,000-turn thread. `thread/start` waited for it either way.
    from tether_server.processor.methods import thread

P = TypeVar("P", bound=WireModel)
R = TypeVar("R", bound=WireModel)

Impl = Callable[[ServerState, RequestContext, P], Awaitable[R | Deferred[R]]]

UNIMPLEMENTED: frozenset[str] = frozenset()
"""Methods of the table Tether declares but does not serve; they are answered -32601."""


def _route(state: ServerState, spec: MethodSpec[P, R], impl: Impl[P, R]) -> AnyRoute:
    # The return type names neither P nor R on purpose: a `Route[P, R]` return would let the
    # caller's `AnyRoute` context solve them as Any and silence the check of `impl` against `spec`.
    async def handler(ctx: RequestContext, params: P) -> R | Deferred[R]:
        return await impl(state, ctx, params)

    route: Route[P, R] = Route(spec, handler)
    return route


def build_routes(state: ServerState) -> dict[str, AnyRoute]:
    """Every implemented method of the table, bound to `state`."""
    routes: list[AnyRoute] = [
        _route(state, m.INITIALIZE, initialize.initialize),
        _route(state, m.CONFIG_READ, config.config_read),
        _route(state, m.MODEL_LIST, model.model_list),
        _route(state, m.FS_READ_FILE, fs.read_file),
        _route(state, mws.FS_WRITE_FILE, fs.write_file),
        _route(state, mws.FS_CREATE_DIRECTORY, fs.create_directory),
        _route(state, mws.FS_GET_METADATA, fs.get_metadata),
        _route(state, mws.FS_READ_DIRECTORY, fs.read_directory),
        _route(state, mws.FS_REMOVE, fs.remove),
        _route(state, mws.FS_COPY, fs.copy),
        _route(state, mws.FS_WATCH, fs.watch),
        _route(state, mws.FS_UNWATCH, fs.unwatch),
        _route(state, mws.FUZZY_FILE_SEARCH, fuzzy.search),
        _route(state, mws.FUZZY_FILE_SEARCH_SESSION_START, fuzzy.session_start),
        _route(state, mws.FUZZY_FILE_SEARCH_SESSION_UPDATE, fuzzy.session_update),
        _route(state, mws.FUZZY_FILE_SEARCH_SESSION_STOP, fuzzy.session_stop),
        _route(state, mws.REVIEW_START, review.start),
        _route(state, m.COLLABORATION_MODE_LIST, model.collaboration_modes),
        _route(state, m.ACCOUNT_READ, account.account_read),
        _route(state, m.ACCOUNT_LOGIN_START, account.login_start),
        _route(state, m.ACCOUNT_LOGOUT, account.logout),
        _route(state, macc.ACCOUNT_GATEWAY_OAUTH_READ, account_extras.gateway_oauth_read),
        _route(state, macc.ACCOUNT_GATEWAY_OAUTH_LOGIN, account_extras.gateway_oauth_login),
        _route(state, macc.ACCOUNT_GATEWAY_OAUTH_CANCEL, account_extras.gateway_oauth_cancel),
        _route(state, macc.ACCOUNT_RATE_LIMIT_RESET_CREDIT_CONSUME, account_extras.reset_credit_consume),
        _route(state, macc.ACCOUNT_SEND_ADD_CREDITS_NUDGE_EMAIL, account_extras.add_credits_nudge),
        _route(state, macc.WINDOWS_SANDBOX_SETUP_START, account_extras.windows_sandbox_setup_start),
        _route(state, macc.WINDOWS_SANDBOX_READINESS, account_extras.windows_sandbox_readiness),
        _route(state, macc.MCP_SERVER_OAUTH_LOGIN, mcp_oauth.mcp_oauth_login),
        _route(state, macc.MODEL_PROVIDER_CONFIG_WRITE, model_provider_write.config_write),
        _route(state, macc.EXTERNAL_AGENT_CONFIG_DETECT, external_agent.detect),
        _route(state, macc.EXTERNAL_AGENT_CONFIG_IMPORT, external_agent.import_items),
        _route(state, macc.EXTERNAL_AGENT_CONFIG_IMPORT_RECORD_HISTORY, external_agent.record_history),
        _route(state, macc.EXTERNAL_AGENT_CONFIG_IMPORT_READ_HISTORIES, external_agent.read_histories),
        _route(state, m.THREAD_START, thread.start),
        _route(state, m.THREAD_RESUME, thread.resume),
        _route(state, m.THREAD_READ, thread.read),
        _route(state, m.THREAD_LIST, thread.list_threads),
        _route(state, m.THREAD_LOADED_LIST, thread.loaded_list),
        _route(state, m.THREAD_UNSUBSCRIBE, thread.unsubscribe),
        _route(state, m.THREAD_NAME_SET, thread.name_set),
        _route(state, m.THREAD_ARCHIVE, thread.archive),
        _route(state, m.THREAD_UNARCHIVE, thread.unarchive),
        _route(state, m.THREAD_DELETE, thread.delete),
        _route(state, m.THREAD_TURNS_LIST, thread_history.turns_list),
        _route(state, m.THREAD_ITEMS_LIST, thread_history.items_list),
        _route(state, m.THREAD_FORK, thread_history.fork),
        _route(state, m.THREAD_REVERT, thread_history.revert),
        _route(state, m.TURN_START, turn.start),
        _route(state, m.TURN_STEER, turn.steer),
        _route(state, m.TURN_INTERRUPT, turn.interrupt),
        _route(state, m.COMMAND_EXEC, command.exec_command),
        _route(state, m.COMMAND_EXEC_WRITE, command.write),
        _route(state, m.COMMAND_EXEC_RESIZE, command.resize),
        _route(state, m.COMMAND_EXEC_TERMINATE, command.terminate),
        _route(state, m.THREAD_SHELL_COMMAND, turn.shell_command),
        _route(state, m.THREAD_COMPACT_START, turn.compact_start),
        _route(state, m.CONFIG_VALUE_WRITE, config.config_value_write),
        _route(state, m.CONFIG_BATCH_WRITE, config.config_batch_write),
        _route(state, m.CONFIG_REQUIREMENTS_READ, config.config_requirements_read),
        _route(state, m.HOOKS_LIST, hooks.hooks_list),
        _route(state, m.SKILLS_LIST, skills.skills_list),
        _route(state, msk.SKILLS_EXTRA_ROOTS_SET, skills.skills_extra_roots_set),
        _route(state, msk.SKILLS_CONFIG_WRITE, skills.skills_config_write),
        _route(state, mpl.PLUGIN_INSTALLED, plugin.plugin_installed),
        _route(state, mpl.PLUGIN_LIST, plugin.plugin_list),
        _route(state, mpl.PLUGIN_READ, plugin.plugin_read),
        _route(state, mpl.PLUGIN_INSTALL, plugin.plugin_install),
        _route(state, mpl.PLUGIN_UNINSTALL, plugin.plugin_uninstall),
        _route(state, mpl.PLUGIN_RECONCILE, plugin.plugin_reconcile),
        _route(state, mpl.PLUGIN_SKILL_READ, plugin.plugin_skill_read),
        _route(state, mpl.PLUGIN_SEARCH, plugin.plugin_search),
        _route(state, mpl.MARKETPLACE_ADD, marketplace.marketplace_add),
        _route(state, mpl.MARKETPLACE_REMOVE, marketplace.marketplace_remove),
        _route(state, mpl.MARKETPLACE_UPGRADE, marketplace.marketplace_upgrade),
        _route(state, mpl.PLUGIN_SHARE_SAVE, apps.share_save),
        _route(state, mpl.PLUGIN_SHARE_UPDATE_TARGETS, apps.share_update_targets),
        _route(state, mpl.PLUGIN_SHARE_LIST, apps.share_list),
        _route(state, mpl.PLUGIN_SHARE_CHECKOUT, apps.share_checkout),
        _route(state, mpl.PLUGIN_SHARE_DELETE, apps.share_delete),
        _route(state, mpl.APP_LIST, apps.app_list),
        _route(state, mpl.APP_READ, apps.app_read),
        _route(state, mpl.APP_INSTALLED, apps.app_installed),
        _route(state, m.ACCOUNT_BEDROCK_CHECK, account.bedrock_check),
        _route(state, m.THREAD_SEARCH, thread_extras.search),
        _route(state, m.THREAD_READ_STATE_UPDATE, thread_extras.read_state_update),
        _route(state, m.THREAD_SETTINGS_UPDATE, thread_extras.settings_update),
        _route(state, mg.THREAD_GOAL_SET, thread_goal.goal_set),
        _route(state, mg.THREAD_GOAL_GET, thread_goal.goal_get),
        _route(state, mg.THREAD_GOAL_CLEAR, thread_goal.goal_clear),
        _route(state, mp.THREAD_BACKGROUND_TERMINALS_LIST, background_terminals.list_terminals),
        _route(state, mp.THREAD_BACKGROUND_TERMINALS_TERMINATE, background_terminals.terminate),
        _route(state, mp.THREAD_BACKGROUND_TERMINALS_CLEAN, background_terminals.clean),
        _route(state, mp.PROCESS_SPAWN, process.spawn),
        _route(state, mp.PROCESS_WRITE_STDIN, process.write_stdin),
        _route(state, mp.PROCESS_KILL, process.kill),
        _route(state, mp.PROCESS_RESIZE_PTY, process.resize_pty),
        _route(state, mtl.THREAD_ITEMS_READ, thread_timeline.items_read),
        _route(state, mtl.THREAD_SEARCH_OCCURRENCES, thread_timeline.search_occurrences),
        _route(state, mtl.THREAD_TIMELINE_LIST, thread_timeline.timeline_list),
        _route(state, mtl.TURN_SETTINGS_UPDATE, thread_timeline.turn_settings_update),
        _route(state, m.MCP_SERVER_STATUS_LIST, mcp.status_list),
        _route(state, m.CONFIG_MCP_SERVER_RELOAD, mcp.reload),
        _route(state, m.MCP_SERVER_TOOL_CALL, mcp.tool_call),
        _route(state, m.MCP_SERVER_RESOURCE_READ, mcp.resource_read),
        _route(state, msec.THREAD_SECTION_LIST, thread_section.section_list),
        _route(state, msec.THREAD_SECTION_CREATE, thread_section.section_create),
        _route(state, msec.THREAD_SECTION_UPDATE, thread_section.section_update),
        _route(state, msec.THREAD_SECTION_DELETE, thread_section.section_delete),
        _route(state, msec.THREAD_SECTION_MOVE, thread_section.move),
        _route(state, msec.THREAD_METADATA_UPDATE, thread_metadata.metadata_update),
        _route(state, msec.THREAD_INJECT_ITEMS, thread_metadata.inject_items),
        _route(state, mdesk.THREAD_ATTACHMENT_ADD, thread_attachment.add),
        _route(state, mdesk.THREAD_ATTACHMENT_LIST, thread_attachment.list_),
        _route(state, mdesk.THREAD_ATTACHMENT_REMOVE, thread_attachment.remove),
        _route(state, mdesk.THREAD_ATTACHMENT_OWNER_LIST, thread_attachment.owner_list),
        _route(state, mdesk.THREAD_APPROVE_GUARDIAN_DENIED_ACTION, thread_guardian.approve),
        _route(state, mq.THREAD_QUEUE_ADD, thread_queue.add),
        _route(state, mq.THREAD_QUEUE_LIST, thread_queue.list_),
        _route(state, mq.THREAD_QUEUE_UPDATE, thread_queue.update),
        _route(state, mq.THREAD_QUEUE_DELETE, thread_queue.delete),
        _route(state, mq.THREAD_QUEUE_REORDER, thread_queue.reorder),
        _route(state, mq.THREAD_QUEUE_START, thread_queue.start),
        _route(state, mpj.PROJECT_LIST, project.list_),
        _route(state, mpj.PROJECT_READ, project.read),
        _route(state, mpj.PROJECT_CREATE, project.create),
        _route(state, mpj.PROJECT_IMPORT, project.import_),
        _route(state, mpj.PROJECT_UPDATE, project.update),
        _route(state, mpj.PROJECT_MOVE, project.move),
        _route(state, mpj.PROJECT_DELETE, project.delete),
        _route(state, ms.MODEL_PROVIDER_LIST, model_provider.provider_list),
        _route(state, ms.MODEL_PROVIDER_CAPABILITIES_READ, model_provider.capabilities_read),
        _route(state, ms.EXPERIMENTAL_FEATURE_LIST, experimental_feature.feature_list),
        _route(state, ms.EXPERIMENTAL_FEATURE_ENABLEMENT_SET, experimental_feature.enablement_set),
        _route(state, ms.PERMISSION_PROFILE_LIST, experimental_feature.permission_profile_list),
        _route(state, ms.ACCOUNT_RATE_LIMITS_READ, account_limits.rate_limits_read),
        _route(state, ms.ACCOUNT_USAGE_READ, account_limits.usage_read),
        _route(state, ms.ACCOUNT_WORKSPACE_MESSAGES_READ, account_limits.workspace_messages_read),
        _route(state, ms.ACCOUNT_SECURITY_SETUP_READ, account_limits.security_setup_read),
        _route(state, ms.ACCOUNT_LOGIN_CANCEL, account_limits.login_cancel),
        _route(state, ms.FEEDBACK_SAVE, feedback.save),
        _route(state, ms.FEEDBACK_UPLOAD, feedback.upload),
    ]
    return {route.spec.name: route for route in routes}
