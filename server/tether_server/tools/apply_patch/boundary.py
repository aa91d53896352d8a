"""Where a patch may write without asking: the same boundary the sandbox draws for commands.

The writable roots and the protected paths under them (`.git`, `.codex`, `.agents`, a `.git`
file's gitdir) come from `sandbox.mounts.plan_mounts`, the function that plans the bwrap mounts,
so patches and commands cannot drift apart; the hidden paths are the ones the daemon hides from
commands. Each target is judged twice, as
spelled (`..` folded) and after resolving symlinks; `writer` then walks the resolved path with
`O_NOFOLLOW` so what was judged is what gets written.

Three outcomes per path: inside (write), escalation (the approval policy decides, as for a
command that asks to leave the sandbox), private (never written, even when approved: the
daemon's home holds the database, the exec-policy rules and the tokens).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tether_server.errors import SandboxError, TetherError
from tether_server.sandbox.mounts import PROTECTED_NAMES, plan_mounts
from tether_server.sandbox.policy import SandboxPolicy
from tether_server.tools.apply_patch.apply import apply_planned
from tether_server.tools.apply_patch.model import Hunk, PatchRefusedError, PlannedChange, UpdateFile
from tether_server.tools.apply_patch.writer import Identity, WriteGuard, identities, resolve_target

OUTSIDE_REASON = "writing outside of the project; rejected by user approval settings"
PRIVATE_REASON = "the daemon's private files (its home, rules, sockets, tokens) are never written by a patch"
PROTECTED_REASON = "writing to a protected path (.git, .codex, .agents); rejected by user approval settings"
HIDDEN_REASON = "writing to a path hidden from sandboxed commands; rejected by user approval settings"
SYMLINK_REASON = "writing through a symlink that leaves the project; rejected by user approval settings"


def _within(path: Path, parents: Iterable[Path]) -> bool:
    return any(path == parent or path.is_relative_to(parent) for parent in parents)


@dataclass(frozen=True)
class Escalation:
    """A path outside the boundary and why; the approval policy decides whether it is written."""

    path: Path
    reason: str


@dataclass(frozen=True)
class PatchBoundary:
    """The writable roots and forbidden places for one turn.

    Attributes:
        roots: canonical writable roots; None when the sandbox restricts nothing.
        spelled_roots: the roots as configured, for the `..`-folded check.
        protected: canonical protected paths (never written without approval).
        hidden: paths hidden from sandboxed commands that are not the daemon's own (the user's
            credential stores, host sockets): never written without approval.
        private: canonical private paths (never written).
    """

    roots: tuple[Path, ...] | None
    spelled_roots: tuple[Path, ...] = ()
    protected: tuple[Path, ...] = ()
    hidden: tuple[Path, ...] = ()
    private: tuple[Path, ...] = ()
    # Taken when the boundary is drawn, so a later rename cannot change what they name.
    private_ids: frozenset[Identity] = frozenset()
    protected_ids: frozenset[Identity] = frozenset()

    @classmethod
    def for_turn(
        cls,
        sandbox_policy: Mapping[str, Any],
        cwd: Path,
        env: Mapping[str, str],
        private_paths: Sequence[Path] = (),
        hidden_paths: Sequence[Path] = (),
    ) -> PatchBoundary:
        """The boundary for a turn with this (wire) sandbox policy and policy cwd.

        Args:
            sandbox_policy: the turn's policy (wire form).
            cwd: the thread's working directory, never a directory the model named.
            env: the commands' environment (for `$TMPDIR`).
            private_paths: the daemon's home and private files: never written.
            hidden_paths: other paths hidden from commands: written only when approved.
        """
        private = _both_spellings(private_paths)
        if sandbox_policy.get("type") in ("dangerFullAccess", "externalSandbox"):
            return cls(None, private=private, private_ids=identities(private))
        try:
            policy = SandboxPolicy.from_wire(sandbox_policy)
            plan = plan_mounts(policy, cwd, env=env, hidden_paths=[*private_paths, *hidden_paths])
        except (SandboxError, TetherError):
            # The sandbox would refuse to run here at all (missing cwd, a symlinked `.git`):
            # every write needs approval.
            return cls((), private=private, private_ids=identities(private))
        spelled = tuple(Path(os.path.normpath(r)) for r in policy.effective_writable_roots(cwd, env))
        protected = (*plan.read_only_paths, *plan.stub_paths, *plan.placeholder_files)
        hidden = _both_spellings(hidden_paths)
        return cls(
            roots=plan.writable_roots,
            spelled_roots=spelled,
            protected=protected,
            hidden=hidden,
            private=private,
            private_ids=identities(private),
            protected_ids=identities((*protected, *hidden)),
        )

    def _private(self, path: Path, resolved: Path) -> bool:
        return _within(path, self.private) or _within(resolved, self.private)

    def escalation(self, path: Path, resolved: Path) -> Escalation | None:
        """Why writing `path` (landing on canonical `resolved`) needs approval; None when inside."""
        if self.roots is None:
            return None
        lexical = Path(os.path.normpath(path))
        if _within(lexical, self.hidden) or _within(resolved, self.hidden):
            return Escalation(path, HIDDEN_REASON)
        spelled_owners = [r for r in (*self.spelled_roots, *self.roots) if _within(lexical, [r])]
        if not spelled_owners:
            return Escalation(path, OUTSIDE_REASON)
        owners = [root for root in self.roots if _within(resolved, [root])]
        if not owners:
            return Escalation(path, SYMLINK_REASON)
        if (
            _within(resolved, self.protected)
            or _protected_name(resolved, owners)
            or _protected_name(lexical, spelled_owners)
        ):
            return Escalation(path, PROTECTED_REASON)
        return None

    def check_private(self, hunks: Sequence[Hunk], cwd: Path) -> None:
        """Refuse a patch naming a private path, before any of its files is read.

        Raises:
            PatchRefusedError: some target or move destination is private.
        """
        for hunk in hunks:
            targets = [cwd / hunk.path]
            if isinstance(hunk, UpdateFile) and hunk.move_path is not None:
                targets.append(cwd / hunk.move_path)
            for target in targets:
                lexical = Path(os.path.normpath(target))
                if self._private(lexical, resolve_target(lexical, keep_link=False)) or self._private(
                    lexical, resolve_target(lexical, keep_link=True)
                ):
                    raise PatchRefusedError(f"{PRIVATE_REASON}: {target}")

    def check(self, changes: Sequence[PlannedChange]) -> CheckedPatch:
        """Resolve every target once and judge it; the writer later uses exactly these paths."""
        landing: dict[tuple[Path, bool], Path] = {}
        found: list[Escalation] = []
        for change in changes:
            for path, keep_link in _targets(change):
                resolved = landing.setdefault((path, keep_link), resolve_target(path, keep_link=keep_link))
                if self._private(Path(os.path.normpath(path)), resolved):
                    raise PatchRefusedError(f"{PRIVATE_REASON}: {path}")
                escalation = self.escalation(path, resolved)
                if escalation is not None and all(e.path != path for e in found):
                    found.append(escalation)
        return CheckedPatch(tuple(changes), landing, tuple(found), self)

    def guard(self, *, approved: bool) -> WriteGuard:
        """What the writer re-checks on every directory it opens (by identity, so a rename cannot
        smuggle a protected directory in under an allowed name); approval lifts all but `private`."""
        return WriteGuard(self.private_ids if approved else self.private_ids | self.protected_ids)


def _targets(change: PlannedChange) -> list[tuple[Path, bool]]:
    """(path, keep_link) for each path a change writes or removes.

    A delete, and a move's source, remove the link itself rather than what it points to.
    """
    if change.kind == "delete":
        return [(change.path, True)]
    if change.move_path is None:
        return [(change.path, False)]
    return [(change.path, True), (change.move_path, False)]


@dataclass(frozen=True)
class CheckedPatch:
    """Planned changes with the canonical paths they were judged on and the approvals they need."""

    changes: tuple[PlannedChange, ...]
    landing: dict[tuple[Path, bool], Path] = field(repr=False)
    escalations: tuple[Escalation, ...]
    boundary: PatchBoundary = field(repr=False)

    @property
    def reason(self) -> str | None:
        """The first escalation's reason, for the model when the approval policy refuses."""
        return self.escalations[0].reason if self.escalations else None

    def apply(self) -> None:
        """Write the changes at the judged paths; call only once any escalation was approved.

        Raises:
            PatchApplyError: an I/O failure or a symlink/protected path met while writing.
        """
        guard = self.boundary.guard(approved=bool(self.escalations))
        apply_planned(self.changes, lambda path, keep: self.landing[(path, keep)], guard)


def _both_spellings(paths: Sequence[Path]) -> tuple[Path, ...]:
    """Each path `..`-folded and resolved, so a check matches it however the target is spelled."""
    return tuple(dict.fromkeys(p for path in paths for p in (Path(os.path.normpath(path)), path.resolve())))


def _protected_name(path: Path, roots: Sequence[Path]) -> bool:
    """A `.git`/`.codex`/`.agents` component below the deepest root holding `path`.

    Stricter than the sandbox, which protects these names only directly under a root: a nested
    repository's `.git/config` runs hooks under host git just the same.
    """
    root = max(roots, key=lambda r: len(r.parts))
    return any(part in PROTECTED_NAMES for part in path.relative_to(root).parts)
