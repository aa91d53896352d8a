"""Who is at the other end of a loopback TCP connection, before a bearer token is sent there.

While the daemon is down, any local user can listen on its port; a client that sent the token it
read from `$TETHER_HOME/ws-token` would hand it to them. On Linux the kernel tells who owns the
peer socket: `/proc/net/tcp{,6}` lists every TCP socket of this network namespace with the uid of
the process that opened it (a connection accepted by a listener carries the listener's uid, and
one still waiting in its queue is listed with the listener's uid too).
"""

from __future__ import annotations

import ipaddress
import os
import socket
import sys
from pathlib import Path

from tether_client.errors import ForeignListener

_TABLES = (Path("/proc/net/tcp"), Path("/proc/net/tcp6"))
_ROOT = 0

IpAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Endpoint = tuple[IpAddress, int]


def check_listener(sock: socket.socket, url: str) -> None:
    """Refuse a connected loopback socket whose peer is not ours (root's is: root can read our files).

    Where the kernel does not publish its socket tables (not Linux), nothing can be checked.

    Raises:
        ForeignListener: another user listens there, or the peer cannot be found in the tables.
    """
    if not _TABLES[0].exists():
        return
    local = _endpoint(sock.getsockname())
    remote = _endpoint(sock.getpeername())
    owner = peer_uid(local, remote)
    if owner is None:
        raise ForeignListener(
            f"cannot tell which user listens on {url}; not sending the bearer token there "
            "(connect through the control socket, unix://, instead)"
        )
    if owner not in (os.geteuid(), _ROOT):
        raise ForeignListener(
            f"{url} is held by another user (uid {owner}), not by your daemon; not sending the "
            "bearer token there. Is the daemon running? (the control socket, unix://, cannot be "
            "impersonated)"
        )


def peer_uid(local: Endpoint, remote: Endpoint) -> int | None:
    """The uid of the socket whose address is `remote` and whose peer is `local`, if listed."""
    # The ports are compared as printed first: a busy machine lists thousands of sockets.
    remote_port, local_port = f":{remote[1]:04X}", f":{local[1]:04X}"
    for table in _TABLES:
        try:
            lines = table.read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if len(fields) < 8 or not fields[1].endswith(remote_port) or not fields[2].endswith(local_port):
                continue
            if _parse(fields[1]) == remote and _parse(fields[2]) == local:
                return int(fields[7])
    return None


def _endpoint(address: tuple[str, int] | tuple[str, int, int, int]) -> Endpoint:
    return _unmapped(ipaddress.ip_address(address[0].partition("%")[0])), int(address[1])


def _unmapped(ip: IpAddress) -> IpAddress:
    # A dual-stack listener's connections from 127.0.0.1 are listed in tcp6 as ::ffff:127.0.0.1.
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


def _parse(text: str) -> Endpoint | None:
    """`0100007F:1F90` → (127.0.0.1, 8080): each 32-bit word is printed in the host's byte order."""
    address, _, port = text.partition(":")
    try:
        raw = bytes.fromhex(address)
        number = int(port, 16)
    except ValueError:
        return None
    if sys.byteorder == "little":
        raw = b"".join(raw[i : i + 4][::-1] for i in range(0, len(raw), 4))
    if len(raw) == 4:
        return ipaddress.IPv4Address(raw), number
    if len(raw) == 16:
        return _unmapped(ipaddress.IPv6Address(raw)), number
    return None
