"""Verifiable deals (commit-reveal), end to end: the commitment at creation, the reveal at the
end, ``referee verify`` and :mod:`referee.fairness` on every game, a tampered log refused, and
the deal re-checked by an independent implementation of ``docs/fairness.md``."""

from __future__ import annotations

import hashlib
import random
import sqlite3
import uuid
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from referee import fairness
from referee.cli import main as referee_main
from referee.engine import all_games
from referee.server.app import RefereeServer, running_server
from referee.store import SqliteEventStore
from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc as pb_grpc
from tests.server.conftest import (
    DECK,
    RPC_TIMEOUT,
    Game,
    assert_bad_request,
    create_refereed,
    event_kind,
    fails,
    fixed_deal,
    read_ok,
    referee_kind,
    stream_request,
    summary,
    view,
    wait_for,
)

#: Short games: options that keep random play brief.
SHORT = {"vampire-queen": {"rounds": "1"}, "mau-mau-vampires": {"hands": "1"}}


@pytest.fixture
def sqlite_server(tmp_path: Path) -> Iterator[tuple[RefereeServer, str]]:
    store = f"sqlite:{tmp_path}/referee.sqlite3"
    with running_server(store=store, grace_seconds=1.0) as server:
        yield server, store


@pytest.fixture
def sqlite_stub(sqlite_server: tuple[RefereeServer, str]) -> Iterator[pb_grpc.RefereeServiceStub]:
    with grpc.insecure_channel(sqlite_server[0].address) as channel:
        yield pb_grpc.RefereeServiceStub(channel)


def play_out(stub: pb_grpc.RefereeServiceStub, game: Game, rng: random.Random) -> None:
    """Random legal commands to the end, two calls per command (view, submit)."""
    pending = list(game.created.game.pending_seats)
    for _ in range(20_000):
        if not pending:
            return
        seat = rng.choice(pending)
        request = pb.GetViewRequest(game_id=game.game_id, seat_token=game.tokens[seat])
        seen = stub.GetView(request, timeout=RPC_TIMEOUT).view
        response = stub.SubmitCommand(
            pb.SubmitCommandRequest(
                game_id=game.game_id,
                seat_token=game.tokens[seat],
                command_id=uuid.uuid4().hex,
                command=rng.choice(list(seen.legal_commands)),
            ),
            timeout=RPC_TIMEOUT,
        )
        pending = [] if response.view.game_over else list(response.view.pending_seats)
    raise AssertionError("the game did not end")


def export(stub: pb_grpc.RefereeServiceStub, game: Game) -> pb.ExportGameResponse:
    """The organiser's export (the full log is the organiser's alone by default)."""
    request = pb.ExportGameRequest(
        game_id=game.game_id, organiser_token=game.created.organiser_token
    )
    return stub.ExportGame(request, timeout=RPC_TIMEOUT)


@pytest.mark.parametrize("game_type", [g.info.type_id for g in all_games()])
def test_verify_passes_on_a_finished_game_of_every_type(
    sqlite_server: tuple[RefereeServer, str],
    sqlite_stub: pb_grpc.RefereeServiceStub,
    rng: random.Random,
    game_type: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    server, store = sqlite_server
    players = next(g.info.min_players for g in all_games() if g.info.type_id == game_type)
    game = create_refereed(
        sqlite_stub, players=players, game_type=game_type, options=SHORT.get(game_type)
    )
    commitment = game.created.game.seed_commitment
    assert len(commitment) == 64 and not game.created.game.revealed_seed
    early = pb.ExportGameRequest(game_id=game.game_id, organiser_token=game.created.organiser_token)
    failure = fails(sqlite_stub.ExportGame, early)
    assert failure.code is grpc.StatusCode.FAILED_PRECONDITION, failure
    play_out(sqlite_stub, game, rng)

    final = summary(sqlite_stub, game)
    assert final.game_over and final.seed_released and not final.revealed_seed
    exported = export(sqlite_stub, game)
    revealed = exported.events[-1].referee.seed_revealed
    assert len(revealed.salt) == 32 and exported.game.revealed_seed == revealed.seed
    assert hashlib.sha256(revealed.salt + revealed.seed).hexdigest() == commitment
    assert exported.events[0].referee.seed_committed.commitment == commitment
    assert len(exported.commands) == sum(s.commands for s in final.seat_stats) > 0
    report = fairness.verify_export(exported)
    assert report.ok, report.text()
    assert report.commands == len(exported.commands) and report.events == final.version

    with SqliteEventStore(store.removeprefix("sqlite:")) as opened:
        assert fairness.verify_store(opened, game.game_id).ok
    assert referee_main(["verify", game.game_id, "--store", store]) == 0
    assert "OK " in capsys.readouterr().out
    token = game.created.organiser_token
    assert referee_main(["verify", game.game_id, "--server", server.address, "--json"]) == 2
    assert "UNAUTHENTICATED" in capsys.readouterr().err  # the full log is the organiser's
    verify_args = ["verify", game.game_id, "--server", server.address, "--json"]
    assert referee_main([*verify_args, "--organiser-token", token]) == 0
    assert '"ok": true' in capsys.readouterr().out


def test_verify_has_nothing_to_check_before_the_reveal(
    sqlite_server: tuple[RefereeServer, str],
    sqlite_stub: pb_grpc.RefereeServiceStub,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, store = sqlite_server
    game = create_refereed(sqlite_stub, players=3)
    assert referee_main(["verify", game.game_id, "--store", store]) == 2
    assert "not been revealed" in capsys.readouterr().out
    assert referee_main(["verify", "no-such-game", "--store", store]) == 2
    assert "no game" in capsys.readouterr().err


def test_a_tampered_log_fails_verification(
    sqlite_server: tuple[RefereeServer, str],
    sqlite_stub: pb_grpc.RefereeServiceStub,
    rng: random.Random,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, store = sqlite_server
    path = store.removeprefix("sqlite:")
    game = create_refereed(sqlite_stub, players=3, seed="tamper-" + uuid.uuid4().hex)
    play_out(sqlite_stub, game, rng)
    assert referee_main(["verify", game.game_id, "--store", store]) == 0

    # Flip one card of seat 1's dealt hand, in the database file itself.
    connection = sqlite3.connect(path)
    try:
        rows = connection.execute(
            "SELECT sequence, payload FROM events WHERE game_id = ? ORDER BY sequence",
            (game.game_id,),
        ).fetchall()
        sequence, payload = next(
            (seq, data)
            for seq, data in rows
            if event_kind(pb.Event.FromString(data)) == "hand_dealt"
            and pb.Event.FromString(data).vampire_queen.hand_dealt.seat == 1
        )
        event = pb.Event.FromString(payload)
        cards = event.vampire_queen.hand_dealt.cards
        cards[0] = cards[0] % 13 + 1 if cards[0] != cards[-1] else cards[0] - 1
        connection.execute(
            "UPDATE events SET payload = ? WHERE game_id = ? AND sequence = ?",
            (event.SerializeToString(), game.game_id, sequence),
        )
        connection.commit()
    finally:
        connection.close()

    capsys.readouterr()
    assert referee_main(["verify", game.game_id, "--store", store]) == 1
    out = capsys.readouterr().out
    assert out.startswith("FAILED") and f"sequence {sequence}:" in out, out
    with SqliteEventStore(path) as opened:
        report = fairness.verify_store(opened, game.game_id)
    assert not report.ok and report.first_bad_sequence == sequence
    assert "hand_dealt" in report.problems[0]


def test_verify_catches_other_tampering(
    sqlite_stub: pb_grpc.RefereeServiceStub, rng: random.Random
) -> None:
    game = create_refereed(sqlite_stub, players=3)
    play_out(sqlite_stub, game, rng)
    good = export(sqlite_stub, game)
    assert fairness.verify_export(good).ok

    # Another seed revealed than the one committed to.
    forged = pb.ExportGameResponse()
    forged.CopyFrom(good)
    forged.events[-1].referee.seed_revealed.seed = b"another seed"
    report = fairness.verify_export(forged)
    assert not report.ok and "commitment" in report.problems[0]
    assert report.first_bad_sequence == len(good.events)

    # A recorded command swapped for another legal-looking one.
    swapped = pb.ExportGameResponse()
    swapped.CopyFrom(good)
    first, second = swapped.commands[0], swapped.commands[1]
    if first.command == second.command:
        pytest.skip("the random game began with two identical commands")
    first.command.CopyFrom(second.command)
    report = fairness.verify_export(swapped)
    assert not report.ok and report.first_bad_sequence == first.first_sequence

    # A log that stops before the reveal proves nothing.
    cut = pb.ExportGameResponse()
    cut.CopyFrom(good)
    del cut.events[-1]
    report = fairness.verify_export(cut)
    assert not report.ok and "not been revealed" in report.problems[0]


# --- an independent implementation of docs/fairness.md for Vampire Queen ----------------------


def _words(seed: bytes, label: bytes) -> Iterator[int]:
    """SHA-256(seed || label || counter as 8 bytes big-endian), read as 8-byte words."""
    counter = 0
    while True:
        block = hashlib.sha256(seed + label + counter.to_bytes(8, "big")).digest()
        for offset in (0, 8, 16, 24):
            yield int.from_bytes(block[offset : offset + 8], "big")
        counter += 1


def _below(words: Iterator[int], n: int) -> int:
    limit = 2**64 - (2**64 % n)
    for word in words:
        if word < limit:
            return word % n
    raise AssertionError("unreachable")


def _fisher_yates(cards: list[str], seed: bytes, index: int) -> list[str]:
    deck = list(cards)
    words = _words(seed, f"shuffle:{index}".encode())
    for i in range(len(deck) - 1, 0, -1):
        j = _below(words, i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def test_the_deals_check_out_with_an_independent_implementation(
    stub: pb_grpc.RefereeServiceStub, rng: random.Random
) -> None:
    """Re-derive every Vampire Queen deal from the revealed seed with nothing but hashlib and
    the algorithm in docs/fairness.md, and compare with the HandDealt events of the log."""
    players = 4
    game = create_refereed(stub, players=players, rounds=2)
    play_out(stub, game, rng)
    events = list(export(stub, game).events)

    seed, salt = events[-1].referee.seed_revealed.seed, events[-1].referee.seed_revealed.salt
    assert hashlib.sha256(salt + seed).hexdigest() == events[0].referee.seed_committed.commitment
    unshuffled = [str(v) for v in range(1, 14) for _ in range(8)] + ["Q"] * 4
    assert unshuffled == DECK
    size = min(13, 108 // players)
    value = {str(v): v for v in range(1, 14)} | {"Q": 14}
    rounds = 0
    for at, event in enumerate(events):
        if event_kind(event) != "round_started":
            continue
        rounds += 1
        started = event.vampire_queen.round_started
        if started.hunter_pick:  # round 1: the 15 Hunter's seat is pick 0
            assert started.hunter_15_holder == _below(_words(seed, b"pick:0"), players)
        order = _fisher_yates(unshuffled, seed, started.shuffle)
        dealt = {
            e.vampire_queen.hand_dealt.seat: list(e.vampire_queen.hand_dealt.cards)
            for e in events[at + 1 : at + 1 + players]
        }
        for seat in range(players):
            expected = sorted(value[c] for c in order[seat * size : (seat + 1) * size])
            assert dealt[seat] == expected, (started.round, seat)
        # Section 6: the round's DeckCommitted (earlier in the batch) commits to this order.
        key = hashlib.sha256(b"referee-card-key" + salt + seed).digest()
        leaves = []
        for position, card in enumerate(order):
            place = started.shuffle.to_bytes(4, "big") + position.to_bytes(4, "big")
            leaves.append(
                _leaf(started.shuffle, position, hashlib.sha256(key + place).digest(), card)
            )
        committed = next(
            e.referee.deck_committed
            for e in reversed(events[:at])
            if e.referee.WhichOneof("kind") == "deck_committed"
        )
        assert (committed.shuffle, committed.size) == (started.shuffle, len(order))
        assert committed.root == _merkle_root(leaves).hex()
    assert rounds == 2


def test_a_deferred_reveal_waits_for_the_organiser(
    stub: pb_grpc.RefereeServiceStub, rng: random.Random
) -> None:
    game = create_refereed(stub, players=3, defer_seed_reveal=True)
    organiser = game.created.organiser_token
    assert game.created.game.defer_seed_reveal
    request = pb.RevealSeedRequest(game_id=game.game_id, organiser_token=organiser)
    early = fails(stub.RevealSeed, request)
    assert early.code is grpc.StatusCode.FAILED_PRECONDITION, early
    play_out(stub, game, rng)

    final = summary(stub, game)
    assert final.game_over and not final.revealed_seed and not final.seed_released
    messages = read_ok(stub, stream_request(game, None))  # ends after the game's last event
    assert event_kind(messages[-1].event) == "game_ended"
    early = pb.ExportGameRequest(game_id=game.game_id, organiser_token=organiser)
    assert fails(stub.ExportGame, early).code is grpc.StatusCode.FAILED_PRECONDITION
    as_seat = pb.RevealSeedRequest(game_id=game.game_id, organiser_token=game.tokens[0])
    assert fails(stub.RevealSeed, as_seat).code is grpc.StatusCode.PERMISSION_DENIED
    nobody = pb.RevealSeedRequest(game_id=game.game_id)
    assert fails(stub.RevealSeed, nobody).code is grpc.StatusCode.UNAUTHENTICATED

    revealed = stub.RevealSeed(request, timeout=RPC_TIMEOUT).game  # the organiser's answer
    assert revealed.revealed_seed and revealed.seed_released
    assert stub.RevealSeed(request, timeout=RPC_TIMEOUT).game == revealed  # idempotent
    after = read_ok(stub, stream_request(game, None, after_sequence=final.version))
    assert referee_kind(after[-1].event) == "seed_revealed"
    assert not after[-1].event.referee.seed_revealed.seed
    assert not summary(stub, game).revealed_seed
    exported = export(stub, game)
    salt = exported.events[-1].referee.seed_revealed.salt
    assert hashlib.sha256(salt + revealed.revealed_seed).hexdigest() == revealed.seed_commitment
    assert fairness.verify_export(exported).ok


def test_verify_follows_timeouts_forfeits_and_a_fixed_deal(
    stub: pb_grpc.RefereeServiceStub,
) -> None:
    deck = random.Random(3).sample(DECK, len(DECK))
    game = create_refereed(
        stub,
        players=3,
        deal=fixed_deal(deck, 1),
        clock=pb.ClockSettings(decision_ms=100, forfeit_after_timeouts=1),
    )
    assert len(game.created.game.deal_commitment) == 64
    wait_for(lambda: summary(stub, game).game_over, "every seat to forfeit and the end", 120)
    exported = export(stub, game)
    assert exported.events[-1].referee.seed_revealed.deal.decks[0].cards == deck
    report = fairness.verify_export(exported)
    assert report.ok, report.text()
    assert report.timeouts == 3 and report.default_plays > 0 and report.commands == 0
    # The revealed deal must be the committed one.
    forged = pb.ExportGameResponse()
    forged.CopyFrom(exported)
    forged.events[-1].referee.seed_revealed.deal.decks[0].cards.reverse()
    assert "deal commitment" in fairness.verify_export(forged).problems[0]


# --- the reveal is the organiser's: the seed and salt would show every hand --------------------


def _everything_public(stub: pb_grpc.RefereeServiceStub, game: Game) -> dict[str, bytes]:
    """Every answer a seat or spectator can get about a finished game, by who asked."""
    seen: dict[str, bytes] = {}
    listed = stub.ListGames(pb.ListGamesRequest(), timeout=RPC_TIMEOUT)
    public = summary(stub, game).SerializeToString() + listed.SerializeToString()
    for viewer in [*range(game.players), None]:
        messages = read_ok(stub, stream_request(game, viewer))
        chunks = [m.SerializeToString() for m in messages]
        chunks.append(view(stub, game, viewer).SerializeToString())
        seen[f"seat {viewer}" if viewer is not None else "the spectator"] = (
            b"\x00".join(chunks) + public
        )
    return seen


@pytest.mark.parametrize("game_type", [g.info.type_id for g in all_games()])
def test_no_seat_or_spectator_gets_the_seed_or_the_full_log(
    stub: pb_grpc.RefereeServiceStub, rng: random.Random, game_type: str
) -> None:
    """Regression (VQ-21/VQ-22 and every game's Information section): before, the end of the
    game appended a public SeedRevealed{seed, deal} and ExportGame answered anyone."""
    players = next(g.info.min_players for g in all_games() if g.info.type_id == game_type)
    seed = "secret-" + uuid.uuid4().hex
    game = create_refereed(
        stub, players=players, game_type=game_type, options=SHORT.get(game_type), seed=seed
    )
    play_out(stub, game, rng)
    final = summary(stub, game)
    assert final.game_over and final.seed_released and not final.revealed_seed
    assert not final.public_reveal_waives_secrecy

    nobody = pb.ExportGameRequest(game_id=game.game_id)
    assert fails(stub.ExportGame, nobody).code is grpc.StatusCode.UNAUTHENTICATED
    for token in game.tokens:
        as_seat = pb.ExportGameRequest(game_id=game.game_id, organiser_token=token)
        assert fails(stub.ExportGame, as_seat).code is grpc.StatusCode.PERMISSION_DENIED

    exported = export(stub, game)  # the organiser's: the seed, the salt, the whole log
    revealed = exported.events[-1].referee.seed_revealed
    assert revealed.seed == seed.encode() and exported.game.revealed_seed == seed.encode()
    secrets = [seed.encode(), revealed.salt]
    hidden = [e.SerializeToString() for e in exported.events if e.WhichOneof("game") != "referee"]
    for who, everything in _everything_public(stub, game).items():
        for secret in secrets:
            assert secret not in everything, f"the seed or salt reached {who}"
        assert exported.SerializeToString() not in everything
    assert hidden, "the organiser's log has the game's events"
    assert fairness.verify_export(exported).ok


def test_a_public_reveal_must_be_chosen_and_shows(
    stub: pb_grpc.RefereeServiceStub, rng: random.Random
) -> None:
    game = create_refereed(stub, players=3, public_reveal_waives_secrecy=True)
    assert game.created.game.public_reveal_waives_secrecy
    play_out(stub, game, rng)
    final = summary(stub, game)
    assert final.public_reveal_waives_secrecy and final.revealed_seed
    last = read_ok(stub, stream_request(game, 1))[-1].event.referee.seed_revealed
    assert last.public and last.seed == final.revealed_seed and len(last.salt) == 32
    public = stub.ExportGame(pb.ExportGameRequest(game_id=game.game_id), timeout=RPC_TIMEOUT)
    assert fairness.verify_export(public).ok
    wrong = pb.ExportGameRequest(game_id=game.game_id, organiser_token=game.tokens[0])
    assert fails(stub.ExportGame, wrong).code is grpc.StatusCode.PERMISSION_DENIED


# --- seeds that cannot be guessed -------------------------------------------------------------


def test_a_short_seed_is_refused_unless_declared_public(stub: pb_grpc.RefereeServiceStub) -> None:
    for weak in ("4711", "a" * 40, "0123456789" * 2):
        request = pb.CreateGameRequest(game_type="vampire-queen", players=3, seed=weak)
        assert_bad_request(fails(stub.CreateGame, request), "seed")
    too_long = pb.CreateGameRequest(
        game_type="vampire-queen", players=3, seed="x" * 257, public_reproducible_seed=True
    )
    assert_bad_request(fails(stub.CreateGame, too_long), "seed")

    public = pb.CreateGameRequest(
        game_type="vampire-queen", players=3, seed="4711", public_reproducible_seed=True
    )
    first = stub.CreateGame(public, timeout=RPC_TIMEOUT).game
    second = stub.CreateGame(public, timeout=RPC_TIMEOUT).game
    assert first.public_reproducible_seed and not first.public_reveal_waives_secrecy
    # The commitment is salted with the referee's own randomness: a guessable seed cannot be
    # found from ListGames any more (it could, in under a second: SHA-256("4711")).
    assert first.seed_commitment != second.seed_commitment
    published = {g.seed_commitment for g in stub.ListGames(pb.ListGamesRequest()).games}
    guesses = {hashlib.sha256(str(n).encode()).hexdigest() for n in range(10_000)}
    assert not published & guesses
    secret = stub.CreateGame(
        pb.CreateGameRequest(game_type="vampire-queen", players=3, seed=uuid.uuid4().hex),
        timeout=RPC_TIMEOUT,
    )
    assert not secret.game.public_reproducible_seed


def test_fixed_deals_are_capped(stub: pb_grpc.RefereeServiceStub) -> None:
    def create(deal: pb.FixedDeal) -> pb.CreateGameRequest:
        return pb.CreateGameRequest(game_type="vampire-queen", players=3, deal=deal)

    assert_bad_request(
        fails(stub.CreateGame, create(pb.FixedDeal(picks=[0] * 100_000))), "deal.picks"
    )
    many = pb.FixedDeal()
    for _ in range(257):
        many.decks.add().cards.extend(DECK)
    assert_bad_request(fails(stub.CreateGame, create(many)), "deal.decks")
    big = pb.FixedDeal()
    big.decks.add().cards.extend(DECK * 5)
    assert_bad_request(fails(stub.CreateGame, create(big)), "deal.decks[0].cards")
    long_card = pb.FixedDeal()
    long_card.decks.add().cards.extend([*DECK[:-1], "Q" * 17])
    assert_bad_request(fails(stub.CreateGame, create(long_card)), "deal.decks[0].cards")
    # Within the caps, a fixed deal is dealt as given.
    assert create_refereed(stub, deal=fixed_deal(DECK, 0)).created.game.deal_commitment


# --- per-card openings, checked by each seat with nothing but hashlib (section 6) -------------


def _leaf(shuffle: int, position: int, salt: bytes, card: str) -> bytes:
    data = shuffle.to_bytes(4, "big") + position.to_bytes(4, "big") + salt + card.encode()
    return hashlib.sha256(b"\x00" + data).digest()


def _merkle_root(leaves: list[bytes]) -> bytes:
    level = leaves
    while len(level) > 1:
        pairs = [
            hashlib.sha256(b"\x01" + level[i] + level[i + 1]).digest()
            for i in range(0, len(level) - 1, 2)
        ]
        level = pairs + ([level[-1]] if len(level) % 2 else [])
    return level[0]


def _root_from_path(digest: bytes, position: int, size: int, path: list[bytes]) -> bytes:
    """docs/fairness.md section 6: climb from the leaf; a node without a sibling moves up."""
    siblings = iter(path)
    while size > 1:
        if position % 2 == 1:
            digest = hashlib.sha256(b"\x01" + next(siblings) + digest).digest()
        elif position + 1 < size:
            digest = hashlib.sha256(b"\x01" + digest + next(siblings)).digest()
        position, size = position // 2, (size + 1) // 2
    assert next(siblings, None) is None, "a path with more digests than levels"
    return digest


def _check_openings(messages: list[pb.StreamGameResponse], viewer: int | None) -> int:
    """What a seat (or the spectator) checks on its own stream: every opening it gets is for
    it, proves its card against a root published in an earlier event, and is given once."""
    roots: dict[int, tuple[int, bytes, int]] = {}
    seen: set[tuple[int, int]] = set()
    count = 0
    for message in messages:
        if not message.HasField("event"):
            continue
        event = message.event
        kind = event.referee.WhichOneof("kind") if event.WhichOneof("game") == "referee" else ""
        if kind == "deck_committed":
            deck = event.referee.deck_committed
            roots[deck.shuffle] = (deck.size, bytes.fromhex(deck.root), event.sequence)
        if kind != "cards_opened":
            continue
        for opening in event.referee.cards_opened.openings:
            assert opening.public or viewer in opening.seats, "someone else's opening"
            size, root, published = roots[opening.shuffle]
            assert published < event.sequence
            digest = _leaf(opening.shuffle, opening.position, opening.salt, opening.card)
            assert _root_from_path(digest, opening.position, size, list(opening.path)) == root
            assert (opening.shuffle, opening.position) not in seen
            seen.add((opening.shuffle, opening.position))
            count += 1
    return count


@pytest.mark.parametrize("game_type", [g.info.type_id for g in all_games()])
def test_every_seat_checks_its_cards_against_the_committed_decks(
    stub: pb_grpc.RefereeServiceStub, rng: random.Random, game_type: str
) -> None:
    players = next(g.info.min_players for g in all_games() if g.info.type_id == game_type)
    game = create_refereed(stub, players=players, game_type=game_type, options=SHORT.get(game_type))
    assert game.created.game.card_commitments
    play_out(stub, game, rng)
    counts = {
        v: _check_openings(read_ok(stub, stream_request(game, v)), v)
        for v in [*range(players), None]
    }
    assert all(counts[s] > 0 for s in range(players)), counts
    # The organiser's full log: every seat's openings and the public ones, nothing more.
    exported = export(stub, game)
    opened = [
        o
        for e in exported.events
        if e.referee.WhichOneof("kind") == "cards_opened"
        for o in e.referee.cards_opened.openings
    ]
    public = sum(1 for o in opened if o.public)
    assert counts[None] == public
    assert sum(counts.values()) == len(opened) + public * players
    assert fairness.verify_export(exported).ok  # the roots and openings follow from the seed
