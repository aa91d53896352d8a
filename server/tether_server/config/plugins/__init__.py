"""Plugins and marketplaces, kept under `$TETHER_HOME/plugins` (see `registry`).

Other areas need one thing from here: `installed_plugin_contributions(home)`, the skill folders,
MCP servers and hook configs of the installed, enabled plugins.
"""

from tether_server.config.plugins.contributions import (
    PluginContributions,
    PluginHooks,
    PluginSkillRoot,
    installed_plugin_contributions,
)

__all__ = ["PluginContributions", "PluginHooks", "PluginSkillRoot", "installed_plugin_contributions"]
