"""Commands at the application layer: idempotent ids (across a restart too), expected
versions, the answer's view, commands after the end.

Moved here from tests/server/test_commands.py, which keeps how each refusal reads on the
wire (status code, google.rpc details): these drive :class:`~referee.application.Referee`
directly.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from referee.application import Kind, Referee
from referee.games.vampire_queen.model import Pass, PlaySet, SetPlayed
from referee.store import SqliteEventStore
from tests.application.support import awaited, plays, refused, run

GAME = "vampire-queen"


def test_a_retry_is_the_first_outcome_even_with_a_stale_expected_version() -> None:
    async def scenario(referee: Referee) -> None:
        created = await referee.create(GAME, 3)
        live, _seat, token, command = awaited(referee, created)
        first = await referee.submit(created.game_id, token, "retry-me", command)
        log = list(live.table.log)
        again = await referee.submit(
            created.game_id,
            token,
            "retry-me",
            command,
            expected_version=first.first_sequence - 1,
        )
        assert again.duplicate and again.last_sequence == first.last_sequence
        assert live.table.log == log, "the retry appended nothing"
        played = [e for e in log if isinstance(e, SetPlayed)]
        assert len(played) == 1

    run(scenario)


def test_a_retry_after_a_restart_is_the_first_outcome(tmp_path: Path) -> None:
    """The command id is found in the store by the next referee: the same sequence numbers,
    nothing appended; another command under that id is refused."""
    path = tmp_path / "referee.sqlite3"
    found: dict[str, Any] = {}

    async def first(referee: Referee) -> None:
        created = await referee.create(GAME, 3)
        live, _seat, token, command = awaited(referee, created)
        submitted = await referee.submit(created.game_id, token, "once", command)
        found.update(
            game_id=created.game_id,
            token=token,
            command=command,
            other=created.seat_tokens[live.table.pending()[0]],
            submitted=submitted,
        )

    run(first, store=SqliteEventStore(path))

    async def second(referee: Referee) -> None:
        game_id, before = found["game_id"], found["submitted"]
        again = await referee.submit(game_id, found["token"], "once", found["command"])
        assert again.duplicate
        assert (again.first_sequence, again.last_sequence) == (
            before.first_sequence,
            before.last_sequence,
        )
        assert (await referee.summary(game_id)).version == before.last_sequence
        error = await refused(referee.submit(game_id, found["other"], "once", Pass()))
        assert error.kind is Kind.INVALID and error.field_violations[0][0] == "command_id"

    run(second, store=SqliteEventStore(path))


def test_every_wrong_expected_version_is_a_conflict_naming_the_current_one() -> None:
    async def scenario(referee: Referee) -> None:
        created = await referee.create(GAME, 3)
        live, _seat, token, command = awaited(referee, created)
        version = live.table.version
        for number, wrong in enumerate((version - 1, version + 1, 0)):
            error = await refused(
                referee.submit(
                    created.game_id, token, f"v{number}", command, expected_version=wrong
                )
            )
            assert error.kind is Kind.CONFLICT
            assert error.metadata["current_version"] == str(version)
        accepted = await referee.submit(
            created.game_id, token, "right", command, expected_version=version
        )
        assert accepted.first_sequence == version + 1

    run(scenario)


def test_the_answer_is_the_seats_view_after_the_command_and_the_end_refuses_all() -> None:
    async def scenario(referee: Referee) -> None:
        created = await referee.create(GAME, 4, {"rounds": "1"})
        live = referee.games[created.game_id]
        async for seat, answer in plays(referee, created, 4):
            now = await referee.view(created.game_id, seat_token=created.seat_tokens[seat])
            if not live.finished:  # the end adds the seed reveal, a batch of its own
                assert answer.view == now and answer.version == answer.last_sequence
        for seat, token in enumerate(created.seat_tokens):
            for command in (Pass(), PlaySet(value=1, count=1, queens=0)):
                error = await refused(
                    referee.submit(created.game_id, token, f"late-{seat}-{command}", command)
                )
                assert error.kind is Kind.NOT_NOW and error.rule_id, error
                assert error.reason == "GAME_OVER", error  # not NOT_YOUR_TURN: stop playing
                assert error.precondition is not None and error.precondition[0] == "GAME_STATE"

    run(scenario)
