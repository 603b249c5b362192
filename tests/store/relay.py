"""A TCP relay in front of a real PostgreSQL that cuts a connection right after the database
answered an append: the append has committed, and the referee never hears so (an
``uncertain`` store fault, as a network cut or a database failover makes one). It can also
black-hole the store: while paused, connections stay open (new ones are accepted) and nothing
is forwarded either way, as a network path that drops packets without resetting anything."""

from __future__ import annotations

import contextlib
import socket
import threading


class CuttingRelay:
    """Relays TCP connections to ``upstream``; :meth:`arm` makes it cut the next connection
    that asks for ``referee_append`` once the database has answered it."""

    def __init__(self, upstream: tuple[str, int]) -> None:
        self.upstream = upstream
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = int(self.listener.getsockname()[1])
        self._armed = threading.Event()
        self.cut = threading.Event()
        #: Clear while paused: nothing is read or forwarded, no connection is made upstream.
        self._flowing = threading.Event()
        self._flowing.set()
        threading.Thread(target=self._accept, daemon=True).start()

    def arm(self) -> None:
        self.cut.clear()
        self._armed.set()

    def pause(self) -> None:
        """Stop forwarding (connections stay open; what is sent meanwhile waits)."""
        self._flowing.clear()

    def resume(self) -> None:
        """Forward again, what waited first."""
        self._flowing.set()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._open, args=(client,), daemon=True).start()

    def _open(self, client: socket.socket) -> None:
        self._flowing.wait()
        try:
            server = socket.create_connection(self.upstream)
        except OSError:
            client.close()
            return
        asked = threading.Event()  # this connection sent referee_append while armed
        threading.Thread(target=self._up, args=(client, server, asked), daemon=True).start()
        threading.Thread(target=self._down, args=(server, client, asked), daemon=True).start()

    def _up(self, client: socket.socket, server: socket.socket, asked: threading.Event) -> None:
        with contextlib.suppress(OSError):
            while self._flowing.wait() and (data := client.recv(65536)):
                self._flowing.wait()
                if self._armed.is_set() and b"referee_append" in data:
                    self._armed.clear()
                    asked.set()
                server.sendall(data)
        self._flowing.wait()  # a close is forwarded too, once the path is back
        with contextlib.suppress(OSError):
            server.shutdown(socket.SHUT_WR)

    def _down(self, server: socket.socket, client: socket.socket, asked: threading.Event) -> None:
        with contextlib.suppress(OSError):
            while self._flowing.wait() and (data := server.recv(65536)):
                self._flowing.wait()
                if asked.is_set():  # the answer to the append: drop it and the connection
                    self.cut.set()
                    break
                client.sendall(data)
        self._flowing.wait()
        for end in (client, server):
            with contextlib.suppress(OSError):
                end.shutdown(socket.SHUT_RDWR)
            end.close()

    def close(self) -> None:
        self.listener.close()


def relayed_url(direct: str, relay: CuttingRelay) -> str:
    """``direct`` (a ``postgresql://`` URL) through ``relay``."""
    host_port = direct.split("@", 1)[1].split("/", 1)[0]
    return direct.replace(host_port, f"127.0.0.1:{relay.port}")


def upstream_of(direct: str) -> tuple[str, int]:
    """The host and port of ``direct`` (a ``postgresql://`` URL)."""
    host_port = direct.split("@", 1)[1].split("/", 1)[0]
    host, port = host_port.rsplit(":", 1)
    return host, int(port)
