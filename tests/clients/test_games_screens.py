"""Every game's screens from a real server: the one generic renderer fits each on an 80x24
terminal and shows what the seat must see (the hand, every seat, whose move, every legal
command with the server's label), with nothing per game in the CLI."""

from __future__ import annotations

import random
import re

import pytest

from referee.v1 import referee_pb2, referee_pb2_grpc
from referee_cli import render
from referee_cli.screen import GameInfo

#: (game, players) played; every screen of seat 0 for this many moves is checked.
GAMES = [
    ("vampire-queen", 3),
    ("vampire-queen", 6),
    ("sleeping-queens", 2),
    ("sleeping-queens", 5),
    ("dracula-vs-van-helsing", 2),
    ("mau-mau-vampires", 3),
    ("mau-mau-vampires", 6),
]
MOVES = 120


def check_screen(view: referee_pb2.View, info: GameInfo) -> None:
    shown = render.screen(view, info)
    lines = shown.text.splitlines()
    menu = render.menu_columns(shown.menu).splitlines()
    # the blank line before the screen, the screen, "Your move:", the menu, the prompt
    assert 1 + len(lines) + 1 + len(menu) + 1 <= render.SCREEN_HEIGHT, "\n".join(lines + menu)
    assert all(len(line) <= render.SCREEN_WIDTH for line in lines + menu)
    assert lines[0] == f"== {info.name} | game {view.game_id} | you are seat {view.seat} =="
    game = getattr(view, str(view.WhichOneof("game")))
    given = list(view.view_lines)
    assert given, "every game writes its view in its own words"
    # The game's lines from the top, as many as fit, the rest cut and said so.
    printed = [line for line in lines if line in given]
    assert printed and printed == given[: len(printed)]
    assert len(printed) == len(given) or "..." in lines
    assert not any(line.startswith("Your hand (") for line in lines), "no raw field dump"
    if "hand" in game.DESCRIPTOR.fields_by_name and game.hand:
        assert any(line.startswith("your hand: ") for line in lines), "the hand, by name"
    for seat in range(view.players):
        name = "seat 0 (you)" if seat == 0 else f"seat {seat}"
        assert any(line[2:].startswith(name) for line in lines), f"no row for {name}"
    assert re.match(r"Deciding: (you|.*, you|.* and you)\b", lines[1]), "whose decision"
    labels = list(view.legal_command_labels)
    assert len(labels) == len(view.legal_commands) and all(labels)
    if shown.groups is None:
        assert shown.menu == labels
    else:
        members = [i for _, group in shown.groups for i in group]
        assert sorted(members) == list(range(len(labels))), "every command in one group"
        for (label, group), text in zip(shown.groups, shown.menu, strict=True):
            assert label == text
            assert label == labels[group[0]] or label.endswith(f"({len(group)} ways)")


@pytest.mark.parametrize(("game_type", "players"), GAMES)
def test_every_screen_of_a_game_fits_and_shows_the_seat_its_moves(
    stub: referee_pb2_grpc.RefereeServiceStub, game_type: str, players: int
) -> None:
    types = stub.ListGameTypes(referee_pb2.ListGameTypesRequest()).game_types
    info = GameInfo.of(next(t for t in types if t.game_type == game_type))
    # A seeded deal (and seeded choices below): the same game every run, long enough that
    # seat 0 is asked at least five times (an unseeded Sleeping Queens game sometimes ended
    # sooner).
    created = stub.CreateGame(
        referee_pb2.CreateGameRequest(
            game_type=game_type,
            players=players,
            seed=f"screens/{game_type}/{players}",
            public_reproducible_seed=True,
        )
    )
    tokens = {seat.seat: seat.token for seat in created.seats}
    rng = random.Random(f"{game_type}/{players}")
    asked = 0
    for move in range(MOVES):
        request = referee_pb2.GetViewRequest(game_id=created.game_id, seat_token=tokens[0])
        view = stub.GetView(request).view
        if view.game_over:
            break
        if 0 in view.pending_seats and view.legal_commands:
            check_screen(view, info)
            asked += 1
        seat = view.pending_seats[0]
        mover = stub.GetView(
            referee_pb2.GetViewRequest(game_id=created.game_id, seat_token=tokens[seat])
        ).view
        stub.SubmitCommand(
            referee_pb2.SubmitCommandRequest(
                game_id=created.game_id,
                seat_token=tokens[seat],
                command_id=f"move-{move}",
                command=rng.choice(list(mover.legal_commands)),
            )
        )
    assert asked >= 5, "seat 0 was asked often enough to check its screens"
    spectator = stub.GetView(
        referee_pb2.GetViewRequest(game_id=created.game_id, spectator=True)
    ).view
    text = render.render_view(spectator, info)
    assert "our hand" not in text and "spectator" in text.splitlines()[0]
    assert len(text.splitlines()) <= render.SCREEN_HEIGHT - 1
