"""Display text (``View.legal_command_labels``, ``Event.description``): every legal command
and every event gets the game's own words, never the generic fallback; a spectator's line
says only what the redacted event says."""

from __future__ import annotations

import importlib
import random
from collections import Counter

import pytest

from referee import codec
from referee.engine import labels
from referee.engine.registry import all_games
from referee.engine.table import Table, TableSettings

GAMES = {game.info.type_id: game for game in all_games()}
PLAYERS = {"vampire-queen": 4, "sleeping-queens": 3, "dracula-vs-van-helsing": 2,
           "mau-mau-vampires": 4}  # fmt: skip
#: A few short games per type: enough to meet every command type and most event types.
OPTIONS = {"vampire-queen": {"rounds": "1"}, "mau-mau-vampires": {"hands": "1"}}


def _play(game_type: str, seed: int) -> Table:
    table = Table.create(
        game_type,
        players=PLAYERS[game_type],
        seed=f"labels-{seed}".encode(),
        options=OPTIONS.get(game_type, {}),
        settings=TableSettings(),
    )
    rng = random.Random(seed)
    steps = 0
    while not table.over and steps < 3000:
        seat = rng.choice(table.pending())
        table.submit(seat, rng.choice(table.legal_commands(seat)))
        steps += 1
    assert table.over
    return table


def _refuse(value: object) -> str:
    raise AssertionError(f"no text of the game's own for {value!r}")


@pytest.mark.parametrize("game_type", sorted(GAMES))
def test_every_command_and_event_has_the_games_own_words(
    game_type: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = GAMES[game_type]
    module = importlib.import_module(f"referee.games.{game_type.replace('-', '_')}.labels")
    monkeypatch.setattr(module, "fallback", _refuse)
    commands: Counter[str] = Counter()
    events: Counter[str] = Counter()
    for seed in range(4):
        table = _play(game_type, seed)
        replica = Table.replay(table.config, [], table.settings)
        for event in table.log:
            replica.extend([event])
            for viewer in [None, *range(table.config.players)]:
                seen = table.redact(event, viewer)
                message = codec.event_to_proto(game_type, seen, 1, describe=True)
                assert message.description, seen
                if not isinstance(seen, labels.TableEvent):
                    events[type(seen).__name__] += 1
            for seat in replica.pending():
                view = replica.view(seat)
                for command in view.legal_commands:
                    label = game.command_label(command, view.game)
                    assert label, command
                    commands[type(command).__name__] += 1
    # Every command type is met (and so labelled) in these games; most event types too.
    assert set(commands) == {t.__name__ for t in game.command_types}
    assert len(events) >= len(game.event_types) * 0.6, sorted(events)


def test_vampire_queen_words() -> None:
    from referee.games.vampire_queen.model import HandDealt, PlaySet

    game = GAMES["vampire-queen"]
    assert game.command_label(PlaySet(value=8, count=3, queens=1), None) == (
        "play three 8s using one queen"
    )
    # A spectator's copy of a deal has no cards: the line says how many, not which.
    assert game.event_text(HandDealt(seat=1, count=13, cards=())) == "seat 1 is dealt 13 cards"


def test_sleeping_queens_words() -> None:
    from referee.games.sleeping_queens.model import PlayKing, WakeQueen

    game = GAMES["sleeping-queens"]
    assert game.command_label(WakeQueen(position=7), None) == "wake the queen at position 7"
    assert game.command_label(PlayKing(position=0), None).startswith("play a King")


def test_mau_mau_cards_are_named_by_colour_and_symbol() -> None:
    from referee.games.mau_mau_vampires.model import Card, CardKind, Colour, PlayCard

    game = GAMES["mau-mau-vampires"]
    play = PlayCard(card=Card(CardKind.MAU_MAU, Colour.RED, 1), announce=0, werewolf_seat=None)  # type: ignore[arg-type]
    assert game.command_label(play, None) == "play red skull"
