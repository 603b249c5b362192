"""The generic conformance suite: every registered game, every allowed player count.

Nothing here names a game: it only uses :class:`referee.engine.Game` and
:class:`referee.engine.Table`, so a new game is covered the moment it registers. Properties are
driven by random legal play from hypothesis-chosen seeds (seed of the deal and of the player).
"""

from __future__ import annotations

import dataclasses
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.engine import (
    Game,
    Rejection,
    SeatResult,
    SetupRefused,
    Table,
    TableSettings,
    all_games,
)
from referee.engine.table_events import EventLimitReached, TableEvent

#: A generous bound on the commands of one whole game; a game that needs more is "stuck".
STEP_BOUND = 100_000
#: States inspected closely per random game (the expensive checks run only there).
SAMPLES = 6

CASES = [
    pytest.param(game, players, id=f"{game.info.type_id}-{players}p")
    for game in all_games()
    for players in range(game.info.min_players, game.info.max_players + 1)
]
GAMES = [pytest.param(game, id=game.info.type_id) for game in all_games()]

SEEDS = st.integers(min_value=0, max_value=2**64 - 1)
PROPERTY = settings(
    max_examples=5,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def seed_bytes(seed: int) -> bytes:
    return seed.to_bytes(8, "big")


@dataclass
class Step:
    """One moment between two commands of a random game."""

    index: int  # commands submitted before this moment
    version: int  # events in the log at this moment
    state: Any  # a copy of the state at this moment


def random_steps(
    table: Table[Any], rng: random.Random, *, decisions: bool = False
) -> Iterator[Step]:
    """Play uniformly random legal commands of a (randomly chosen) pending seat to the end.

    Yields the moment before every command and the final moment. Checks on the way that
    ``pending()`` is empty exactly when the game is over and that a pending seat always has
    something legal to do; with ``decisions``, checks the decisions at every moment too.
    """
    game = table.game
    for index in range(STEP_BOUND + 1):
        pending = table.pending()
        over = table.results() is not None
        assert (not pending) == over, f"pending {pending} but results {table.results()}"
        if decisions:
            check_decisions(game, table.state, table.config.players)
        yield Step(index, table.version, game.copy_state(table.state))
        if over:
            return
        seat = rng.choice(pending)
        legal = table.legal_commands(seat)
        assert legal, f"pending seat {seat} has no legal command"
        before = table.version
        events = table.submit(seat, rng.choice(legal))
        assert events, "an accepted command appends at least one event"
        assert table.version == before + len(events)
    pytest.fail(f"no result after {STEP_BOUND} commands")


def play_out(
    game: Game[Any, Any, Any], players: int, seed: int, *, decisions: bool = False
) -> tuple[Table[Any], list[Step]]:
    """A whole random game; returns the table and every moment of it."""
    table = Table.create(game.info.type_id, players, seed=seed_bytes(seed))
    steps = list(random_steps(table, random.Random(seed), decisions=decisions))
    return table, steps


def sampled(
    steps: list[Step], seed: int, k: int = SAMPLES, game: Game[Any, Any, Any] | None = None
) -> list[Step]:
    """The first and last moments and ``k`` others chosen at random; with ``game``, also the
    first moment of every kind of decision the game asked for (a rare decision, such as
    sharing the two cards of an ability, is then always inspected, not only by luck)."""
    rng = random.Random(seed ^ 0x5EED)
    middle = rng.sample(steps[1:-1], min(k, max(0, len(steps) - 2)))
    if game is not None:
        seen: set[tuple[str, ...]] = set()
        for step in steps[1:-1]:
            kinds = tuple(d.kind for d in game.decisions(step.state))
            if kinds not in seen:
                seen.add(kinds)
                middle.append(step)
    unique = {step.index: step for step in middle}
    return [steps[0], *sorted(unique.values(), key=lambda s: s.index), steps[-1]]


def check_results(results: tuple[SeatResult, ...], players: int) -> None:
    """One entry per seat, competition ranks 1..n, consistent with the scores."""
    assert [r.seat for r in results] == list(range(players))
    ranks = [r.rank for r in results]
    assert min(ranks) == 1
    for r in results:
        # "1224" ranking: a rank is one more than the number of seats ranked strictly better.
        assert r.rank == 1 + sum(1 for o in results if o.rank < r.rank)
    for a in results:
        for b in results:
            if a.score == b.score:
                assert a.rank == b.rank, "equal scores share a rank"
    # Scores and ranks are ordered one way or the other (lower or higher wins).
    pairs = [(a, b) for a in results for b in results if a.score < b.score]
    lower_wins = all(a.rank < b.rank for a, b in pairs)
    higher_wins = all(a.rank > b.rank for a, b in pairs)
    assert lower_wins or higher_wins, f"ranks do not follow the scores: {results}"


def check_decisions(game: Game[Any, Any, Any], state: Any, players: int) -> None:
    """Decisions: at most one per seat, the pending seats, each with a kind and a rule id;
    the default command (what a clock plays) is legal for a pending seat, else ``None``."""
    decisions = game.decisions(state)
    seats = [d.seat for d in decisions]
    assert len(seats) == len(set(seats)), f"two decisions for one seat: {decisions}"
    assert tuple(seats) == game.pending(state)
    for decision in decisions:
        assert 0 <= decision.seat < players
        assert decision.kind and decision.rule_id
    for seat in range(players):
        default = game.default_command(state, seat)
        if seat in seats:
            assert default is not None and default in game.legal_commands(state, seat)
        else:
            assert default is None


def state_table(game: Game[Any, Any, Any], config: Any, state: Any, log: list[Any]) -> Table[Any]:
    """A table at a recorded moment (for checks that need a Table around a state)."""
    table: Table[Any] = Table(game, config)
    table.state = game.copy_state(state)
    table.log = list(log)
    return table


def redacted(game: Game[Any, Any, Any], events: list[Any], viewer: int | None) -> list[Any]:
    return [game.redact(e, viewer) for e in events]


def viewers(players: int) -> list[int | None]:
    return [*range(players), None]


# --- whole games ------------------------------------------------------------------------------


@pytest.mark.parametrize(("game", "players"), CASES)
@PROPERTY
@given(seed=SEEDS)
def test_random_legal_play_reaches_the_end(
    game: Game[Any, Any, Any], players: int, seed: int
) -> None:
    table, steps = play_out(game, players, seed, decisions=True)
    results = table.results()
    assert results is not None
    check_results(results, players)
    assert table.pending() == ()
    assert len(steps) > 1
    # Over means over: nobody has anything legal, every command is refused as "not now".
    final = table.state
    for seat in range(players):
        assert table.legal_commands(seat) == []
        for command in game.command_space(final, seat)[:50]:
            with pytest.raises(Rejection) as info:
                table.submit(seat, command)
            assert info.value.kind == "precondition"
    assert table.version == steps[-1].version
    check_ending(game, table)


def check_ending(game: Game[Any, Any, Any], table: Table[Any]) -> None:
    """Every game says why it ended (``Game.ending``): one of its own rule ids (the one a
    command cites after the end, ``end_rule``) and a reason in words; the views and the end
    event carry the same (``end_rule_id``, ``end_reason``), unless the table ended it first
    (the event limit)."""
    ending = table.ending()
    assert ending is not None and ending.reason, "a game over says why"
    if table.status.limit_reached is not None:
        assert ending.rule_id == "EVENT-LIMIT"
        return
    assert ending == game.ending(table.state)
    prefix = game.info.players_rule.split("-")[0]
    assert re.fullmatch(rf"{prefix}-[0-9]+", ending.rule_id), ending
    assert ending.rule_id == game.end_rule(table.state)
    for viewer in viewers(table.config.players):
        assert table.view(viewer).ending == ending
    last = next(e for e in reversed(table.log) if not isinstance(e, TableEvent))
    if hasattr(last, "end_reason"):  # the games here carry it on their end event
        assert (last.end_rule_id, last.end_reason) == (ending.rule_id, ending.reason)


@pytest.mark.parametrize(("game", "players"), CASES)
@PROPERTY
@given(seed=SEEDS)
def test_legal_commands_are_exactly_what_decide_accepts(
    game: Game[Any, Any, Any], players: int, seed: int
) -> None:
    """Every legal command is accepted; every other command of the space is rejected."""
    _table, steps = play_out(game, players, seed)
    for step in sampled(steps, seed, k=3):
        state = step.state
        pending = game.pending(state)
        for seat in range(players):
            legal = game.legal_commands(state, seat)
            space = game.command_space(state, seat)
            assert len(legal) == len(set(map(repr, legal))), "legal commands repeat"
            for command in legal:
                assert command in space, f"{command!r} is legal but outside the command space"
                copy = game.copy_state(state)
                events = game.decide(copy, seat, command)
                assert events, f"{command!r} is legal but causes no event"
                assert copy == state, "decide mutated the state"
            if seat not in pending:
                assert legal == [], f"seat {seat} is not pending but has legal commands"
                # "Not your turn" does not depend on the command: a sample of the space will do.
                space = random.Random(seed).sample(space, min(len(space), 80))
            for command in space:
                if command in legal:
                    continue
                with pytest.raises(Rejection) as info:
                    game.decide(state, seat, command)
                kind = info.value.kind
                if seat in pending:
                    assert kind in ("illegal", "precondition"), kind
                else:
                    assert kind == "precondition", f"{command!r} from seat {seat}: {kind}"
                assert info.value.rule_id, "a rejection names a rule"
            assert game.copy_state(state) == state


@pytest.mark.parametrize(("game", "players"), CASES)
@PROPERTY
@given(seed=SEEDS)
def test_replay_rebuilds_the_same_state(game: Game[Any, Any, Any], players: int, seed: int) -> None:
    table, steps = play_out(game, players, seed)
    assert Table.replay(table.config, table.log).state == table.state
    for step in sampled(steps, seed):
        replayed = Table.replay(table.config, table.log[: step.version])
        assert replayed.state == step.state, f"replay of {step.version} events differs"
        assert replayed.version == step.version


@pytest.mark.parametrize(("game", "players"), CASES)
@PROPERTY
@given(seed=SEEDS)
def test_a_rejected_command_changes_nothing(
    game: Game[Any, Any, Any], players: int, seed: int
) -> None:
    table, steps = play_out(game, players, seed)
    rng = random.Random(seed)
    rejected = 0
    for step in sampled(steps, seed):
        live = state_table(game, table.config, step.state, table.log[: step.version])
        for seat in range(players):
            legal = live.legal_commands(seat)
            illegal = [c for c in game.command_space(live.state, seat) if c not in legal]
            for command in rng.sample(illegal, min(5, len(illegal))):
                before = game.copy_state(live.state)
                version = live.version
                with pytest.raises(Rejection):
                    live.submit(seat, command)
                rejected += 1
                assert live.state == before
                assert live.version == version
                assert live.log == table.log[: step.version]
        # An unknown seat is refused as "not now" too.
        with pytest.raises(Rejection) as info:
            live.submit(players, game.command_space(live.state, 0)[0])
        assert info.value.kind == "precondition"
    assert rejected > 0


#: Commands per state and seat whose outcomes the leak test compares (all of them, up to this).
OUTCOMES = 24


@dataclass
class Outcome:
    """What a command did in a state: its events, and the state after them (computed when
    asked for)."""

    game: Game[Any, Any, Any]
    state: Any
    command: Any
    events: list[Any]
    final: list[Any]

    def after(self) -> Any:
        if not self.final:
            state = self.game.copy_state(self.state)
            for event in self.events:
                self.game.apply(state, event)
            self.final.append(state)
        return self.final[0]


def outcomes(game: Game[Any, Any, Any], state: Any, seat: int, rng: random.Random) -> list[Outcome]:
    """The outcome of (up to :data:`OUTCOMES`) legal commands of ``seat`` in ``state``."""
    legal = game.legal_commands(state, seat)
    if len(legal) > OUTCOMES:
        legal = rng.sample(legal, OUTCOMES)
    return [Outcome(game, state, c, game.decide(state, seat, c), []) for c in legal]


def reordered(a: Any, b: Any) -> bool:
    """True if events ``a`` and ``b`` differ but only in the order of the entries of their
    list fields (the same permutation applied to every list field of that length, as for
    parallel lists such as receivers and their cards)."""
    if a == b or type(a) is not type(b) or not dataclasses.is_dataclass(a):
        return False
    names = [f.name for f in dataclasses.fields(a)]
    lists = [n for n in names if isinstance(getattr(a, n), tuple)]
    if any(getattr(a, n) != getattr(b, n) for n in names if n not in lists):
        return False
    for size in {len(getattr(a, n)) for n in lists}:
        same = [n for n in lists if len(getattr(a, n)) == size]
        if len(getattr(b, same[0])) != size or any(len(getattr(b, n)) != size for n in same):
            return False
        rows_a = sorted(repr(row) for row in zip(*(getattr(a, n) for n in same), strict=True))
        rows_b = sorted(repr(row) for row in zip(*(getattr(b, n) for n in same), strict=True))
        if rows_a != rows_b:
            return False
    return True


def check_converging_outcomes(
    game: Game[Any, Any, Any],
    viewer: int | None,
    seat: int,
    real: list[Outcome],
    variant: list[Outcome],
) -> int:
    """A command of ``seat`` in a state and one in a hidden variant of it (for ``viewer``)
    that lead to exactly the same state must not show ``viewer`` the same events in a
    different order (say, the receivers of two cards); returns how many pairs of outcomes
    led to the same state (for tests).

    The viewer cannot tell the two states apart, and afterwards there is nothing left to tell
    apart, so an order that differs depends on the hidden cards alone. This is how a command
    that names hidden cards by their place leaks: "the first of the two cards I drew goes to
    seat 2, the second to seat 3", echoed in that order, where the variant holds the two cards
    the other way round and the same deal reads "the second goes to seat 2". The same command
    on both states never shows it."""
    converging = 0
    seen = [redacted(game, o.events, viewer) for o in real]
    for outcome in variant:
        theirs = redacted(game, outcome.events, viewer)
        for other, ours in zip(real, seen, strict=True):
            if ours == theirs or len(ours) != len(theirs):
                continue
            if other.after() != outcome.after():
                continue
            converging += 1
            for a, b in zip(ours, theirs, strict=True):
                assert not reordered(a, b), (
                    f"viewer {viewer}: {other.command!r} by seat {seat} and "
                    f"{outcome.command!r} on a hidden variant lead to the same state, but "
                    f"show its events in an order that depends on hidden cards:\n{a}\n{b}"
                )
    return converging


@pytest.mark.parametrize(("game", "players"), CASES)
@PROPERTY
@given(seed=SEEDS)
def test_views_and_redacted_events_leak_nothing(
    game: Game[Any, Any, Any], players: int, seed: int
) -> None:
    """A state that differs only in what a viewer may not see looks the same to that viewer.

    ``hidden_variant`` re-deals what ``viewer`` cannot see, or swaps two hidden cards between
    their places. The viewer's view and its legal commands must be the same on both. The same
    next command must have the same redacted events on both, unless the viewer's *view* after
    it differs too (a command may reveal what was hidden only where the rules make it public,
    e.g. a score that depends on the cards left in hand): events never tell more than the
    view. And commands of another seat that lead both states to the same state must have the
    same redacted events (:func:`check_converging_outcomes`).
    """
    _table, steps = play_out(game, players, seed)
    rng = random.Random(seed)
    differing_variants = 0
    same_events = 0
    for step in sampled(steps, seed, game=game):
        state = step.state
        pending = game.pending(state)
        real = {seat: outcomes(game, state, seat, rng) for seat in pending}
        for viewer in viewers(players):
            # Each kind of hidden change once (hidden_permutation: salt % 3).
            for salt in (3 * rng.randrange(2**32) + kind for kind in range(3)):
                variant = game.hidden_variant(state, viewer, salt)
                assert game.copy_state(state) == state, "hidden_variant mutated the state"
                if variant != state:
                    differing_variants += 1
                assert game.view(variant, viewer) == game.view(state, viewer)
                assert game.pending(variant) == pending
                assert (game.results(variant) is None) == (game.results(state) is None)
                # The reason in words reaches every viewer: public information only.
                assert game.ending(variant) == game.ending(state)
                if viewer is not None:
                    assert game.legal_commands(variant, viewer) == game.legal_commands(
                        state, viewer
                    )
                for seat in pending:
                    if seat != viewer:
                        found = outcomes(game, variant, seat, rng)
                        check_converging_outcomes(game, viewer, seat, real[seat], found)
                    legal = game.legal_commands(state, seat)
                    if seat != viewer:
                        other = game.legal_commands(variant, seat)
                        legal = [c for c in legal if c in other]
                    if not legal:
                        continue
                    command = rng.choice(legal)
                    real_events = game.decide(state, seat, command)
                    variant_events = game.decide(variant, seat, command)
                    if redacted(game, real_events, viewer) == redacted(
                        game, variant_events, viewer
                    ):
                        same_events += 1
                        continue
                    real_after = game.copy_state(state)
                    variant_after = game.copy_state(variant)
                    for event in real_events:
                        game.apply(real_after, event)
                    for event in variant_events:
                        game.apply(variant_after, event)
                    assert game.view(real_after, viewer) != game.view(variant_after, viewer), (
                        f"viewer {viewer}: the events of {command!r} by seat {seat} differ "
                        "on a hidden variant although the resulting views are the same"
                    )
    assert differing_variants > 0, "hidden_variant never changed anything: the test is blind"
    assert same_events > 0


# --- determinism, setup and options ------------------------------------------------------------


@pytest.mark.parametrize(("game", "players"), CASES)
@PROPERTY
@given(seed=SEEDS)
def test_same_seed_and_commands_give_the_same_log(
    game: Game[Any, Any, Any], players: int, seed: int
) -> None:
    type_id = game.info.type_id
    options = {spec.name: spec.default for spec in game.info.options}
    first = Table.create(type_id, players, options=options, seed=seed_bytes(seed))
    second = Table.create(type_id, players, options=options, seed=seed_bytes(seed))
    rng = random.Random(seed)
    while first.results() is None:
        assert first.log == second.log
        seat = rng.choice(first.pending())
        command = rng.choice(first.legal_commands(seat))
        assert first.submit(seat, command) == second.submit(seat, command)
    assert first.log == second.log
    assert first.state == second.state
    assert first.results() == second.results()


@pytest.mark.parametrize(("game", "players"), CASES)
def test_different_seeds_give_different_deals(game: Game[Any, Any, Any], players: int) -> None:
    logs = {
        repr(Table.create(game.info.type_id, players, seed=seed_bytes(s)).log) for s in range(6)
    }
    assert len(logs) >= 5, "six seeds gave (almost) the same opening"
    unseeded = [Table.create(game.info.type_id, players) for _ in range(2)]
    assert unseeded[0].config.seed != unseeded[1].config.seed, "a fresh seed is random"


@pytest.mark.parametrize("game", GAMES)
def test_every_option_value_is_accepted(game: Game[Any, Any, Any]) -> None:
    info = game.info
    players = info.min_players
    defaults = Table.create(info.type_id, players, seed=b"o").config.options
    assert dict(defaults) == {spec.name: spec.default for spec in info.options}
    for spec in info.options:
        values = list(spec.allowed) if spec.allowed else [str(spec.minimum), str(spec.maximum)]
        assert spec.default in values or (
            not spec.allowed and spec.minimum <= int(spec.default) <= spec.maximum
        ), f"default of {spec.name} is not allowed"
        for value in [spec.default, *values]:
            table = Table.create(info.type_id, players, options={spec.name: value}, seed=b"o")
            assert table.config.options[spec.name] == value
            assert table.pending(), "a new game waits for someone"


@pytest.mark.parametrize("game", GAMES)
def test_bad_options_and_player_counts_are_refused(game: Game[Any, Any, Any]) -> None:
    info = game.info
    players = info.min_players
    with pytest.raises(ValueError):
        Table.create(info.type_id, players, options={"no_such_option_xyz": "1"})
    for spec in info.options:
        assert spec.rule_id, f"option {spec.name}: its description names no rule"
        if spec.allowed:
            bad = ["no-such-value", "", spec.allowed[0].upper() + "!", f" {spec.allowed[0]}"]
        else:
            low = spec.minimum
            # Only the documented form: ASCII digits, no sign, spaces or leading zeros.
            bad = [str(low - 1), str(spec.maximum + 1), "many", "", f" {low} ", f"{low} "]
            bad += [f"+{low}", f"0{low}", f"{low}.0", f"{low}_0", "\u0663", "\uff13", "3\n"]
        for value in bad:
            with pytest.raises(SetupRefused) as refused:
                Table.create(info.type_id, players, options={spec.name: value})
            assert refused.value.field == f"options.{spec.name}", value
            assert refused.value.rule_id == spec.rule_id, value
    assert info.players_rule, "the rule that sets the number of players"
    for count in (info.min_players - 1, info.max_players + 1, 0, -1):
        with pytest.raises(SetupRefused) as refused:
            Table.create(info.type_id, count)
        assert refused.value.field == "players"
        assert refused.value.rule_id == info.players_rule


# --- games that never end: default commands and the event limit ---------------------------------


@pytest.mark.parametrize(("game", "players"), CASES)
def test_a_game_played_only_by_default_commands_ends_by_its_rules(
    game: Game[Any, Any, Any], players: int
) -> None:
    """What a timeout plays (``Game.default_command``) moves the game on where the rules allow
    (a King wakes a queen, a card is played rather than drawn): a game of timeouts only ends
    by its own rules, well before its event limit."""
    table = Table.create(game.info.type_id, players, seed=seed_bytes(players))
    while not table.over:
        seat = table.pending()[0]
        table.submit(seat, table.default_command(seat))
    assert table.status.limit_reached is None
    assert table.version < game.info.max_events / 10


@pytest.mark.parametrize("game", GAMES)
def test_the_event_limit_ends_a_game_in_public_with_results(game: Game[Any, Any, Any]) -> None:
    """At ``TableSettings.max_events`` a game not over by its rules ends: a public
    :class:`EventLimitReached` with the game's standing as results; later commands are refused
    citing EVENT-LIMIT; the limit survives a replay. Library mode takes the game's default."""
    info = game.info
    assert info.max_events > 0, "every game has a default event limit"
    assert Table.create(info.type_id, info.min_players).max_events == info.max_events

    def played(settings: TableSettings) -> Table[Any]:
        table = Table.create(info.type_id, info.min_players, seed=b"limit", settings=settings)
        rng = random.Random(1)
        while not table.over:
            seat = rng.choice(table.pending())
            table.submit(seat, rng.choice(table.legal_commands(seat)))
        return table

    whole = played(TableSettings(max_events=0))
    opening = Table.create(info.type_id, info.min_players, seed=b"limit").version
    limit = max(opening + 1, whole.version // 2)  # reached well before the game's end
    settings = TableSettings(max_events=limit)
    table = played(settings)
    reached = table.log[-1]
    assert isinstance(reached, EventLimitReached) and reached.limit == limit
    assert table.version > limit and table.pending() == () and table.decisions() == ()
    results = table.results()
    assert results == reached.results and results is not None
    check_results(results, info.min_players)
    for viewer in viewers(info.min_players):
        assert table.redact(reached, viewer) == reached  # public
        shown = table.view(viewer).results
        assert shown == table.outcomes() and table.view(viewer).over and shown is not None
        assert [(o.seat, o.score, o.rank) for o in shown] == [
            (r.seat, r.score, r.rank) for r in results
        ]
        assert table.legal_commands(viewer if viewer is not None else 0) == []
    for seat in range(info.min_players):
        command = game.command_space(table.state, seat)[0]
        with pytest.raises(Rejection) as refused:
            table.submit(seat, command)
        assert (refused.value.rule_id, refused.value.kind) == ("EVENT-LIMIT", "precondition")
    replayed = Table.replay(table.config, table.log, settings)
    assert replayed.results() == results and replayed.over
    assert table.ending() == replayed.ending() and table.ending() is not None
    assert (reached.end_rule_id, table.ending().rule_id) == ("EVENT-LIMIT", "EVENT-LIMIT")
    assert table.view(None).ending == table.ending()
    assert whole.max_events == 0 and whole.status.limit_reached is None


@pytest.mark.parametrize(("game", "players"), CASES)
def test_a_view_made_like_another_viewers_is_the_view(
    game: Game[Any, Any, Any], players: int
) -> None:
    """``Table.view(viewer, like)`` takes the fields every viewer shares from ``like``, another
    viewer's view at the same version: the view it gives is the one made from scratch, for
    every viewer, after every command of a random game, the end included."""
    table = Table.create(game.info.type_id, players, seed=seed_bytes(7))
    rng = random.Random(7)
    for _ in range(STEP_BOUND + 1):
        like = table.view(rng.choice(viewers(players)))
        for viewer in viewers(players):
            assert table.view(viewer, like) == table.view(viewer)
        pending = table.pending()
        if not pending:
            return
        seat = rng.choice(pending)
        table.submit(seat, rng.choice(table.legal_commands(seat)))
    pytest.fail(f"no result after {STEP_BOUND} commands")
