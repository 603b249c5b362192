"""referee-cli in a pseudo-terminal, as a person uses it: bots that
outlive the CLI, a rejoin command that can be copied, "waiting for seat N", and a Vampire Queen
lead chosen in two steps with the table and the prompt on one 80x24 screen."""

from __future__ import annotations

import os
import re
import signal
import sys
import time
from pathlib import Path

import grpc

from referee.v1 import referee_pb2, referee_pb2_grpc
from referee_cli import render
from referee_cli.screen import GameInfo
from tests.clients.pty_session import GUARD_SECONDS, PtySession

BIN = Path(sys.executable).parent
PROMPT = r"Choose 1-(\d+) \(q to quit[^)]*\): "


def referee_cli(*args: str) -> PtySession:
    script = BIN / "referee-cli"
    command = [str(script)] if script.exists() else [sys.executable, "-m", "referee_cli"]
    return PtySession([*command, *args], env=dict(os.environ))


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def stop(pids: list[int]) -> None:
    """End bot processes the CLI left running (they are not children of this process)."""
    for pid in pids:
        if alive(pid):
            os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + GUARD_SECONDS
    while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)


def screen_before(text: str, end: int, rows: int = 24) -> list[str]:
    """The lines a 24-row terminal shows when the output up to ``end`` has been printed."""
    return text[:end].split("\n")[-rows:]


def a_long_first_lead(address: str) -> tuple[str, list[tuple[str, list[int]]]]:
    """A seed whose 4-player deal has seat 0 (the person) lead first with a long menu (asked in
    two steps, with a value of 3 or more ways), and that menu's first step."""
    with grpc.insecure_channel(address) as channel:
        stub = referee_pb2_grpc.RefereeServiceStub(channel)
        types = stub.ListGameTypes(referee_pb2.ListGameTypesRequest()).game_types
        info = GameInfo.of(next(t for t in types if t.game_type == "vampire-queen"))
        for number in range(200):
            seed = f"long-lead-{number}"
            created = stub.CreateGame(
                referee_pb2.CreateGameRequest(
                    game_type="vampire-queen",
                    players=4,
                    options={"rounds": "1"},
                    seed=seed,
                    public_reproducible_seed=True,  # as referee-cli --seed does
                )
            )
            view = stub.GetView(
                referee_pb2.GetViewRequest(
                    game_id=created.game_id, seat_token=created.seats[0].token
                )
            ).view
            if 0 not in view.pending_seats:
                continue
            groups = render.screen(view, info).groups
            if groups and max(len(members) for _, members in groups) >= 3:
                return seed, groups
    raise AssertionError("no seed in 200 gives seat 0 a long first lead")


def test_lead_in_two_steps_on_one_screen_then_quit_and_rejoin(address: str) -> None:
    pids: list[int] = []
    seed, groups = a_long_first_lead(address)
    widest, members = max(groups, key=lambda group: len(group[1]))
    session = referee_cli(
        "new", "--server", address, "--players", "4", "--bots", "3", "--seed", seed,
        "--options", "rounds=1",
    )  # fmt: skip
    try:
        for seat in (1, 2, 3):
            pids.append(int(session.expect(rf"seat {seat}: bot \(heuristic\), process (\d+)")[1]))
        first = session.expect(PROMPT)
        screen = screen_before(session.text, first.end())
        # The whole table and the whole first menu are on the 80x24 screen at the prompt.
        assert any(line.startswith("== Vampire Queen | game ") for line in screen), screen
        assert any(re.match(r"your hand: (\S+ ){13}\S+$", line) for line in screen), screen
        assert "Your move:" in screen
        assert all(len(line) <= 80 for line in screen), max(screen, key=len)
        menu = session.text[session.text.rindex("Your move:") : first.start()]
        assert "lead the 20 Hunter" in menu
        assert int(first[1]) == len(groups), "the leads come grouped by value first"
        chosen = re.search(rf"(\d+)\) {re.escape(widest)}(   |\n)", menu)
        assert chosen is not None, (widest, menu)
        session.send(chosen[1])
        second = session.expect(PROMPT)
        assert "b to go back" in second[0] and int(second[1]) == len(members)
        step = session.text[session.text.rindex(f"{widest}:") : second.start()]
        value = re.match(r"play one (\d+) \.\.\. \(\d+ ways\)$", widest)
        assert value is not None and f"play two {value[1]}s" in step
        session.send("b")  # back to the values
        session.expect(PROMPT)
        session.send("q")
        rejoin = session.expect(
            r"Rejoin with:\n(  referee-cli join --server \S+ --game-id (\S+) \\\n"
            r"      --token (\S+))\n"
        )
        assert all(len(line) <= 80 for line in rejoin[1].split("\n"))
        session.expect(r"The bots play on \(processes (\d+) (\d+) (\d+); logs in ")
        assert session.wait() == 0
    finally:
        session.close()
    try:
        game_id, token = rejoin[2], rejoin[3]
        assert all(alive(pid) for pid in pids), "a bot ended with the CLI"
        # The copied command, as a shell joins its continuation lines, plays on with the bots.
        words = rejoin[1].replace("\\\n", " ").split()
        assert words[:2] == ["referee-cli", "join"] and token in words
        again = referee_cli(*words[1:])
        try:
            again.expect(rf"Joined game {game_id} as seat 0\.")
            again.expect(PROMPT)
            again.send("1")  # a value
            again.expect(PROMPT)
            again.send("1")  # how many: the lead goes out, and the bots answer it
            again.expect(r"seat 1 (played|passed)")
            again.expect(r"seat 3 (played|passed)")
            again.send("q")
        finally:
            again.close()
    finally:
        stop(pids)


def test_says_whom_it_waits_for(address: str) -> None:
    """With an open seat nobody plays, the CLI says it waits for that seat."""
    session = referee_cli(
        "new", "--server", address, "--players", "3", "--bots", "1", "--seed", "w",
        "--options", "rounds=1",
    )  # fmt: skip
    pids: list[int] = []
    try:
        pids.append(int(session.expect(r"seat 1: bot \(heuristic\), process (\d+)")[1]))
        join = session.expect(r"seat 2: open; join with:\n  referee-cli join .* \\\n +--token \S+")
        assert all(len(line) <= 80 for line in join[0].split("\n"))
        while True:
            found = session.expect(rf"waiting for seat 2 \.\.\. \(Ctrl-C to leave\)|{PROMPT}")
            if found[0].startswith("waiting"):
                break
            session.send("1")
        assert "waiting for seat 0" not in session.text
        # While it waits there is no prompt to answer q to: Ctrl-C leaves, with the rejoin line.
        os.killpg(session.process.pid, signal.SIGINT)
        session.expect(r"Rejoin with:\n  referee-cli join --server \S+ --game-id \S+ \\\n")
        assert session.wait() == 130
    finally:
        session.close()
        stop(pids)


def test_the_bots_of_a_finished_game_end_with_it(address: str) -> None:
    with grpc.insecure_channel(address) as channel:
        stub = referee_pb2_grpc.RefereeServiceStub(channel)
        session = referee_cli(
            "new", "--server", address, "--game", "dracula-vs-van-helsing", "--seed", "1",
        )  # fmt: skip
        pids: list[int] = []
        try:
            pids.append(int(session.expect(r"seat 1: bot \(heuristic\), process (\d+)")[1]))
            while True:
                found = session.expect(rf"\nFinal standings: |{PROMPT}")
                if "Final standings" in found[0]:
                    break
                session.send("1")
            assert session.wait() == 0
        finally:
            session.close()
        assert not any(alive(pid) for pid in pids), "the bot outlived its finished game"
        created = re.search(r"Created game (\S+) ", session.text)
        assert created is not None
        game = stub.GetGame(referee_pb2.GetGameRequest(game_id=created[1])).game
        assert game.game_over
