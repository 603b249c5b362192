"""Who is at the other end of a call: the client address that per-address limits count.

The address is the connection's peer (gRPC ``context.peer()``, ASGI ``scope["client"]``). A
proxy in front of the referee is every client's peer, so when the peer is a proxy the
operator names (``--trusted-proxy CIDR``, repeatable) the address is taken from what the
proxy forwards: ``X-Forwarded-For`` read from the right, past every trusted proxy, to the
first address that is not one (what was written left of it, the client could have made up);
else ``X-Real-IP``. From any other peer those headers are ignored: a client cannot pick its
own address.

An IPv6 address counts as its /64 network: one subscriber is commonly given a whole /64, so
counting single addresses would give it as many budgets as it likes.

>>> proxies = TrustedProxies(["10.0.0.0/8"])
>>> proxies.client("198.51.100.7", "203.0.113.9")  # not a proxy: its headers are ignored
'198.51.100.7'
>>> proxies.client("10.0.0.2", "203.0.113.9, 10.0.0.5")
'203.0.113.9'
>>> proxies.client("10.0.0.2", "", "203.0.113.9")
'203.0.113.9'
>>> TrustedProxies().client("2001:db8:1:2:aaaa::1")
'2001:db8:1:2::/64'
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterable
from urllib.parse import unquote

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def parse_networks(cidrs: Iterable[str]) -> tuple[Network, ...]:
    """The networks ``cidrs`` name (``10.0.0.0/8``, ``::1``); ValueError names a bad one."""
    networks = []
    for cidr in cidrs:
        try:
            networks.append(ipaddress.ip_network(cidr.strip(), strict=False))
        except ValueError:
            raise ValueError(f"not an address or network (CIDR): {cidr!r}") from None
    return tuple(networks)


def _address(text: str) -> Address | None:
    text = text.strip()
    if text.startswith("[") and "]" in text:  # [v6]:port
        text = text[1 : text.index("]")]
    elif text.count(":") == 1:  # v4:port
        text = text.split(":", 1)[0]
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def _ipv4(text: str) -> str:
    """The IPv4 address of ``a.b.c.d:port`` (or ``a.b.c.d``) when written as
    ``ipaddress`` writes it, four decimal parts without leading zeros (the only form
    ``inet_pton`` takes); ``""`` otherwise (an IPv6 address, any other form)."""
    host = text.strip().split(":", 1)[0] if text.count(":") <= 1 else ""
    try:
        socket.inet_pton(socket.AF_INET, host)
    except OSError:
        return ""
    return host


def _key(address: Address) -> str:
    if isinstance(address, ipaddress.IPv6Address) and not address.is_loopback:
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)


class TrustedProxies:
    """The proxies whose forwarded headers are believed."""

    def __init__(self, cidrs: Iterable[str] = ()) -> None:
        self.networks = parse_networks(cidrs)

    def _trusted(self, address: Address) -> bool:
        return any(address in network for network in self.networks)

    def client(self, peer: str, forwarded_for: str = "", real_ip: str = "") -> str:
        """The client's address (as counted) of a call from ``peer`` with these headers;
        ``""`` when the peer has none (a Unix socket, an in-process call)."""
        if not self.networks:
            # No proxy is trusted: a peer's IPv4 address counts as it is written, without
            # the ipaddress parse every call would pay (most of what finding a caller costs).
            written = _ipv4(peer)
            if written:
                return written
        address = _address(peer)
        if address is None:
            return ""
        if not self._trusted(address):
            return _key(address)
        if forwarded_for:
            for hop in reversed(forwarded_for.split(",")):
                forwarded = _address(hop)
                if forwarded is None:
                    break  # not an address: nothing further left can be believed
                address = forwarded
                if not self._trusted(forwarded):
                    return _key(forwarded)
            return _key(address)
        forwarded = _address(real_ip) if real_ip else None
        return _key(forwarded if forwarded is not None else address)


def grpc_peer(peer: str) -> str:
    """The address in a gRPC peer string (``ipv4:1.2.3.4:5``, ``ipv6:[::1]:5``);
    ``""`` for any other kind (``unix:``).

    >>> grpc_peer("ipv6:[::1]:50000"), grpc_peer("ipv4:127.0.0.1:6"), grpc_peer("unix:/s")
    ('[::1]:50000', '127.0.0.1:6', '')
    """
    kind, _, rest = peer.partition(":")
    return unquote(rest) if kind in ("ipv4", "ipv6") else ""


__all__ = ["TrustedProxies", "grpc_peer", "parse_networks"]
