"""The Linux sandbox for spawned commands: bubblewrap + a seccomp filter, failing closed.

`probe_sandbox()` once at start; `prepare()` per command; `SandboxPolicy` is the policy.
"""

from tether_server.sandbox.policy import SandboxKind, SandboxPolicy
from tether_server.sandbox.probe import SandboxCapability, probe_sandbox
from tether_server.sandbox.runner import PreparedCommand, prepare

__all__ = ["PreparedCommand", "SandboxCapability", "SandboxKind", "SandboxPolicy", "prepare", "probe_sandbox"]
