"""The examples in docs/ run as written.

- the Python blocks of docs/embedding.md run in-process; those of docs/clients.md and
  docs/tournaments.md are executed (their ``__main__`` parts aside; the random bot of
  docs/clients.md also plays a whole game in tests/clients/test_bot_selfplay.py);
- every ``grpcurl`` command of docs/clients.md is run, in the document's order, against a
  real server by :class:`Grpcurl`, which does what grpcurl does with the same arguments (it
  reads the service from the server's reflection and sends the ``-d`` JSON as the method's
  request), with the game id and tokens the document shows replaced by those of the game its
  first example created; every ``curl`` command runs with curl itself;
- the TypeScript block runs on the built SDK against a server (when node and
  the SDK is built: make sdk);
- the minimal browser page is played in Chromium by clients/web/tests/docs.test.mjs.
"""

from __future__ import annotations

import base64
import json
import os
import re
import shlex
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf import descriptor_pool, json_format, message_factory
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (
    ProtoReflectionDescriptorDatabase,
)

from referee.server.app import RefereeServer, running_server

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
#: Where the documents say the server listens (gRPC, HTTP).
DOC_GRPC = "127.0.0.1:50051"
DOC_HTTP = "http://127.0.0.1:8080"


def _blocks(name: str, language: str = "python") -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", (DOCS / name).read_text(), flags=re.S)


def shell_commands(name: str) -> list[str]:
    """The commands of a document's ``sh`` blocks: continuation lines and lines inside quotes
    joined, comments and blank lines left out."""
    commands = []
    for block in _blocks(name, "sh"):
        pending = ""
        for line in block.replace("\\\n", " ").splitlines():
            if not pending:
                line = line.split(" #")[0].strip()
                if not line or line.startswith("#"):
                    continue
            pending = f"{pending}\n{line}" if pending else line
            if pending.count("'") % 2 == 0:
                commands.append(pending)
                pending = ""
        assert not pending, f"an unclosed quote in {name}: {pending}"
    return commands


@pytest.mark.parametrize("block", _blocks("embedding.md"))
def test_embedding_examples_run(block: str) -> None:
    exec(compile(block, "docs/embedding.md", "exec"), {})


@pytest.mark.parametrize(
    ("name", "block"),
    [(name, block) for name in ("clients.md", "tournaments.md") for block in _blocks(name)],
)
def test_python_blocks_compile_and_define(name: str, block: str) -> None:
    namespace: dict[str, Any] = {"__name__": "docs_example"}
    exec(compile(block, f"docs/{name}", "exec"), namespace)
    defined = [value for key, value in namespace.items() if callable(value) and key[0] != "_"]
    assert defined, "every Python block of these documents defines a function or class"


@pytest.fixture(scope="module")
def server() -> Iterator[RefereeServer]:
    with running_server(store="memory:", http="127.0.0.1:0") as running:
        yield running


class Grpcurl:
    """``grpcurl -plaintext [-d JSON] ADDRESS (list | describe NAME | SERVICE/METHOD)`` done
    the way grpcurl does it: the service's descriptors come from the server's reflection."""

    def __init__(self, channel: grpc.Channel) -> None:
        self.channel = channel
        self.database = ProtoReflectionDescriptorDatabase(channel)
        self.pool = descriptor_pool.DescriptorPool(self.database)

    def run(self, argv: list[str]) -> list[dict[str, Any]] | list[str]:
        assert argv[:2] == ["grpcurl", "-plaintext"], argv
        rest = argv[2:]
        data = None
        if rest[0] == "-d":
            data, rest = rest[1], rest[2:]
        assert rest[0] == DOC_GRPC, f"the examples use the default address: {rest}"
        if rest[1] == "list":
            return list(self.database.get_services())
        if rest[1] == "describe":
            service = self.pool.FindServiceByName(rest[2])
            return [method.name for method in service.methods]
        service_name, method_name = rest[1].split("/")
        method = self.pool.FindServiceByName(service_name).methods_by_name[method_name]
        request_class = message_factory.GetMessageClass(method.input_type)
        response_class = message_factory.GetMessageClass(method.output_type)
        request = json_format.Parse(data or "{}", request_class())
        path = f"/{service_name}/{method_name}"
        options = {
            "request_serializer": request_class.SerializeToString,
            "response_deserializer": response_class.FromString,
        }
        if method.server_streaming:
            call = self.channel.unary_stream(path, **options)(request, timeout=30)
            first = next(iter(call))  # a stream follows the game: its first message will do
            call.cancel()
            return [json_format.MessageToDict(first, preserving_proto_field_name=True)]
        response = self.channel.unary_unary(path, **options)(request, timeout=30)
        return [json_format.MessageToDict(response, preserving_proto_field_name=True)]


def _documented_game() -> tuple[str, list[str]]:
    """The game id and the seat tokens of the CreateGame response docs/clients.md shows."""
    shown = _blocks("clients.md", "json")[0]
    game_id = re.search(r'"game_id": "(\w+)"', shown)
    assert game_id is not None
    return game_id.group(1), re.findall(r'"token": "([^"]+)"', shown)


def test_every_grpcurl_and_curl_example_of_clients_md_runs(server: RefereeServer) -> None:
    assert server.http is not None
    documented_id, documented_tokens = _documented_game()
    replace: dict[str, str] = {}
    ran: list[str] = []
    with grpc.insecure_channel(str(server.address)) as channel:
        grpcurl = Grpcurl(channel)
        for command in shell_commands("clients.md"):
            for shown, real in replace.items():
                command = command.replace(shown, real)
            argv = shlex.split(command)
            if argv[0] == "grpcurl":
                try:
                    result = grpcurl.run(argv)
                except grpc.RpcError as error:
                    pytest.fail(f"{command}\n  -> {error.code().name}: {error.details()}")
                ran.append(argv[-1])
                if argv[-1].endswith("/CreateGame"):
                    created = result[0]
                    assert isinstance(created, dict)
                    replace[documented_id] = created["game_id"]
                    replace["GAME_ID"] = created["game_id"]
                    for shown, seat in zip(documented_tokens, created["seats"], strict=True):
                        replace[shown] = seat["token"]
                if argv[-1].endswith("/SubmitCommand"):
                    assert isinstance(result[0], dict) and not result[0].get("duplicate")
                if argv[-1] == "list":
                    assert "referee.v1.RefereeService" in result
            elif argv[0] == "curl":
                argv = [part.replace(DOC_HTTP, f"http://{server.http.address}") for part in argv]
                out = subprocess.run(
                    [*argv, "--silent", "--show-error", "--fail-with-body"],
                    capture_output=True,
                    text=True,
                    timeout=60,
                    check=False,
                )
                assert out.returncode == 0, f"{command}\n  -> {out.stdout}{out.stderr}"
                assert json.loads(out.stdout), command
                ran.append(argv[-1].rsplit("/", 1)[-1])
    # the document's whole walk: look around, create, follow, play, follow in batches, browse
    assert ran.count("referee.v1.RefereeService/CreateGame") == 1
    assert "referee.v1.RefereeService/SubmitCommand" in ran
    assert ran.count("referee.v1.RefereeService/StreamGame") == 2
    assert {"ListGameTypes", "CreateGame"} <= set(ran)


def test_the_documented_seed_is_the_one_seed_rule(server: RefereeServer) -> None:
    """The first example's short seed is accepted only because it is declared public; the
    same request without the flag is refused, as section 11 says."""
    create = next(c for c in shell_commands("clients.md") if c.endswith("/CreateGame"))
    body = json.loads(shlex.split(create)[3])
    assert body["seed"] == "demo" and body["public_reproducible_seed"] is True
    del body["public_reproducible_seed"]
    argv = ["grpcurl", "-plaintext", "-d", json.dumps(body), DOC_GRPC, create.split()[-1]]
    with (
        grpc.insecure_channel(str(server.address)) as channel,
        pytest.raises(grpc.RpcError) as refused,
    ):
        Grpcurl(channel).run(argv)
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_grpc_web_text_is_served_as_documented(server: RefereeServer) -> None:
    """docs/clients.md says text mode is served: an empty ListGameTypes request in base64."""
    assert server.http is not None
    assert "`application/grpc-web-text`" in (DOCS / "clients.md").read_text()
    url = f"http://{server.http.address}/referee.v1.RefereeService/ListGameTypes"
    text_mode = ["-H", "Content-Type: application/grpc-web-text", "--data-binary", "AAAAAAA="]
    out = subprocess.run(
        ["curl", "--silent", "--include", "-X", "POST", *text_mode, url],
        capture_output=True,
        timeout=60,
        check=False,
    )
    head, _, body = out.stdout.partition(b"\r\n\r\n")
    assert head.decode().lower().startswith("http/1.1 200"), head
    frames = b"".join(base64.b64decode(body[i : i + 4]) for i in range(0, len(body), 4))
    assert b"vampire-queen" in frames and b"grpc-status: 0" in frames


SDK = ROOT / "clients" / "ts-sdk"


def test_the_typescript_block_runs_on_the_sdk(server: RefereeServer, tmp_path: Path) -> None:
    """Section 12's example, as a Node.js module next to the built SDK, against a server."""
    if shutil.which("node") is None or not (SDK / "dist" / "index.js").is_file():
        if os.environ.get("CI") == "true":
            pytest.fail("node or the built SDK (make sdk) is missing in CI")
        pytest.skip("node or the built SDK is missing (make sdk)")
    assert server.http is not None
    (block,) = _blocks("clients.md", "js")
    source = block.replace(DOC_HTTP, f"http://{server.http.address}")
    source += "console.log(JSON.stringify(gameTypes.map((t) => t.gameType)));\n"
    (tmp_path / "node_modules" / "@game-referee").mkdir(parents=True)
    (tmp_path / "node_modules" / "@game-referee" / "sdk").symlink_to(SDK)
    (tmp_path / "example.mjs").write_text(source, encoding="utf-8")
    out = subprocess.run(
        ["node", "example.mjs"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    assert "vampire-queen" in json.loads(out.stdout.strip().splitlines()[-1])
