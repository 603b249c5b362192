"""End-to-end tests of the gRPC referee: a real server on an ephemeral port, real channels.

Fixtures give a running server (in-memory store) and a stub; the helpers below create games,
play them with random legal commands through the API, read streams and decode the
``google.rpc`` error details, so the test modules read as the contract they check.
"""

from __future__ import annotations

import random
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import grpc
import pytest
from google.protobuf.message import Message
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from referee.application.players.accounts import PlayerSettings
from referee.application.tables.limits import AddressLimits
from referee.server.app import RefereeServer, running_server
from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc as pb_grpc
from referee.v1 import vampire_queen_pb2 as vq

GAME = "vampire-queen"
SERVICE = "referee.v1.RefereeService"
#: Seconds any single RPC or stream read may take before a test gives up (never hang CI).
RPC_TIMEOUT = 20.0


#: For a server whose test makes many anonymous calls from one address (a property test's
#: hundreds of games): no per-address budget, as the benchmarks' servers.
NO_ADDRESS_LIMITS = PlayerSettings(per_address=AddressLimits(0, 0, 0, 0))


# --- fixtures ---------------------------------------------------------------------------------


@pytest.fixture
def server() -> Iterator[RefereeServer]:
    # One test's calls all come from 127.0.0.1: a long game's public reads would pass the
    # per-address budget (tests/server/test_address_limits.py holds the limits).
    with running_server(store="memory:", grace_seconds=1.0, players=NO_ADDRESS_LIMITS) as running:
        yield running


@pytest.fixture
def channel(server: RefereeServer) -> Iterator[grpc.Channel]:
    with grpc.insecure_channel(server.address) as chan:
        yield chan


@pytest.fixture
def stub(channel: grpc.Channel) -> pb_grpc.RefereeServiceStub:
    return pb_grpc.RefereeServiceStub(channel)


@pytest.fixture
def rng(request: pytest.FixtureRequest) -> random.Random:
    """A random generator seeded by the test's name: reproducible random play."""
    return random.Random(request.node.nodeid)


# --- errors -----------------------------------------------------------------------------------


@dataclass
class Failure:
    """A failed call: status code, message and the unpacked ``google.rpc`` details."""

    code: grpc.StatusCode
    message: str
    info: error_details_pb2.ErrorInfo | None = None
    bad_request: error_details_pb2.BadRequest | None = None
    precondition: error_details_pb2.PreconditionFailure | None = None
    raw: bytes = b""

    @property
    def metadata(self) -> dict[str, str]:
        return dict(self.info.metadata) if self.info is not None else {}

    @property
    def rule_id(self) -> str | None:
        return self.metadata.get("rule_id")

    @property
    def fields(self) -> list[str]:
        if self.bad_request is None:
            return []
        return [violation.field for violation in self.bad_request.field_violations]

    def same_as(self, other: Failure) -> bool:
        return (self.code, self.message, self.raw) == (other.code, other.message, other.raw)


def failure_of(error: grpc.RpcError) -> Failure:
    call: Any = error
    failure = Failure(code=call.code(), message=call.details() or "")
    status = rpc_status.from_call(call)
    if status is None:
        return failure
    failure.raw = status.SerializeToString(deterministic=True)
    for detail in status.details:
        for cls, attr in (
            (error_details_pb2.ErrorInfo, "info"),
            (error_details_pb2.BadRequest, "bad_request"),
            (error_details_pb2.PreconditionFailure, "precondition"),
        ):
            if detail.Is(cls.DESCRIPTOR):
                message = cls()
                detail.Unpack(message)
                setattr(failure, attr, message)
    return failure


def fails(call: Callable[..., Any], *args: Any, **kwargs: Any) -> Failure:
    """Call a unary RPC that must fail; returns its decoded failure."""
    kwargs.setdefault("timeout", RPC_TIMEOUT)
    try:
        result = call(*args, **kwargs)
    except grpc.RpcError as error:
        return failure_of(error)
    raise AssertionError(f"expected the call to fail, it returned {result!r}")


def stream_fails(stub: pb_grpc.RefereeServiceStub, request: pb.StreamGameRequest) -> Failure:
    """Open a stream that must fail before or after some messages; returns the failure."""
    messages, failure = read_stream(stub, request)
    assert failure is not None, f"expected the stream to fail, it sent {len(messages)} messages"
    return failure


def assert_bad_request(failure: Failure, field_name: str) -> None:
    """INVALID_ARGUMENT with a BadRequest field violation naming ``field_name`` (or inside it)."""
    assert failure.code is grpc.StatusCode.INVALID_ARGUMENT, failure
    assert failure.bad_request is not None, f"no BadRequest detail in {failure}"
    assert any(f == field_name or f.startswith(field_name + ".") for f in failure.fields), (
        f"no field violation naming {field_name!r}: {failure.fields}"
    )


#: The 108 shuffled Vampire Queen cards in deal notation (VQ-1): 8 of each 1-13, 4 queens.
DECK = [str(v) for v in range(1, 14) for _ in range(8)] + ["Q"] * 4
CARD = {str(v): v for v in range(1, 14)} | {"Q": 14}


def fixed_deal(deck: list[str], pick: int) -> pb.FixedDeal:
    deal = pb.FixedDeal(picks=[pick])
    deal.decks.add().cards.extend(deck)
    return deal


def dealt_hand(deck: list[str], seat: int, players: int, pick: int, size: int = 13) -> list[int]:
    """VQ-3/VQ-4: the seat's cards from a fixed deck, plus the Hunters it got from the pick."""
    hand = [CARD[c] for c in deck[seat * size : (seat + 1) * size]]
    if seat == pick:
        hand.append(15)
    if seat == (pick + 1) % players:
        hand.append(20)
    return sorted(hand)


# --- games ------------------------------------------------------------------------------------


@dataclass
class Game:
    """A created game: its id and one token per seat."""

    game_id: str
    tokens: list[str]
    created: pb.CreateGameResponse

    @property
    def players(self) -> int:
        return len(self.tokens)


def guessable(seed: str) -> bool:
    """True for a seed the referee refuses unless it is declared public (the tests' readable
    seeds like ``"streams"``: their deals are reproducible on purpose)."""
    return bool(seed) and (len(seed.encode()) < 22 or len(set(seed.encode())) < 8)


def create_game(
    stub: pb_grpc.RefereeServiceStub,
    players: int = 3,
    rounds: int | None = 1,
    seed: str = "",
    deal: pb.FixedDeal | None = None,
    game_type: str = GAME,
    **options: str,
) -> Game:
    if rounds is not None:
        options["rounds"] = str(rounds)
    request = pb.CreateGameRequest(
        game_type=game_type,
        players=players,
        options=options,
        seed=seed,
        deal=deal,
        public_reproducible_seed=guessable(seed),
    )
    created = stub.CreateGame(request, timeout=RPC_TIMEOUT)
    tokens = [seat.token for seat in sorted(created.seats, key=lambda s: s.seat)]
    return Game(created.game_id, tokens, created)


def create_refereed(
    stub: pb_grpc.RefereeServiceStub,
    players: int = 3,
    rounds: int | None = 1,
    seed: str = "",
    game_type: str = GAME,
    options: dict[str, str] | None = None,
    **settings: Any,
) -> Game:
    """A game with table settings (``clock=pb.ClockSettings(...)``, ``defer_seed_reveal``,
    ``organiser_delay_events``, ``organiser_delay_ms``, ``deal``)."""
    chosen = dict(options or {})
    if rounds is not None and game_type == GAME:
        chosen["rounds"] = str(rounds)
    settings.setdefault("public_reproducible_seed", guessable(seed))
    request = pb.CreateGameRequest(
        game_type=game_type, players=players, options=chosen, seed=seed, **settings
    )
    created = stub.CreateGame(request, timeout=RPC_TIMEOUT)
    tokens = [seat.token for seat in sorted(created.seats, key=lambda s: s.seat)]
    return Game(created.game_id, tokens, created)


def wait_for(condition: Callable[[], Any], what: str, timeout: float = 60.0) -> Any:
    """Poll ``condition`` until it returns something truthy (returned); fail after
    ``timeout`` seconds. Generous on purpose: the machine may be busy."""
    deadline = time.monotonic() + timeout
    while True:
        result = condition()
        if result:
            return result
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what} after {timeout} s")
        time.sleep(0.05)


def referee_kind(event: pb.Event) -> str:
    """The kind of a referee event (``timed_out``, ``seed_revealed``, ...), else ``""``."""
    return event.referee.WhichOneof("kind") or "" if event.HasField("referee") else ""


def summary(stub: pb_grpc.RefereeServiceStub, game: Game) -> pb.GameSummary:
    return stub.GetGame(pb.GetGameRequest(game_id=game.game_id), timeout=RPC_TIMEOUT).game


def view(stub: pb_grpc.RefereeServiceStub, game: Game, seat: int | None) -> pb.View:
    """A seat's view, or the spectator's for ``seat=None``."""
    if seat is None:
        request = pb.GetViewRequest(game_id=game.game_id, spectator=True)
    else:
        request = pb.GetViewRequest(game_id=game.game_id, seat_token=game.tokens[seat])
    return stub.GetView(request, timeout=RPC_TIMEOUT).view


def snapshot(stub: pb_grpc.RefereeServiceStub, game: Game) -> tuple[bytes, ...]:
    """The game's summary and every seat's (and the spectator's) view, serialised. The
    summary's error accounting is left out: counting a refused command is its job."""
    game_summary = summary(stub, game)
    del game_summary.seat_stats[:]
    parts: list[Message] = [game_summary]
    parts += [view(stub, game, seat) for seat in [*range(game.players), None]]
    return tuple(part.SerializeToString(deterministic=True) for part in parts)


def submit(
    stub: pb_grpc.RefereeServiceStub,
    game: Game,
    seat: int,
    command: pb.Command | None,
    command_id: str | None = None,
    expected_version: int | None = None,
) -> pb.SubmitCommandResponse:
    return stub.SubmitCommand(
        submit_request(game, seat, command, command_id, expected_version), timeout=RPC_TIMEOUT
    )


def submit_request(
    game: Game,
    seat: int,
    command: pb.Command | None,
    command_id: str | None = None,
    expected_version: int | None = None,
) -> pb.SubmitCommandRequest:
    request = pb.SubmitCommandRequest(
        game_id=game.game_id,
        seat_token=game.tokens[seat],
        command_id=command_id if command_id is not None else uuid.uuid4().hex,
        command=command,
    )
    if expected_version is not None:
        request.expected_version = expected_version
    return request


def vq_command(**kind: Any) -> pb.Command:
    """A Vampire Queen command, e.g. ``vq_command(pass_=True)`` or ``play_set=(8, 2, 0)``."""
    inner = vq.VampireQueenCommand()
    if kind.pop("pass_", False):
        getattr(inner, "pass").SetInParent()  # ``pass`` is a Python keyword
    if "play_set" in kind:
        value, count, queens = kind.pop("play_set")
        inner.play_set.CopyFrom(
            vq.VampireQueenCommand.PlaySet(value=value, count=count, queens=queens)
        )
    if "play_card" in kind:
        inner.play_card.value = kind.pop("play_card")
    if "lead_hunter" in kind:
        inner.lead_hunter.hunter = kind.pop("lead_hunter")
    assert not kind, kind
    return pb.Command(vampire_queen=inner)


@dataclass
class Played:
    """What random play sent and got back, by command."""

    commands: list[tuple[int, pb.Command, str]] = field(default_factory=list)
    responses: list[pb.SubmitCommandResponse] = field(default_factory=list)


def play_random(
    stub: pb_grpc.RefereeServiceStub,
    game: Game,
    rng: random.Random,
    max_commands: int | None = None,
    on_view: Callable[[int, pb.View], None] | None = None,
) -> Played:
    """Play random legal commands (chosen from the seat's own view) until the game is over or
    ``max_commands`` were accepted."""
    played = Played()
    while max_commands is None or len(played.responses) < max_commands:
        game_summary = summary(stub, game)
        if game_summary.game_over:
            break
        assert game_summary.pending_seats, "a running game must wait for someone"
        seat = rng.choice(list(game_summary.pending_seats))
        seat_view = view(stub, game, seat)
        if on_view is not None:
            on_view(seat, seat_view)
        assert seat_view.legal_commands, f"seat {seat} is pending but has no legal command"
        command = rng.choice(list(seat_view.legal_commands))
        command_id = uuid.uuid4().hex
        response = submit(stub, game, seat, command, command_id)
        assert not response.duplicate
        assert response.last_sequence >= response.first_sequence > game_summary.version
        played.commands.append((seat, command, command_id))
        played.responses.append(response)
    return played


def play_to_end(stub: pb_grpc.RefereeServiceStub, game: Game, rng: random.Random) -> Played:
    played = play_random(stub, game, rng)
    assert summary(stub, game).game_over
    return played


# --- streams ----------------------------------------------------------------------------------


def stream_request(game: Game, seat: int | None, after_sequence: int = 0) -> pb.StreamGameRequest:
    if seat is None:
        return pb.StreamGameRequest(
            game_id=game.game_id, spectator=True, after_sequence=after_sequence
        )
    return pb.StreamGameRequest(
        game_id=game.game_id, seat_token=game.tokens[seat], after_sequence=after_sequence
    )


def read_stream(
    stub: pb_grpc.RefereeServiceStub,
    request: pb.StreamGameRequest,
    timeout: float = RPC_TIMEOUT,
) -> tuple[list[pb.StreamGameResponse], Failure | None]:
    """Every message of a stream until it ends: (messages, None) on OK, else the failure."""
    messages: list[pb.StreamGameResponse] = []
    try:
        for message in stub.StreamGame(request, timeout=timeout):
            messages.append(message)
    except grpc.RpcError as error:
        return messages, failure_of(error)
    return messages, None


def read_ok(
    stub: pb_grpc.RefereeServiceStub, request: pb.StreamGameRequest
) -> list[pb.StreamGameResponse]:
    messages, failure = read_stream(stub, request)
    assert failure is None, f"stream failed after {len(messages)} messages: {failure}"
    return messages


def read_until(
    stub: pb_grpc.RefereeServiceStub, request: pb.StreamGameRequest, sequence: int
) -> list[pb.StreamGameResponse]:
    """The messages of a (running game's) stream up to the event ``sequence``, then cancel."""
    call = stub.StreamGame(request, timeout=RPC_TIMEOUT)
    messages: list[pb.StreamGameResponse] = []
    try:
        for message in call:
            messages.append(message)
            if message.event.sequence >= sequence or sequence <= request.after_sequence:
                break
    finally:
        call.cancel()
    return messages


def event_kind(event: pb.Event) -> str:
    return event.vampire_queen.WhichOneof("kind") or ""


def serialised(messages: list[Any]) -> list[bytes]:
    """The messages' bytes, less where each stream's history ended (``caught_up`` says when
    the stream opened, not what it sent)."""
    out = []
    for message in messages:
        if isinstance(message, pb.StreamGameResponse) and message.caught_up:
            message = pb.StreamGameResponse.FromString(message.SerializeToString())
            message.ClearField("caught_up")
        out.append(message.SerializeToString(deterministic=True))
    return out


__all__ = [
    "CARD",
    "DECK",
    "GAME",
    "RPC_TIMEOUT",
    "SERVICE",
    "Failure",
    "Game",
    "Played",
    "assert_bad_request",
    "create_game",
    "create_refereed",
    "dealt_hand",
    "event_kind",
    "fails",
    "failure_of",
    "fixed_deal",
    "play_random",
    "play_to_end",
    "read_ok",
    "read_stream",
    "read_until",
    "referee_kind",
    "serialised",
    "snapshot",
    "stream_fails",
    "stream_request",
    "submit",
    "submit_request",
    "summary",
    "view",
    "vq_command",
    "wait_for",
]


def clear_card_digests(event: pb.Event) -> None:
    """Clear what a per-card commitment carries that differs between two games without
    telling anything about a card (docs/fairness.md section 6): Merkle roots and paths are
    hiding commitments, and the salts of a viewer's own openings come from each game's own
    secrets (its seed and the referee's random salt), never from the cards."""
    referee = event.referee
    kind = referee.WhichOneof("kind") if event.WhichOneof("game") == "referee" else None
    if kind == "deck_committed":
        referee.deck_committed.ClearField("root")
    elif kind == "cards_opened":
        for opening in referee.cards_opened.openings:
            opening.ClearField("path")
            opening.ClearField("salt")
