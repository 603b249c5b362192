"""The referee application on its own: no server, no gRPC, no protobuf requests.

What a platform embedding the referee relies on (docs/embedding.md, "Refereed games
in-process"): idempotent command ids, expected versions, clocks that time out and forfeit,
the seed commitment and reveal, limits, streams, and domain errors with a kind and a rule id.
"""

from __future__ import annotations

import ast
import asyncio
import random
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from referee.application import (
    Clock,
    GameSettings,
    Kind,
    Limits,
    Referee,
    StreamEnded,
    Unreadable,
)
from referee.application.tables.errors import stopping
from referee.engine.table_events import SeatForfeited, TimedOut, commitment
from referee.games.sleeping_queens.model import Discard as SleepingQueensDiscard
from referee.games.vampire_queen.model import Pass
from tests.application.support import first_legal, play_to_end, refused, run, until

ROOT = Path(__file__).resolve().parents[2] / "referee"


# --- no transport ------------------------------------------------------------------------------

TRANSPORTS = {
    "grpc",
    "grpc_status",
    "grpc_health",
    "connectrpc",
    "hypercorn",
    "uvicorn",
    "starlette",
}


@pytest.mark.parametrize("path", sorted(ROOT.glob("application/*.py")), ids=lambda p: p.name)
def test_the_application_imports_no_transport(path: Path) -> None:
    """No gRPC, no HTTP, no service stubs, nothing of the server package."""
    imported: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            imported |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            imported.add(node.module)
    roots = {name.split(".")[0] for name in imported}
    assert not roots & TRANSPORTS, f"{path.name} imports {sorted(roots & TRANSPORTS)}"
    assert not {n for n in imported if n.startswith("referee.server")}, path.name
    assert not {n for n in imported if n.endswith("_pb2_grpc")}, path.name


@pytest.mark.parametrize("path", sorted(ROOT.glob("application/*.py")), ids=lambda p: p.name)
def test_the_application_imports_nothing_generated(path: Path) -> None:
    """No protobuf, no ``referee.v1`` messages, not the codec of those messages: values in
    and bytes out (and back) go through the stored-form mapper, :mod:`referee.stored`."""
    imported: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            imported |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            imported |= {node.module, *(f"{node.module}.{a.name}" for a in node.names)}
    generated = {
        name
        for name in imported
        if name.startswith(("google.protobuf", "referee.v1", "referee.codec"))
        or name.split(".")[-1].endswith("_pb2")
        or name in ("google", "referee.codec")
    }
    assert not generated, f"{path.name} imports {sorted(generated)}"


# --- idempotency and versions ------------------------------------------------------------------


def test_a_retried_command_id_returns_the_first_outcome() -> None:
    async def scenario(referee: Referee) -> None:
        created = await referee.create("vampire-queen", 3)
        live = referee.games[created.game_id]
        seat = live.table.pending()[0]
        command = first_legal(live, seat)
        token = created.seat_tokens[seat]
        first = await referee.submit(created.game_id, token, "c-1", command)
        version = live.table.version
        again = await referee.submit(created.game_id, token, "c-1", command)
        assert not first.duplicate and again.duplicate
        assert (again.first_sequence, again.last_sequence) == (
            first.first_sequence,
            first.last_sequence,
        )
        assert live.table.version == version, "a retry appends nothing"
        # The same id for another command is refused; the game does not move.
        other = first_legal(live, live.table.pending()[0])
        error = await refused(
            referee.submit(
                created.game_id, created.seat_tokens[live.table.pending()[0]], "c-1", other
            )
        )
        assert error.kind is Kind.INVALID and error.field_violations[0][0] == "command_id"
        assert live.table.version == version

    run(scenario)


def test_a_retry_of_a_refused_command_is_refused_alike_vq6() -> None:
    """VQ-6: the leader may not pass. The refusal names the rule; its retry (same id, same
    command) gets the same error without counting again; nothing is appended."""

    async def scenario(referee: Referee) -> None:
        created = await referee.create("vampire-queen", 3)
        live = referee.games[created.game_id]
        leader = live.table.pending()[0]
        token = created.seat_tokens[leader]
        version = live.table.version
        error = await refused(referee.submit(created.game_id, token, "p", Pass()))
        assert (error.kind, error.reason, error.rule_id) == (Kind.ILLEGAL, "RULE_VIOLATION", "VQ-6")
        again = await refused(referee.submit(created.game_id, token, "p", Pass()))
        assert again == error
        assert live.table.version == version
        summary = await referee.summary(created.game_id)
        assert summary.seat_stats[leader].rejected_commands == 1

    run(scenario)


def test_expected_version_conflicts_and_not_your_turn_is_not_now() -> None:
    async def scenario(referee: Referee) -> None:
        created = await referee.create("vampire-queen", 3)
        live = referee.games[created.game_id]
        seat = live.table.pending()[0]
        token = created.seat_tokens[seat]
        stale = live.table.version - 1
        error = await refused(
            referee.submit(
                created.game_id, token, "v", first_legal(live, seat), expected_version=stale
            )
        )
        assert error.kind is Kind.CONFLICT
        assert error.metadata["current_version"] == str(live.table.version)
        other = (seat + 1) % 3
        error = await refused(
            referee.submit(created.game_id, created.seat_tokens[other], "t", Pass())
        )
        assert error.kind is Kind.NOT_NOW and (error.rule_id or "").startswith("VQ-")
        assert error.reason == "NOT_YOUR_TURN"  # its own reason: the game goes on
        accepted = await referee.submit(
            created.game_id,
            token,
            "v2",
            first_legal(live, seat),
            expected_version=live.table.version,
        )
        assert not accepted.duplicate and accepted.view.view.viewer == seat

    run(scenario)


def test_commands_of_another_game_and_unreadable_ones_count_against_the_seat() -> None:
    async def scenario(referee: Referee) -> None:
        created = await referee.create("vampire-queen", 3)
        game_id, token = created.game_id, created.seat_tokens[0]
        error = await refused(
            referee.submit(game_id, token, "x", SleepingQueensDiscard(cards=(2,)))
        )
        assert error.kind is Kind.INVALID
        assert error.message == "command: this game is vampire-queen, not sleeping-queens"
        error = await refused(
            referee.submit(game_id, token, "y", Unreadable("command", "required"))
        )
        assert error.field_violations == [("command", "required")]
        summary = await referee.summary(game_id)
        assert summary.seat_stats[0].rejected_commands == 2

    run(scenario)


# --- who may do what ---------------------------------------------------------------------------


def test_tokens_and_ids_are_checked_before_anything_else() -> None:
    async def scenario(referee: Referee) -> None:
        created = await referee.create("dracula-vs-van-helsing", 2)
        assert (await refused(referee.summary("nope"))).kind is Kind.NOT_FOUND
        assert (await refused(referee.view(created.game_id))).kind is Kind.UNAUTHENTICATED
        error = await refused(referee.view(created.game_id, seat_token="seat-forged"))
        assert (error.kind, error.reason) == (Kind.FORBIDDEN, "TOKEN_INVALID")
        seat_token = created.seat_tokens[0]
        error = await refused(referee.abort(created.game_id, seat_token))
        assert error.kind is Kind.FORBIDDEN, "a seat token is not the organiser's"
        error = await refused(referee.view(created.game_id, seat_token=seat_token, as_seat=1))
        assert error.reason == "ORGANISER_ONLY"
        assert (await referee.view(created.game_id, spectator=True)).view.viewer is None
        organiser = await referee.view(
            created.game_id, organiser_token=created.organiser_token, as_seat=1
        )
        assert organiser.view.viewer == 1
        error = await refused(referee.export(created.game_id, created.organiser_token))
        assert (error.kind, error.reason) == (Kind.NOT_NOW, "NOT_REVEALED")

    run(scenario)


def test_limits_refuse_with_kind_limit() -> None:
    async def scenario(referee: Referee) -> None:
        created = await referee.create("vampire-queen", 3)
        error = await refused(referee.create("vampire-queen", 3))
        assert (error.kind, error.metadata["limit"]) == (Kind.LIMIT, "games")
        stream = referee.stream(created.game_id, spectator=True)
        await anext(stream)
        second = referee.stream(created.game_id, spectator=True)
        error = await refused(anext(second))
        assert (error.kind, error.metadata["limit"]) == (Kind.LIMIT, "streams")
        await stream.aclose()
        assert referee.streams == 0

    run(scenario, Limits(max_games=1, max_streams=1))


def test_setup_refusals_name_the_field() -> None:
    async def scenario(referee: Referee) -> None:
        error = await refused(referee.create("chess", 2))
        assert error.field_violations[0][0] == "game_type"
        error = await refused(referee.create("vampire-queen", 99))
        assert error.field_violations[0][0] == "players"
        error = await refused(referee.create("vampire-queen", 3, seed="4711"))
        assert error.field_violations[0][0] == "seed", "a guessable seed must be declared public"
        clock = GameSettings(clock=Clock(decision_ms=1))
        error = await refused(referee.create("vampire-queen", 3, settings=clock))
        assert error.field_violations[0][0] == "clock.decision_ms"

    run(scenario)


# --- clocks, forfeits, commitments -------------------------------------------------------------


def test_a_silent_seat_times_out_then_forfeits_and_the_game_still_ends() -> None:
    """With a 50 ms clock and forfeit after one timeout, nobody plays: every decision times
    out, every seat forfeits, the referee plays their default commands to the end and reveals
    the seed, which opens the commitment made before the first card."""

    async def scenario(referee: Referee) -> None:
        settings = GameSettings(  # no connect grace: the clocks run from the start
            clock=Clock(decision_ms=50, forfeit_after_timeouts=1),
            card_commitments=True,
            connect_grace_ms=0,
        )
        created = await referee.create("dracula-vs-van-helsing", 2, settings=settings)
        live = referee.games[created.game_id]
        await until(lambda: live.finished)
        log = live.table.log
        assert {e.seat for e in log if isinstance(e, TimedOut)} == {0, 1}
        assert {e.seat for e in log if isinstance(e, SeatForfeited)} == {0, 1}
        summary = await referee.summary(created.game_id)
        assert summary.game_over and summary.seed_released and summary.clock is not None
        assert all(s.timeouts == 1 and s.forfeited for s in summary.seat_stats)
        revealed = (await referee.reveal(created.game_id, created.organiser_token)).revealed_seed
        assert revealed is not None
        assert summary.seed_commitment == commitment(revealed, live.table.config.salt)
        exported = await referee.export(created.game_id, created.organiser_token)
        assert [e.sequence for e in exported.events] == list(range(1, live.table.version + 1))

    run(scenario)


def test_a_seat_that_plays_in_time_never_times_out() -> None:
    async def scenario(referee: Referee) -> None:
        settings = GameSettings(clock=Clock(decision_ms=10_000), card_commitments=True)
        created = await referee.create("dracula-vs-van-helsing", 2, settings=settings)
        live = referee.games[created.game_id]
        rng = random.Random(5)
        for number in range(40):
            if live.over:
                break
            seat = live.table.pending()[0]
            command = rng.choice(live.table.view(seat).legal_commands)
            submitted = await referee.submit(
                created.game_id, created.seat_tokens[seat], f"n{number}", command
            )
            assert submitted.view.clocks, "a clocked game's view carries every seat's clock"
        assert not any(isinstance(e, TimedOut) for e in live.table.log)

    run(scenario)


# --- streams -----------------------------------------------------------------------------------


def test_batched_streams_share_updates_and_events() -> None:
    """Two spectators get the very same update per batch; a seat's update is its own, but
    the events it sees as the spectator does are the same values (encoded once)."""

    async def scenario(referee: Referee) -> None:
        created = await referee.create("vampire-queen", 3)
        live = referee.games[created.game_id]
        after = live.table.version
        watchers = [
            referee.stream(created.game_id, spectator=True, after=after, batched=True),
            referee.stream(created.game_id, spectator=True, after=after, batched=True),
            referee.stream(
                created.game_id, seat_token=created.seat_tokens[1], after=after, batched=True
            ),
        ]
        for stream in watchers:
            assert not (await anext(stream)).events  # the current view first
        seat = live.table.pending()[0]
        submitted = await referee.submit(
            created.game_id, created.seat_tokens[seat], "one", first_legal(live, seat)
        )
        first, second, seat_one = [await anext(stream) for stream in watchers]
        assert first is second
        assert [e.sequence for e in first.events] == list(
            range(submitted.first_sequence, submitted.last_sequence + 1)
        )
        assert seat_one.view.view.viewer == 1 and first.view.view.viewer is None
        for spectator_event, seat_event in zip(first.events, seat_one.events, strict=True):
            if spectator_event.event == seat_event.event:
                assert spectator_event is seat_event
        for stream in watchers:
            await stream.aclose()

    run(scenario)


def test_a_stream_resumes_exactly_and_ends_with_the_game() -> None:
    async def scenario(referee: Referee) -> None:
        created = await referee.create("dracula-vs-van-helsing", 2)
        live = referee.games[created.game_id]
        await play_to_end(referee, created, 11)
        middle = live.table.version // 2

        async def sequences(batched: bool) -> list[int]:
            seen: list[int] = []
            stream = referee.stream(
                created.game_id, seat_token=created.seat_tokens[0], after=middle, batched=batched
            )
            async for update in stream:
                seen += [e.sequence for e in update.events]
            return seen

        expected = list(range(middle + 1, live.table.version + 1))
        assert await sequences(batched=False) == expected
        assert await sequences(batched=True) == expected

    run(scenario)


def test_closing_streams_ends_them_with_the_error() -> None:
    async def scenario(referee: Referee) -> None:
        created = await referee.create("vampire-queen", 3)
        version = referee.games[created.game_id].table.version
        stream: AsyncIterator[Any] = referee.stream(created.game_id, spectator=True, after=version)
        await anext(stream)
        waiting = asyncio.ensure_future(anext(stream))
        await asyncio.sleep(0.05)
        referee.close_streams(stopping("bye"))
        with pytest.raises(StreamEnded) as ended:
            await waiting
        assert ended.value.error.kind is Kind.UNAVAILABLE

    run(scenario)
