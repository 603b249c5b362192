"""The Python bot SDK against a real referee: a bot is a class with choose(view)."""

from __future__ import annotations

import json
import random
import threading
from collections.abc import Iterator
from typing import Any

import grpc
import pytest

from referee.v1 import referee_pb2, referee_pb2_grpc
from referee_bot import sdk
from referee_bot.runner import GameStream
from referee_bot.sdk import PlayResult, play


class Chooser:
    """Any legal command, from a seeded generator (always the first one may never end a game
    of Sleeping Queens)."""

    def __init__(self, seed: int = 0) -> None:
        self.views: list[referee_pb2.View] = []
        self.rng = random.Random(seed)

    def choose(self, view: referee_pb2.View) -> referee_pb2.Command:
        self.views.append(view)
        return self.rng.choice(list(view.legal_commands))


class IllegalFirst(Chooser):
    def choose(self, view: referee_pb2.View) -> referee_pb2.Command:
        if not self.views:
            self.views.append(view)
            return referee_pb2.Command()  # names no command: INVALID_ARGUMENT
        return super().choose(view)


@pytest.fixture
def stub(address: str) -> Iterator[referee_pb2_grpc.RefereeServiceStub]:
    with grpc.insecure_channel(address) as channel:
        yield referee_pb2_grpc.RefereeServiceStub(channel)


def play_all(
    stub: Any,
    game: str,
    players: int,
    bots: list[Any],
    options: dict[str, str] | None = None,
    *,
    followers: list[Any] | None = None,
    batched: bool = True,
) -> tuple[str, list[PlayResult]]:
    """Every seat played by its bot with :func:`play` (``followers``: each seat's
    ``on_message``)."""
    created = stub.CreateGame(
        referee_pb2.CreateGameRequest(
            game_type=game,
            players=players,
            options=options or {},
            seed="sdk",
            public_reproducible_seed=True,
        )
    )
    results: list[PlayResult | None] = [None] * players
    errors: list[BaseException] = []

    def seat(index: int, token: str) -> None:
        try:
            follower = followers[index] if followers else None
            results[index] = play(
                bots[index], stub, created.game_id, token, on_message=follower, batched=batched
            )
        except BaseException as error:  # reported below
            errors.append(error)

    threads = [
        threading.Thread(target=seat, args=(s.seat, s.token), daemon=True) for s in created.seats
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not errors, errors
    assert all(r is not None for r in results)
    return created.game_id, [r for r in results if r is not None]


@pytest.mark.parametrize(
    ("game", "players", "options"),
    [("vampire-queen", 3, {"rounds": "1"}), ("sleeping-queens", 3, {})],
)
def test_a_bot_is_one_method(
    stub: referee_pb2_grpc.RefereeServiceStub, game: str, players: int, options: dict[str, str]
) -> None:
    bots = [Chooser(seed) for seed in range(players)]
    game_id, results = play_all(stub, game, players, bots, options)
    summary = stub.GetGame(referee_pb2.GetGameRequest(game_id=game_id)).game
    assert summary.game_over
    for index, (bot, result) in enumerate(zip(bots, results, strict=True)):
        assert result.seat == index and result.illegal == 0
        # Asked only on settled views where its seat was pending, once per version.
        versions = [v.version for v in bot.views]
        assert versions == sorted(set(versions))
        assert all(index in v.pending_seats and v.legal_commands for v in bot.views)
        assert result.commands == len(bot.views) == len(result.decision_ms)
        report = result.report()
        assert report["rank"] == next(r.rank for r in summary.results if r.seat == index)
        decisions = report["decisions"]
        assert isinstance(decisions, dict) and decisions["count"] == result.commands
        assert 0 <= decisions["mean_ms"] <= decisions["max_ms"]
        assert 0 <= decisions["p95_ms"] <= decisions["max_ms"]
        json.dumps(report)


class Messages:
    """A seat's ``on_message``: every stream message the SDK received."""

    def __init__(self) -> None:
        self.received: list[referee_pb2.StreamGameResponse] = []

    def __call__(self, message: referee_pb2.StreamGameResponse) -> None:
        self.received.append(message)

    def sequences(self) -> list[int]:
        """The sequences of the events received, in order (a message's one or its batch)."""
        found: list[int] = []
        for message in self.received:
            if message.HasField("event"):
                found.append(message.event.sequence)
            found.extend(event.sequence for event in message.events)
        return found


def test_a_seat_gets_one_message_per_batch_and_plays_the_whole_game(
    stub: referee_pb2_grpc.RefereeServiceStub,
) -> None:
    """By default the SDK follows a seat's batched stream: after the current view, one
    message per batch of events (a command's, the creation's, the referee's), every event
    once and in order, each message's view the one after its batch; the game is played to its
    end."""
    players = 3
    followers = [Messages() for _ in range(players)]
    bots = [Chooser(seed) for seed in range(players)]
    game_id, results = play_all(
        stub, "vampire-queen", players, bots, {"rounds": "1"}, followers=followers
    )
    summary = stub.GetGame(referee_pb2.GetGameRequest(game_id=game_id)).game
    assert summary.game_over
    for seat, (follower, result) in enumerate(zip(followers, results, strict=True)):
        assert result.final_view is not None and result.final_view.game_over
        assert result.commands > 0 and result.seat == seat
        first, *batches = follower.received
        assert not first.HasField("event") and not first.events  # the current view
        # The history from the first event, then the live batches, to the game-over view
        # (the SDK stops there: the seed's reveal may follow).
        assert follower.sequences() == list(range(1, result.final_view.version + 1))
        for message in batches:
            assert not message.HasField("event") and message.events
            last = message.events[-1]
            assert last.batch_end_sequence == last.sequence == message.view.version
        # A message per batch, fewer than the events (some commands append several).
        assert len(batches) == len({e.batch_end_sequence for m in batches for e in m.events})
        assert len(batches) < result.final_view.version


def test_batched_false_gives_one_message_per_event(
    stub: referee_pb2_grpc.RefereeServiceStub,
) -> None:
    """``batched=False``: the plain stream, each event in a message of its own with the view
    right after it; the bot is still asked only on settled views."""
    players = 2
    followers = [Messages() for _ in range(players)]
    bots = [Chooser(seed) for seed in range(players)]
    game_id, results = play_all(
        stub, "sleeping-queens", players, bots, followers=followers, batched=False
    )
    summary = stub.GetGame(referee_pb2.GetGameRequest(game_id=game_id)).game
    assert summary.game_over
    for bot, follower, result in zip(bots, followers, results, strict=True):
        first, *steps = follower.received
        assert not first.HasField("event")
        assert all(m.HasField("event") and not m.events for m in steps)
        assert result.final_view is not None
        assert [m.event.sequence for m in steps] == list(range(1, result.final_view.version + 1))
        ends = {m.event.sequence for m in steps if m.event.sequence == m.event.batch_end_sequence}
        assert all(v.version in ends or v.version == first.view.version for v in bot.views)
        assert result.commands == len(bot.views)


def test_an_illegal_command_is_counted_and_the_default_played(
    stub: referee_pb2_grpc.RefereeServiceStub,
) -> None:
    bots: list[Any] = [IllegalFirst(), Chooser()]
    _, results = play_all(stub, "sleeping-queens", 2, bots)
    assert results[0].illegal == 1 and results[1].illegal == 0
    assert results[0].final_view is not None and results[0].final_view.game_over


class Drop(grpc.RpcError):
    def code(self) -> grpc.StatusCode:
        return grpc.StatusCode.UNAVAILABLE

    def details(self) -> str:
        return "dropped by the test"


class DroppingStub:
    """Passes every call on, but the first StreamGame of each seat breaks after 3 messages."""

    def __init__(self, stub: referee_pb2_grpc.RefereeServiceStub) -> None:
        self.stub = stub
        self.opened: list[int] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stub, name)

    def StreamGame(self, request: referee_pb2.StreamGameRequest) -> Any:
        self.opened.append(request.after_sequence)
        call = self.stub.StreamGame(request)
        first = len(self.opened) == 1

        class Call:
            def __iter__(self) -> Iterator[referee_pb2.StreamGameResponse]:
                for count, message in enumerate(call, 1):
                    yield message
                    if first and count == 3:
                        call.cancel()
                        raise Drop()

            def cancel(self) -> None:
                call.cancel()

        return Call()


@pytest.mark.parametrize("batched", [False, True])
def test_a_dropped_stream_is_resumed_after_the_last_sequence(
    stub: referee_pb2_grpc.RefereeServiceStub, batched: bool
) -> None:
    created = stub.CreateGame(
        referee_pb2.CreateGameRequest(
            game_type="sleeping-queens", players=2, seed="drop", public_reproducible_seed=True
        )
    )
    dropping = DroppingStub(stub)
    results: dict[int, PlayResult] = {}

    def seat(index: int, token: str, chosen: Any) -> None:
        bot = Chooser()
        stream = GameStream(
            chosen, created.game_id, token=token, stop_at_game_over=True, batched=batched
        )
        results[index] = play(
            bot, chosen, created.game_id, token, stream=stream, on_message=followers[index]
        )

    followers = [Messages(), Messages()]

    threads = [
        threading.Thread(
            target=seat, args=(s.seat, s.token, dropping if s.seat == 0 else stub), daemon=True
        )
        for s in created.seats
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert results[0].reconnects == 1 and results[1].reconnects == 0
    assert dropping.opened[0] == 0 and dropping.opened[1] > 0  # resumed after a sequence
    assert results[0].final_view is not None and results[0].final_view.game_over
    final = results[0].final_view.version
    assert followers[0].sequences() == list(range(1, final + 1))  # no event lost or twice


def test_main_runs_a_bot_script(
    address: str, stub: referee_pb2_grpc.RefereeServiceStub, capsys: pytest.CaptureFixture[str]
) -> None:
    created = stub.CreateGame(
        referee_pb2.CreateGameRequest(
            game_type="sleeping-queens", players=2, seed="main", public_reproducible_seed=True
        )
    )
    other = threading.Thread(
        target=play,
        args=(Chooser(), stub, created.game_id, created.seats[1].token),
        daemon=True,
    )
    other.start()
    seen: list[sdk.SeatContext] = []

    def make_bot(context: sdk.SeatContext) -> Chooser:
        seen.append(context)
        return Chooser()

    argv = [f"--server={address}", f"--game-id={created.game_id}"]
    argv += [f"--token={created.seats[0].token}", "--seed=7"]
    assert sdk.main(make_bot, argv) == 0
    other.join(30)
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert report["seat"] == 0 and report["commands"] > 0
    assert seen[0].game_type == "sleeping-queens" and seen[0].seed == "7"
    assert sdk.main(make_bot, [f"--server={address}", "--game-id=nope", "--token=x"]) == 1


def test_the_docs_example_bot() -> None:
    """The SDK example of docs/tournaments.md, as written."""
    import re
    from pathlib import Path

    docs = Path(__file__).resolve().parents[2] / "docs" / "tournaments.md"
    [block] = re.findall(r"```python\n(.*?)```", docs.read_text(), flags=re.S)
    namespace: dict[str, Any] = {"__name__": "docs_example"}
    exec(compile(block, str(docs), "exec"), namespace)
    context = sdk.SeatContext("s", "g", "vampire-queen", "1", random.Random(1), args=None)  # type: ignore[arg-type]
    bot = namespace["make_bot"](context)
    view = referee_pb2.View(legal_commands=[referee_pb2.Command(), referee_pb2.Command()])
    assert bot.choose(view) in view.legal_commands


def test_sdk_doctests() -> None:
    import doctest

    assert doctest.testmod(sdk).failed == 0
