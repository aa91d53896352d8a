"""The generated seccomp program, decoded and run through a small classic-BPF interpreter."""

from __future__ import annotations

import errno
import socket
import struct

import pytest

from tether_server.sandbox.seccomp import (
    ARCHES,
    IO_URING_SYSCALLS,
    SECCOMP_RET_ALLOW,
    SECCOMP_RET_ERRNO,
    SECCOMP_RET_KILL_PROCESS,
    STRICT_NETWORK_SYSCALLS,
    ArchTable,
    build_program,
    host_arch,
)

EPERM = SECCOMP_RET_ERRNO | errno.EPERM
AUDIT_ARCH_I386 = 0x40000003
AF_VSOCK = 40


def run_filter(program: bytes, *, arch: int, nr: int, arg0: int = 0, arg1: int = 0) -> int:
    """Interpret the program over one `struct seccomp_data`; returns the action."""
    data = struct.pack("=iIQ6Q", nr, arch, 0, arg0, arg1, 0, 0, 0, 0)
    insns = [struct.unpack_from("=HBBI", program, i) for i in range(0, len(program), 8)]
    pc, acc = 0, 0
    while True:
        code, jt, jf, k = insns[pc]
        pc += 1
        if code == 0x20:  # ld word abs
            acc = int(struct.unpack_from("=I", data, k)[0])
        elif code == 0x15:  # jeq k
            pc += jt if acc == k else jf
        elif code == 0x35:  # jge k
            pc += jt if acc >= k else jf
        elif code == 0x54:  # and k
            acc &= k
        elif code == 0x06:  # ret k
            return int(k)
        else:
            raise AssertionError(f"unexpected opcode {code:#x}")


@pytest.fixture(params=sorted(ARCHES))
def table(request: pytest.FixtureRequest) -> ArchTable:
    return ARCHES[request.param]


def call(program: bytes, table: ArchTable, name: str, arg0: int = 0, arg1: int = 0) -> int:
    return run_filter(program, arch=table.audit_arch, nr=table.numbers[name], arg0=arg0, arg1=arg1)


def test_network_off_denies_every_socket_family_but_unix(table: ArchTable) -> None:
    program = build_program(network_access=False, arch=table)
    for family in (socket.AF_INET, socket.AF_INET6, socket.AF_NETLINK, AF_VSOCK, socket.AF_PACKET):
        assert call(program, table, "socket", family) == EPERM
        assert call(program, table, "socketpair", family) == EPERM
    assert call(program, table, "socket", socket.AF_UNIX) == SECCOMP_RET_ALLOW
    assert call(program, table, "socketpair", socket.AF_UNIX) == SECCOMP_RET_ALLOW


def test_only_the_low_word_of_the_family_argument_counts(table: ArchTable) -> None:
    program = build_program(network_access=False, arch=table)
    assert call(program, table, "socket", (1 << 32) | socket.AF_INET) == EPERM


def test_network_off_denies_ptrace_process_vm_and_io_uring(table: ArchTable) -> None:
    program = build_program(network_access=False, strict=False, arch=table)
    for name in ("ptrace", "process_vm_readv", "process_vm_writev", *IO_URING_SYSCALLS):
        assert call(program, table, name) == EPERM


def test_strict_mode_denies_the_socket_calls_for_every_family(table: ArchTable) -> None:
    strict = build_program(network_access=False, strict=True, arch=table)
    lenient = build_program(network_access=False, strict=False, arch=table)
    for name in STRICT_NETWORK_SYSCALLS:
        assert call(strict, table, name) == EPERM
        assert call(lenient, table, name) == SECCOMP_RET_ALLOW


def test_network_on_denies_only_vsock_and_io_uring(table: ArchTable) -> None:
    program = build_program(network_access=True, arch=table)
    assert call(program, table, "socket", AF_VSOCK) == EPERM
    assert call(program, table, "socket", socket.AF_INET) == SECCOMP_RET_ALLOW
    assert call(program, table, "connect") == SECCOMP_RET_ALLOW
    assert call(program, table, "ptrace") == SECCOMP_RET_ALLOW
    for name in IO_URING_SYSCALLS:
        assert call(program, table, name) == EPERM


def test_ordinary_syscalls_are_allowed(table: ArchTable) -> None:
    program = build_program(network_access=False, arch=table)
    for nr in (0, 1, 2, 3, 57, 59, 63, 64, 221, 231):
        assert run_filter(program, arch=table.audit_arch, nr=nr) == SECCOMP_RET_ALLOW


@pytest.mark.parametrize("network_access", [False, True])
def test_a_foreign_architecture_kills_the_process(table: ArchTable, network_access: bool) -> None:
    program = build_program(network_access=network_access, arch=table)
    assert run_filter(program, arch=AUDIT_ARCH_I386, nr=1) == SECCOMP_RET_KILL_PROCESS
    other = next(t for t in ARCHES.values() if t is not table)
    assert run_filter(program, arch=other.audit_arch, nr=0) == SECCOMP_RET_KILL_PROCESS


def test_x32_syscalls_are_denied_on_x86_64() -> None:
    table = ARCHES["x86_64"]
    program = build_program(network_access=True, arch=table)
    assert run_filter(program, arch=table.audit_arch, nr=0x40000000 | 41, arg0=socket.AF_UNIX) == EPERM


def test_the_host_architecture_has_a_table() -> None:
    assert host_arch().name in ARCHES


def test_strict_network_off_denies_unix_datagram_sockets_but_not_socketpairs(table: ArchTable) -> None:
    program = build_program(network_access=False, arch=table)
    unix, dgram, stream = int(socket.AF_UNIX), int(socket.SOCK_DGRAM), int(socket.SOCK_STREAM)
    flags = int(socket.SOCK_NONBLOCK | socket.SOCK_CLOEXEC)
    assert call(program, table, "socket", unix, dgram) == EPERM
    assert call(program, table, "socket", unix, dgram | flags) == EPERM
    assert call(program, table, "socket", unix, stream | flags) == SECCOMP_RET_ALLOW
    assert call(program, table, "socket", unix, int(socket.SOCK_SEQPACKET)) == SECCOMP_RET_ALLOW
    assert call(program, table, "socketpair", unix, dgram) == SECCOMP_RET_ALLOW
    assert call(program, table, "socket", int(socket.AF_INET), stream) == EPERM
    lenient = build_program(network_access=False, strict=False, arch=table)
    assert call(lenient, table, "socket", unix, dgram) == SECCOMP_RET_ALLOW
    network_on = build_program(network_access=True, arch=table)
    assert call(network_on, table, "socket", unix, dgram) == SECCOMP_RET_ALLOW
