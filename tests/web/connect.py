"""A small Connect-protocol and gRPC-Web client over plain ``http.client``, for the tests.

It writes the wire format itself (no Connect library), so the tests check the bytes a browser
sends and gets: unary calls in JSON or binary, envelopes and end-of-stream messages for
server streaming, and ``google.rpc`` details in Connect errors.
"""

from __future__ import annotations

import base64
import http.client
import json
import struct
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

from google.protobuf import json_format
from google.protobuf.message import Message
from google.rpc import error_details_pb2

SERVICE = "referee.v1.RefereeService"
TIMEOUT = 20.0
M = TypeVar("M", bound=Message)


@dataclass
class ConnectFailure(Exception):
    """A Connect error: HTTP status (unary), code name, message and the unpacked details."""

    http_status: int
    code: str
    message: str
    details: list[dict[str, Any]] = field(default_factory=list)

    def detail(self, cls: type[M]) -> M | None:
        for entry in self.details:
            if entry["type"] == cls.DESCRIPTOR.full_name:
                message = cls()
                message.ParseFromString(base64.b64decode(entry["value"] + "=="))
                return message
        return None

    @property
    def info(self) -> error_details_pb2.ErrorInfo | None:
        return self.detail(error_details_pb2.ErrorInfo)

    @property
    def rule_id(self) -> str | None:
        info = self.info
        return info.metadata.get("rule_id") if info is not None else None


def _failure(status: int, body: bytes) -> ConnectFailure:
    error = json.loads(body or b"{}")
    return ConnectFailure(
        status, error.get("code", ""), error.get("message", ""), error.get("details", [])
    )


class Connect:
    """Calls ``referee.v1.RefereeService`` at ``host:port`` over HTTP/1.1."""

    def __init__(self, address: str, origin: str | None = None) -> None:
        self.host, port = address.rsplit(":", 1)
        self.port = int(port)
        self.origin = origin

    def _connection(self) -> http.client.HTTPConnection:
        return http.client.HTTPConnection(self.host, self.port, timeout=TIMEOUT)

    def _headers(self, content_type: str) -> dict[str, str]:
        headers = {"Content-Type": content_type, "Connect-Protocol-Version": "1"}
        if self.origin:
            headers["Origin"] = self.origin
        return headers

    def raw(
        self, method: str, body: bytes, content_type: str, http_method: str = "POST"
    ) -> tuple[int, dict[str, str], bytes]:
        connection = self._connection()
        try:
            connection.request(
                http_method, f"/{SERVICE}/{method}", body, self._headers(content_type)
            )
            response = connection.getresponse()
            headers = {k.lower(): v for k, v in response.getheaders()}
            return response.status, headers, response.read()
        finally:
            connection.close()

    def call(self, method: str, request: Message, response: type[M], binary: bool = True) -> M:
        """A unary call; raises :class:`ConnectFailure` on a Connect error."""
        if binary:
            body, kind = request.SerializeToString(), "application/proto"
        else:
            body, kind = json_format.MessageToJson(request).encode(), "application/json"
        status, headers, data = self.raw(method, body, kind)
        if status != 200:
            raise _failure(status, data)
        assert headers["content-type"] == kind, headers
        if binary:
            return response.FromString(data)
        return json_format.Parse(data, response())

    def stream(self, request: Message, binary: bool = True) -> Iterator[Any]:
        """StreamGame: yields each StreamGameResponse; raises ConnectFailure when the
        end-of-stream message carries an error."""
        from referee.v1 import referee_pb2 as pb

        if binary:
            payload, kind = request.SerializeToString(), "application/connect+proto"
        else:
            payload, kind = json_format.MessageToJson(request).encode(), "application/connect+json"
        connection = self._connection()
        try:
            connection.request(
                "POST",
                f"/{SERVICE}/StreamGame",
                struct.pack(">BI", 0, len(payload)) + payload,
                self._headers(kind),
            )
            response = connection.getresponse()
            if response.status != 200:
                raise _failure(response.status, response.read())
            while True:
                head = response.read(5)
                assert len(head) == 5, "the stream ended without an end-of-stream message"
                flags, size = struct.unpack(">BI", head)
                data = response.read(size)
                if flags & 0x02:  # end of stream: {"error": ...} or {}
                    end = json.loads(data or b"{}")
                    if "error" in end:
                        raise _failure(200, json.dumps(end["error"]).encode())
                    return
                if binary:
                    yield pb.StreamGameResponse.FromString(data)
                else:
                    yield json_format.Parse(data, pb.StreamGameResponse())
        finally:
            connection.close()

    def grpc_web(
        self, method: str, request: Message, response: type[M]
    ) -> tuple[list[M], dict[str, str]]:
        """A gRPC-Web call (binary): the messages and the trailers."""
        payload = request.SerializeToString()
        status, headers, data = self.raw(
            method, struct.pack(">BI", 0, len(payload)) + payload, "application/grpc-web+proto"
        )
        assert status == 200, (status, data)
        messages: list[M] = []
        trailers: dict[str, str] = {}
        offset = 0
        while offset < len(data):
            flags, size = struct.unpack(">BI", data[offset : offset + 5])
            chunk = data[offset + 5 : offset + 5 + size]
            offset += 5 + size
            if flags & 0x80:
                for line in chunk.decode().split("\r\n"):
                    if line:
                        key, value = line.split(":", 1)
                        trailers[key.strip().lower()] = value.strip()
            else:
                messages.append(response.FromString(chunk))
        for key in ("grpc-status", "grpc-message", "grpc-status-details-bin"):
            if key in headers and key not in trailers:  # trailers-only response
                trailers[key] = headers[key]
        return messages, trailers
