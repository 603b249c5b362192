"""The referee's two adapters as one client interface, for tests that run over both.

A :class:`Transport` calls ``referee.v1.RefereeService`` by method name and reads streams;
a failure is a :class:`WireError` with the code, message and ``google.rpc.Status`` the client
received, whatever the wire. Four wires, each written from its protocol (no client library
of the server's side): gRPC (grpcio), Connect (binary; JSON for unary calls too), gRPC-Web
(binary) and gRPC-Web text, the last three over ``http.client`` on the referee's HTTP port.
"""

from __future__ import annotations

import base64
import http.client
import json
import socket
import struct
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar
from urllib.parse import unquote

import grpc
from google.protobuf import json_format
from google.protobuf.message import Message
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

from referee.v1 import referee_pb2 as pb

SERVICE = "referee.v1.RefereeService"
TIMEOUT = 20.0
M = TypeVar("M", bound=Message)
#: The response message of each method, from the service descriptor.
OUTPUT = {
    m.name: getattr(pb, m.output_type.name)
    for m in pb.DESCRIPTOR.services_by_name["RefereeService"].methods
}
#: The wires :func:`transport` makes.
WIRES = ("grpc", "connect", "grpc-web", "grpc-web-text")


@dataclass
class WireError(Exception):
    """A failed call or stream, as its client received it."""

    code: str
    message: str
    status: status_pb2.Status = field(default_factory=status_pb2.Status)
    #: The HTTP status of a Connect unary error (None elsewhere).
    http_status: int | None = None

    def detail(self, cls: type[M]) -> M | None:
        for packed in self.status.details:
            if packed.Is(cls.DESCRIPTOR):
                message = cls()
                packed.Unpack(message)
                return message
        return None

    @property
    def info(self) -> error_details_pb2.ErrorInfo | None:
        return self.detail(error_details_pb2.ErrorInfo)

    @property
    def metadata(self) -> dict[str, str]:
        info = self.info
        return dict(info.metadata) if info is not None else {}

    @property
    def fields(self) -> list[str]:
        bad = self.detail(error_details_pb2.BadRequest)
        return [v.field for v in bad.field_violations] if bad is not None else []


def _connect_failure(error: dict[str, Any], http_status: int | None) -> WireError:
    code = str(error.get("code", "unknown")).upper().replace("CANCELED", "CANCELLED")
    status = status_pb2.Status(code=code_pb2.Code.Value(code), message=error.get("message", ""))
    for detail in error.get("details", []):
        packed = status.details.add()
        packed.type_url = "type.googleapis.com/" + detail["type"]
        packed.value = base64.b64decode(detail["value"] + "==")
    return WireError(code, status.message, status, http_status)


def _grpc_web_failure(trailers: dict[str, str]) -> WireError | None:
    code = int(trailers.get("grpc-status", "2"))
    if code == 0:
        return None
    status = status_pb2.Status(code=code, message=unquote(trailers.get("grpc-message", "")))
    if "grpc-status-details-bin" in trailers:
        status = status_pb2.Status.FromString(
            base64.b64decode(trailers["grpc-status-details-bin"] + "==")
        )
    return WireError(code_pb2.Code.Name(code), status.message, status)


class Transport:
    """Calls the service at an address; subclasses are the wires."""

    name = ""

    def call(self, method: str, request: Message) -> Any:
        """A unary call's response; raises :class:`WireError`."""
        raise NotImplementedError

    def call_bytes(self, method: str, body: bytes) -> Any:
        """A unary call whose request is ``body`` as it is (maybe not a message at all)."""
        raise NotImplementedError

    def stream(self, request: pb.StreamGameRequest) -> Iterator[pb.StreamGameResponse]:
        """StreamGame's messages; raises :class:`WireError` when it ends with an error."""
        raise NotImplementedError

    def read_stream(
        self, request: pb.StreamGameRequest
    ) -> tuple[list[pb.StreamGameResponse], WireError | None]:
        messages: list[pb.StreamGameResponse] = []
        try:
            for message in self.stream(request):
                messages.append(message)
        except WireError as error:
            return messages, error
        return messages, None

    def close(self) -> None:
        pass


#: gRPC channel options of a client that stops reading: no window beyond a kilobyte, no
#: probing for more (by default the library buffers a whole unread stream).
STALLING = [("grpc.http2.bdp_probe", 0), ("grpc.http2.lookahead_bytes", 1024)]


class GrpcTransport(Transport):
    name = "grpc"

    def __init__(self, address: str, small: bool = False) -> None:
        self.channel = grpc.insecure_channel(address, options=STALLING if small else None)

    def _failure(self, error: grpc.RpcError) -> WireError:
        call: Any = error
        status = rpc_status.from_call(call) or status_pb2.Status(
            code=call.code().value[0], message=call.details() or ""
        )
        return WireError(call.code().name, call.details() or "", status)

    def call(self, method: str, request: Message) -> Any:
        return self.call_bytes(method, request.SerializeToString())

    def call_bytes(self, method: str, body: bytes) -> Any:
        rpc = self.channel.unary_unary(
            f"/{SERVICE}/{method}",
            request_serializer=lambda data: data,
            response_deserializer=OUTPUT[method].FromString,
        )
        try:
            return rpc(body, timeout=TIMEOUT)
        except grpc.RpcError as error:
            raise self._failure(error) from None

    def stream(self, request: pb.StreamGameRequest) -> Iterator[pb.StreamGameResponse]:
        call = self.channel.unary_stream(
            f"/{SERVICE}/StreamGame",
            request_serializer=pb.StreamGameRequest.SerializeToString,
            response_deserializer=pb.StreamGameResponse.FromString,
        )(request, timeout=TIMEOUT * 3)
        try:
            yield from call
        except grpc.RpcError as error:
            raise self._failure(error) from None
        finally:
            call.cancel()

    def close(self) -> None:
        self.channel.close()


class HttpTransport(Transport):
    """The HTTP port: Connect (``json`` for unary calls in protobuf JSON) or gRPC-Web."""

    def __init__(self, address: str, wire: str, json: bool = False, small: bool = False) -> None:
        self.host, port = address.rsplit(":", 1)
        self.port = int(port)
        self.name = wire
        self.json = json
        #: Streams on a socket with a tiny receive buffer (a reader that stops stalls soon).
        self.small = small

    def post(
        self, path: str, body: bytes, headers: dict[str, str]
    ) -> tuple[int, dict[str, str], bytes]:
        connection = http.client.HTTPConnection(self.host, self.port, timeout=TIMEOUT)
        try:
            connection.request("POST", path, body, headers)
            response = connection.getresponse()
            return (
                response.status,
                {k.lower(): v for k, v in response.getheaders()},
                response.read(),
            )
        finally:
            connection.close()

    @property
    def _kind(self) -> str:
        return {
            "connect": "application/connect+proto",
            "grpc-web": "application/grpc-web+proto",
            "grpc-web-text": "application/grpc-web-text",
        }[self.name]

    def _frame(self, payload: bytes) -> bytes:
        framed = struct.pack(">BI", 0, len(payload)) + payload
        return base64.b64encode(framed) if self.name == "grpc-web-text" else framed

    def call(self, method: str, request: Message) -> Any:
        if self.name == "connect" and self.json:
            body = json_format.MessageToJson(request).encode()
            return self._connect_unary(method, body, "application/json")
        return self.call_bytes(method, request.SerializeToString())

    def call_bytes(self, method: str, body: bytes) -> Any:
        if self.name == "connect":
            return self._connect_unary(method, body, "application/proto")
        messages = list(self._enveloped(method, self._frame(body)))
        assert len(messages) == 1, messages
        return messages[0]

    def _connect_unary(self, method: str, body: bytes, kind: str) -> Any:
        status, headers, data = self.post(
            f"/{SERVICE}/{method}", body, {"Content-Type": kind, "Connect-Protocol-Version": "1"}
        )
        if status != 200:
            raise _connect_failure(json.loads(data or b"{}"), status)
        assert headers["content-type"] == kind, headers
        output = OUTPUT[method]
        if kind == "application/json":
            return json_format.Parse(data, output())
        return output.FromString(data)

    def stream(self, request: pb.StreamGameRequest) -> Iterator[pb.StreamGameResponse]:
        return self._enveloped("StreamGame", self._frame(request.SerializeToString()))

    def _enveloped(
        self, method: str, body: bytes, more: dict[str, str] | None = None
    ) -> Iterator[Any]:
        """Read an enveloped response as it arrives: its messages, then its end (``more``:
        headers to send too, e.g. ``Authorization``)."""
        headers = {"Content-Type": self._kind, **(more or {})}
        if self.name == "connect":
            headers["Connect-Protocol-Version"] = "1"
        connection = http.client.HTTPConnection(self.host, self.port, timeout=TIMEOUT * 3)
        if self.small:
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            sock.settimeout(TIMEOUT * 3)
            sock.connect((self.host, self.port))
            connection.sock = sock
        output = OUTPUT[method]
        try:
            connection.request("POST", f"/{SERVICE}/{method}", body, headers)
            response = connection.getresponse()
            if response.status != 200:
                raise _connect_failure(json.loads(response.read() or b"{}"), response.status)
            for flags, data in _frames(response, text=self.name == "grpc-web-text"):
                if flags & 0x80:  # gRPC-Web trailers
                    trailers = {}
                    for line in data.decode().split("\r\n"):
                        if line:
                            key, value = line.split(":", 1)
                            trailers[key.strip().lower()] = value.strip()
                    failure = _grpc_web_failure(trailers)
                    if failure is not None:
                        raise failure
                    return
                if flags & 0x02:  # Connect end of stream: {"error": ...} or {}
                    end = json.loads(data or b"{}")
                    if "error" in end:
                        raise _connect_failure(end["error"], None)
                    return
                yield output.FromString(data)
            raise AssertionError("the response ended without its end message")
        finally:
            connection.close()


def _frames(response: http.client.HTTPResponse, text: bool) -> Iterator[tuple[int, bytes]]:
    buffered = b""

    def read(size: int) -> bytes:
        nonlocal buffered
        if not text:
            return response.read(size)
        while len(buffered) < size:
            chunk = response.read(4)  # base64 in quanta of four characters
            if not chunk:
                break
            buffered += base64.b64decode(chunk)
        out, buffered = buffered[:size], buffered[size:]
        return out

    while True:
        head = read(5)
        if len(head) < 5:
            return
        flags, size = struct.unpack(">BI", head)
        yield flags, read(size)


def transport(wire: str, address: str, http_address: str, small: bool = False) -> Transport:
    """A client over ``wire`` of the referee at ``address`` (gRPC) and ``http_address``;
    ``small``: one whose streams stall soon when it stops reading."""
    if wire == "grpc":
        return GrpcTransport(address, small)
    return HttpTransport(http_address, wire, small=small)


__all__ = [
    "WIRES",
    "GrpcTransport",
    "HttpTransport",
    "Transport",
    "WireError",
    "transport",
]
