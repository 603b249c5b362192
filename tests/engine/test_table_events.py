"""The referee's own events in the engine: commitment, reveal, timeouts, forfeits, abort.

Everything here is sans-I/O: the table decides *what* a timeout does; when a clock runs out is
the server's business (tests/server/test_clocks.py).
"""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from referee import codec
from referee.engine import FixedDeal, Rejection, Table, TableSettings, all_games
from referee.engine.table_events import (
    DefaultPlayed,
    GameAborted,
    SeatForfeited,
    SeedCommitted,
    SeedRevealed,
    TableEvent,
    TimedOut,
    commitment,
    deal_commitment,
    deal_text,
)

GAMES = [pytest.param(game.info.type_id, id=game.info.type_id) for game in all_games()]
#: The referee's commitment salt of the tables here (a server draws 32 random bytes).
SALT = bytes(range(32))


def refereed(
    game_type: str = "vampire-queen",
    players: int | None = None,
    settings: TableSettings | None = None,
    **options: str,
) -> Table[Any]:
    if game_type == "vampire-queen":
        options.setdefault("rounds", "1")
    count = players if players is not None else _min_players(game_type)
    return Table.create(
        game_type,
        count,
        options,
        seed=b"table-events",
        settings=settings or TableSettings(),
        salt=SALT,
    )


def _min_players(game_type: str) -> int:
    return next(g.info.min_players for g in all_games() if g.info.type_id == game_type)


def test_commitment_is_salted_sha256_hex() -> None:
    assert commitment(b"abc", SALT) == hashlib.sha256(SALT + b"abc").hexdigest()
    assert commitment(b"abc") == hashlib.sha256(b"abc").hexdigest()  # games before salts
    deal = FixedDeal(decks=(("1", "Q"),), picks=(2,))
    assert deal_text(deal) == b'{"decks":[["1","Q"]],"picks":[2]}'
    expected = hashlib.sha256(SALT + b"s" + deal_text(deal)).hexdigest()
    assert deal_commitment(b"s", deal, SALT) == expected
    assert deal_commitment(b"s", None, SALT) == ""


def test_a_refereed_table_draws_its_own_salt() -> None:
    first, second = (
        Table.create("vampire-queen", 3, seed=b"x", settings=TableSettings()) for _ in "ab"
    )
    assert len(first.config.salt) == 32 and first.config.salt != second.config.salt
    assert first.status.commitment != second.status.commitment, "a guessable seed stays hidden"
    assert first.log[1:] == second.log[1:], "the deal comes from the seed alone"


@pytest.mark.parametrize("game_type", GAMES)
def test_a_refereed_table_opens_with_its_commitment(game_type: str) -> None:
    table = refereed(game_type)
    plain = Table.create(
        game_type, table.config.players, dict(table.config.options), seed=b"table-events"
    )
    first = table.log[0]
    assert first == SeedCommitted(commitment(b"table-events", SALT), "")
    assert table.log[1:] == plain.log, "the commitment comes before the same deal"
    assert table.status.commitment == first.commitment
    assert table.view(None).commitment == first.commitment
    assert table.pending() == plain.pending()
    # Replaying the log folds the table events again; the game never sees them.
    again = Table.replay(table.config, table.log, table.settings)
    assert again.state == table.state and again.status == table.status


def test_nobody_is_asked_anything_before_the_game_starts() -> None:
    table = refereed()
    empty = Table.replay(table.config, table.log[:1], table.settings)  # only the commitment
    assert empty.pending() == () and empty.decisions() == ()
    assert empty.legal_commands(0) == []


@pytest.mark.parametrize("game_type", GAMES)
def test_a_timeout_plays_the_default_command(game_type: str) -> None:
    table = refereed(game_type)
    decision = table.decisions()[0]
    seat = decision.seat
    default = table.default_command(seat)
    assert default is not None and default in table.legal_commands(seat)  # a game may prefer one
    expected = table.decide(seat, default)
    events = table.time_out(seat)
    assert events[0] == TimedOut(seat, decision.kind, decision.rule_id, default, 1)
    assert events[1:] == expected
    table.extend(events)
    assert table.status.timeouts[seat] == 1 and not table.status.forfeited
    # Round trip through the wire form, and redaction: only the seat sees the command.
    message = codec.event_to_proto(game_type, events[0], 7)
    assert codec.event_from_proto(message) == events[0]
    assert table.redact(events[0], seat) == events[0]
    other = (seat + 1) % table.config.players
    for viewer in (other, None):
        hidden = table.redact(events[0], viewer)
        assert isinstance(hidden, TimedOut) and hidden.command is None
        assert hidden.seat == seat and hidden.timeouts == 1


def test_a_seat_without_a_decision_cannot_time_out() -> None:
    table = refereed()
    waiting = next(s for s in range(table.config.players) if s not in table.pending())
    with pytest.raises(Rejection, match="no decision"):
        table.time_out(waiting)
    assert table.default_command(waiting) is None


def test_forfeit_after_k_timeouts_then_default_plays() -> None:
    table = refereed(players=3, settings=TableSettings(forfeit_after_timeouts=2))
    seat = table.pending()[0]
    table.extend(table.time_out(seat))
    while seat not in table.pending():  # the others play until it is the seat's turn again
        other = table.pending()[0]
        table.submit(other, table.legal_commands(other)[-1])
    events = table.time_out(seat)
    assert events[1] == SeatForfeited(seat, 2)
    table.extend(events)
    assert table.status.forfeited == {seat} and table.status.timeouts[seat] == 2
    assert table.legal_commands(seat) == []
    with pytest.raises(Rejection) as refused:
        table.decide(seat, object())
    assert refused.value.kind == "precondition" and refused.value.rule_id == "FORFEIT"
    # From now on, whenever the game waits for the seat, the referee plays for it.
    plays = 0
    while not table.over:
        played = table.forfeited_play()
        if played is not None:
            assert isinstance(played[0], DefaultPlayed) and played[0].seat == seat
            table.extend(played)
            plays += 1
            continue
        other = table.pending()[0]
        assert other != seat
        table.submit(other, table.legal_commands(other)[0])
    assert plays > 0 and table.results() is not None


def test_the_seed_is_revealed_once_the_game_is_over() -> None:
    table = refereed(players=3)
    with pytest.raises(Rejection, match="only when the game is over"):
        table.reveal()
    while not table.over:
        assert not table.reveal_due()
        seat = table.pending()[0]
        table.submit(seat, table.legal_commands(seat)[0])
    assert table.reveal_due()
    events = table.reveal()
    assert events == [SeedRevealed(b"table-events", None, SALT)]
    hidden = SeedRevealed(b"")
    assert [table.redact(e, v) for e in events for v in (None, 0, 1, 2)] == [hidden] * 4
    table.extend(events)
    assert not table.reveal_due() and table.status.revealed == events[0]
    with pytest.raises(Rejection, match="revealed already"):
        table.reveal()


def test_a_deferred_reveal_waits_to_be_asked() -> None:
    table = refereed(players=3, settings=TableSettings(defer_reveal=True))
    while not table.over:
        seat = table.pending()[0]
        table.submit(seat, table.legal_commands(seat)[0])
    assert not table.reveal_due()
    assert table.reveal() == [SeedRevealed(b"table-events", None, SALT)]


def test_a_public_reveal_is_seen_by_everyone() -> None:
    table = refereed(players=3, settings=TableSettings(public_reveal=True))
    events = table.abort("the hall closes")
    public = SeedRevealed(b"table-events", None, SALT, public=True)
    assert events[-1] == public
    assert [table.redact(public, v) for v in (None, 0, 1, 2)] == [public] * 4


def test_plain_library_tables_make_no_table_events() -> None:
    table = Table.create("vampire-queen", 3, {"rounds": "1"}, seed=b"plain")
    assert not any(isinstance(e, TableEvent) for e in table.log)
    while not table.over:
        seat = table.pending()[0]
        table.submit(seat, table.legal_commands(seat)[0])
    assert not table.reveal_due()


def test_abort_ends_the_game_without_results() -> None:
    table = refereed(players=3)
    events = table.abort("organiser: the hall closes")
    assert events == [
        GameAborted("organiser: the hall closes"),
        SeedRevealed(b"table-events", None, SALT),
    ]
    table.extend(events)
    assert table.over and table.results() is None
    assert table.pending() == () and table.decisions() == ()
    view = table.view(0)
    assert view.over and view.aborted and not view.legal_commands
    with pytest.raises(Rejection) as refused:
        table.decide(0, object())
    assert refused.value.kind == "precondition" and refused.value.rule_id == "ABORTED"
    with pytest.raises(Rejection, match="over already"):
        table.abort("again")
    assert not table.reveal_due()


def test_table_events_round_trip_through_the_codec() -> None:
    table = refereed(players=3)
    seat = table.pending()[0]
    command = table.legal_commands(seat)[0]
    events: list[TableEvent] = [
        SeedCommitted("ab" * 32, "cd" * 32),
        SeedRevealed(b"\x00seed\xff", FixedDeal(decks=(("1", "2"),), picks=(1,))),
        SeedRevealed(b"seed", None),
        SeedRevealed(b"seed", None, SALT, public=True),
        SeedRevealed(b""),
        TimedOut(seat, "lead", "VQ-6", command, 3),
        TimedOut(seat, "lead", "VQ-6", None, 3),
        SeatForfeited(seat, 3),
        DefaultPlayed(seat, "lead", "VQ-6", command),
        GameAborted("why"),
    ]
    for sequence, event in enumerate(events, 1):
        message = codec.event_to_proto("vampire-queen", event, sequence)
        assert message.WhichOneof("game") == "referee" and message.sequence == sequence
        assert codec.event_from_proto(message) == event
