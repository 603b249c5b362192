"""Seats in the engine: claims and resignations as table events, a table that waits.

A table whose seats are claimed opens without its deal (idle: nobody is asked anything, so no
clock can run) and deals when :meth:`Table.start`'s events are appended; a resigned seat is
played for by the referee as a forfeited one. A table whose seats all went out as tokens has
exactly the log it had before seats could be claimed.
"""

from __future__ import annotations

from typing import Any

import pytest

from referee import codec
from referee.engine import Rejection, Table, TableSettings, all_games
from referee.engine.labels import table_event_text
from referee.engine.table import make_config
from referee.engine.table_events import (
    DefaultPlayed,
    PlayerKind,
    SeatClaimed,
    SeatResigned,
    SeedCommitted,
    TableEvent,
)
from referee.fairness import CommandRecord, verify
from referee.stored import decode_events, encode_batch

GAMES = [pytest.param(game.info.type_id, id=game.info.type_id) for game in all_games()]
SALT = bytes(range(32))


def waiting(game_type: str = "vampire-queen", players: int = 3) -> Table[Any]:
    """A refereed table that opened without its deal (its seats are to be claimed)."""
    game = next(g for g in all_games() if g.info.type_id == game_type)
    options = {"rounds": "1"} if game_type == "vampire-queen" else {}
    config = make_config(game, players, options, b"seats", None, SALT)
    table: Table[Any] = Table(game, config, TableSettings(card_commitments=True))
    table.extend(table.opening(start=False))
    return table


@pytest.mark.parametrize("game_type", GAMES)
def test_token_seats_keep_todays_opening(game_type: str) -> None:
    """The default opening is the commitment then the deal: no claim event, same log."""
    game = next(g for g in all_games() if g.info.type_id == game_type)
    players = game.info.min_players
    created = Table.create(
        game_type, players, seed=b"same", settings=TableSettings(card_commitments=True), salt=SALT
    )
    assert not any(isinstance(e, SeatClaimed | SeatResigned) for e in created.log)
    assert created.started and created.pending()


def test_a_waiting_table_is_idle_until_it_starts() -> None:
    table = waiting()
    assert [type(e) for e in table.log] == [SeedCommitted]
    assert not table.started and not table.over
    assert table.pending() == () and table.decisions() == ()
    assert table.legal_commands(0) == []
    with pytest.raises(Rejection) as refused:
        table.decide(0, object())
    assert refused.value.rule_id == "GAME_NOT_STARTED" and refused.value.kind == "precondition"
    with pytest.raises(Rejection, match="GAME_NOT_STARTED"):
        table.resign(0)
    claims = [SeatClaimed(s, f"p{s}", PlayerKind.BOT) for s in range(3)]
    table.extend([*claims, *table.start()])
    assert table.started and table.pending()
    assert table.status.claims == {c.seat: c for c in claims}
    with pytest.raises(Rejection, match="GAME_STARTED"):
        table.start()


def test_the_deal_after_claims_is_the_deal_of_the_seed() -> None:
    """Claims in front change nothing of the game: the same seed deals the same cards."""
    table = waiting()
    table.extend([SeatClaimed(0, "ann"), *table.start()])
    plain = Table.create(
        "vampire-queen",
        3,
        {"rounds": "1"},
        seed=b"seats",
        settings=TableSettings(card_commitments=True),
        salt=SALT,
    )
    ours = [e for e in table.log if not isinstance(e, SeatClaimed)]
    assert ours == plain.log
    assert table.view(1).game == plain.view(1).game


def test_a_resigned_seat_is_played_for() -> None:
    table = Table.create("vampire-queen", 3, {"rounds": "1"}, seed=b"r", settings=TableSettings())
    seat = table.pending()[0]
    table.extend(table.resign(seat))
    assert seat in table.status.resigned and seat in table.status.forfeited
    with pytest.raises(Rejection) as refused:
        table.decide(seat, table.game.legal_commands(table.state, seat)[0])
    assert refused.value.rule_id == "RESIGNED"
    with pytest.raises(Rejection, match="ALREADY_RESIGNED"):
        table.resign(seat)
    played = table.forfeited_play()
    assert played is not None and isinstance(played[0], DefaultPlayed)
    assert played[0].seat == seat


def test_resigning_a_game_that_is_over_is_refused() -> None:
    table = Table.create("vampire-queen", 3, {"rounds": "1"}, seed=b"o", settings=TableSettings())
    table.extend(table.abort("enough"))
    with pytest.raises(Rejection, match="GAME_OVER"):
        table.resign(0)


def test_seat_events_are_public_with_their_text_and_round_trip() -> None:
    claimed = SeatClaimed(2, "bot-7", PlayerKind.BOT)
    resigned = SeatResigned(1)
    for event in (claimed, resigned, SeatClaimed(0, "")):
        assert isinstance(event, TableEvent)
        assert event.redacted(0) is event and event.redacted(None) is event
        message = codec.event_to_proto("vampire-queen", event, 4, describe=True)
        assert codec.event_from_proto(message) == event
    assert table_event_text(claimed) == "bot-7 (a bot) took seat 2"
    assert table_event_text(SeatClaimed(0, "")) == "a player took seat 0"
    assert "resigned" in table_event_text(resigned)
    assert PlayerKind.named("bot") is PlayerKind.BOT and PlayerKind.named("") is PlayerKind(0)
    assert PlayerKind.PERSON.word == "person" and PlayerKind.UNSPECIFIED.word == ""


def test_replay_with_claims_and_a_resignation_is_equal_and_verifies() -> None:
    """A log with claims, a deal after them and a resignation replays to the same table and
    `referee verify` re-derives every batch of it."""
    table = waiting()
    batches: list[list[Any]] = [list(table.log)]
    batches.append([SeatClaimed(1, "bob", PlayerKind.PERSON)])
    table.extend(batches[-1])
    start = [SeatClaimed(0, "ann"), SeatClaimed(2, "", PlayerKind.UNSPECIFIED), *table.start()]
    table.extend(start)
    batches.append(start)
    seat = table.pending()[0]
    batches.append(table.resign(seat))
    table.extend(batches[-1])
    records: list[CommandRecord] = []
    for _ in range(5000):
        if table.over:
            break
        forced = table.forfeited_play()
        if forced is None:
            pending = table.pending()[0]
            command = table.legal_commands(pending)[0]
            forced = table.decide(pending, command)
            proto = codec.command_to_proto("vampire-queen", command)
            records.append(CommandRecord(pending, table.version + 1, proto))
        batches.append(forced)
        table.extend(forced)
    assert table.over
    batches.append(table.reveal())
    table.extend(batches[-1])
    replayed = Table.replay(table.config, table.log, table.settings)
    assert replayed.status.claims == table.status.claims
    assert replayed.status.resigned == {seat}
    assert replayed.view(None) == table.view(None)

    payloads: list[bytes] = []
    for batch in batches:
        payloads += encode_batch("vampire-queen", batch, len(payloads) + 1, 1000)
    report = verify(table.config, decode_events(payloads), records, table.settings)
    assert report.ok, report.problems
