"""referee-cli against a real server: a person (stdin) plays against bots, joins, spectates."""

from __future__ import annotations

import io
import os
import random
import re
import subprocess
import sys
import threading

from referee.v1 import referee_pb2, referee_pb2_grpc
from referee_bot.runner import SeatBot, submit
from referee_bot.strategies import make_strategy
from referee_cli.app import Terminal, _prompt_and_submit
from tests.clients import cli, play_set


def create(
    stub: referee_pb2_grpc.RefereeServiceStub, players: int = 3
) -> referee_pb2.CreateGameResponse:
    request = referee_pb2.CreateGameRequest(
        game_type="vampire-queen",
        players=players,
        options={"rounds": "1"},
        seed="cli",
        public_reproducible_seed=True,
    )
    response: referee_pb2.CreateGameResponse = stub.CreateGame(request)
    return response


def bots_for(
    stub: referee_pb2_grpc.RefereeServiceStub,
    created: referee_pb2.CreateGameResponse,
    seats: list[int],
) -> list[SeatBot]:
    return [
        SeatBot(
            stub,
            created.game_id,
            created.seats[s].token,
            make_strategy("heuristic", ""),
            random.Random(s),
        ).start()
        for s in seats
    ]


def test_new_game_played_from_stdin_against_two_bots(
    address: str, stub: referee_pb2_grpc.RefereeServiceStub
) -> None:
    argv = ["new", "--server", address, "--game", "vampire-queen", "--players", "3"]
    argv += ["--bots", "2", "--options", "rounds=1", "--seed", "3"]
    code, out = cli(argv, "1\n" * 500)
    assert code == 0, out
    game_id = re.search(r"Created game (\S+)", out)
    assert game_id is not None
    game = stub.GetGame(referee_pb2.GetGameRequest(game_id=game_id.group(1))).game
    assert game.game_over
    assert "seat 1: bot (heuristic)" in out
    assert "The rules: referee-cli rules vampire-queen" in out
    # the server's lines: seat 0 sees its own cards, the others' only counted
    assert re.search(r"\nseat 0 is dealt (\S+ ){12}\S+\n", out)
    assert "\nseat 1 is dealt 13 cards\n" in out and "\nseat 2 is dealt 13 cards\n" in out
    # the history (round start, own deal) is printed before the first question
    assert out.index("round 1 starts:") < out.index("seat 0 is dealt") < out.index("Your move:")
    assert "Your move:\n1) " in out
    assert re.search(r"\nyour hand: ((\d+|Q|H15|H20) ){12,13}(\d+|Q|H15|H20)\n", out)  # VQ-1 names
    assert re.search(r"seat \d (played|passed)", out)
    assert re.search(r"seat \d (wins|takes) the trick", out)
    assert "round 1 scored (penalty points): seat 0 " in out
    assert "Final standings:" in out and "(you)" in out.split("Final standings:")[-1]
    # only seat 0's own cards are ever shown
    assert out.count("seat 0 is dealt") == 1
    assert not re.search(r"seat [12] is dealt (?!13 cards)", out)


def test_bad_input_reprompts_and_q_leaves(address: str) -> None:
    argv = ["new", "--server", address, "--players", "3", "--options", "rounds=1"]
    code, out = cli([*argv, "--seed", "4"], "hello\n0\n999\n\nq\n")
    assert code == 0
    assert out.count("Please type a number from 1 to") == 4
    assert "You left the game; it waits for you. Rejoin with:\n  referee-cli join --server" in out
    assert "The bots play on (processes " in out
    code, out = cli([*argv, "--seed", "5"], "")  # end of input also leaves
    assert code == 0 and "You left the game" in out


def test_join_a_seat_and_play_it_to_the_end(
    address: str, stub: referee_pb2_grpc.RefereeServiceStub
) -> None:
    created = create(stub)
    bots = bots_for(stub, created, [1, 2])
    argv = ["join", "--server", address, "--game-id", created.game_id]
    code, out = cli([*argv, "--token", created.seats[0].token], "x\n" + "1\n" * 500)
    assert code == 0, out
    assert f"Joined game {created.game_id} as seat 0." in out
    assert "Please type a number" in out
    assert "Final standings:" in out
    for bot in bots:
        assert bot.join(30).final_view is not None


def test_spectate_live_and_from_the_start(
    address: str, stub: referee_pb2_grpc.RefereeServiceStub
) -> None:
    created = create(stub, players=4)
    result: dict[str, tuple[int, str]] = {}
    watcher = threading.Thread(
        target=lambda: result.update(
            live=cli(["spectate", "--server", address, "--game-id", created.game_id])
        )
    )
    watcher.start()
    bots = bots_for(stub, created, [0, 1, 2, 3])
    for bot in bots:
        bot.join(60)
    watcher.join(60)
    code, live = result["live"]
    assert code == 0, live
    assert "(public information only)" in live
    assert "Final standings:" in live
    assert "our hand" not in live and "(you)" not in live
    assert not re.search(r"is dealt (?!13 cards)", live), "no hand is shown to a spectator"

    code, replay = cli(
        ["spectate", "--server", address, "--game-id", created.game_id, "--from-start"]
    )
    assert code == 0
    assert "round 1 starts:" in replay
    assert "\ngame over: " in replay
    assert "our hand" not in replay and not re.search(r"is dealt (?!13 cards)", replay)


def test_list_shows_games(address: str, stub: referee_pb2_grpc.RefereeServiceStub) -> None:
    created = create(stub)
    code, out = cli(["list", "--server", address])
    assert code == 0
    line = next(line for line in out.splitlines() if line.startswith(created.game_id))
    assert "vampire-queen" in line and "waiting for seat" in line
    code, out = cli(["list", "--server", address, "--running", "--game", "vampire-queen"])
    assert code == 0 and created.game_id in out


def test_errors_are_shown_not_raised(
    address: str, stub: referee_pb2_grpc.RefereeServiceStub
) -> None:
    created = create(stub)
    code, out = cli(["join", "--server", address, "--game-id", created.game_id, "--token", "nope"])
    assert code == 1 and "error: PERMISSION_DENIED" in out
    code, out = cli(["spectate", "--server", address, "--game-id", "no-such-game"])
    assert code == 1 and "error: NOT_FOUND" in out
    code, out = cli(["new", "--server", address, "--players", "3", "--bots", "3"])
    assert code == 2 and "--bots" in out
    code, out = cli(["new", "--server", address, "--options", "rounds=zero"])
    assert code == 1 and "error: INVALID_ARGUMENT" in out


def test_a_refused_command_is_reported_and_the_prompt_goes_on(
    stub: referee_pb2_grpc.RefereeServiceStub,
) -> None:
    created = create(stub)
    seat = stub.GetGame(referee_pb2.GetGameRequest(game_id=created.game_id)).game.pending_seats[0]
    token = created.seats[seat].token
    view = stub.GetView(referee_pb2.GetViewRequest(game_id=created.game_id, seat_token=token)).view

    # an illegal command (as a buggy list would offer): INVALID_ARGUMENT, then ask again
    bogus = referee_pb2.View()
    bogus.CopyFrom(view)
    del bogus.legal_commands[:]
    bogus.legal_commands.append(play_set(13, 12))
    out = io.StringIO()
    assert _prompt_and_submit(stub, Terminal(io.StringIO("1\nq\n"), out), bogus, token) == "quit"
    assert "error: INVALID_ARGUMENT: VQ-8" in out.getvalue()
    assert "[rule VQ-8]" in out.getvalue()

    # a stale view: ABORTED, wait for the next view
    submit(stub, created.game_id, token, view.legal_commands[0], expected_version=view.version)
    out = io.StringIO()
    answers = io.StringIO("1\n1\n")  # the lead's value, then how many (two steps)
    assert _prompt_and_submit(stub, Terminal(answers, out), view, token) == "wait"
    assert "error: ABORTED" in out.getvalue()


def test_rules_prints_the_page_the_server_sends(address: str) -> None:
    code, out = cli(["rules", "--server", address, "mau-mau-vampires"])
    assert code == 0
    assert out.startswith("# Mau Mau Vampires\n") and "- **MM-15**" in out
    code, out = cli(["rules", "--server", address])
    assert code == 0
    assert "vampire-queen            Vampire Queen: docs/rules/vampire-queen.md" in out
    code, out = cli(["rules", "--server", address, "chess"])
    assert code == 2 and "no game 'chess'" in out and "docs/rules/sleeping-queens.md" in out


_CTRL_C_ON_ANOTHER_THREAD = """
import signal, sys, threading, time
from referee_cli.app import _Reader

# Ctrl-C raises KeyboardInterrupt even when the suite runs where SIGINT is ignored (pytest &).
signal.signal(signal.SIGINT, signal.default_int_handler)

release = threading.Event()

def stream():
    release.wait()  # a stream on which nothing comes
    yield from ()

reader = _Reader(stream())
def interrupt():
    time.sleep(0.3)
    signal.pthread_kill(reader.thread.ident, signal.SIGINT)  # the kernel's choice, made here
threading.Thread(target=interrupt, daemon=True).start()
try:
    reader.next_batch()
except KeyboardInterrupt:
    print("interrupted")
"""


def test_a_ctrl_c_delivered_to_another_thread_interrupts_the_wait() -> None:
    """While the CLI waits for other seats it blocks on its reader's queue; a SIGINT the kernel
    hands to another thread (the reader's, gRPC's) must still end the wait. Here the signal
    goes to the reader thread itself (``signal.pthread_kill``): the old code's wait hung."""
    done = subprocess.run(
        [sys.executable, "-c", _CTRL_C_ON_ANOTHER_THREAD],
        capture_output=True,
        text=True,
        timeout=60,  # a guard against the hang itself, not a timing assertion
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    assert done.stdout.strip() == "interrupted", done.stderr


def test_a_long_event_line_wraps_at_words_within_the_screen() -> None:
    """An event's line longer than the 80-column screen is broken at spaces (the next lines
    indented by two), never mid-word at the terminal's edge."""
    out = io.StringIO()
    words = ("seat 2 plays a Sleeping Potion on seat 1's Pancake Queen (15) and " * 3).split()
    Terminal(io.StringIO(), out).say_wrapped(" ".join(words))
    lines = out.getvalue().rstrip("\n").split("\n")
    assert len(lines) > 1
    assert all(len(line) < 80 for line in lines), lines
    assert all(line.startswith("  ") for line in lines[1:])
    assert " ".join(line.strip() for line in lines).split() == words
