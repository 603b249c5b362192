"""The one rule for results (referee/engine/outcomes.py, docs/lobby.md "Results"): how each
seat's game ended, and the ranking that applies. Rules FINISHERS-FIRST, RESIGNED, FORFEIT,
ABANDONED and NO-SHOW; the seats that left are never pending; `referee verify` re-derives
abandoned seats and no-shows."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from referee import codec
from referee.engine import Rejection, Table, TableSettings
from referee.engine.game import SeatResult, rank_by_score
from referee.engine.labels import table_event_text
from referee.engine.outcomes import (
    ABANDONED,
    FINISHERS_FIRST,
    FORFEIT,
    NO_SHOW,
    RESIGNED,
    Ranking,
    SeatEnd,
    SeatLeft,
    rank_outcomes,
)
from referee.engine.table_events import PlayerKind, SeatAbandoned, SeatClaimed, SeatsAbsent
from referee.fairness import CommandRecord, verify
from referee.stored import decode_events, encode_batch
from tests.engine.test_table_seats import waiting

ENDS = [SeatEnd.RESIGNED, SeatEnd.FORFEITED, SeatEnd.ABANDONED, SeatEnd.ABSENT]


@st.composite
def standings(draw: Any) -> tuple[list[SeatResult], dict[int, SeatLeft]]:
    """The rules' results of 2..8 seats (competition ranks from random scores), some seats
    left at random times."""
    players = draw(st.integers(2, 8))
    scores = draw(st.lists(st.integers(0, 4), min_size=players, max_size=players))
    results = list(rank_by_score(scores, lower_wins=draw(st.booleans())))
    left = {}
    for seat in range(players):
        if draw(st.booleans()):
            end = draw(st.sampled_from(ENDS))
            left[seat] = SeatLeft(seat, end, "X", f"seat {seat} left", draw(st.integers(1, 9)))
    return results, left


@given(standings())
def test_finishers_first_ranks_every_finisher_above_every_seat_that_left(
    standing: tuple[list[SeatResult], dict[int, SeatLeft]],
) -> None:
    """FINISHERS-FIRST: finishers above leavers, the rules' order among the finishers, the
    later leaver above the earlier, competition ranks, nothing else changed."""
    results, left = standing
    outcomes = rank_outcomes(results, left, Ranking.FINISHERS_FIRST)
    assert [o.seat for o in outcomes] == sorted(r.seat for r in results)
    finished = [o for o in outcomes if o.finished]
    gone = [o for o in outcomes if not o.finished]
    assert {o.seat for o in gone} == set(left)
    if finished and gone:
        assert max(o.rank for o in finished) < min(o.rank for o in gone)
    for a in finished:
        for b in finished:
            assert (a.rank < b.rank) == (a.rules_rank < b.rules_rank)
    for a in gone:
        for b in gone:
            assert (a.rank < b.rank) == (a.left_at_version > b.left_at_version)
    ranks = [o.rank for o in outcomes]
    for rank in ranks:  # competition ranks: a rank is 1 + how many rank strictly above
        assert rank == 1 + sum(1 for other in ranks if other < rank)
    by_seat = {r.seat: r for r in results}
    for outcome in outcomes:
        assert (outcome.score, outcome.rules_rank) == (
            by_seat[outcome.seat].score,
            by_seat[outcome.seat].rank,
        )
        gone_as = left.get(outcome.seat)
        expected = (
            (SeatEnd.FINISHED, "", 0)
            if gone_as is None
            else (
                gone_as.end,
                gone_as.rule_id,
                gone_as.version,
            )
        )
        assert (outcome.end, outcome.end_rule_id, outcome.left_at_version) == expected


@given(standings())
def test_the_rules_ranking_keeps_the_rules_ranks_and_says_how_each_seat_ended(
    standing: tuple[list[SeatResult], dict[int, SeatLeft]],
) -> None:
    results, left = standing
    for outcome in rank_outcomes(results, left, Ranking.RULES):
        assert outcome.rank == outcome.rules_rank
        assert outcome.finished == (outcome.seat not in left)


def played_to_end(table: Table[Any], records: list[CommandRecord] | None = None) -> None:
    """Everyone plays its first legal command; the referee plays for the seats that left."""
    while not table.over:
        forced = table.forfeited_play()
        if forced is None:
            (seat, *_) = table.pending()
            command = table.legal_commands(seat)[0]
            forced = table.decide(seat, command)
            if records is not None:
                proto = codec.command_to_proto(table.game.info.type_id, command)
                records.append(CommandRecord(seat, table.version + 1, proto))
        table.extend(forced)


def test_each_way_of_leaving_has_its_rule_and_is_never_pending() -> None:
    """RESIGNED, FORFEIT (on time), ABANDONED: each seat that left is never pending again, the
    referee is to move while the game waits for it, and it ranks by when it left."""
    settings = TableSettings(forfeit_after_timeouts=1, ranking=Ranking.FINISHERS_FIRST)
    table = Table.create("vampire-queen", 4, {"rounds": "1"}, seed=b"leave", settings=settings)
    resigned = table.pending()[0]
    table.extend(table.resign(resigned))
    # It was to move: the referee is now, and its seat is never pending again.
    assert table.referee_to_move and table.view(None).referee_to_move
    while (played := table.forfeited_play()) is not None:
        assert resigned not in table.pending() and not table.legal_commands(resigned)
        assert resigned not in [d.seat for d in table.view(None).decisions]
        table.extend(played)
    assert not table.referee_to_move
    timed = table.pending()[0]
    table.extend(table.time_out(timed))  # the forfeit limit is 1: on time, at once
    abandoned = next(s for s in range(4) if s not in table.status.left)
    table.extend(table.abandon(abandoned, "its stream closed"))
    try:
        table.abandon(abandoned, "again")
    except Rejection as refusal:
        assert refusal.rule_id == "ALREADY_LEFT"
    else:
        raise AssertionError("a seat left twice")
    left = table.status.left
    assert {(g.end, g.rule_id) for g in left.values()} == {
        (SeatEnd.RESIGNED, RESIGNED),
        (SeatEnd.FORFEITED, FORFEIT),
        (SeatEnd.ABANDONED, ABANDONED),
    }
    assert [g.seat for g in table.view(0).left] == sorted(left)
    played_to_end(table)
    outcomes = {o.seat: o for o in table.outcomes() or ()}
    assert [o.rank for o in outcomes.values() if o.finished] == [1]
    order = sorted(left.values(), key=lambda g: -g.version)  # the last to leave first
    assert [outcomes[g.seat].rank for g in order] == [2, 3, 4]
    assert (
        outcomes[abandoned].end_reason == f"seat {abandoned} abandoned the game: its stream closed"
    )
    assert table.view(None).ranking is Ranking.FINISHERS_FIRST != FINISHERS_FIRST


def test_a_no_show_ends_a_table_that_never_started() -> None:
    """NO-SHOW: the absent seats rank after the seats that were there; nothing can follow."""
    table = waiting(players=3)
    table.extend([SeatClaimed(1, "bob", PlayerKind.BOT)])
    table.extend(table.no_show([0, 2]))
    absent = table.log[-1]
    assert isinstance(absent, SeatsAbsent) and absent.end_rule_id == NO_SHOW
    assert table.over and table.pending() == () and not table.started
    outcomes = table.outcomes()
    assert outcomes is not None
    assert [(o.rank, o.end) for o in outcomes] == [
        (2, SeatEnd.ABSENT),
        (1, SeatEnd.FINISHED),
        (2, SeatEnd.ABSENT),
    ]
    assert table.ending() is not None and table.ending().rule_id == NO_SHOW  # type: ignore[union-attr]
    try:
        table.decide(1, None)
    except Rejection as refusal:
        assert refusal.rule_id == NO_SHOW
    assert "did not claim their seats" in table_event_text(absent)


def test_hidden_claims_name_the_player_to_its_own_seat_only() -> None:
    hidden = SeatClaimed(1, "bob", PlayerKind.BOT, hidden=True)
    assert hidden.redacted(1) is hidden
    for viewer in (0, 2, None):
        shown = hidden.redacted(viewer)
        assert isinstance(shown, SeatClaimed) and (shown.player, shown.kind) == ("", PlayerKind(0))
    message = codec.event_to_proto("vampire-queen", hidden.redacted(None), 3, describe=True)
    assert "bob" not in message.SerializeToString().decode("latin-1")
    assert message.description == "a player (named once the game starts) took seat 1"
    assert codec.event_from_proto(codec.event_to_proto("vampire-queen", hidden, 3)) == hidden


def test_verify_re_derives_abandoned_seats_and_no_shows() -> None:
    """`referee verify` explains a SeatAbandoned and a SeatsAbsent batch by the rules."""
    table = waiting()
    batches: list[list[Any]] = [list(table.log)]
    start = [SeatClaimed(s, f"p{s}") for s in range(3)] + table.start()
    table.extend(start)
    batches.append(start)
    batches.append(table.abandon(table.pending()[0], "the organiser removed it: crash"))
    table.extend(batches[-1])
    records: list[CommandRecord] = []
    while not table.over:
        forced = table.forfeited_play()
        if forced is None:
            seat = table.pending()[0]
            command = table.legal_commands(seat)[0]
            forced = table.decide(seat, command)
            records.append(
                CommandRecord(
                    seat, table.version + 1, codec.command_to_proto("vampire-queen", command)
                )
            )
        batches.append(forced)
        table.extend(forced)
    batches.append(table.reveal())
    table.extend(batches[-1])
    payloads: list[bytes] = []
    for batch in batches:
        payloads += encode_batch("vampire-queen", batch, len(payloads) + 1, 1000)
    report = verify(table.config, decode_events(payloads), records, table.settings)
    assert report.ok, report.problems

    absent = waiting()
    batches = [list(absent.log), [SeatClaimed(0, "ann")], absent.no_show([1, 2])]
    absent.extend(batches[1])
    absent.extend(batches[2])
    batches.append(absent.reveal())
    payloads = []
    for batch in batches:
        payloads += encode_batch("vampire-queen", batch, len(payloads) + 1, 1000)
    report = verify(absent.config, decode_events(payloads), [], absent.settings)
    assert report.ok, report.problems
    assert isinstance(SeatAbandoned(0, "x").redacted(None), SeatAbandoned)
