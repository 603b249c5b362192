"""The player subcommands of ``referee-cli`` (see :mod:`referee_cli.player` for the flows):
``register``, ``whoami``, ``lobby``, ``join``, ``challenge``, ``challenges``, ``bots``,
``accept``, ``decline``, ``pair``, ``resign``, ``ratings``.

Each one that ends at a seat plays it with the ``follow`` function it is given (the app's
:func:`~referee_cli.app.follow_game`): passed in, so this module never imports the app that
dispatches to it.
"""

from __future__ import annotations

import argparse
import contextlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

import grpc

from referee.v1 import referee_pb2
from referee_bot.strategies import known_games
from referee_cli.player import (
    CHALLENGE_SECONDS,
    CREDENTIAL_ENV,
    PlayerWatch,
    SeatStub,
    Stub,
    credential,
    holders_text,
    metadata,
    parse_join,
    rating_text,
    terms_of,
    terms_text,
    who,
)


class Follow(Protocol):
    def __call__(
        self,
        stub: Stub,
        term: Any,
        game_id: str,
        *,
        token: str = "",
        spectator: bool | None = None,
        after_sequence: int = 0,
        server: str = ...,
        rejoin: str | None = None,
    ) -> int: ...


def reason(error: grpc.RpcError) -> str:
    """The ``ErrorInfo.reason`` of a refusal (``ALREADY_SEATED``), or ``""``."""
    try:
        from google.rpc import error_details_pb2
        from grpc_status import rpc_status

        status = rpc_status.from_call(error)
    except Exception:  # details are optional
        return ""
    for detail in status.details if status is not None else []:
        info = error_details_pb2.ErrorInfo()
        if detail.Unpack(info):
            return str(info.reason)
    return ""


def rejoin_hint(game_id: str) -> str:
    """How to come back to a seat the account holds: no token in it (the player stream
    gives the seat back to the account)."""
    return f"  referee-cli join --game-id {game_id}"


def play_seat(
    stub: Stub,
    term: Any,
    args: argparse.Namespace,
    follow: Follow,
    game_id: str,
    token: str = "",
    *,
    account: str = "",
) -> int:
    """Play a seat from its current view on: by its ``token``, or (``account``: the
    player's credential) the seat the player holds in the game."""
    seat_stub: Any = SeatStub(stub, account) if account and not token else stub
    view = seat_stub.GetView(
        referee_pb2.GetViewRequest(game_id=game_id, seat_token=token), timeout=30
    ).view
    if isinstance(seat_stub, SeatStub):
        seat_stub.seat = view.seat
    term.say(f"Joined game {game_id} as seat {view.seat}.")
    if not view.pending_seats and not view.game_over:
        term.say("The game starts when every seat is taken.")
    return follow(
        seat_stub,
        term,
        game_id,
        token=token,
        spectator=False,
        after_sequence=view.version,
        server=args.server,
        rejoin=rejoin_hint(game_id) if account else None,
    )


# --- subcommands ------------------------------------------------------------------------


def cmd_register(stub: Stub, term: Any, args: argparse.Namespace, follow: Follow) -> int:
    """Take a name on a server with open registration: the account's token goes into
    ``--credential-file`` (readable by you only), or onto stdout alone, once."""
    answer = stub.Register(referee_pb2.RegisterRequest(name=args.name), timeout=30)
    if not args.credential_file:
        term.say(answer.token)  # the only line, for a pipe or a file: nothing else is printed
        return 0
    path = Path(args.credential_file)
    if path.exists():
        raise ValueError(f"{path} exists: give a new file for the token")
    with os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w") as kept:
        kept.write(answer.token + "\n")
    term.say(f"Registered {answer.player.name}; its token is in {path} (readable by you only).")
    term.say(f"Play: referee-cli lobby --credential-file {path} --server {args.server}")
    return 0


def cmd_whoami(stub: Stub, term: Any, args: argparse.Namespace, follow: Follow) -> int:
    term.say(f"You are {who(stub, credential(args, term))}.")
    return 0


def cmd_lobby(stub: Stub, term: Any, args: argparse.Namespace, follow: Follow) -> int:
    """The listed games with open seats: who sits where, what is open (signed in: first
    who you are, so a wrong credential says so before you pick a game)."""
    if args.credential_file or _env_set():
        term.say(f"You are {who(stub, credential(args, term))}.")
    lobby_filter = referee_pb2.LobbyFilter(game_type=args.game or "", players=args.players or 0)
    tables = stub.ListLobby(referee_pb2.ListLobbyRequest(filter=lobby_filter), timeout=30).tables
    if not tables:
        term.say("No open games. Make one: referee-cli challenge --anyone --game GAME")
        return 0
    for table in tables:
        game = table.game
        clock = f", {game.clock.decision_ms / 1000:g}s a move" if game.clock.decision_ms else ""
        open_seats = ", ".join(str(seat) for seat in table.open_seats)
        term.say(f"{game.game_id}  {game.game_type}, {game.players} seats{clock}")
        term.say(f"    seats: {holders_text(game)}; open: {open_seats}")
    term.say("Take a seat: referee-cli join --game-id GAME_ID")
    return 0


def cmd_join(stub: Stub, term: Any, args: argparse.Namespace, follow: Follow) -> int:
    """A seat by its token (as before), by a join link's claim code, or as the signed-in
    player: the seat reserved for it, the first open seat of a listed game, or the seat it
    already holds there (rejoining)."""
    if args.token:
        if not args.game_id:
            raise ValueError("--token needs --game-id")
        return play_seat(stub, term, args, follow, args.game_id, args.token)
    if args.link:
        game_id, code = parse_join(args.link)
        signed_in = _optional_credential(args, term)
        request = referee_pb2.ClaimSeatRequest(game_id=game_id, claim_code=code)
        claimed = stub.ClaimSeat(request, metadata=_meta(signed_in), timeout=30)
        term.say(f"You took seat {claimed.seat}.")
        if signed_in:
            return play_seat(stub, term, args, follow, game_id, account=signed_in)
        # Without an account the seat's token is the only way back: it is printed only if
        # the person leaves the game, as for any seat played by token.
        return play_seat(stub, term, args, follow, game_id, claimed.seat_token)
    if not args.game_id:
        raise ValueError("join what? a join link, --game-id ID, or --game-id ID --token T")
    token = credential(args, term)
    request = referee_pb2.ClaimSeatRequest(game_id=args.game_id)
    if args.seat is not None:
        request.seat = args.seat
    try:
        claimed = stub.ClaimSeat(request, metadata=metadata(token), timeout=30)
    except grpc.RpcError as error:
        if reason(error) not in ("ALREADY_SEATED", "GAME_STARTED", "SEAT_TAKEN"):
            raise
        term.say("Back at your seat.")  # the referee knows the seat the account holds
        return play_seat(stub, term, args, follow, args.game_id, account=token)
    term.say(f"You took seat {claimed.seat}.")
    return play_seat(stub, term, args, follow, args.game_id, account=token)


def _optional_credential(args: argparse.Namespace, term: Any) -> str:
    """The credential when one is given; a join link works without an account."""
    try:
        return credential(args, term) if args.credential_file or _env_set() else ""
    except ValueError:
        return ""


def _env_set() -> bool:
    return bool(os.environ.get(CREDENTIAL_ENV, "").strip())


def _meta(token: str) -> list[tuple[str, str]]:
    return metadata(token) if token else []


def _wait_for_game(
    watch: PlayerWatch, term: Any, game_id: Callable[[], str | None], what: str
) -> bool:
    """Wait on the player stream until ``game_id()`` names the game made for the player
    (True), or says with ``""`` that none will be (False)."""
    term.say(f"Waiting for {what} ... (Ctrl-C to give up)")
    return bool(watch.wait_for(game_id))


def cmd_challenge(stub: Stub, term: Any, args: argparse.Namespace, follow: Follow) -> int:
    """Challenge a player (a person or a bot account) by name, or anyone; wait for the
    answer, then play. Ctrl-C withdraws it."""
    token = credential(args, term)
    me = who(stub, token)
    if args.bot:  # a server bot by its strength: its account's name from ListGameTypes
        named = [b.player for b in house_bots(stub) if args.bot in (b.level, b.player)]
        if not named:
            raise ValueError(f"the server runs no bot {args.bot!r} (see: referee-cli bots)")
        args.name = named[0]
    if not args.name and not args.anyone:
        raise ValueError("challenge whom? a player's name, --bot LEVEL, or --anyone")
    watch = PlayerWatch(stub, token)
    challenge_id = ""
    try:
        made = stub.CreateChallenge(
            referee_pb2.CreateChallengeRequest(
                challenged="" if args.anyone else args.name,
                terms=terms_of(args),
                expires_in_ms=args.expires * 1000,
            ),
            metadata=metadata(token),
            timeout=30,
        ).challenge
        challenge_id = made.challenge_id
        whom = "anyone" if args.anyone else made.challenged
        term.say(f"{me} challenges {whom}: {terms_text(made.terms)} (challenge {challenge_id}).")

        def answered() -> str | None:
            now = watch.challenges.get(challenge_id, made)
            if now.state == referee_pb2.CHALLENGE_STATE_ACCEPTED:
                return str(now.game_id)
            if now.state == referee_pb2.CHALLENGE_STATE_OPEN:
                return None
            return ""

        if not _wait_for_game(watch, term, answered, "an answer"):
            state = watch.challenges[challenge_id].state
            term.say(f"The challenge was {_state_word(state)}.")
            return 1
        game_id = watch.challenges[challenge_id].game_id
        accepted = watch.challenges[challenge_id].accepted_by or made.challenged
        term.say(f"{accepted} accepted.")
        challenge_id = ""
    except KeyboardInterrupt:
        if challenge_id:
            _quietly(
                lambda: stub.WithdrawChallenge(
                    referee_pb2.WithdrawChallengeRequest(challenge_id=challenge_id),
                    metadata=metadata(token),
                    timeout=30,
                )
            )
            term.say("Challenge withdrawn.")
        return 130
    finally:
        watch.close()
    return play_seat(stub, term, args, follow, game_id, account=token)


def _state_word(state: int) -> str:
    name = referee_pb2.ChallengeState.Name(state)  # type: ignore[arg-type]
    return name.removeprefix("CHALLENGE_STATE_").lower()


def _quietly(call: Callable[[], object]) -> None:
    with contextlib.suppress(grpc.RpcError):  # answered or expired: nothing left to undo
        call()


def house_bots(stub: Stub) -> list[referee_pb2.HouseBot]:
    """The bots the server runs as players (``ListGameTypesResponse.house_bots``)."""
    answer = stub.ListGameTypes(referee_pb2.ListGameTypesRequest(), timeout=30)
    return list(answer.house_bots)


def cmd_bots(stub: Stub, term: Any, args: argparse.Namespace, follow: Follow) -> int:
    """The server's own bots: each is a player account, played by challenging it."""
    bots = house_bots(stub)
    if not bots:
        term.say("This server runs no bots (referee serve --house-bots easy,normal does).")
        return 0
    for bot in bots:
        term.say(f"{bot.player:<16} {bot.level:<8} {bot.description}")
    term.say("Play one: referee-cli challenge NAME --game GAME (or --bot LEVEL)")
    return 0


def cmd_challenges(stub: Stub, term: Any, args: argparse.Namespace, follow: Follow) -> int:
    token = credential(args, term)
    listed = stub.ListChallenges(
        referee_pb2.ListChallengesRequest(), metadata=metadata(token), timeout=30
    ).challenges
    if not listed:
        term.say("No open challenges.")
        return 0
    for challenge in listed:
        whom = challenge.challenged or "anyone"
        term.say(f"{challenge.challenge_id}  {challenge.challenger} -> {whom}")
        term.say(f"    {terms_text(challenge.terms)}")
    term.say("Accept one: referee-cli accept CHALLENGE_ID")
    return 0


def cmd_accept(stub: Stub, term: Any, args: argparse.Namespace, follow: Follow) -> int:
    """Accept a challenge by id; with none, the oldest to this player (``--wait``: the first
    that comes, also to anyone); then play."""
    token = credential(args, term)
    me = who(stub, token)
    challenge_id = args.challenge_id
    if not challenge_id:
        watch = PlayerWatch(stub, token)
        try:

            def offered() -> str | None:
                for challenge in watch.challenges.values():
                    mine = challenge.challenged == me or (args.wait and not challenge.challenged)
                    if (
                        challenge.state == referee_pb2.CHALLENGE_STATE_OPEN
                        and mine
                        and challenge.challenger != me
                    ):
                        return str(challenge.challenge_id)
                return None

            if args.wait:
                term.say(f"{me}: waiting for a challenge ... (Ctrl-C to stop)")
                challenge_id = watch.wait_for(offered)
            else:
                challenge_id = watch.wait_for(offered, timeout=3.0)
            if not challenge_id:
                term.say("No open challenge to you.")
                return 1
            challenge = watch.challenges[challenge_id]
            term.say(f"{challenge.challenger} challenges you: {terms_text(challenge.terms)}.")
        except KeyboardInterrupt:
            return 130
        finally:
            watch.close()
    answer = stub.AnswerChallenge(
        referee_pb2.AnswerChallengeRequest(challenge_id=challenge_id, accept=True),
        metadata=metadata(token),
        timeout=30,
    )
    term.say(f"Accepted: game {answer.game_id}.")
    return play_seat(stub, term, args, follow, answer.game_id, account=token)


def cmd_decline(stub: Stub, term: Any, args: argparse.Namespace, follow: Follow) -> int:
    token = credential(args, term)
    stub.AnswerChallenge(
        referee_pb2.AnswerChallengeRequest(challenge_id=args.challenge_id, accept=False),
        metadata=metadata(token),
        timeout=30,
    )
    term.say("Declined.")
    return 0


def cmd_pair(stub: Stub, term: Any, args: argparse.Namespace, follow: Follow) -> int:
    """Ask to be paired for the terms; wait (Ctrl-C cancels), then play."""
    token = credential(args, term)
    watch = PlayerWatch(stub, token)
    ticket_id = ""
    try:
        ticket = stub.RequestPairing(
            referee_pb2.RequestPairingRequest(terms=terms_of(args)),
            metadata=metadata(token),
            timeout=30,
        ).ticket
        ticket_id = ticket.ticket_id
        term.say(f"Pairing for {terms_text(ticket.terms)} (rating {ticket.rating:.1f}).")

        def paired() -> str | None:
            now = watch.tickets.get(ticket_id, ticket)
            if now.state == referee_pb2.PAIRING_STATE_PAIRED:
                return str(now.game_id)
            return None if now.state == referee_pb2.PAIRING_STATE_WAITING else ""

        if not _wait_for_game(watch, term, paired, "opponents"):
            term.say("The pairing request was cancelled.")
            return 1
        game_id = watch.tickets[ticket_id].game_id if ticket_id in watch.tickets else ticket.game_id
        ticket_id = ""
        term.say("Paired.")
    except KeyboardInterrupt:
        if ticket_id:
            _quietly(
                lambda: stub.CancelPairing(
                    referee_pb2.CancelPairingRequest(ticket_id=ticket_id),
                    metadata=metadata(token),
                    timeout=30,
                )
            )
            term.say("Pairing request cancelled.")
        return 130
    finally:
        watch.close()
    return play_seat(stub, term, args, follow, game_id, account=token)


def cmd_resign(stub: Stub, term: Any, args: argparse.Namespace, follow: Follow) -> int:
    """Resign a seat: by its token, or the signed-in player's seat of the game."""
    request = referee_pb2.ResignRequest(game_id=args.game_id)
    call_metadata: list[tuple[str, str]] = []
    if args.token:
        request.seat_token = args.token
    else:
        call_metadata = metadata(credential(args, term))
        if args.seat is not None:
            request.seat = args.seat
    stub.Resign(request, metadata=call_metadata, timeout=30)
    term.say(f"You resigned game {args.game_id}; the referee plays your seat's default moves.")
    return 0


def cmd_ratings(stub: Stub, term: Any, args: argparse.Namespace, follow: Follow) -> int:
    """A player's ratings (yours when signed in and no name is given), or with ``--game``
    and no name that game's leaderboard: each with its rated games, and how many of them the
    player left early (resigned, forfeited, abandoned) or never came to (absent)."""
    if args.name or not args.game:
        request = referee_pb2.GetRatingsRequest(player=args.name or "")
        call = {} if args.name else {"metadata": metadata(credential(args, term))}
        ratings = stub.GetRatings(request, timeout=30, **call).ratings
        shown = [r for r in ratings if not args.game or r.game_type == args.game]
    else:
        board = referee_pb2.GetLeaderboardRequest(game_type=args.game, limit=args.limit)
        shown = list(stub.GetLeaderboard(board, timeout=30).ratings)
    if not shown:
        term.say("No rated games yet.")
    for rating in shown:
        term.say(rating_text(rating))
    return 0


COMMANDS = {
    "register": cmd_register,
    "whoami": cmd_whoami,
    "lobby": cmd_lobby,
    "join": cmd_join,
    "challenge": cmd_challenge,
    "challenges": cmd_challenges,
    "bots": cmd_bots,
    "accept": cmd_accept,
    "decline": cmd_decline,
    "pair": cmd_pair,
    "resign": cmd_resign,
    "ratings": cmd_ratings,
}


def add_parsers(commands: Any, with_server: Callable[[Any], argparse.ArgumentParser]) -> None:
    """The player subcommands' arguments (``commands`` is the app's subparsers)."""
    games = ", ".join(known_games())

    def signed_in(sub: argparse.ArgumentParser) -> argparse.ArgumentParser:
        with_server(sub)
        sub.add_argument(
            "--credential-file",
            metavar="FILE",
            help="a file holding your account token (default: $REFEREE_CREDENTIAL)",
        )
        return sub

    def with_terms(sub: argparse.ArgumentParser) -> None:
        sub.add_argument("--game", required=True, help=f"game type id: {games}")
        sub.add_argument("--players", type=int, help="seats (default: the game's fewest)")
        sub.add_argument(
            "--options", nargs="+", action="extend", metavar="K=V", help="game options: K=V"
        )
        sub.add_argument("--rated", action="store_true", help="a rated game")
        sub.add_argument("--decision-ms", type=int, help="a clock: time per decision (ms)")
        sub.add_argument("--bank-ms", type=int, help="the clock's bank for the game (ms)")

    register = with_server(
        commands.add_parser("register", help="take a name (a server with open registration)")
    )
    register.add_argument("name", help="1-32 letters, digits, '-', '_', '.'")
    register.add_argument(
        "--credential-file",
        metavar="FILE",
        help="a new file to keep the account token in (default: print it on stdout)",
    )
    signed_in(commands.add_parser("whoami", help="who your account token names"))
    lobby = signed_in(commands.add_parser("lobby", help="games with open seats"))
    lobby.add_argument("--game", help=f"only this game type id: {games}")
    lobby.add_argument("--players", type=int, help="only games of this many seats")

    join = signed_in(
        commands.add_parser(
            "join", help="take a seat (join link, lobby, reserved) or play a seat by token"
        )
    )
    join.add_argument("link", nargs="?", help="a join link, or GAME_ID#CLAIM_CODE")
    join.add_argument("--game-id", help="the game's id")
    join.add_argument("--seat", type=int, help="which open seat (default: the first)")
    join.add_argument("--token", help="the seat's secret token (anonymous games)")

    challenge = signed_in(
        commands.add_parser("challenge", help="challenge a player or a bot by name, then play")
    )
    challenge.add_argument("name", nargs="?", help="the player (a person or a bot account)")
    challenge.add_argument("--anyone", action="store_true", help="a challenge to anyone")
    challenge.add_argument(
        "--bot", metavar="LEVEL", help="one of the server's bots, by level (referee-cli bots)"
    )
    challenge.add_argument(
        "--expires", type=int, default=CHALLENGE_SECONDS, help="seconds it stays open"
    )
    with_terms(challenge)

    signed_in(commands.add_parser("challenges", help="open challenges by or to you"))
    with_server(commands.add_parser("bots", help="the bots the server runs, to challenge"))
    accept = signed_in(commands.add_parser("accept", help="accept a challenge, then play"))
    accept.add_argument("challenge_id", nargs="?", help="which (default: the oldest to you)")
    accept.add_argument("--wait", action="store_true", help="wait for a challenge to come")
    decline = signed_in(commands.add_parser("decline", help="decline a challenge"))
    decline.add_argument("challenge_id", help="which")

    pair = signed_in(commands.add_parser("pair", help="be paired for a game, then play"))
    with_terms(pair)

    ratings = signed_in(
        commands.add_parser(
            "ratings", help="a player's ratings, or a game's leaderboard (--game): with absences"
        )
    )
    ratings.add_argument("name", nargs="?", help="the player (default: you)")
    ratings.add_argument(
        "--game", help=f"only this game type id (no name: its leaderboard): {games}"
    )
    ratings.add_argument("--limit", type=int, default=20, help="leaderboard rows (default: 20)")

    resign = signed_in(commands.add_parser("resign", help="resign a seat"))
    resign.add_argument("--game-id", required=True, help="the game's id")
    resign.add_argument("--seat", type=int, help="your seat (when you hold several)")
    resign.add_argument("--token", help="the seat's token (anonymous games)")
