"""Turn a policy plus the filesystem as it is now into the list of mounts bwrap should make.

This is the only impure step before the argv is built: it canonicalises roots, finds the
protected subpaths (`.git`, `.codex`, `.agents`, at the top of a root and nested below it within
`nested`'s bounds, a `.git` file's gitdir) and classifies hidden paths. Everything it returns is
absolute and canonical, so `bwrap.build_bwrap_argv` stays pure.

Two directories are kept apart: the *policy cwd* (the thread's or request's cwd), which is a
writable root under workspace-write, and the command's *workdir*, which is only where it starts.
A workdir outside the writable roots is read-only like any other path there.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from tether_server.errors import SandboxError
from tether_server.sandbox import startup, stubs
from tether_server.sandbox.hidden import home_dirs, outermost
from tether_server.sandbox.nested import nested_protected
from tether_server.sandbox.policy import SandboxPolicy

PROTECTED_NAMES: tuple[str, ...] = (".git", ".codex", ".agents")
# Protected in the policy cwd even when missing, so a command cannot plant them: a `.git/config`
# written there would run its hooks (core.fsmonitor, ...) under the user's next host `git`.
ALWAYS_PROTECTED_IN_CWD: tuple[str, ...] = (".git", ".codex")
# Never writable roots: `--bind / /` would bring the host's /proc back over the fresh one, and the
# system directories are nobody's workspace. Paths *inside* the pseudo filesystems are refused too.
SYSTEM_ROOTS: frozenset[Path] = frozenset(
    Path(p) for p in ("/", "/bin", "/boot", "/dev", "/etc", "/proc", "/run", "/sbin", "/sys", "/usr", "/var")
)
PSEUDO_FILESYSTEMS: tuple[Path, ...] = (Path("/proc"), Path("/sys"), Path("/dev"))
# Files a command needs even when their target lies in a hidden dir: with systemd-resolved,
# /etc/resolv.conf points into /run, and hiding /run would break DNS with network on.
RESOLVER_FILES: tuple[Path, ...] = (Path("/etc/resolv.conf"),)


@dataclass(frozen=True)
class MountPlan:
    """Canonical paths for each kind of mount, in the order bwrap must apply them.

    Attributes:
        workdir: where the command starts (canonical); None only in hand-built plans.
        writable_roots: bound read-write, outer roots first.
        read_only_paths: existing protected paths re-bound read-only over the writable roots.
        stub_paths: missing protected paths; an empty directory is created before the run,
            covered by a read-only tmpfs, and removed afterwards.
        placeholder_files: missing shell startup files of a home in a writable root
            (`sandbox.startup`); a placeholder is created before the run, bound read-only, and
            removed afterwards.
        hidden_dirs: covered by an empty, mode-000, read-only tmpfs.
        hidden_files: covered by `/dev/null`.
        reexposed_files: files inside a hidden dir bound back read-only (the resolver config);
            their hidden dir can be traversed but not listed.
        nested_paths: the read-only paths found below the top of a writable root; bound only
            if still there when the command starts (a nested repository removed meanwhile, say
            a test's in a shared /tmp, must not fail the command).
    """

    workdir: Path | None = None
    writable_roots: tuple[Path, ...] = ()
    read_only_paths: tuple[Path, ...] = ()
    stub_paths: tuple[Path, ...] = ()
    placeholder_files: tuple[Path, ...] = ()
    hidden_dirs: tuple[Path, ...] = ()
    hidden_files: tuple[Path, ...] = ()
    reexposed_files: tuple[Path, ...] = ()
    nested_paths: frozenset[Path] = frozenset()


def plan_mounts(
    policy: SandboxPolicy,
    cwd: Path,
    *,
    env: Mapping[str, str],
    hidden_paths: Sequence[Path] = (),
    workdir: Path | None = None,
    reexposed: Sequence[Path] = RESOLVER_FILES,
) -> MountPlan:
    """Inspect the filesystem and plan the mounts for `policy` with policy cwd `cwd`.

    Args:
        policy: the command's policy; under workspace-write `cwd` is a writable root.
        cwd: the policy cwd (absolute).
        env: the command's environment, for `$TMPDIR` and `$HOME` (its shell startup files).
        hidden_paths: paths the command must not see; nested ones are folded into their parent.
        workdir: where the command starts (absolute); `cwd` when None. Never a writable root.
        reexposed: files whose target stays readable when it lies inside a hidden dir.

    Missing extra roots, `$TMPDIR` or `/tmp` are skipped, as are roots that are system
    directories or lie inside a hidden path (less access, never more).

    Raises:
        SandboxError: cwd or workdir is missing, not a directory or hidden, or a protected path
            is a symlink.
    """
    hidden_dirs, hidden_files = _classify_hidden(outermost(hidden_paths))
    hidden = hidden_dirs + hidden_files
    real_cwd = _canonical_dir(cwd, "sandbox cwd", hidden)
    real_workdir = real_cwd if workdir is None else _canonical_dir(workdir, "working directory", hidden)
    roots = _canonical_roots(policy.effective_writable_roots(real_cwd, env), hidden)
    read_only: list[Path] = []
    missing_paths: list[Path] = []
    nested: list[Path] = []
    top: list[Path] = []
    for root in roots:
        found, missing = _protected_in(root, in_cwd=root == real_cwd)
        top += found
        read_only.extend(found)
        missing_paths.extend(missing)
        nested += nested_protected(root, PROTECTED_NAMES, roots=roots, hidden=hidden, skip=stubs.is_stub)
    read_only.extend(nested)
    read_only.extend(_gitdir_targets(read_only, roots))
    startup_existing, startup_missing = startup.startup_files(home_dirs(env), roots, hidden)
    read_only.extend(startup_existing)
    return MountPlan(
        workdir=real_workdir,
        writable_roots=roots,
        read_only_paths=tuple(dict.fromkeys(read_only)),
        stub_paths=tuple(dict.fromkeys(missing_paths)),
        placeholder_files=tuple(dict.fromkeys(startup_missing)),
        hidden_dirs=hidden_dirs,
        hidden_files=hidden_files,
        reexposed_files=_reexposed(reexposed, hidden_dirs),
        # A nested entry of one root that is the top of another (the cwd inside /tmp) stays strict.
        nested_paths=frozenset(nested) - set(top),
    )


def appeared_since(plan: MountPlan) -> list[Path]:
    """Protected entries (`.git`, `.codex`, `.agents`, top-level or nested within the walk's bounds)
    under the plan's writable roots that were not there when it was made: what a command created."""
    before = {*plan.read_only_paths, *plan.stub_paths}
    hidden = (*plan.hidden_dirs, *plan.hidden_files)
    now: list[Path] = []
    for root in plan.writable_roots:
        now += [root / name for name in PROTECTED_NAMES if os.path.lexists(root / name)]
        now += nested_protected(
            root, PROTECTED_NAMES, roots=plan.writable_roots, hidden=hidden, skip=stubs.is_stub
        )
    return [path for path in dict.fromkeys(now) if path not in before and not stubs.is_stub(path)]


def is_system_path(path: Path) -> bool:
    """True for `/`, a system directory or anything inside /proc, /sys or /dev (canonical paths)."""
    if path in SYSTEM_ROOTS or (len(path.parts) == 2 and path.name.startswith("lib")):
        return True
    return any(path.is_relative_to(p) for p in PSEUDO_FILESYSTEMS)


def _canonical_dir(path: Path, what: str, hidden: Sequence[Path]) -> Path:
    if not path.is_absolute():
        raise SandboxError(f"{what} {str(path)!r} is not an absolute path")
    real = Path(os.path.realpath(path))
    if not real.is_dir():
        raise SandboxError(f"{what} {str(path)!r} does not exist or is not a directory")
    cover = next((h for h in hidden if real.is_relative_to(h)), None)
    if cover is not None:
        raise SandboxError(
            f"refusing to sandbox: {what} {str(path)!r} lies inside {str(cover)!r}, which is hidden "
            "from sandboxed commands; run the command elsewhere"
        )
    return real


def _canonical_roots(roots: Iterable[Path], hidden: Sequence[Path]) -> tuple[Path, ...]:
    real = [Path(os.path.realpath(r)) for r in roots]
    existing = dict.fromkeys(
        r
        for r in real
        if r.is_dir() and not is_system_path(r) and not any(r.is_relative_to(h) for h in hidden)
    )
    return tuple(sorted(existing, key=lambda p: len(p.parts)))


def _protected_in(root: Path, *, in_cwd: bool) -> tuple[list[Path], list[Path]]:
    found: list[Path] = []
    missing: list[Path] = []
    for name in PROTECTED_NAMES:
        path = root / name
        if stubs.is_stub(path):
            missing.append(path)
            continue
        try:
            mode = path.lstat().st_mode
        except FileNotFoundError:
            if in_cwd and name in ALWAYS_PROTECTED_IN_CWD:
                missing.append(path)
            continue
        if stat.S_ISLNK(mode):
            raise SandboxError(
                f"refusing to sandbox: protected path {str(path)!r} is a symlink; "
                "replace it with a real directory or run with danger-full-access"
            )
        found.append(path)
    return found, missing


def _gitdir_targets(protected: Iterable[Path], roots: Sequence[Path]) -> list[Path]:
    """The gitdirs named by `.git` pointer files, when they lie inside a writable root."""
    targets: list[Path] = []
    for path in protected:
        if path.name != ".git" or not path.is_file():
            continue
        target = _read_gitdir(path)
        if target is not None and target.exists() and any(target.is_relative_to(r) for r in roots):
            targets.append(target)
    return targets


def _read_gitdir(git_file: Path) -> Path | None:
    try:
        first = git_file.read_text(encoding="utf-8", errors="replace").splitlines()[0]
    except (OSError, IndexError):
        return None
    prefix = "gitdir:"
    if not first.startswith(prefix):
        return None
    target = Path(first[len(prefix) :].strip())
    return Path(os.path.realpath(git_file.parent / target))


def _reexposed(paths: Sequence[Path], hidden_dirs: Sequence[Path]) -> tuple[Path, ...]:
    found: list[Path] = []
    for path in paths:
        real = Path(os.path.realpath(path))
        if real.is_file() and any(real.is_relative_to(d) for d in hidden_dirs):
            found.append(real)
    return tuple(dict.fromkeys(found))


def _classify_hidden(paths: Sequence[Path]) -> tuple[tuple[Path, ...], tuple[Path, ...]]:
    dirs: list[Path] = []
    files: list[Path] = []
    for path in paths:
        real = Path(os.path.realpath(path))
        if real.is_dir():
            dirs.append(real)
        elif real.exists():
            files.append(real)
    return tuple(dict.fromkeys(dirs)), tuple(dict.fromkeys(files))
