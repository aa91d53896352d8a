"""A classic-BPF seccomp program, generated here, handed to `bwrap --seccomp FD`.

The program reads `struct seccomp_data` (little-endian: nr at 0, arch at 4, args[0] low word at
16). Default action is allow; denied calls return EPERM so programs see an ordinary error. A
foreign `arch` (e.g. i386 `int 0x80` on x86_64, which would bypass every number check) kills the
process.
"""

from __future__ import annotations

import errno
import functools
import os
import platform
import socket
import struct
from dataclasses import dataclass

from tether_server.errors import SandboxError

BPF_LD_W_ABS = 0x20
BPF_JEQ_K = 0x15
BPF_JGE_K = 0x35
BPF_RET_K = 0x06
BPF_ALU_AND_K = 0x54

SECCOMP_RET_KILL_PROCESS = 0x80000000
SECCOMP_RET_ERRNO = 0x00050000
SECCOMP_RET_ALLOW = 0x7FFF0000

OFFSET_NR = 0
OFFSET_ARCH = 4
OFFSET_ARG0_LOW = 16
OFFSET_ARG1_LOW = 24

X32_SYSCALL_BIT = 0x40000000
AF_UNIX = int(socket.AF_UNIX)
SOCK_DGRAM = int(socket.SOCK_DGRAM)
# The socket type without SOCK_NONBLOCK / SOCK_CLOEXEC, as the kernel masks it.
SOCK_TYPE_MASK = 0xF
AF_VSOCK = 40


@dataclass(frozen=True)
class ArchTable:
    """Audit arch value and the syscall numbers the filter needs, for one architecture."""

    name: str
    audit_arch: int
    has_x32: bool
    numbers: dict[str, int]


# (name, x86_64 number, aarch64 number)
_SYSCALLS: tuple[tuple[str, int, int], ...] = (
    ("socket", 41, 198),
    ("socketpair", 53, 199),
    ("ptrace", 101, 117),
    ("process_vm_readv", 310, 270),
    ("process_vm_writev", 311, 271),
    ("io_uring_setup", 425, 425),
    ("io_uring_enter", 426, 426),
    ("io_uring_register", 427, 427),
    ("connect", 42, 203),
    ("accept", 43, 202),
    ("sendto", 44, 206),
    ("shutdown", 48, 210),
    ("bind", 49, 200),
    ("listen", 50, 201),
    ("getsockname", 51, 204),
    ("getpeername", 52, 205),
    ("setsockopt", 54, 208),
    ("getsockopt", 55, 209),
    ("accept4", 288, 242),
    ("recvmmsg", 299, 243),
    ("sendmmsg", 307, 269),
)
STRICT_NETWORK_SYSCALLS: tuple[str, ...] = (
    "connect",
    "accept",
    "accept4",
    "bind",
    "listen",
    "getpeername",
    "getsockname",
    "shutdown",
    "sendto",
    "sendmmsg",
    "recvmmsg",
    "getsockopt",
    "setsockopt",
)
IO_URING_SYSCALLS: tuple[str, ...] = ("io_uring_setup", "io_uring_enter", "io_uring_register")
DENIED_WHEN_NETWORK_OFF: tuple[str, ...] = (
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    *IO_URING_SYSCALLS,
)

ARCHES: dict[str, ArchTable] = {
    "x86_64": ArchTable(
        name="x86_64", audit_arch=0xC000003E, has_x32=True, numbers={n: x for n, x, _ in _SYSCALLS}
    ),
    "aarch64": ArchTable(
        name="aarch64", audit_arch=0xC00000B7, has_x32=False, numbers={n: a for n, _, a in _SYSCALLS}
    ),
}
_MACHINE_ALIASES = {"amd64": "x86_64", "arm64": "aarch64"}


def host_arch() -> ArchTable:
    """The table for the running machine.

    Raises:
        SandboxError: the architecture has no syscall table here.
    """
    machine = platform.machine().lower()
    table = ARCHES.get(_MACHINE_ALIASES.get(machine, machine))
    if table is None:
        raise SandboxError(f"no seccomp syscall table for architecture {machine!r}")
    return table


def build_program(*, network_access: bool, strict: bool = True, arch: ArchTable | None = None) -> bytes:
    """The filter as packed `struct sock_filter` entries.

    Args:
        network_access: False denies `socket`/`socketpair` for every family but AF_UNIX, plus
            ptrace, process_vm_* and io_uring; True denies only AF_VSOCK sockets and io_uring.
        strict: with network off, also deny connect/bind/listen/accept/... for every family, and
            AF_UNIX datagram sockets from `socket` (not `socketpair`).
        arch: syscall table; the host's by default.
    """
    table = arch or host_arch()
    asm = _Assembler()
    asm.load(OFFSET_ARCH)
    asm.jump_eq(table.audit_arch, "check_nr", "kill")
    asm.label("check_nr")
    asm.load(OFFSET_NR)
    if table.has_x32:
        asm.jump_ge(X32_SYSCALL_BIT, "deny", None)
    denied = _denied_outright(network_access=network_access, strict=strict)
    for name in denied:
        asm.jump_eq(table.numbers[name], "deny", None)
    datagrams_off = not network_access and strict
    asm.jump_eq(table.numbers["socket"], "check_socket" if datagrams_off else "check_family", None)
    asm.jump_eq(table.numbers["socketpair"], "check_family", None)
    asm.ret("allow_other", SECCOMP_RET_ALLOW)
    if datagrams_off:
        # connect and sendto are denied, but sendmsg (which socketpair users need, for passing
        # descriptors) takes a destination too: an unbound AF_UNIX datagram socket could still send
        # to any host socket file it can see (/dev/log, a NOTIFY_SOCKET). Such a socket is good for
        # nothing else here, so it is not made; socketpair's datagrams stay.
        asm.label("check_socket")
        asm.load(OFFSET_ARG0_LOW)
        asm.jump_eq(AF_UNIX, None, "deny")
        asm.load(OFFSET_ARG1_LOW)
        asm.alu_and(SOCK_TYPE_MASK)
        asm.jump_eq(SOCK_DGRAM, "deny", "allow")
    asm.label("check_family")
    asm.load(OFFSET_ARG0_LOW)
    if network_access:
        asm.jump_eq(AF_VSOCK, "deny", "allow")
    else:
        asm.jump_eq(AF_UNIX, "allow", "deny")
    # Classic BPF only jumps forward, hence a second allow after the family check.
    asm.ret("allow", SECCOMP_RET_ALLOW)
    asm.ret("deny", SECCOMP_RET_ERRNO | errno.EPERM)
    asm.ret("kill", SECCOMP_RET_KILL_PROCESS)
    return asm.assemble()


def _denied_outright(*, network_access: bool, strict: bool) -> tuple[str, ...]:
    if network_access:
        return IO_URING_SYSCALLS
    return DENIED_WHEN_NETWORK_OFF + (STRICT_NETWORK_SYSCALLS if strict else ())


def write_memfd(program: bytes) -> int:
    """Write `program` to a close-on-exec memfd, rewound for bwrap to read; returns the fd."""
    fd = os.memfd_create("tether-seccomp", os.MFD_CLOEXEC)
    try:
        os.write(fd, program)
        os.lseek(fd, 0, os.SEEK_SET)
    except OSError:
        os.close(fd)
        raise
    return fd


class _Assembler:
    """Emits instructions with symbolic jump targets; `None` means "next instruction"."""

    def __init__(self) -> None:
        self._code: list[tuple[int, str | None, str | None, int]] = []
        self._labels: dict[str, int] = {}

    def label(self, name: str) -> None:
        self._labels[name] = len(self._code)

    def load(self, offset: int) -> None:
        self._code.append((BPF_LD_W_ABS, None, None, offset))

    def jump_eq(self, value: int, true: str | None, false: str | None) -> None:
        self._code.append((BPF_JEQ_K, true, false, value))

    def jump_ge(self, value: int, true: str | None, false: str | None) -> None:
        self._code.append((BPF_JGE_K, true, false, value))

    def alu_and(self, value: int) -> None:
        self._code.append((BPF_ALU_AND_K, None, None, value))

    def ret(self, label: str, action: int) -> None:
        self.label(label)
        self._code.append((BPF_RET_K, None, None, action))

    def assemble(self) -> bytes:
        out = bytearray()
        for index, (code, true, false, k) in enumerate(self._code):
            out += struct.pack("=HBBI", code, self._offset(index, true), self._offset(index, false), k)
        return bytes(out)

    def _offset(self, index: int, label: str | None) -> int:
        if label is None:
            return 0
        offset = self._labels[label] - index - 1
        if not 0 <= offset <= 255:
            raise SandboxError(f"seccomp jump to {label!r} out of range ({offset})")
        return offset


@functools.lru_cache(maxsize=8)
def host_program(*, network_access: bool, strict: bool = True) -> bytes:
    """`build_program` for this machine's architecture, built once per setting (commands are frequent)."""
    return build_program(network_access=network_access, strict=strict)
