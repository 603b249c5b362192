"""The client address a call is counted against, with no trusted proxy: every form of peer
gives the address ``ipaddress`` finds in it (an IPv4 address as written, an IPv6 one as its
/64), whichever way the server finds it."""

from __future__ import annotations

import ipaddress
import itertools

from referee.server.addresses import TrustedProxies, grpc_peer


def _parsed(peer: str) -> str:
    """The address as ``ipaddress`` reads it, port and brackets taken off."""
    text = peer.strip()
    if text.startswith("[") and "]" in text:
        text = text[1 : text.index("]")]
    elif text.count(":") == 1:
        text = text.split(":", 1)[0]
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return ""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    if isinstance(address, ipaddress.IPv6Address) and not address.is_loopback:
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)


PARTS = ["0", "1", "9", "10", "99", "255", "256", "01", "00", "a", ""]
ENDS = ["", ":1", ":50000", ":", " ", ":x"]


def test_every_peer_counts_as_the_address_ipaddress_finds_in_it() -> None:
    proxies = TrustedProxies()
    peers = [
        "ipv4:127.0.0.1:53422",
        "ipv6:[::1]:50000",
        "ipv6:[::ffff:10.1.2.3]:9",
        "ipv6:[2001:db8:1:2:aaaa::1]:443",
        "ipv6:%5B::1%5D:5",
        "unix:/tmp/socket",
    ]
    addresses = [grpc_peer(peer) for peer in peers]
    addresses += ["1.2.3.4", " 1.2.3.4:80 ", "1.2.3.4:5:6", "2001:db8::1", "::1", "", "x"]
    for size in (3, 4, 5):
        for parts in itertools.product(PARTS[:6], repeat=size):
            addresses += [".".join(parts) + end for end in ENDS[:2]]
    for parts in itertools.product(PARTS, repeat=4):
        addresses += [".".join(parts) + end for end in ENDS]
    for address in addresses:
        assert proxies.client(address) == _parsed(address), address
