"""Every game fits an 80x24 terminal: when a decision is asked, the
lines that decision is about (the top card and the wished colour, the current trick, the
queens, the districts), the hand and the prompt are on one screen together. Each game is
driven, over the public API, to a state with the longest hand its rules allow seat 0 (a
Mau Mau Vampires hand that drew and drew; Vampire Queen's 13 cards at a table of 8; a
Sleeping Queens hand with a King, whose menu is long), then ``referee-cli join`` plays that
seat in a pseudo-terminal of 80x24 and the test reads the last 24 lines at each prompt."""

from __future__ import annotations

import os
import random
import re
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc as pb_grpc
from tests.clients.pty_session import PtySession

BIN = Path(sys.executable).parent
PROMPT = r"Choose 1-(\d+) \(q to quit[^)]*\): "
ROWS = 24

Choose = Callable[[pb.View], int]
Stop = Callable[[pb.View], bool]


def first_label(*prefixes: str) -> Choose:
    """Seat 0's policy: the first command whose label starts with one of ``prefixes``."""

    def choose(view: pb.View) -> int:
        for prefix in prefixes:
            for index, label in enumerate(view.legal_command_labels):
                if label.startswith(prefix):
                    return index
        return 0

    return choose


def hand_of(view: pb.View) -> int:
    game = getattr(view, str(view.WhichOneof("game")))
    return len(game.hand) if "hand" in game.DESCRIPTOR.fields_by_name else 0


def drive(
    stub: pb_grpc.RefereeServiceStub,
    game: str,
    players: int,
    choose: Choose,
    stop: Stop,
    moves: int = 1500,
) -> tuple[str, str, pb.View]:
    """A seeded game played until seat 0 is asked to decide in a view where ``stop`` holds
    (the other seats play at random, seat 0 by ``choose``); its id, seat 0's token, the view."""
    for attempt in range(20):
        created = stub.CreateGame(
            pb.CreateGameRequest(
                game_type=game,
                players=players,
                seed=f"80x24/{game}/{players}/{attempt}",
                public_reproducible_seed=True,
            )
        )
        tokens = {seat.seat: seat.token for seat in created.seats}
        rng = random.Random(attempt)
        for move in range(moves):
            views = {
                s: stub.GetView(pb.GetViewRequest(game_id=created.game_id, seat_token=t)).view
                for s, t in tokens.items()
            }
            mine = views[0]
            if mine.game_over or not mine.pending_seats:
                break
            if 0 in mine.pending_seats and mine.legal_commands and stop(mine):
                return created.game_id, tokens[0], mine
            seat = mine.pending_seats[0]
            view = views[seat]
            index = choose(view) if seat == 0 else rng.randrange(len(view.legal_commands))
            stub.SubmitCommand(
                pb.SubmitCommandRequest(
                    game_id=created.game_id,
                    seat_token=tokens[seat],
                    command_id=f"m{move}",
                    command=view.legal_commands[index],
                )
            )
    raise AssertionError(f"{game}: no deal in 20 reached the state wanted")


def cli(address: str, *args: str) -> PtySession:
    script = BIN / "referee-cli"
    command = [str(script)] if script.exists() else [sys.executable, "-m", "referee_cli"]
    return PtySession([*command, *args, "--server", address], env=dict(os.environ), rows=ROWS)


def screen_at(session: PtySession) -> tuple[list[str], re.Match[str]]:
    found = session.expect(PROMPT)
    return session.text[: found.end()].split("\n")[-ROWS:], found


def on_screen(screen: list[str], pattern: str) -> bool:
    return any(re.match(pattern, line) for line in screen)


#: (game, seats, seat 0's policy, the state wanted, what must be on the screen at a prompt).
CASES: list[tuple[str, int, Choose, Stop, list[str]]] = [
    (
        "mau-mau-vampires",
        3,  # a long hand must not scroll the top card and the wish away
        first_label("draw", "keep"),
        lambda v: hand_of(v) >= 30 and bool(v.mau_mau_vampires.wish),
        [r"top card: .*; wished colour: ", r"hand \d of \d; (day|night)", r"your hand: "],
    ),
    (
        "mau-mau-vampires",
        6,  # the most seats: the tallest seat table
        first_label("draw", "keep"),
        lambda v: hand_of(v) >= 30,
        [r"top card: ", r"hand \d of \d; (day|night)", r"your hand: "],
    ),
    (
        "sleeping-queens",
        5,
        first_label("discard"),
        lambda v: "King" in " ".join(v.view_lines) and len(v.legal_commands) > 10,
        [r"your hand: .*King", r"(awake: |no queen is awake)", r"(asleep at|no queen is asleep)"],
    ),
    (
        "vampire-queen",
        8,  # 13 cards (VQ-3) up to 8 seats: the tallest seat table with the longest hand
        first_label("pass"),
        lambda v: hand_of(v) >= 13 and bool(v.vampire_queen.trick),
        [r"your hand: ", r"(Hunter )?trick: "],
    ),
    (
        "dracula-vs-van-helsing",
        2,
        first_label("draw"),
        lambda v: any(line.startswith("drawn card: ") for line in v.view_lines),
        [r"districts ", r"drawn card: "],
    ),
]


@pytest.mark.parametrize(
    ("game", "players", "choose", "stop", "shown"),
    CASES,
    ids=[f"{game}-{players}" for game, players, *_ in CASES],
)
def test_a_decision_with_the_longest_hand_fits_80x24(
    address: str,
    stub: pb_grpc.RefereeServiceStub,
    game: str,
    players: int,
    choose: Choose,
    stop: Stop,
    shown: list[str],
) -> None:
    game_id, token, view = drive(stub, game, players, choose, stop)
    session = cli(address, "join", "--game-id", game_id, "--token", token)
    try:
        screen, prompt = screen_at(session)
        text = "\n".join(screen)
        assert all(len(line) <= 80 for line in screen), max(screen, key=len)
        assert on_screen(screen, r"== .* \| game \S+ \| you are seat 0 ==$"), text
        for pattern in shown:
            assert on_screen(screen, pattern), f"{pattern!r} is not on the screen:\n{text}"
        assert "Your move:" in screen, text
        if "b to go back" not in prompt[0] and int(prompt[1]) < len(view.legal_commands):
            # A menu in two steps: the second step's screen still shows the table's lines.
            session.send("1")
            screen, prompt = screen_at(session)
            text = "\n".join(screen)
            if "b to go back" in prompt[0]:
                for pattern in shown:
                    assert on_screen(screen, pattern), f"{pattern!r} not on step 2:\n{text}"
        session.send("q")
        session.expect(r"Rejoin with:")
    finally:
        session.close()
