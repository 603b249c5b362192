"""Two programs that never exchanged anything but their names meet
through the lobby, a challenge and a pairing request, over gRPC and over Connect, and finish
a (rated) game; and on PostgreSQL with the claim on one replica and the commands on another.

Each program registers its own account, opens its player stream (PlayerSession over gRPC;
WatchPlayer plus SubmitCommand with its credential and seat over Connect) and plays every
seat it comes to hold until its game ends. The only thing one program knows of the other is
its name (for the challenge), or nothing at all (the lobby, pairing).
"""

from __future__ import annotations

import http.client
import json
import random
import struct
import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from google.protobuf.message import Message

from referee.application.players.accounts import PlayerSettings
from referee.server.app import RefereeServer, running_server
from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc as pb_grpc
from referee_bot.sdk import StrategyBot
from referee_bot.session import PlayerStream
from referee_bot.strategies import make_strategy

GAME = "sleeping-queens"
SERVICE = "referee.v1.RefereeService"
TIMEOUT = 60.0
OUTPUT = {
    m.name: getattr(pb, m.output_type.name)
    for m in pb.DESCRIPTOR.services_by_name["RefereeService"].methods
}


def terms() -> pb.GameTerms:
    return pb.GameTerms(game_type=GAME, players=2, rated=True)


def _name(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


# --- two kinds of program ----------------------------------------------------------------


class Program:
    """A player program: its own account, its own stream; ``play`` runs in a thread."""

    name: str
    token: str

    def call(self, method: str, request: Message) -> Any:
        raise NotImplementedError

    def _play(self, accept_challenges: bool) -> pb.View:
        raise NotImplementedError

    def close(self) -> None:
        """Free what the program holds (channels)."""

    def start(self, accept_challenges: bool = False) -> None:
        self.final: pb.View | None = None
        self.error: BaseException | None = None

        def run() -> None:
            try:
                self.final = self._play(accept_challenges)
            except BaseException as error:  # reported by finish()
                self.error = error

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()

    def finish(self) -> pb.View:
        self.thread.join(TIMEOUT * 2)
        assert not self.thread.is_alive(), f"{self.name} did not finish its game"
        if self.error is not None:
            raise self.error
        assert self.final is not None and self.final.game_over
        return self.final


class GrpcProgram(Program):
    """Over gRPC: the SDK's PlayerStream (PlayerSession) on ``play_address`` (another
    replica, perhaps); its other calls on ``address``."""

    def __init__(self, prefix: str, address: str, play_address: str | None = None) -> None:
        self.channel = grpc.insecure_channel(address)
        self.play_channel = grpc.insecure_channel(play_address or address)
        self.stub = pb_grpc.RefereeServiceStub(self.channel)
        self.name = _name(prefix)
        response = self.stub.Register(
            pb.RegisterRequest(name=self.name, kind=pb.PLAYER_KIND_BOT), timeout=TIMEOUT
        )
        self.token = response.token

    def call(self, method: str, request: Message) -> Any:
        metadata = [("authorization", f"Bearer {self.token}")]
        return getattr(self.stub, method)(request, metadata=metadata, timeout=TIMEOUT)

    def _play(self, accept_challenges: bool) -> pb.View:
        def bot_for(game: pb.GameSummary, seat: int) -> StrategyBot:
            return StrategyBot(make_strategy("random", game.game_type), random.Random(seat))

        stream = PlayerStream(
            pb_grpc.RefereeServiceStub(self.play_channel),
            bot_for,
            credential=self.token,
            accept_challenges=accept_challenges,
        )
        results = stream.run(games=1, timeout=TIMEOUT)
        finals = [r.final_view for r in results if r.final_view is not None]
        assert len(finals) == 1
        return finals[0]

    def close(self) -> None:
        self.channel.close()
        self.play_channel.close()


class ConnectProgram(Program):
    """Over Connect (what a browser can do): WatchPlayer, and commands as SubmitCommand with
    the credential and the seat."""

    def __init__(self, prefix: str, http_address: str) -> None:
        self.host, port = http_address.rsplit(":", 1)
        self.port = int(port)
        self.name = _name(prefix)
        self.token = ""
        self.token = self.call(
            "Register", pb.RegisterRequest(name=self.name, kind=pb.PLAYER_KIND_BOT)
        ).token

    def _headers(self, kind: str) -> dict[str, str]:
        headers = {"Content-Type": kind, "Connect-Protocol-Version": "1"}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        return headers

    def call(self, method: str, request: Message) -> Any:
        connection = http.client.HTTPConnection(self.host, self.port, timeout=TIMEOUT)
        try:
            connection.request(
                "POST",
                f"/{SERVICE}/{method}",
                request.SerializeToString(),
                self._headers("application/proto"),
            )
            response = connection.getresponse()
            body = response.read()
        finally:
            connection.close()
        if response.status != 200:
            raise AssertionError(f"{method}: HTTP {response.status} {body[:300]!r}")
        return OUTPUT[method].FromString(body)

    def _watch(self) -> Iterator[pb.PlayerMessage]:
        connection = http.client.HTTPConnection(self.host, self.port, timeout=TIMEOUT)
        body = pb.WatchPlayerRequest().SerializeToString()
        try:
            connection.request(
                "POST",
                f"/{SERVICE}/WatchPlayer",
                struct.pack(">BI", 0, len(body)) + body,
                self._headers("application/connect+proto"),
            )
            response = connection.getresponse()
            assert response.status == 200, response.read()[:300]
            while True:
                head = response.read(5)
                if len(head) < 5:
                    return
                flags, size = struct.unpack(">BI", head)
                data = response.read(size)
                if flags & 0x02:
                    end = json.loads(data or b"{}")
                    assert "error" not in end, end
                    return
                yield from pb.WatchPlayerResponse.FromString(data).messages
        finally:
            connection.close()

    def _play(self, accept_challenges: bool) -> pb.View:
        rng = random.Random(self.name)
        acted: dict[tuple[str, int], int] = {}
        for message in self._watch():
            kind = message.WhichOneof("kind")
            if kind == "challenge" and accept_challenges:
                challenge = message.challenge
                if challenge.state == pb.CHALLENGE_STATE_OPEN and challenge.challenged == self.name:
                    self.call(
                        "AnswerChallenge",
                        pb.AnswerChallengeRequest(challenge_id=challenge.challenge_id, accept=True),
                    )
            if kind != "update":
                continue
            update = message.update
            view = update.view
            if view.game_over:
                return view
            key = (update.game_id, update.seat)
            if update.seat not in view.pending_seats or acted.get(key, -1) >= view.version:
                continue
            acted[key] = view.version
            request = pb.SubmitCommandRequest(
                game_id=update.game_id,
                seat=update.seat,
                command_id=str(uuid.uuid4()),
                command=rng.choice(view.legal_commands),
                expected_version=view.version,
            )
            try:
                self.call("SubmitCommand", request)
            except AssertionError as refused:  # someone moved first: the stream says what next
                if "aborted" not in str(refused) and "failed_precondition" not in str(refused):
                    raise
        raise AssertionError("the player stream ended before the game")


# --- the servers ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def server() -> Iterator[RefereeServer]:
    with running_server(
        store="memory:",
        http="127.0.0.1:0",
        players=PlayerSettings(open_registration=True),
        grace_seconds=1.0,
    ) as running:
        yield running


def programs(server: RefereeServer, wire: str) -> tuple[Program, Program]:
    if wire == "grpc":
        return GrpcProgram("ann", server.address), GrpcProgram("bob", server.address)
    assert server.http is not None
    return ConnectProgram("ann", server.http.address), ConnectProgram("bob", server.http.address)


def check_finished(
    first: Program, second: Program, views: list[pb.View], rated: bool = True
) -> None:
    game_ids = {v.game_id for v in views}
    assert len(game_ids) == 1, "both programs played the same game"
    game = first.call("GetGame", pb.GetGameRequest(game_id=game_ids.pop())).game
    assert game.game_over and len(game.results) == 2
    holders = {h.player for h in game.seat_holders}
    assert holders == {first.name, second.name}
    for program in (first, second) if rated else ():
        # Rated at the game's end, by whichever replica ended it: soon after the last event.
        def rated(program: Program = program) -> bool:
            ratings = program.call("GetRatings", pb.GetRatingsRequest()).ratings
            return [(r.game_type, r.games) for r in ratings] == [(GAME, 1)]

        _until(rated, f"{program.name}'s rating")


def _until(condition: Any, what: str) -> Any:
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        found = condition()
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError(f"gave up waiting for {what}")


WIRES = ["grpc", "connect"]


def lobby_game() -> pb.CreateGameRequest:
    """A listed game: the creator's seat, and one open seat for whoever comes."""
    return pb.CreateGameRequest(
        game_type=GAME,
        players=2,
        seat_requests=[
            pb.SeatRequest(mode=pb.SEAT_MODE_CREATOR),
            pb.SeatRequest(mode=pb.SEAT_MODE_OPEN),
        ],
        listed=True,
        rated=True,
    )


@pytest.mark.parametrize("wire", WIRES)
def test_two_programs_meet_by_a_challenge(server: RefereeServer, wire: str) -> None:
    ann, bob = programs(server, wire)
    try:
        bob.start(accept_challenges=True)
        ann.start()
        ann.call("CreateChallenge", pb.CreateChallengeRequest(challenged=bob.name, terms=terms()))
        check_finished(ann, bob, [ann.finish(), bob.finish()])
    finally:
        ann.close()
        bob.close()


@pytest.mark.parametrize("wire", WIRES)
def test_two_programs_meet_by_pairing(server: RefereeServer, wire: str) -> None:
    ann, bob = programs(server, wire)
    try:
        ann.start()
        bob.start()
        ann.call("RequestPairing", pb.RequestPairingRequest(terms=terms()))
        bob.call("RequestPairing", pb.RequestPairingRequest(terms=terms()))
        check_finished(ann, bob, [ann.finish(), bob.finish()])
    finally:
        ann.close()
        bob.close()


@pytest.mark.parametrize("wire", WIRES)
def test_two_programs_meet_in_the_lobby(server: RefereeServer, wire: str) -> None:
    ann, bob = programs(server, wire)
    try:
        ann.start()
        bob.start()
        created = ann.call("CreateGame", lobby_game())

        def listed() -> Any:
            tables = bob.call(
                "ListLobby", pb.ListLobbyRequest(filter=pb.LobbyFilter(game_type=GAME))
            ).tables
            return next((t for t in tables if t.game.game_id == created.game_id), None)

        table = _until(listed, "the table in the lobby")
        assert list(table.open_seats) == [1]
        bob.call("ClaimSeat", pb.ClaimSeatRequest(game_id=table.game.game_id))
        check_finished(ann, bob, [ann.finish(), bob.finish()])
    finally:
        ann.close()
        bob.close()


def test_two_programs_meet_across_replicas_on_postgresql() -> None:
    """The game made and its open seat claimed on one replica; both player streams, and so
    every command, on the other: the holdings and the game reach it through the store."""
    from tests.store.pg import postgres_url, temporary_database

    with temporary_database() as url:
        store = postgres_url(url)
        settings = PlayerSettings(open_registration=True)
        with (
            running_server(store=store, players=settings, grace_seconds=1.0) as first,
            running_server(store=store, players=settings, grace_seconds=1.0) as second,
        ):
            ann = GrpcProgram("ann", first.address, play_address=second.address)
            bob = GrpcProgram("bob", first.address, play_address=second.address)
            try:
                ann.start()
                bob.start()
                created = ann.call("CreateGame", lobby_game())
                bob.call("ClaimSeat", pb.ClaimSeatRequest(game_id=created.game_id))
                # The replica that ends the game rates it from the claims in the game's log,
                # here made on the other replica.
                check_finished(ann, bob, [ann.finish(), bob.finish()])
            finally:
                ann.close()
                bob.close()


def test_two_nodejs_bots_meet_by_a_challenge(server: RefereeServer) -> None:
    """Two separate programs (the Node.js sample bot), each told only its own credential and,
    for the challenger, the other's name."""
    import shutil
    import subprocess
    from pathlib import Path

    bot = Path(__file__).resolve().parent.parent / "clients" / "node-bot"
    if shutil.which("node") is None or not (bot / "node_modules" / "@game-referee").is_dir():
        pytest.skip("node or clients/node-bot/node_modules is missing (make node-bot)")
    with grpc.insecure_channel(server.address) as channel:
        stub = pb_grpc.RefereeServiceStub(channel)
        names = [_name("node-a"), _name("node-b")]
        tokens = [
            stub.Register(pb.RegisterRequest(name=n, kind=pb.PLAYER_KIND_BOT)).token for n in names
        ]
        common = ["node", str(bot / "index.js"), "--server", server.address, "--games", "1"]
        accepting = subprocess.Popen(
            [*common, "--accept-challenges", "--seed", "1"],
            env={"REFEREE_CREDENTIAL": tokens[1], "PATH": "/usr/bin:/bin:/usr/local/bin"},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        challenging = subprocess.Popen(
            [*common, "--challenge", names[1], "--game", GAME, "--players", "2", "--rated"],
            env={"REFEREE_CREDENTIAL": tokens[0], "PATH": "/usr/bin:/bin:/usr/local/bin"},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        outputs = [p.communicate(timeout=TIMEOUT * 2) for p in (challenging, accepting)]
        assert [challenging.returncode, accepting.returncode] == [0, 0], outputs
        reports = [json.loads(out.strip().splitlines()[-1]) for out, _ in outputs]
        assert reports[0]["game_id"] == reports[1]["game_id"]
        game = stub.GetGame(pb.GetGameRequest(game_id=reports[0]["game_id"])).game
        assert game.game_over
        assert {h.player for h in game.seat_holders} == set(names)
        assert sorted(r["rank"] for r in reports) == sorted(r.rank for r in game.results)


def test_a_command_for_a_seat_the_player_does_not_hold_changes_nothing(
    server: RefereeServer,
) -> None:
    import queue

    ann, bob = GrpcProgram("ann", server.address), GrpcProgram("bob", server.address)
    try:
        created = ann.call("CreateGame", lobby_game())
        bob.call("ClaimSeat", pb.ClaimSeatRequest(game_id=created.game_id))
        view = bob.call("GetView", pb.GetViewRequest(game_id=created.game_id, seat=1)).view
        requests: queue.Queue[pb.PlayerSessionRequest | None] = queue.Queue()
        stream = ann.stub.PlayerSession(
            iter(requests.get, None),
            metadata=[("authorization", f"Bearer {ann.token}")],
            timeout=TIMEOUT,
        )
        command = pb.SessionCommand(
            game_id=created.game_id,
            seat=1,  # bob's
            command_id="not-mine",
            command=view.legal_commands[0] if view.legal_commands else pb.Command(),
        )
        requests.put(pb.PlayerSessionRequest(command=command))
        outcome = next(m.outcome for r in stream for m in r.messages if m.HasField("outcome"))
        requests.put(None)
        stream.cancel()
        assert outcome.command_id == "not-mine"
        assert outcome.refusal.code == grpc.StatusCode.PERMISSION_DENIED.value[0]
        assert outcome.refusal.reason == "NOT_SEATED"
        after = bob.call("GetView", pb.GetViewRequest(game_id=created.game_id, seat=1)).view
        assert after.version == view.version
    finally:
        ann.close()
        bob.close()
