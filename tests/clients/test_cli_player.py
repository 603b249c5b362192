"""referee-cli as a signed-in player, in a pseudo-terminal against a real
server on loopback: a bot account challenged by name (how a person plays a server bot), a
challenge accepted, pairing, a join link's claim code, an open seat of the lobby, and resign.
The account token is given in the environment and never appears in what the CLI prints."""

from __future__ import annotations

import doctest
import os
import random
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from referee.application.players.accounts import PlayerSettings
from referee.server.app import running_server
from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc as pb_grpc
from referee_bot.sdk import StrategyBot
from referee_bot.session import PlayerStream
from referee_bot.strategies import make_strategy
from referee_cli import player
from tests.clients.pty_session import PtySession

BIN = Path(sys.executable).parent
PROMPT = r"Choose 1-(\d+) \(q to quit[^)]*\): "
GAME = "dracula-vs-van-helsing"
TIMEOUT = 120.0


@pytest.fixture(scope="module")
def address() -> Iterator[str]:
    with running_server(store="memory:", players=PlayerSettings(open_registration=True)) as s:
        yield str(s.address)


def register(stub: pb_grpc.RefereeServiceStub, prefix: str, bot: bool = False) -> tuple[str, str]:
    name = f"{prefix}-{uuid.uuid4().hex[:6]}"
    kind = pb.PLAYER_KIND_BOT if bot else pb.PLAYER_KIND_PERSON
    return name, stub.Register(pb.RegisterRequest(name=name, kind=kind)).token


def cli(address: str, token: str, *args: str) -> PtySession:
    script = BIN / "referee-cli"
    command = [str(script)] if script.exists() else [sys.executable, "-m", "referee_cli"]
    env = dict(os.environ, **{player.CREDENTIAL_ENV: token})
    return PtySession([*command, *args, "--server", address], env=env)


class BotAccount:
    """A bot account's program (a stand-in for the server's own bots): it accepts the
    challenges to it, or asks for pairing, and plays every seat it gets, in a thread."""

    def __init__(self, address: str, token: str, *, accept: bool = True) -> None:
        self.channel = grpc.insecure_channel(address)

        def bot_for(game: pb.GameSummary, seat: int) -> StrategyBot:
            return StrategyBot(make_strategy("random", game.game_type), random.Random(seat))

        self.stream = PlayerStream(
            pb_grpc.RefereeServiceStub(self.channel),
            bot_for,
            credential=token,
            accept_challenges=accept,
        )
        self.thread = threading.Thread(target=self.stream.run, kwargs={"games": 1}, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.stream.stop()
        self.thread.join(30)
        self.channel.close()


def play_to_the_end(session: PtySession, token: str) -> None:
    """Answer every prompt with the first choice until the final standings."""
    while True:
        found = session.expect(rf"Final standings: |{PROMPT}")
        if "Final standings" in found[0]:
            break
        session.send("1")
    assert session.wait() == 0
    assert token not in session.text, "the account token was echoed"


def test_a_person_challenges_a_bot_account_by_name_and_plays_to_the_end(
    address: str, stub: pb_grpc.RefereeServiceStub
) -> None:
    bot_name, bot_token = register(stub, "bot", bot=True)
    me, token = register(stub, "ann")
    bot = BotAccount(address, bot_token)
    session = cli(address, token, "challenge", bot_name, "--game", GAME)
    try:
        session.expect(rf"{me} challenges {bot_name}: {GAME}")
        session.expect(rf"{bot_name} accepted\.")
        session.expect(r"Joined game \S+ as seat 0\.")
        play_to_the_end(session, token)
    finally:
        session.close()
        bot.close()


def test_a_challenge_is_accepted_and_a_quit_says_how_to_come_back_without_a_token(
    address: str, stub: pb_grpc.RefereeServiceStub
) -> None:
    me, token = register(stub, "bea")
    other, other_token = register(stub, "cal", bot=True)
    session = cli(address, token, "accept", "--wait")
    bot: BotAccount | None = None
    try:
        session.expect(rf"{me}: waiting for a challenge")
        metadata = player.metadata(other_token)
        stub.CreateChallenge(
            pb.CreateChallengeRequest(challenged=me, terms=pb.GameTerms(game_type=GAME)),
            metadata=metadata,
        )
        bot = BotAccount(address, other_token, accept=False)
        session.expect(rf"{other} challenges you: {GAME}")
        joined = session.expect(r"Joined game (\S+) as seat 1\.")
        session.expect(PROMPT)
        session.send("q")
        session.expect(rf"Rejoin with:\n  referee-cli join --game-id {joined[1]}\n")
        assert session.wait() == 0
        assert token not in session.text
        # Back in from the account alone: the player stream names the seat it holds.
        again = cli(address, token, "join", "--game-id", joined[1])
        try:
            again.expect(rf"Back at your seat\.\nJoined game {joined[1]} as seat 1\.")
            play_to_the_end(again, token)
        finally:
            again.close()
    finally:
        session.close()
        if bot is not None:
            bot.close()


def test_pairing_then_resign(address: str, stub: pb_grpc.RefereeServiceStub) -> None:
    _, token = register(stub, "dan")
    _, other_token = register(stub, "eve", bot=True)
    session = cli(address, token, "pair", "--game", GAME)
    bot = BotAccount(address, other_token, accept=False)
    try:
        session.expect(rf"Pairing for {GAME}")
        stub.RequestPairing(
            pb.RequestPairingRequest(terms=pb.GameTerms(game_type=GAME)),
            metadata=player.metadata(other_token),
        )
        session.expect(r"Paired\.")
        session.expect(PROMPT)
        session.send("r")
        session.expect(r"Resign this game\? .*\(y/n\): ")
        session.send("y")
        session.expect(r"You resigned\.")
        session.expect(r"Final standings: ")
        assert session.wait() == 0
        assert token not in session.text
    finally:
        session.close()
        bot.close()


def test_a_join_link_and_an_open_seat_of_the_lobby(
    address: str, stub: pb_grpc.RefereeServiceStub
) -> None:
    _, host_token = register(stub, "host", bot=True)
    me, token = register(stub, "fay")
    created = stub.CreateGame(
        pb.CreateGameRequest(
            game_type="sleeping-queens",
            players=3,
            seat_requests=[
                pb.SeatRequest(mode=pb.SEAT_MODE_CREATOR),
                pb.SeatRequest(mode=pb.SEAT_MODE_OPEN),
                pb.SeatRequest(mode=pb.SEAT_MODE_OPEN),
            ],
            listed=True,
        ),
        metadata=player.metadata(host_token),
    )
    host = BotAccount(address, host_token, accept=False)
    lobby = cli(address, token, "lobby", "--game", "sleeping-queens")
    try:
        lobby.expect(rf"{created.game_id}  sleeping-queens, 3 seats")
        lobby.expect(r"seats: host-\w+ \(bot\)( \(online\))?, \(open\), \(open\); open: 1, 2")
        assert lobby.wait() == 0
    finally:
        lobby.close()
    code = created.invitations[0].claim_code
    # A friend with the link and no account; then the signed-in player takes the last seat.
    friend = cli(address, "", "join", f"{created.game_id}#{code}")
    seated: PtySession | None = None
    try:
        friend.expect(r"You took seat 1\.")
        seated = cli(address, token, "join", "--game-id", created.game_id)
        seated.expect(r"You took seat 2\.")
        # The table, drawn as the seat is taken: names where the seats have players.
        seated.expect(rf"\n[ >] host-\w+ \(seat 0\) .*\n[ >] seat 1 .*\n[ >] {me} \(you\)")
        assert code not in seated.text + friend.text
    finally:
        friend.close()
        if seated is not None:
            seated.close()
        host.close()


def test_no_credential_says_how_to_sign_in(address: str) -> None:
    session = cli(address, "", "challenge", "someone", "--game", GAME)
    try:
        session.expect(r"Account token \(not shown\): ")  # asked without echo in a terminal
        session.send("")
        session.expect(rf"sign in first: set {player.CREDENTIAL_ENV}")
        assert session.wait() == 2
    finally:
        session.close()


def test_doctests() -> None:
    """The join link forms (``GAME_ID#CODE``, the web client's query and fragment forms)."""
    assert doctest.testmod(player).failed == 0


def test_a_person_plays_a_server_bot_chosen_by_level() -> None:
    """``referee serve --house-bots``: the CLI lists the server's bots and challenges one by
    its level; the bot accepts in the server and the game is played to the end."""
    settings = PlayerSettings(open_registration=True)
    with (
        running_server(store="memory:", players=settings, house_bots="easy") as server,
        grpc.insecure_channel(str(server.address)) as channel,
    ):
        address = str(server.address)
        _, token = register(pb_grpc.RefereeServiceStub(channel), "gus")
        listing = cli(address, token, "bots")
        try:
            listing.expect(r"house-easy +easy ")
            assert listing.wait() == 0
        finally:
            listing.close()
        session = cli(address, token, "challenge", "--bot", "easy", "--game", GAME)
        try:
            session.expect(r"house-easy accepted\.")
            play_to_the_end(session, token)
        finally:
            session.close()


def test_register_keeps_the_token_in_a_file_the_lobby_signs_in_with(
    address: str, tmp_path: Path
) -> None:
    """``referee-cli register NAME --credential-file FILE``: the token goes into a new file
    readable by its owner only, never onto the screen; ``lobby --credential-file FILE`` then
    says who is signed in. Without a file the token is the only line printed."""
    name = f"reg-{uuid.uuid4().hex[:6]}"
    kept = tmp_path / "credential"
    session = cli(address, "", "register", name, "--credential-file", str(kept))
    try:
        session.expect(rf"Registered {name}; its token is in ")
        assert session.wait() == 0
    finally:
        session.close()
    token = kept.read_text().strip()
    assert token and token not in session.text
    assert kept.stat().st_mode & 0o777 == 0o600
    lobby = cli(address, "", "lobby", "--credential-file", str(kept))
    try:
        lobby.expect(rf"You are {name}\.")
        assert lobby.wait() == 0
        assert token not in lobby.text
    finally:
        lobby.close()
    # The same name again is refused, and a file that exists is never overwritten.
    again = cli(address, "", "register", name, "--credential-file", str(kept))
    try:
        again.expect(r"error: ")
        assert again.wait() != 0
    finally:
        again.close()
    assert kept.read_text().strip() == token
    plain = cli(address, "", "register", f"{name}-2")
    try:
        assert plain.wait() == 0
        printed = [line for line in plain.text.splitlines() if line.strip()]
        assert len(printed) == 1 and len(printed[0].strip()) >= 20, plain.text
    finally:
        plain.close()


def test_register_on_a_closed_server_says_registration_is_closed() -> None:
    with running_server(store="memory:") as closed:
        session = cli(str(closed.address), "", "register", "someone")
        try:
            session.expect(r"error: .*regist")
            assert session.wait() == 1
        finally:
            session.close()


def test_ratings_show_a_players_absences_and_the_leaderboard(
    address: str, stub: pb_grpc.RefereeServiceStub
) -> None:
    """A player who never claims the seat of a rated game loses it, and anyone sees it:
    ``referee-cli ratings NAME`` (no account needed), ``ratings`` signed in (one's own) and
    ``ratings --game GAME`` (the leaderboard) show the rated games and the absences."""
    game = "mau-mau-vampires"
    present, token = register(stub, "here")
    absent, _ = register(stub, "away")
    seats = [pb.SeatRequest(mode=pb.SEAT_MODE_RESERVED, player=p) for p in (present, absent)]
    created = stub.CreateGame(
        pb.CreateGameRequest(
            game_type=game, players=2, rated=True, join_deadline_ms=500, seat_requests=seats
        )
    )
    stub.ClaimSeat(pb.ClaimSeatRequest(game_id=created.game_id), metadata=player.metadata(token))
    deadline = time.monotonic() + TIMEOUT
    while not stub.GetGame(pb.GetGameRequest(game_id=created.game_id)).game.game_over:
        assert time.monotonic() < deadline, "the join deadline did not end the game"
        time.sleep(0.1)
    for args, token_given, line in [
        (
            ("ratings", absent),
            "",
            rf"{absent}  {game}  \S+ \(.*\)  1 games: 0 left early, 1 absent",
        ),
        (("ratings",), token, rf"{present}  {game}  \S+ \(.*\)  1 games: 0 left early, 0 absent"),
        (
            ("ratings", "--game", game),
            "",
            rf"{absent}  {game}  .*  1 games: 0 left early, 1 absent",
        ),
    ]:
        session = cli(address, token_given, *args)
        try:
            session.expect(line)
            assert session.wait() == 0
        finally:
            session.close()
