"""Mau Mau Vampires against its rules (``docs/rules/mau-mau-vampires.md``), one or more tests
per rule id MM-1 ... MM-28: ``grep -r "MM-14" tests/`` finds the evidence for a rule.

Situations are dealt from fixed decks (:func:`new_table`): the seats get consecutive blocks of
the hand size (8 with 2-4 players) in seat order, the next card starts the discard pile, then
come the draws; everything else follows in canonical order (R1..R11, B.., G.., P.., then the
6 CLOCK and 5 WOLF). Unless a test says otherwise the last seat deals, so seat 0 starts, and
seat ``s`` has character ``C{s+1}``.

The tests use the provisional character table of MM-4 (installed by the autouse fixture
``provisional_characters``), so they keep working when the real cards' data replaces the
shipped file. With it (day symbols / vampire symbol, colour):

* C1 The Count: (a) give left; S1, S2 / S8 green
* C2 The Countess: (c) wish and play again; S3, S4 / S9 purple
* C3 The Baron: (e) opponents draw 1; S5, S6 / S10 red
* C4 The Duchess: (f) fewest draw 2; S7, S8 / S11 blue
* C5 The Prince: (b) call a colour; S9, S1 / S4 blue
* C6 The Bride: (d) swap and play again; S10, S3 / S6 green
* C7 The Professor: (g) draw 2 and share; S11, S5 / S3 purple
* C8 The Twins: (h) set aside a pot; S7, S2 / S5 red
"""

from __future__ import annotations

import fnmatch
import json
import random
import sys
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from referee.engine import FixedDeal, SetupRefused, Table
from referee.games.mau_mau_vampires import characters as character_data
from referee.games.mau_mau_vampires.characters import (
    CHARACTERS,
    CharacterDataError,
    CharacterTable,
    load_characters,
    parse_characters,
)
from referee.games.mau_mau_vampires.model import (
    CARDS,
    CLOCK,
    CODES,
    FULL_DECK,
    FULL_DECK_NOTATION,
    HIDDEN,
    WEREWOLF,
    Ability,
    AbilityDeclined,
    AbilityTriggered,
    AbilityUsed,
    Announcement,
    CallColour,
    Card,
    CardGiven,
    CardKind,
    CardPlayed,
    CardsDealt,
    CardsDrawn,
    CardSetAside,
    CardShown,
    CharactersSwapped,
    Colour,
    ColourCalled,
    DayNightTurned,
    DeckShuffled,
    DeclineAbility,
    DrawCard,
    DrawnShared,
    DrawReason,
    EndTurn,
    GameEnded,
    GiveCard,
    HandEnded,
    HandStarted,
    NoWish,
    Phase,
    PlayCard,
    PotTaken,
    SetAside,
    ShareDrawn,
    ShowCard,
    ShuffleReason,
    StartingCardTurned,
    SwapCharacters,
    TurnStarted,
    UseAbility,
    Wish,
    Wished,
    WishOffered,
    WishReason,
    parse_notation,
    read_card,
)
from referee.games.mau_mau_vampires.rules import MAX_TIEBREAKS, hand_size_for
from tests.engine.test_registry import shipped
from tests.games.helpers import game_view as view
from tests.games.helpers import of_type, play, rejected, says_why, seen_by

GAME = "mau-mau-vampires"
MAU = Announcement.MAU
MAU_MAU = Announcement.MAU_MAU
NONE = Announcement.UNSPECIFIED
RED, BLUE, GREEN, PURPLE = Colour.RED, Colour.BLUE, Colour.GREEN, Colour.PURPLE

#: The MM-4 table, as the rules file gives it (provisional card data).
PROVISIONAL: dict[str, Any] = {
    "symbols": [
        {"id": f"S{i + 1}", "name": name}
        for i, name in enumerate(
            [
                "skull",
                "coffin",
                "spider",
                "tombstone",
                "stake",
                "cross",
                "bat",
                "garlic",
                "blood",
                "hourglass",
                "candle",
            ]
        )
    ],
    "characters": [
        {
            "id": cid,
            "name": name,
            "ability": ability,
            "day_symbols": day,
            "vampire_symbol": vs,
            "vampire_colour": vc,
            "first_game": first,
        }
        for cid, name, ability, day, vs, vc, first in [
            ("C1", "The Count", "give_left", ["S1", "S2"], "S8", "green", True),
            ("C2", "The Countess", "wish_and_play_again", ["S3", "S4"], "S9", "purple", True),
            ("C3", "The Baron", "opponents_draw_one", ["S5", "S6"], "S10", "red", True),
            ("C4", "The Duchess", "fewest_draw_two", ["S7", "S8"], "S11", "blue", True),
            ("C5", "The Prince", "call_colour", ["S9", "S1"], "S4", "blue", False),
            ("C6", "The Bride", "swap_and_play_again", ["S10", "S3"], "S6", "green", False),
            ("C7", "The Professor", "draw_two_and_share", ["S11", "S5"], "S3", "purple", False),
            ("C8", "The Twins", "set_aside_pot", ["S7", "S2"], "S5", "red", False),
        ]
    ],
}
PROVISIONAL_TABLE = parse_characters(PROVISIONAL, "test table")


def use_characters(monkeypatch: pytest.MonkeyPatch, table: CharacterTable) -> None:
    """MM-4: play with ``table`` as the character data, in every module of the game that
    reads it (the rules are split over several)."""
    for name, module in list(sys.modules.items()):
        if name.startswith("referee.games.mau_mau_vampires") and hasattr(module, "CHARACTERS"):
            monkeypatch.setattr(module, "CHARACTERS", table)


@pytest.fixture(autouse=True)
def provisional_characters(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The tests' situations are built on the MM-4 table, whatever the shipped file holds."""
    use_characters(monkeypatch, PROVISIONAL_TABLE)
    yield


# --- helpers ----------------------------------------------------------------------------------


def card(text: str) -> Card:
    """A wire card from deal notation (``"G7"``, ``"CLOCK"``, ``"WOLF"``)."""
    return CARDS[parse_notation(text)]


def cards(spec: str) -> tuple[Card, ...]:
    return tuple(card(t) for t in spec.split())


def sorted_cards(spec: str) -> tuple[Card, ...]:
    """Cards as a view shows a hand: sorted by code (R1 .. P11, clocks, werewolves)."""
    return tuple(CARDS[c] for c in sorted(parse_notation(t) for t in spec.split()))


def build_deck(
    players: int, hands: Sequence[str | None], start: str = "", draws: str = ""
) -> tuple[str, ...]:
    """A 55-card deck: the given hands (``None``: filled from what is left), then ``start``
    (special cards then the Mau Mau card that starts the pile), then ``draws``, then the rest
    in canonical order."""
    size = hand_size_for(players)
    chosen = [t for spec in hands if spec for t in spec.split()] + start.split() + draws.split()
    rest = Counter(FULL_DECK_NOTATION)
    rest.subtract(chosen)
    assert not [c for c, k in rest.items() if k < 0], f"cards used twice: {chosen}"
    remaining: list[str] = []
    for text in FULL_DECK_NOTATION:
        if rest[text] > 0:
            remaining.append(text)
            rest[text] -= 1
    dealt: list[str] = []
    for seat in range(players):
        spec = hands[seat] if seat < len(hands) else None
        if spec:
            hand = spec.split()
            assert len(hand) == size, f"seat {seat}: {len(hand)} cards, the hand size is {size}"
        else:
            hand, remaining = remaining[:size], remaining[size:]
        dealt.extend(hand)
    deck = (*dealt, *start.split(), *draws.split(), *remaining)
    assert sorted(deck) == sorted(FULL_DECK_NOTATION)
    return deck


def picks_for(
    players: int, dealer: int, characters: Sequence[str], first_game: bool
) -> tuple[int, ...]:
    """The picks giving seat ``s`` the character ``characters[s]`` (ids)."""
    pool = [c.id for c in PROVISIONAL_TABLE.characters if c.first_game or not first_game]
    picks = [dealer]
    for cid in characters:
        picks.append(pool.index(cid))
        pool.remove(cid)
    return tuple(picks)


def new_table(
    hands: Sequence[str | None],
    start: str = "",
    draws: str = "",
    *,
    players: int | None = None,
    dealer: int | None = None,
    characters: Sequence[str] | None = None,
    options: Mapping[str, str] | None = None,
    later: Sequence[Sequence[str]] = (),
) -> Table[Any]:
    """A table from fixed hands; ``later`` lists further fixed decks (next shuffles)."""
    n = players if players is not None else len(hands)
    chars = list(characters) if characters else [f"C{s + 1}" for s in range(n)]
    first_game = (options or {}).get("first_game") == "true"
    deal = FixedDeal(
        decks=(build_deck(n, hands, start, draws), *(tuple(d) for d in later)),
        picks=picks_for(n, n - 1 if dealer is None else dealer, chars, first_game),
    )
    return Table.create(GAME, n, options=options, seed=b"mm-fixed", deal=deal)


def play_card(text: str, announce: Announcement = NONE, wolf: int | None = None) -> PlayCard:
    return PlayCard(card(text), announce, wolf)


def hand_of(table: Table[Any], seat: int | None) -> tuple[Card, ...]:
    hand: tuple[Card, ...] = view(table, seat).hand
    return hand


def drawn(events: Sequence[Any]) -> list[tuple[int, int, DrawReason]]:
    """(seat, count, reason) of every draw."""
    return [(e.seat, e.count, e.reason) for e in of_type(events, CardsDrawn)]


#: A quiet two-player deal: no card of these triggers C1 (S1, S2) or C2 (S3, S4) by day.
QUIET = ["R5 R6 R7 B5 B6 G7 G8 P10", "R9 R10 B9 B10 G9 G10 P5 P6"]


# --- components (MM-1 ... MM-4) -----------------------------------------------------------------


def test_mm_1_mau_mau_cards_are_4_colours_times_11_symbols_each_once() -> None:
    """MM-1: 44 Mau Mau cards; every (colour, symbol) pair exactly once."""
    mau_mau = [CARDS[c] for c in FULL_DECK if CARDS[c].kind is CardKind.MAU_MAU]
    assert len(mau_mau) == 44
    assert {(c.colour, c.symbol) for c in mau_mau} == {
        (colour, symbol) for colour in (RED, BLUE, GREEN, PURPLE) for symbol in range(1, 12)
    }


def test_mm_2_eleven_special_cards_six_clocks_five_werewolves() -> None:
    """MM-2: 6 Clocks and 5 Werewolves; at the start of a hand all 55 cards are somewhere."""
    kinds = Counter(CARDS[c].kind for c in FULL_DECK)
    assert kinds == {CardKind.MAU_MAU: 44, CardKind.CLOCK: 6, CardKind.WEREWOLF: 5}
    table = Table.create(GAME, 4, seed=b"mm-2")
    state = table.state
    held = sum(state.sizes) + len(state.deck) + sum(state.pile_under) + 1
    assert held == 55


@pytest.mark.parametrize(
    "bad",
    [
        FULL_DECK_NOTATION[:-1],  # 54 cards
        ("CLOCK", *FULL_DECK_NOTATION[1:]),  # a seventh Clock instead of R1
        ("R12", *FULL_DECK_NOTATION[1:]),  # no symbol 12
        ("red:S1", *FULL_DECK_NOTATION[1:]),  # deal notation is "R1"
    ],
)
def test_mm_2_a_fixed_first_deck_must_be_the_55_cards(bad: tuple[str, ...]) -> None:
    """MM-1, MM-2: a fixed deal's first deck holds exactly the 55 cards."""
    with pytest.raises(ValueError):
        Table.create(GAME, 2, deal=FixedDeal(decks=(bad,)))


def test_mm_3_eight_characters_with_a_day_and_a_night_side() -> None:
    """MM-3: 8 characters, each a human by day and a vampire by night; the Day/Night card
    starts on Day (MM-5)."""
    assert len(PROVISIONAL_TABLE.characters) == 8
    for character in PROVISIONAL_TABLE.characters:
        assert len(character.day_symbols) == 2  # the human side
        assert 1 <= character.vampire_symbol <= 11  # the vampire side
        assert character.vampire_colour in (RED, BLUE, GREEN, PURPLE)
    table = new_table(QUIET)
    assert view(table, None).night is False


def test_mm_4_the_shipped_data_file_is_the_provisional_table() -> None:
    """MM-4: the shipped characters.json holds the table of the rules file (provisional:
    update this test together with the file when the real cards' data arrives)."""
    assert CHARACTERS == PROVISIONAL_TABLE
    assert PROVISIONAL_TABLE.symbols[0] == "skull" and PROVISIONAL_TABLE.symbols[10] == "candle"


def test_mm_4_symbols_and_characters_in_the_view_come_from_the_data() -> None:
    """MM-4: names and triggers are data; the view passes them on."""
    table = new_table(QUIET)
    game = view(table, 0)
    assert game.symbols == PROVISIONAL_TABLE.symbols
    count = game.characters[0]
    assert (count.id, count.name, count.ability) == ("C1", "The Count", Ability.GIVE_LEFT)
    assert (count.day_symbols, count.vampire_symbol, count.vampire_colour) == ((1, 2), 8, GREEN)


def test_mm_4_replacement_data_changes_the_game_without_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """MM-4: a different data file (here: the Count triggers on S5 and S6) is read by the same
    code and changes which cards trigger."""
    data = json.loads(json.dumps(PROVISIONAL))
    data["symbols"][4]["name"] = "wooden stake"
    data["characters"][0]["day_symbols"] = ["S5", "S6"]
    path = tmp_path / "characters.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    table_data = load_characters(path)
    assert table_data.symbols[4] == "wooden stake"
    use_characters(monkeypatch, table_data)
    table = new_table(QUIET, start="R11")
    events = play(table, (0, play_card("R5")))  # S5 now triggers the Count's (a)
    assert of_type(events, AbilityTriggered) == [AbilityTriggered(0, Ability.GIVE_LEFT, "C1")]


def _broken(change: Any) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(json.dumps(PROVISIONAL))
    change(data)
    return data


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d["characters"][2].update(ability="fly"), 'characters[2] (id "C3"): unknown'),
        (lambda d: d["characters"][1].update(day_symbols=["S3"]), 'characters[1] (id "C2"): day'),
        (lambda d: d["characters"][4].update(day_symbols=["S9", "S9"]), '(id "C5"): day_symbols'),
        (lambda d: d["characters"][3].update(vampire_symbol="S12"), '(id "C4"): vampire_symbol'),
        (lambda d: d["characters"][5].update(vampire_colour="pink"), '(id "C6"): vampire_colour'),
        (lambda d: d["characters"][6].update(first_game="no"), '(id "C7"): first_game'),
        (lambda d: d["characters"][7].pop("name"), '(id "C8"): missing key(s) name'),
        (lambda d: d["characters"][0].update(power=3), '(id "C1"): unknown key(s) power'),
        (lambda d: d["characters"][7].update(id="C1"), 'characters[7] (id "C1"): id is used'),
        (lambda d: d["symbols"][3].update(id="S44"), "symbols[3]: id must be S1 .. S11"),
        (lambda d: d["symbols"].pop(), "symbols must be a list of exactly 11"),
        (lambda d: d.update(characters=d["characters"][:5]), "at least 6"),
        (lambda d: d.update(cards=[]), "unknown top-level key(s) cards"),
    ],
)
def test_mm_4_a_malformed_data_file_fails_naming_the_entry(
    tmp_path: Path, change: Any, message: str
) -> None:
    """MM-4: the data file is checked when it is read (at start-up); the error names the file
    and the entry."""
    path = tmp_path / "characters.json"
    path.write_text(json.dumps(_broken(change)), encoding="utf-8")
    with pytest.raises(CharacterDataError) as caught:
        load_characters(path)
    assert str(path) in str(caught.value)
    assert message in str(caught.value)


def test_mm_4_data_that_is_not_json_fails_at_load(tmp_path: Path) -> None:
    """MM-4: a file that is not JSON is reported with its name."""
    path = tmp_path / "characters.json"
    path.write_text("{symbols: [", encoding="utf-8")
    with pytest.raises(CharacterDataError, match="not valid JSON"):
        load_characters(path)


def test_mm_4_the_shipped_file_loads_from_the_package() -> None:
    """MM-4: the data file ships inside the package (package data), read at import."""
    assert isinstance(character_data.load_shipped(), CharacterTable)
    packages, data = shipped(Path(__file__).resolve().parents[2])
    assert "referee.games.mau_mau_vampires" in packages
    assert any(fnmatch.fnmatch("characters.json", pattern) for pattern in data)


# --- setup (MM-5 ... MM-7) --------------------------------------------------------------------


@pytest.mark.parametrize(("players", "size"), [(2, 8), (3, 8), (4, 8), (5, 7), (6, 6)])
def test_mm_5_two_to_six_players_and_their_hand_sizes(players: int, size: int) -> None:
    """MM-5, MM-6: 8 cards each with 2-4 players, 7 with 5, 6 with 6; every player has a
    character, day side up."""
    table = Table.create(GAME, players, seed=b"mm-5")
    spectator = view(table, None)
    assert spectator.hand_sizes == (size,) * players
    assert len({c.id for c in spectator.characters}) == players
    assert spectator.night is False


@pytest.mark.parametrize("players", [1, 7])
def test_mm_5_fewer_than_2_or_more_than_6_players_are_refused(players: int) -> None:
    """MM-5: 2 to 6 players."""
    with pytest.raises(ValueError):
        Table.create(GAME, players)


def test_mm_5_first_game_uses_only_the_first_game_characters() -> None:
    """MM-5: option first_game: only characters marked first game (C1-C4) are dealt."""
    for seed in range(8):
        table = Table.create(GAME, 4, options={"first_game": "true"}, seed=bytes([seed]))
        ids = {c.id for c in view(table, None).characters}
        assert ids == {"C1", "C2", "C3", "C4"}


def test_mm_5_first_game_needs_at_most_four_players() -> None:
    """MM-5: a first game is for at most 4 players (there are 4 first-game characters)."""
    with pytest.raises(ValueError, match="first_game"):
        Table.create(GAME, 5, options={"first_game": "true"})


def test_mm_5_characters_are_random_per_seat() -> None:
    """MM-5: each player gets one random character (seeded picks)."""
    seen = {
        tuple(c.id for c in view(Table.create(GAME, 3, seed=bytes([s])), None).characters)
        for s in range(10)
    }
    assert len(seen) > 3


def test_mm_6_random_dealer_and_the_player_left_of_the_dealer_starts() -> None:
    """MM-6: picks[0] is the dealer; the next seat clockwise starts."""
    table = new_table([None, None, None], dealer=1)
    assert view(table, None).dealer == 1
    assert table.pending() == (2,)
    dealers = {view(Table.create(GAME, 4, seed=bytes([s])), None).dealer for s in range(12)}
    assert len(dealers) > 1


def test_mm_6_the_top_card_starts_the_pile_and_turned_specials_are_shuffled_back() -> None:
    """MM-6: special cards turned up first are shuffled back into the deck; the first Mau Mau
    card starts the discard pile."""
    table = new_table(QUIET, start="CLOCK WOLF R11")
    events = table.log
    assert [e.card for e in of_type(events, StartingCardTurned)] == list(cards("CLOCK WOLF R11"))
    shuffles = of_type(events, DeckShuffled)
    assert [s.reason for s in shuffles] == [ShuffleReason.NEW_HAND, ShuffleReason.SPECIALS_RETURNED]
    assert shuffles[1].count == 55 - 16 - 1
    spectator = view(table, None)
    assert spectator.top == card("R11") and spectator.pile_size == 1
    assert spectator.deck_size == 55 - 16 - 1
    assert Counter(table.state.deck)[CLOCK] == 6 and Counter(table.state.deck)[WEREWOLF] == 5


def test_mm_7_number_of_hands_option() -> None:
    """MM-7: option hands (1-15, default 5)."""
    table = Table.create(GAME, 2, seed=b"mm-7")
    assert view(table, None).hands == 5
    for bad in ("0", "16"):
        with pytest.raises(ValueError):
            Table.create(GAME, 2, options={"hands": bad})


#: Seat 0 (C1) can play out its 8 cards (a Clock, a Werewolf, then reds with symbols 4-9 that
#: trigger nothing by day); seat 1 (C2) holds no red card and only draws.
RUN_OUT = ["CLOCK WOLF R4 R5 R6 R7 R8 R9", "B5 B6 B7 B8 B9 B10 B11 G5"]
RUN_OUT_ORDER = "CLOCK WOLF R5 R6 R7 R8 R9 R4"


def run_out(table: Table[Any], order: str = RUN_OUT_ORDER, seat: int = 0) -> list[Any]:
    """``seat`` plays ``order`` one card per turn (announcing right; a Werewolf goes on the
    next seat) while every other seat draws and keeps, until the hand ends."""
    events: list[Any] = []
    for text in order.split():
        left = len(hand_of(table, seat)) - 1
        announce = MAU if left == 1 else MAU_MAU if left == 0 else NONE
        if text in ("CLOCK", "WOLF") and left == 0:
            announce = NONE
        target = (seat + 1) % table.config.players if text == "WOLF" else None
        events += play(table, (seat, play_card(text, announce, target)))
        if of_type(events, HandEnded):
            break
        while table.pending() != (seat,):
            events += draw_and_keep(table, table.pending()[0])
    return events


def draw_and_keep(table: Table[Any], seat: int) -> list[Any]:
    """``seat`` draws (MM-8) and keeps the card, if one could be drawn."""
    events = play(table, (seat, DrawCard()))
    if table.pending() == (seat,) and view(table, seat).phase is Phase.PLAY_DRAWN:
        events += play(table, (seat, EndTurn()))
    return events


def test_mm_7_a_new_hand_resets_the_table_and_the_next_dealer_deals() -> None:
    """MM-7: after a hand: Day side up, no clocks, no werewolf, no pot, no wish; the player
    left of the previous dealer deals."""
    table = new_table(RUN_OUT, start="R1", options={"hands": "2"})
    assert view(table, None).dealer == 1
    events = play(table, (0, play_card("CLOCK")), (1, DrawCard()), (1, EndTurn()))
    events += play(table, (0, play_card("WOLF", wolf=1)), (1, DrawCard()), (1, EndTurn()))
    spectator = view(table, None)
    assert (spectator.clocks, spectator.werewolf_seat) == (1, 1)
    table.state.pot = [(parse_notation("P1"), -1)]  # as if set aside (MM-22 h)
    events += run_out(table, "R5 R6 R7 R8 R9 R4")
    ended = of_type(events, HandEnded)
    assert len(ended) == 1 and ended[0].ender == 0
    started = of_type(events, HandStarted)[-1]
    assert (started.hand_number, started.dealer) == (2, 0)
    spectator = view(table, None)
    assert (spectator.night, spectator.clocks, spectator.werewolf_seat) == (False, 0, None)
    assert (spectator.pot_size, spectator.wish) == (0, Colour.UNSPECIFIED)
    assert table.pending() == (1,)  # left of the new dealer


@pytest.mark.parametrize(
    ("option", "expected"), [("keep", ("C1", "C2")), ("pass_left", ("C2", "C1"))]
)
def test_mm_7_characters_stay_or_pass_left_after_a_hand(
    option: str, expected: tuple[str, str]
) -> None:
    """MM-7: option characters: keep (default) or pass_left after each hand."""
    table = new_table(RUN_OUT, start="R1", options={"hands": "2", "characters": option})
    run_out(table)
    assert tuple(c.id for c in view(table, None).characters) == expected


# --- a turn (MM-8 ... MM-15) -------------------------------------------------------------------


def test_mm_8_after_drawing_only_the_drawn_card_may_be_played() -> None:
    """MM-8: draw 1 card; then play that card if playable, or keep it; the turn ends."""
    table = new_table(QUIET, start="R11", draws="B11")
    events = play(table, (0, DrawCard()))
    assert drawn(events) == [(0, 1, DrawReason.TURN)]
    game = view(table, 0)
    assert (game.phase, game.drawn) == (Phase.PLAY_DRAWN, (card("B11"),))
    assert table.legal_commands(0) == [EndTurn(), play_card("B11")]
    assert rejected(table, 0, play_card("R5")).rule_id == "MM-8"
    assert rejected(table, 0, DrawCard()).rule_id == "MM-8"
    events = play(table, (0, play_card("B11")))
    assert [type(e) for e in events] == [CardPlayed, TurnStarted]
    assert view(table, None).top == card("B11")


def test_mm_8_the_drawer_decides_even_when_the_drawn_card_cannot_be_played() -> None:
    """MM-8, MM-28: the drawer is always asked, so the others cannot tell from the flow of the
    game whether the drawn card was playable."""
    table = new_table(QUIET, start="R11", draws="P7")
    events = play(table, (0, DrawCard()))
    assert table.pending() == (0,) and table.legal_commands(0) == [EndTurn()]
    assert seen_by(table, events, 1) == [CardsDrawn(0, 1, (), DrawReason.TURN)]
    assert seen_by(table, events, 0) == events
    play(table, (0, EndTurn()))
    assert table.pending() == (1,)
    assert card("P7") in hand_of(table, 0)


def test_mm_8_one_card_per_turn_then_the_next_player() -> None:
    """MM-8: one card, then the turn ends; clockwise (MM-6)."""
    table = new_table([*QUIET, None], start="R11")
    play(table, (0, play_card("R5")))
    assert table.pending() == (1,)
    assert rejected(table, 0, DrawCard()).kind == "precondition"


def test_mm_9_a_mau_mau_card_must_match_colour_or_symbol() -> None:
    """MM-9 (bad input): a card matching neither colour nor symbol is refused, nothing
    changes; same colour or same symbol is fine."""
    table = new_table(QUIET, start="R11")
    error = rejected(table, 0, play_card("G7"))
    assert error.rule_id == "MM-9" and error.kind == "illegal"
    plays = [c.card for c in table.legal_commands(0) if isinstance(c, PlayCard)]
    assert plays == list(cards("R5 R6 R7"))  # red; seat 0 holds no 11
    play(table, (0, play_card("R5")))
    assert rejected(table, 1, play_card("G9")).rule_id == "MM-9"
    play(table, (1, play_card("P5")))  # same symbol
    assert view(table, None).top == card("P5")


#: Both seats hold werewolves; seat 0 a clock too (2 players: C1 and C2).
WOLVES = ["WOLF WOLF CLOCK R5 R6 B5 G7 G8", "WOLF R9 R10 B9 B10 G9 P5 P6"]


def test_mm_10_special_cards_are_playable_on_anything_even_during_a_wish() -> None:
    """MM-10: a special card is playable whatever the top card, and while a wish is open."""
    table = new_table(WOLVES, start="P11")
    commands = table.legal_commands(0)
    assert play_card("CLOCK") in commands and play_card("WOLF", wolf=1) in commands
    play(table, (0, play_card("WOLF", wolf=1)), (1, play_card("WOLF", wolf=0)), (1, Wish(BLUE)))
    assert view(table, None).wish is BLUE
    assert play_card("CLOCK") in table.legal_commands(0)
    play(table, (0, play_card("CLOCK")))
    assert view(table, None).clocks == 1


def test_mm_11_a_werewolf_goes_on_any_character_without_one() -> None:
    """MM-11: on any character, the player's own included; then the turn ends."""
    table = new_table(WOLVES, start="P11")
    targets = [
        c.werewolf_seat for c in table.legal_commands(0) if getattr(c, "card", None) == card("WOLF")
    ]
    assert sorted(set(targets)) == [0, 1]
    events = play(table, (0, play_card("WOLF", wolf=1)))
    assert events[0] == CardPlayed(0, card("WOLF"), NONE, NONE, 1, "")
    assert events[-1] == TurnStarted(1, False)
    spectator = view(table, None)
    assert spectator.werewolf_seat == 1
    assert [c.werewolf for c in spectator.characters] == [False, True]


def test_mm_11_a_werewolf_on_a_character_that_carries_one_is_refused() -> None:
    """MM-11 (bad input): never a second werewolf on one character; state unchanged."""
    table = new_table(WOLVES, start="P11")
    play(table, (0, play_card("WOLF", wolf=1)))
    error = rejected(table, 1, play_card("WOLF", wolf=1))
    assert error.rule_id == "MM-11"
    assert rejected(table, 1, play_card("WOLF")).rule_id == "MM-11"  # no seat named
    assert rejected(table, 1, play_card("R9", wolf=0)).rule_id == "MM-11"


def test_mm_11_two_players_only_the_own_character_when_the_opponent_carries_one() -> None:
    """MM-11: in a 2-player game with the opponent's character carrying a werewolf, only the
    player's own character is possible; the old werewolf is then discarded and the player may
    wish (MM-14)."""
    table = new_table(WOLVES, start="P11")
    play(table, (0, play_card("WOLF", wolf=1)))
    draw_and_keep(table, 1)
    targets = {
        c.werewolf_seat for c in table.legal_commands(0) if getattr(c, "card", None) == card("WOLF")
    }
    assert targets == {0}
    events = play(table, (0, play_card("WOLF", wolf=0)))
    assert events == [
        CardPlayed(0, card("WOLF"), NONE, NONE, 0, "C2"),
        WishOffered(0, WishReason.WEREWOLF_REPLACED),
    ]
    spectator = view(table, None)
    assert spectator.werewolf_seat == 0 and spectator.phase is Phase.WISH


def test_mm_11_a_new_werewolf_replaces_the_one_in_play_and_the_player_may_wish() -> None:
    """MM-11, MM-13, MM-14: the old werewolf goes under the top card; a wish follows."""
    table = new_table(WOLVES, start="P11")
    play(table, (0, play_card("WOLF", wolf=1)))
    events = play(table, (1, play_card("WOLF", wolf=0)))
    assert events[-1] == WishOffered(1, WishReason.WEREWOLF_REPLACED)
    assert table.decisions()[0].kind == "wish" and table.decisions()[0].rule_id == "MM-14"
    spectator = view(table, None)
    assert (spectator.werewolf_seat, spectator.top, spectator.pile_size) == (0, card("P11"), 2)
    assert table.legal_commands(1) == [NoWish(), *(Wish(c) for c in (RED, BLUE, GREEN, PURPLE))]
    events = play(table, (1, Wish(GREEN)))
    assert events == [Wished(1, GREEN), TurnStarted(0, False)]
    assert view(table, None).wish is GREEN


def test_mm_11_a_character_carrying_a_werewolf_has_no_abilities_day_or_night() -> None:
    """MM-11, MM-18: with a werewolf on it, the Count's day symbol (S1) and, at night, its
    vampire symbol (S8) trigger nothing."""
    hands = ["WOLF CLOCK R1 R8 R6 B5 B6 G7", "CLOCK WOLF R9 R10 B9 B10 G9 P5"]
    table = new_table(hands, start="R11")
    play(table, (0, play_card("WOLF", wolf=0)), (1, play_card("CLOCK")))
    events = play(table, (0, play_card("R1")))  # S1: the Count's day symbol
    assert not of_type(events, AbilityTriggered) and table.pending() == (1,)
    draw_and_keep(table, 1)
    events = play(table, (0, play_card("CLOCK")))  # 2 clocks = 2 players: night
    assert of_type(events, DayNightTurned) == [DayNightTurned(True, 2, "C1")]
    play(table, (0, NoWish()), (1, play_card("WOLF", wolf=0)))
    events = play(table, (0, play_card("R8")))  # S8: the Count's vampire symbol
    assert not of_type(events, AbilityTriggered) and table.pending() == (1,)


#: Three players (C1, C2, C3); each holds a clock, seat 0 a werewolf too.
CLOCKS = [
    "WOLF CLOCK R5 R6 B5 B6 G7 G8",
    "CLOCK R9 R10 B9 B10 G9 P5 P6",
    "CLOCK R7 B7 G5 G6 P7 P8 P9",
]


def test_mm_12_fewer_clocks_than_players_the_turn_just_ends() -> None:
    """MM-12: a clock goes on the Day/Night card; with fewer clocks than players, the turn
    ends."""
    table = new_table(CLOCKS, start="R11")
    events = play(table, (0, play_card("CLOCK")))
    assert events == [CardPlayed(0, card("CLOCK"), NONE, NONE, None, ""), TurnStarted(1, False)]
    events = play(table, (1, play_card("CLOCK")))
    assert not of_type(events, DayNightTurned)
    assert (view(table, None).clocks, view(table, None).night) == (2, False)


def test_mm_12_as_many_clocks_as_players_turn_day_and_night_and_the_player_may_wish() -> None:
    """MM-12, MM-13, MM-14: the clocks counted against the players: the third clock of three
    players turns the Day/Night card and every character, discards the werewolf and the
    clocks (under the top card), and the player may wish."""
    table = new_table(CLOCKS, start="R11")
    play(table, (0, play_card("WOLF", wolf=1)), (1, play_card("CLOCK")), (2, play_card("CLOCK")))
    events = play(table, (0, play_card("CLOCK")))
    assert events[1:] == [
        DayNightTurned(True, 3, "C2"),
        WishOffered(0, WishReason.DAY_NIGHT_TURNED),
    ]
    events = play(table, (0, Wish(PURPLE)))
    assert events == [Wished(0, PURPLE), TurnStarted(1, False)]
    spectator = view(table, None)
    assert (spectator.night, spectator.clocks, spectator.werewolf_seat) == (True, 0, None)
    assert (spectator.wish, spectator.top, spectator.pile_size) == (PURPLE, card("R11"), 5)


def test_mm_13_discarded_special_cards_go_under_the_top_card() -> None:
    """MM-13: discarded special cards never become the card to match."""
    table = new_table(WOLVES, start="P11")
    play(table, (0, play_card("WOLF", wolf=1)), (1, play_card("WOLF", wolf=0)), (1, NoWish()))
    spectator = view(table, None)
    assert spectator.top == card("P11") and spectator.pile_size == 2
    assert table.state.pile_under[WEREWOLF] == 1
    assert play_card("G7") not in table.legal_commands(0)  # still matching P11, not a werewolf


def test_mm_14_a_wish_restricts_plays_until_a_card_of_that_colour_is_played() -> None:
    """MM-14, MM-9: while a wish is open only the wished colour (any symbol) is playable;
    playing it ends the wish."""
    table = new_table(WOLVES, start="P11")
    play(table, (0, play_card("WOLF", wolf=1)), (1, play_card("WOLF", wolf=0)), (1, Wish(GREEN)))
    error = rejected(table, 0, play_card("R5"))
    assert error.rule_id == "MM-9" and "green is wished" in error.message
    plays = {c.card for c in table.legal_commands(0) if isinstance(c, PlayCard)}
    assert plays == {card("G7"), card("G8"), card("CLOCK"), card("WOLF")}
    play(table, (0, play_card("G7")))
    assert view(table, None).wish is Colour.UNSPECIFIED


def test_mm_14_the_next_discard_of_special_cards_ends_the_wish_even_without_a_new_one() -> None:
    """MM-14: the next chance to wish ends an open wish, whether or not a colour is wished."""
    hands = ["WOLF CLOCK R5 R6 B5 B6 G7 G8", "WOLF CLOCK R9 R10 B9 B10 G9 P5"]
    table = new_table(hands, start="P11")
    play(table, (0, play_card("WOLF", wolf=1)), (1, play_card("WOLF", wolf=0)), (1, Wish(RED)))
    play(table, (0, play_card("CLOCK")), (1, play_card("CLOCK")))  # 2 clocks: a discard
    assert view(table, None).wish is Colour.UNSPECIFIED  # ended at the chance to wish
    play(table, (1, NoWish()))
    assert view(table, None).wish is Colour.UNSPECIFIED
    assert play_card("G7") not in table.legal_commands(0)  # back to matching P11


def test_mm_15_an_empty_deck_is_refilled_from_the_pile_under_its_top_card() -> None:
    """MM-15: all cards of the pile but its top card are shuffled into a new deck (the order
    is the game's next shuffle: here fixed)."""
    table = new_table(QUIET, start="R11", later=[["R5", "R11"]])
    play(table, (0, play_card("R5")), (1, play_card("P5")))  # pile: R11, R5 under P5
    while view(table, None).deck_size:
        draw_and_keep(table, table.pending()[0])
    seat = table.pending()[0]
    events = play(table, (seat, DrawCard()))
    assert [type(e) for e in events] == [DeckShuffled, CardsDrawn]
    assert events[0].reason is ShuffleReason.PILE_RESHUFFLED and events[0].count == 2
    assert events[1].cards == (card("R5"),)
    spectator = view(table, None)
    assert (spectator.top, spectator.pile_size, spectator.deck_size) == (card("P5"), 1, 1)


def test_mm_15_with_nothing_to_draw_a_player_who_can_play_must_play() -> None:
    """MM-15 ruling: while nothing can be drawn (deck and pile under its top card empty),
    drawing is not offered to a player who can play a card, and is refused (MM-8 offers it
    only when a card can be drawn)."""
    table = new_table(QUIET, start="R11", options={"hands": "1"})
    play(table, (0, play_card("R5")))  # R11 goes under R5: one card to reshuffle later
    while table.state.deck or any(table.state.pile_under):
        draw_and_keep(table, table.pending()[0])
    assert view(table, None).hand_sizes == (26, 28)  # 7 + 19 and 8 + 20: the deck and R11
    seat = table.pending()[0]
    legal = table.legal_commands(seat)
    assert legal and DrawCard() not in legal  # 26 or 28 cards: something matches
    assert all(isinstance(c, PlayCard) for c in legal)
    assert table.game.default_command(table.state, seat) in legal
    rejection = rejected(table, seat, DrawCard())
    assert (rejection.rule_id, rejection.kind) == ("MM-15", "illegal")


def nothing_to_draw(table: Table[Any], hands: dict[int, str]) -> None:
    """Put the deck out of reach (into the pot), wish red and give the seats these hands."""
    state = table.state
    state.pot, state.deck = [(c, -1) for c in state.deck], []
    state.wish = RED
    for seat, spec in hands.items():
        state.hands[seat] = [0] * CODES
        for text in spec.split():
            state.hands[seat][parse_notation(text)] += 1
        state.sizes[seat] = len(spec.split())


def test_mm_15_a_player_who_can_neither_play_nor_draw_passes_and_all_passing_blocks() -> None:
    """MM-15 ruling: a player who can neither play nor draw passes (DrawCard, the draw skipped);
    the hand ends blocked (scored as MM-23, no bonus) only after every player in turn has
    passed so; a play in between starts the count again."""
    blues = "B1 B2 B3 B4 B5 B6 B7 B8"
    table = Table.create(GAME, 3, options={"hands": "1"}, seed=b"mm-15")
    first = table.pending()[0]
    second, third = (first + 1) % 3, (first + 2) % 3
    nothing_to_draw(table, {first: blues, second: blues, third: "R2 " + blues})
    for seat in (first, second):
        assert table.pending() == (seat,) and table.legal_commands(seat) == [DrawCard()]
        events = play(table, (seat, DrawCard()))
        assert events[0] == CardsDrawn(seat, 0, (), DrawReason.TURN)  # passed
        assert not of_type(events, HandEnded)
    assert table.pending() == (third,)
    assert table.legal_commands(third) == [PlayCard(card("R2"))]  # must play, may not pass
    assert not of_type(play(table, (third, PlayCard(card("R2")))), HandEnded)
    table = Table.create(GAME, 3, options={"hands": "1"}, seed=b"mm-15")
    nothing_to_draw(table, dict.fromkeys(range(3), blues))
    for count in range(3):
        seat = table.pending()[0]
        assert table.legal_commands(seat) == [DrawCard()]
        events = play(table, (seat, DrawCard()))
        assert bool(of_type(events, HandEnded)) == (count == 2)
    ended = of_type(events, HandEnded)[0]
    assert (ended.ender, ended.blocked, ended.scores) == (None, True, (16, 16, 16))


# --- Mau and Mau Mau (MM-16, MM-17) ------------------------------------------------------------

#: Seat 0 (C1) holds reds with symbols 4-11 (no trigger by day); seat 1 (C2) only draws.
REDS = ["R4 R5 R6 R7 R8 R9 R10 R11", "B5 B6 B7 B8 B9 B10 B11 G5"]


def down_to(table: Table[Any], order: str, seat: int = 0) -> None:
    """``seat`` plays ``order`` (announcing right) while the others draw and keep."""
    events = run_out(table, order, seat)
    assert not of_type(events, HandEnded)


def test_mm_16_a_missed_mau_draws_one_penalty_card() -> None:
    """MM-16: an action leaving exactly 1 card must announce Mau; else 1 penalty card."""
    table = new_table(REDS, start="R3")
    down_to(table, "R4 R5 R6 R7 R8 R9")  # 2 cards left: R10, R11
    events = play(table, (0, play_card("R10")))
    assert events[:2] == [
        CardPlayed(0, card("R10"), NONE, MAU, None, ""),
        CardsDrawn(0, 1, events[1].cards, DrawReason.MISSED_MAU),
    ]
    assert view(table, None).hand_sizes[0] == 2


def test_mm_16_a_wrong_announcement_is_refused() -> None:
    """MM-16: Mau only for 1 card left, Mau Mau only for none."""
    table = new_table(REDS, start="R3")
    down_to(table, "R4 R5 R6 R7 R8")  # 3 cards left
    assert rejected(table, 0, play_card("R9", MAU)).rule_id == "MM-16"
    play(table, (0, play_card("R9")))
    draw_and_keep(table, 1)
    assert rejected(table, 0, play_card("R10", MAU_MAU)).rule_id == "MM-16"
    commands = [c for c in table.legal_commands(0) if isinstance(c, PlayCard)]
    assert commands == [
        play_card("R10", MAU),
        play_card("R10"),
        play_card("R11", MAU),
        play_card("R11"),
    ]


def test_mm_16_a_missed_mau_mau_draws_two_and_the_hand_goes_on() -> None:
    """MM-16: the last card without Mau Mau: 2 penalty cards, no end of the hand."""
    table = new_table(REDS, start="R3")
    down_to(table, "R4 R5 R6 R7 R8 R9 R10")
    events = play(table, (0, play_card("R11", NONE)))
    assert drawn(events) == [(0, 2, DrawReason.MISSED_MAU_MAU)]
    assert not of_type(events, HandEnded) and table.pending() == (1,)


def test_mm_16_mau_mau_ends_the_hand() -> None:
    """MM-16, MM-23: the last card with Mau Mau ends the hand."""
    table = new_table(REDS, start="R3")
    down_to(table, "R4 R5 R6 R7 R8 R9 R10")
    events = play(table, (0, play_card("R11", MAU_MAU)))
    assert of_type(events, HandEnded)[0].ender == 0


def test_mm_16_cards_gained_later_in_the_turn_do_not_change_what_was_owed() -> None:
    """MM-16: Mau is owed at the play, before the ability it triggers: the penalty comes first
    even though ability (g) brings cards afterwards."""
    table = new_table(["R4 R6 R7 R8 R9 R10 R11 R5", REDS[1]], start="R3", characters=["C7", "C2"])
    down_to(table, "R4 R6 R7 R8 R9 R10")  # R11 (S11) and R5 (S5) left: C7's symbols
    events = play(table, (0, play_card("R11")))
    assert [type(e) for e in events] == [CardPlayed, CardsDrawn, AbilityTriggered]
    assert events[1].reason is DrawReason.MISSED_MAU


def test_mm_16_giving_a_card_away_also_needs_the_announcement() -> None:
    """MM-16: giving a card through an ability is an action too: Mau when it leaves 1 card."""
    table = new_table(["R1 R4 R5 R6 R7 R8 R9 R10", REDS[1]], start="R3")
    down_to(table, "R4 R5 R6 R7 R8")  # R1, R9, R10 left
    play(table, (0, play_card("R1")))  # S1: the Count's (a)
    assert GiveCard(1, card("R9"), MAU) in table.legal_commands(0)
    assert rejected(table, 0, GiveCard(1, card("R9"), MAU_MAU)).rule_id == "MM-16"
    events = play(table, (0, GiveCard(1, card("R9"))))
    assert events[0] == CardGiven(0, 1, card("R9"), Ability.GIVE_LEFT, NONE, MAU)
    assert drawn(events) == [(0, 1, DrawReason.MISSED_MAU)]


def test_mm_16_with_automatic_announcements_the_referee_announces() -> None:
    """MM-16: option announcements=auto: commands carry no announcement; the events show
    what the referee announced; no penalties."""
    table = new_table(REDS, start="R3", options={"announcements": "auto"})
    down_to_auto = ["R4", "R5", "R6", "R7", "R8", "R9"]
    for text in down_to_auto:
        play(table, (0, play_card(text)))
        draw_and_keep(table, 1)
    assert rejected(table, 0, play_card("R10", MAU)).rule_id == "MM-16"
    assert [c for c in table.legal_commands(0) if isinstance(c, PlayCard)] == [
        play_card("R10"),
        play_card("R11"),
    ]
    events = play(table, (0, play_card("R10")))
    assert events[0] == CardPlayed(0, card("R10"), MAU, MAU, None, "")
    assert not drawn(events)
    draw_and_keep(table, 1)
    events = play(table, (0, play_card("R11")))
    assert events[0].announced is MAU_MAU and of_type(events, HandEnded)[0].ender == 0


def test_mm_17_a_special_card_as_last_card_draws_two_and_the_hand_goes_on() -> None:
    """MM-17: a hand cannot end by playing a special card: its effect, then 2 penalty cards;
    no announcement is owed (nor accepted)."""
    table = new_table(["CLOCK R4 R5 R6 R7 R8 R9 R10", REDS[1]], start="R3")
    down_to(table, "R4 R5 R6 R7 R8 R9 R10")
    error = rejected(table, 0, play_card("CLOCK", MAU_MAU))
    assert error.rule_id == "MM-17"
    assert table.legal_commands(0)[1:] == [play_card("CLOCK")]
    events = play(table, (0, play_card("CLOCK")))
    assert [type(e) for e in events] == [CardPlayed, CardsDrawn, TurnStarted]
    assert events[0].owed is NONE
    assert drawn(events) == [(0, 2, DrawReason.SPECIAL_LAST_CARD)]


def test_mm_17_the_special_card_resolves_fully_before_the_two_cards() -> None:
    """MM-17 ruling: placement, flip, wish and taking the pot come first, then the 2 cards.
    Seat 1 (C8, the Twins) fills the pot with (h) on B7; seat 0's last card, a clock, turns
    the Day/Night card; seat 0 wishes, takes the pot, then draws 2."""
    hands = ["CLOCK R4 R7 B4 B5 B6 B8 B9", "CLOCK B7 G1 G2 G3 G4 P1 P2"]
    table = new_table(hands, start="R3", characters=["C1", "C8"])
    play(table, (0, play_card("R4")), (1, play_card("CLOCK")), (0, play_card("R7")))
    play(table, (1, play_card("B7")), (1, SetAside(card("G1"))))
    assert view(table, None).pot_size == 2
    down_to(table, "B4 B5 B6 B8 B9")
    events = play(table, (0, play_card("CLOCK")))
    assert [type(e) for e in events] == [CardPlayed, DayNightTurned, WishOffered]
    events = play(table, (0, Wish(RED)))
    assert [type(e) for e in events] == [Wished, PotTaken, CardsDrawn, TurnStarted]
    assert events[1].count == 2 and drawn(events) == [(0, 2, DrawReason.SPECIAL_LAST_CARD)]
    assert view(table, None).hand_sizes[0] == 4


def test_mm_17_a_hand_can_end_by_giving_the_last_card_away() -> None:
    """MM-17: with (a) the Count gives away its last card (a clock) and ends the hand."""
    table = new_table(["CLOCK R1 R4 R5 R6 R8 R9 R10", REDS[1]], start="R3")
    down_to(table, "R4 R5 R6 R8 R9 R10")
    play(table, (0, play_card("R1", MAU)))
    events = play(table, (0, GiveCard(1, card("CLOCK"), MAU_MAU)))
    assert events == [
        CardGiven(0, 1, card("CLOCK"), Ability.GIVE_LEFT, MAU_MAU, MAU_MAU),
        WishOffered(1, WishReason.CARD_RECEIVED),
    ]
    events = play(table, (1, NoWish()))
    ended = of_type(events, HandEnded)[0]
    assert ended.ender == 0 and ended.cards_left == (0, 15)
    assert ended.scores == (15 + 2, 0)


def test_mm_17_the_last_card_may_use_its_ability_first() -> None:
    """MM-17: the card played last triggers the Baron's (e): the opponent draws 1 first, which
    counts in the score."""
    hands = ["R4 R7 R8 R9 R10 R11 R3 R5", REDS[1]]
    table = new_table(hands, start="R2", characters=["C3", "C2"])
    down_to(table, "R4 R7 R8 R9 R10 R11 R3")
    events = play(table, (0, play_card("R5", MAU_MAU)))
    assert events[-1] == AbilityTriggered(0, Ability.OPPONENTS_DRAW_ONE, "C3")
    events = play(table, (0, UseAbility()))
    assert drawn(events)[0] == (1, 1, DrawReason.OPPONENTS_DRAW_ONE)
    assert of_type(events, HandEnded)[0].scores == (8 + 7 + 1 + 2, 0)


# --- characters (MM-18 ... MM-22) --------------------------------------------------------------


def test_mm_18_abilities_trigger_only_on_the_owners_own_mau_mau_cards() -> None:
    """MM-18: seat 1 playing S1 does not trigger seat 0's Count; special cards never trigger."""
    table = new_table(["R5 R6 R7 B5 B6 G7 G8 CLOCK", "R1 R10 B9 B10 G9 G10 P5 P6"], start="R11")
    events = play(table, (0, play_card("CLOCK")), (1, play_card("R1")))
    assert not of_type(events, AbilityTriggered)


def test_mm_18_using_an_ability_is_optional() -> None:
    """MM-18: the owner may decline; the turn then ends."""
    table = new_table(["R1 R6 R7 B5 B6 G7 G8 P10", QUIET[1]], start="R11")
    play(table, (0, play_card("R1")))
    assert (
        table.decisions()[0].kind == "give_left" and table.legal_commands(0)[0] == DeclineAbility()
    )
    events = play(table, (0, DeclineAbility()))
    assert events == [AbilityDeclined(0, Ability.GIVE_LEFT), TurnStarted(1, False)]


def test_mm_18_an_ability_used_without_a_werewolf_free_trigger_is_refused() -> None:
    """MM-18 (bad input): no trigger, no ability: on the player's turn, out of turn, and after
    a play whose trigger a werewolf blocked."""
    table = new_table(["WOLF R1 R6 R7 B5 B6 G7 G8", QUIET[1]], start="R11")
    error = rejected(table, 0, UseAbility())
    assert (error.rule_id, error.kind) == ("MM-18", "illegal")
    error = rejected(table, 1, GiveCard(0, card("R9")))
    assert (error.rule_id, error.kind) == ("MM-18", "precondition")
    play(table, (0, play_card("WOLF", wolf=0)))
    draw_and_keep(table, 1)
    play(table, (0, play_card("R1")))  # S1 with a werewolf on the Count: nothing
    error = rejected(table, 0, GiveCard(1, card("R6")))
    assert error.rule_id == "MM-18"


def test_mm_18_the_effects_on_other_players_are_mandatory() -> None:
    """MM-18: opponents are not asked: (e) makes them draw."""
    table = new_table(
        ["R5 R6 R7 B5 B6 G7 G8 P10", None, None], start="R11", characters=["C3", "C1", "C2"]
    )
    play(table, (0, play_card("R5")))
    events = play(table, (0, UseAbility()))
    assert drawn(events) == [
        (1, 1, DrawReason.OPPONENTS_DRAW_ONE),
        (2, 1, DrawReason.OPPONENTS_DRAW_ONE),
    ]
    assert table.pending() == (1,)


def night_table(hands: Sequence[str], **kwargs: Any) -> Table[Any]:
    """Both seats play a clock: it is night (MM-12), seat 0 to play."""
    table = new_table(hands, **kwargs)
    play(table, (0, play_card("CLOCK")), (1, play_card("CLOCK")), (1, NoWish()))
    assert view(table, None).night and table.pending() == (0,)
    return table


#: Seat 0 the Count (vampire: S8, green), seat 1 the Countess (vampire: S9, purple).
NIGHT = ["CLOCK R8 G8 G5 R4 B6 B7 P10", "CLOCK R9 B9 B10 G9 G10 P5 P6"]


def test_mm_19_the_vampire_symbol_makes_the_left_neighbour_draw_two() -> None:
    """MM-19: at night, a card with the vampire's symbol: the left neighbour draws 2."""
    table = night_table(NIGHT, start="R11")
    events = play(table, (0, play_card("R8")))
    assert events[-1] == AbilityTriggered(0, Ability.VAMPIRE_BITE, "C1")
    assert table.decisions()[0].rule_id == "MM-19"
    events = play(table, (0, UseAbility()))
    assert events[0] == AbilityUsed(0, Ability.VAMPIRE_BITE)
    assert drawn(events) == [(1, 2, DrawReason.VAMPIRE_BITE)]


def test_mm_19_the_vampire_colour_gives_a_card_to_another_player() -> None:
    """MM-19 (bad input included): at night, a card of the vampire's colour: give 1 card to
    another player; never to yourself."""
    table = night_table(NIGHT, start="G11")
    play(table, (0, play_card("G5")))
    assert table.decisions()[0].kind == "vampire_gift"
    error = rejected(table, 0, GiveCard(0, card("B6")))
    assert error.rule_id == "MM-19" and "yourself" in error.message
    events = play(table, (0, GiveCard(1, card("B6"))))
    assert events[0] == CardGiven(0, 1, card("B6"), Ability.VAMPIRE_GIFT, NONE, NONE)
    assert card("B6") in hand_of(table, 1)


def test_mm_19_a_card_with_both_triggers_both_symbol_first() -> None:
    """MM-19: G8 is the Count's vampire symbol and colour: bite first, then the gift."""
    table = night_table(NIGHT, start="R11")
    play(table, (0, play_card("R8")), (0, DeclineAbility()))
    draw_and_keep(table, 1)
    events = play(table, (0, play_card("G8")))
    assert events[-1].ability is Ability.VAMPIRE_BITE
    events = play(table, (0, UseAbility()))
    assert drawn(events) == [(1, 2, DrawReason.VAMPIRE_BITE)]
    assert events[-1] == AbilityTriggered(0, Ability.VAMPIRE_GIFT, "C1")
    events = play(table, (0, GiveCard(1, card("P10"))))
    assert events[-1] == TurnStarted(1, False)


def test_mm_20_either_day_symbol_triggers_the_human_ability() -> None:
    """MM-20: by day, either of the two day symbols (the Count: S1, S2) triggers; others not."""
    table = new_table(["R1 R2 R3 B5 B6 G7 G8 P10", QUIET[1]], start="R11")
    for text, triggered in (("R1", True), ("R2", True), ("R3", False)):
        events = play(table, (0, play_card(text)))
        assert bool(of_type(events, AbilityTriggered)) is triggered
        if triggered:
            play(table, (0, DeclineAbility()))
        draw_and_keep(table, 1)


def test_mm_21_another_turn_is_a_complete_normal_turn() -> None:
    """MM-21, MM-22 (c): the Countess wishes and plays again; she may repeat while her symbols
    come; the extra turn is a whole turn (she may also draw)."""
    hands = ["R3 B4 B5 G6 G7 P8 P9 P10", QUIET[1]]
    table = new_table(hands, start="R11", characters=["C2", "C1"])
    play(table, (0, play_card("R3")))
    assert table.legal_commands(0) == [
        DeclineAbility(),
        *(Wish(c) for c in (RED, BLUE, GREEN, PURPLE)),
    ]
    events = play(table, (0, Wish(BLUE)))
    assert events == [Wished(0, BLUE), TurnStarted(0, True)]
    assert view(table, None).extra_turn
    events = play(table, (0, play_card("B4")))  # S4: again
    assert events[-1] == AbilityTriggered(0, Ability.WISH_AND_PLAY_AGAIN, "C2")
    play(table, (0, Wish(GREEN)))
    events = play(table, (0, DrawCard()), (0, EndTurn()))
    assert events[-1] == TurnStarted(1, False)


def test_mm_22_a_give_a_card_to_the_left_neighbour_who_may_wish() -> None:
    """MM-22 (a): only to the left neighbour (not to oneself, not further); then that player
    may wish: a decision for another seat."""
    table = new_table(["R1 R6 R7 B5 B6 G7 G8 P10", None, None], start="R11")
    play(table, (0, play_card("R1")))
    assert rejected(table, 0, GiveCard(2, card("R6"))).rule_id == "MM-22"
    assert rejected(table, 0, GiveCard(0, card("R6"))).rule_id == "MM-22"
    events = play(table, (0, GiveCard(1, card("R6"))))
    assert events[-1] == WishOffered(1, WishReason.CARD_RECEIVED)
    assert table.decisions()[0].seat == 1 and table.decisions()[0].rule_id == "MM-22"
    events = play(table, (1, Wish(PURPLE)))
    assert events == [Wished(1, PURPLE), TurnStarted(1, False)]
    assert view(table, None).wish is PURPLE


#: Four players: seat 0 the Prince (b: S9, S1); seats 1 and 2 hold green, seat 3 none.
CALL = [
    "R9 R5 R6 B5 B6 G5 G6 P5",
    "G1 G2 R10 B10 B11 P10 P11 R8",
    "G3 G4 R7 B7 B8 P7 P8 P9",
    "R1 R2 R3 R4 B1 B2 B3 B4",
]


def test_mm_22_b_call_a_colour_opponents_show_one_or_draw_two() -> None:
    """MM-22 (b): every opponent holding the colour must show one (their choice which), at
    the same time; one holding none draws 2. The card stays in hand; calling is not a wish
    (MM-14)."""
    table = new_table(CALL, start="R11", characters=["C5", "C1", "C2", "C3"])
    play(table, (0, play_card("R9")))
    events = play(table, (0, CallColour(GREEN)))
    assert events[0] == ColourCalled(0, GREEN, (1, 2))
    assert drawn(events) == [(3, 2, DrawReason.CALLED_COLOUR)]
    assert [(d.seat, d.kind) for d in table.decisions()] == [(1, "show_colour"), (2, "show_colour")]
    assert table.legal_commands(1) == [ShowCard(card("G1")), ShowCard(card("G2"))]
    assert rejected(table, 1, DrawCard()).rule_id == "MM-22"
    assert rejected(table, 1, ShowCard(card("R10"))).rule_id == "MM-22"
    events = play(table, (2, ShowCard(card("G4"))))
    assert seen_by(table, events, 0) == [CardShown(2, 0, card("G4"))]
    assert seen_by(table, events, 1) == [CardShown(2, 0, HIDDEN)]
    assert view(table, 0).shown_to_you[0].card == card("G4")
    assert table.pending() == (1,)
    events = play(table, (1, ShowCard(card("G2"))))
    assert events[-1] == TurnStarted(1, False)
    assert card("G2") in hand_of(table, 1) and view(table, None).wish is Colour.UNSPECIFIED


def test_mm_22_c_wish_a_colour_then_play_again() -> None:
    """MM-22 (c): using it is a Wish; another turn follows (see also MM-21)."""
    table = new_table(["R3 B4 B5 G6 G7 P8 P9 P10", QUIET[1]], start="R11", characters=["C2", "C1"])
    play(table, (0, play_card("R3")))
    assert rejected(table, 0, UseAbility()).rule_id == "MM-22"
    play(table, (0, Wish(GREEN)))
    assert table.pending() == (0,) and view(table, None).wish is GREEN


def test_mm_22_d_swap_characters_the_werewolf_stays_on_its_card() -> None:
    """MM-22 (d): the Bride swaps with another player (not herself) and plays again; the
    werewolf on the Countess moves with that card."""
    hands = ["WOLF R10 R3 B5 B6 G7 G8 P10", "R9 R8 B9 B10 G9 G10 P5 P6"]
    table = new_table(hands, start="R11", characters=["C6", "C2"])
    play(table, (0, play_card("WOLF", wolf=1)))
    draw_and_keep(table, 1)
    play(table, (0, play_card("R10")))
    assert rejected(table, 0, SwapCharacters(0)).rule_id == "MM-22"
    events = play(table, (0, SwapCharacters(1)))
    assert events == [CharactersSwapped(0, 1, "C2", "C6"), TurnStarted(0, True)]
    spectator = view(table, None)
    assert [c.id for c in spectator.characters] == ["C2", "C6"]
    assert spectator.werewolf_seat == 0
    events = play(table, (0, play_card("R3")))  # the Countess's S3, but she has the werewolf
    assert not of_type(events, AbilityTriggered)


def test_mm_22_e_every_opponent_draws_one() -> None:
    """MM-22 (e): each opponent draws 1, the player nothing."""
    table = new_table(
        ["R5 R6 R7 B5 B6 G7 G8 P10", None, None], start="R11", characters=["C3", "C1", "C2"]
    )
    play(table, (0, play_card("R5")))
    events = play(table, (0, UseAbility()))
    assert [e.seat for e in of_type(events, CardsDrawn)] == [1, 2]
    assert view(table, None).hand_sizes == (7, 9, 9)


def test_mm_22_f_the_opponent_with_fewest_cards_draws_two_ties_draw_one_each() -> None:
    """MM-22 (f): among the opponents, the fewest cards draws 2; tied ones draw 1 each."""
    hands = ["R7 R8 R5 R6 B5 B6 G5 G6", "R9 R10 B9 B10 G9 G10 P9 P10", "P5 P6 P7 G7 G8 B7 B8 P11"]
    table = new_table(hands, start="R11", characters=["C4", "C1", "C2"])
    play(table, (0, play_card("R7")))
    events = play(table, (0, UseAbility()))
    assert drawn(events) == [(1, 1, DrawReason.FEWEST_DRAW_TWO), (2, 1, DrawReason.FEWEST_DRAW_TWO)]
    play(table, (1, play_card("R9")))
    draw_and_keep(table, 2)
    assert view(table, None).hand_sizes == (7, 8, 10)
    play(table, (0, play_card("R8")))
    events = play(table, (0, UseAbility()))
    assert drawn(events) == [(1, 2, DrawReason.FEWEST_DRAW_TWO)]


def test_mm_22_g_draw_two_then_give_them_away_or_keep_them() -> None:
    """MM-22 (g): the Professor draws 2 and looks at them; each goes to a player of her choice
    or stays. The cards are seen by her and by each one's receiver only (MM-28)."""
    hands = ["R5 R6 R7 B5 B6 G7 G8 P10", None, None]
    table = new_table(hands, start="R11", draws="P1 WOLF", characters=["C7", "C1", "C2"])
    play(table, (0, play_card("R5")))
    events = play(table, (0, UseAbility()))
    assert events[1] == CardsDrawn(0, 2, cards("P1 WOLF"), DrawReason.DRAW_TWO_AND_SHARE)
    assert seen_by(table, events, 1)[1].cards == ()
    assert view(table, 0).to_share == cards("P1 WOLF") and view(table, 1).to_share == ()
    assert view(table, 1).to_share_count == 2 and view(table, None).hand_sizes[0] == 7
    legal = table.legal_commands(0)
    assert legal[0] == ShareDrawn((0, 0)) and len(legal) == 9
    assert rejected(table, 0, ShareDrawn((1,))).rule_id == "MM-22"
    assert rejected(table, 0, ShareDrawn((1, 5))).rule_id == "MM-22"
    events = play(table, (0, ShareDrawn((1, 0))))
    shared = events[0]
    # Listed by receiving seat, not in the order of the cards (MM-28).
    assert shared == DrawnShared(0, (0, 1), cards("WOLF P1"), NONE, NONE)
    assert table.game.redact(shared, 1).cards == (HIDDEN, card("P1"))
    assert table.game.redact(shared, 2).cards == (HIDDEN, HIDDEN)
    assert card("P1") in hand_of(table, 1) and card("WOLF") in hand_of(table, 0)


def test_mm_28_mm_22_g_receivers_are_listed_by_seat_whatever_the_cards() -> None:
    """MM-28, MM-22 (g): who got which of the two cards must not show in the order of the
    receivers. The Professor gives P1 to seat 1 and the other card to seat 2; whether the
    other card sorts below or above P1, seat 1 and a spectator see the same event."""
    seen = []
    for other in ("R3", "P9"):  # below P1 in card order, above it
        hands = ["R5 R6 R7 B5 B6 G7 G8 P10", None, None]
        table = new_table(hands, start="R11", draws=f"P1 {other}", characters=["C7", "C1", "C2"])
        play(table, (0, play_card("R5")), (0, UseAbility()))
        to_share = view(table, 0).to_share
        to_seats = tuple(1 if c == card("P1") else 2 for c in to_share)
        shared = play(table, (0, ShareDrawn(to_seats)))[0]
        assert shared.to_seats == (1, 2)
        seen.append((table.game.redact(shared, 1), table.game.redact(shared, None)))
    assert seen[0] == seen[1]
    assert seen[0][0].cards == (card("P1"), HIDDEN)


def test_mm_22_h_set_aside_a_pot_the_next_special_card_takes_it() -> None:
    """MM-22 (h): the Twins set 1 card from hand and 1 from the deck (unseen) aside; the next
    player who plays a special card takes them all into hand."""
    hands = ["R7 R6 R5 B5 B6 G7 G8 P10", "CLOCK R9 B9 B10 G9 G10 P5 P6"]
    table = new_table(hands, start="R11", draws="P1", characters=["C8", "C2"])
    play(table, (0, play_card("R7")))
    events = play(table, (0, SetAside(card("R6"))))
    assert events[0] == CardSetAside(0, card("R6"), 1, cards("P1"), NONE, NONE, 2)
    assert table.game.redact(events[0], 0).deck_cards == ()  # the deck card: seen by no one
    assert table.game.redact(events[0], 1).card == HIDDEN
    assert view(table, 0).pot_yours == cards("R6") and view(table, 1).pot_yours == ()
    assert view(table, None).pot_size == 2
    events = play(table, (1, play_card("CLOCK")))
    assert events[1] == PotTaken(1, 2, cards("R6 P1"))
    assert seen_by(table, events, 0)[1] == PotTaken(1, 2, ())
    assert view(table, None).pot_size == 0
    assert {card("R6"), card("P1")} <= set(hand_of(table, 1))


# --- end of a hand and of the game (MM-23 ... MM-25) --------------------------------------------


def test_mm_23_each_player_scores_the_cards_in_the_other_hands_the_ender_two_more() -> None:
    """MM-23: 1 point per card in the other players' hands; 2 bonus points for the ender."""
    hands = ["R4 R5 R6 R7 R8 R9 R10 R11", "B5 B6 B7 B8 B9 B10 B11 G5", "P4 P5 P6 P7 P8 P9 P10 P11"]
    table = new_table(hands, start="R3", options={"hands": "2"})
    events = run_out(table, "R4 R5 R6 R7 R8 R9 R10 R11")
    ended = of_type(events, HandEnded)[0]
    assert ended.cards_left == (0, 15, 15)  # 8 + 7 draws each
    assert ended.scores == (30 + 2, 15, 15)
    assert ended.totals == (32, 15, 15)
    assert view(table, None).hand_scores[0].scores == (32, 15, 15)


def test_mm_23_each_player_keeps_seeing_their_own_cards_of_the_last_hand() -> None:
    """MM-23, MM-28: the cards a hand was scored with stay in each player's own view (a draw
    that comes just before the hand ends is not forgotten), hidden from the others."""
    table = new_table(REDS, start="R3", options={"hands": "2"})
    events = run_out(table, "R4 R5 R6 R7 R8 R9 R10 R11")
    assert of_type(events, HandEnded)
    kept = tuple(sorted((c for e in of_type(table.log, CardsDrawn) for c in e.cards), key=str))
    mine = view(table, 1).last_hand
    assert len(mine) == 15 and set(kept) <= set(mine)
    assert view(table, 0).last_hand == () and view(table, None).last_hand == ()


def test_mm_24_the_highest_total_wins() -> None:
    """MM-24: after the agreed hands the highest total wins (results: rank 1)."""
    table = new_table(REDS, start="R3", options={"hands": "1"})
    events = run_out(table, "R4 R5 R6 R7 R8 R9 R10 R11")
    assert of_type(events, GameEnded) == [GameEnded((17, 0), (1, 2))]
    results = table.results()
    assert results is not None and [r.rank for r in results] == [1, 2]
    assert table.pending() == ()


def test_mm_24_the_end_says_who_won_and_why() -> None:
    """MM-24: the end says why in words: the highest total after the agreed hands."""
    table = new_table(REDS, start="R3", options={"hands": "1"})
    run_out(table, "R4 R5 R6 R7 R8 R9 R10 R11")
    says_why(table, "MM-24", "seat 0 wins with the highest total after the agreed hands, 17 points")


#: Hand 2: seat 1 (the Countess: S3, S4) runs out with reds; seat 0 only draws.
MIRROR = ["B5 B6 B7 B8 B9 B10 B11 G5", "R5 R6 R7 R8 R9 R10 R11 R1"]


def test_mm_24_tied_leaders_play_a_tie_break_hand_alone() -> None:
    """MM-24: 17 points each after two hands: a tie-break hand, with the normal rules, of the
    tied players only; the one who scores most in it wins."""
    first = build_deck(2, REDS, "R3")
    later = [build_deck(2, MIRROR, "R2"), first]
    table = new_table(REDS, start="R3", options={"hands": "2"}, later=later)
    run_out(table, "R4 R5 R6 R7 R8 R9 R10 R11")
    events = run_out(table, "R5 R6 R7 R8 R9 R10 R11 R1", seat=1)
    assert of_type(events, HandEnded)[0].totals == (17, 17)
    started = of_type(events, HandStarted)[0]
    assert (started.hand_number, started.tiebreak, started.playing) == (3, 1, (0, 1))
    assert started.dealer == 1 and table.pending() == (0,)
    events = run_out(table, "R4 R5 R6 R7 R8 R9 R10 R11")
    ended = of_type(events, HandEnded)[0]
    assert (ended.tiebreak, ended.tiebreak_points) == (1, (17, 0))
    assert of_type(events, GameEnded) == [GameEnded((34, 17), (1, 2))]


def test_mm_24_only_the_tied_seats_play_the_tie_break_hand() -> None:
    """MM-24: with three players and two tied leaders, the third sits the tie-break out: no
    cards, no turn, no target."""
    table = Table.create(GAME, 3, options={"hands": "1"}, seed=b"mm-24")
    table.state.totals = [5, 5, 1]  # as if scored earlier
    block(table)  # 16 points each: 21, 21, 17
    game = view(table, None)
    assert game.tiebreak == 1 and game.playing == (0, 1)
    assert game.hand_sizes == (8, 8, 0) and 2 not in table.pending()


def block(table: Table[Any]) -> list[Any]:
    """Nobody can play or draw (no deck, red wished, 8 blue cards each): everyone passes and
    the hand ends blocked, every playing seat still holding its 8 cards (MM-15)."""
    nothing_to_draw(table, dict.fromkeys(table.state.playing, "B1 B2 B3 B4 B5 B6 B7 B8"))
    events: list[Any] = []
    while not of_type(events, HandEnded):
        events += play(table, (table.pending()[0], DrawCard()))
    return events


def test_mm_24_after_three_tie_break_hands_the_still_tied_share_the_win() -> None:
    """MM-24: tied again and again (blocked hands: 8 cards each): three tie-break hands, then
    the tied players share the win."""
    table = Table.create(GAME, 2, options={"hands": "1"}, seed=b"mm-24-share")
    for tiebreak in range(1, MAX_TIEBREAKS + 1):
        events = block(table)
        assert of_type(events, HandStarted)[0].tiebreak == tiebreak
    events = block(table)
    # 8 points in the agreed hand and 8 in each tie-break hand: final scores 32 each.
    assert of_type(events, GameEnded) == [GameEnded((32, 32), (1, 1))]
    results = table.results()
    assert results is not None and [r.rank for r in results] == [1, 1]
    # MM-24 ended the game: later commands are refused by it.
    for seat in (0, 1):
        rejection = rejected(table, seat, DrawCard())
        assert rejection.kind == "precondition" and rejection.rule_id == "MM-24"


def test_mm_24_a_shared_win_says_so() -> None:
    """MM-24: still tied after three tie-break hands: the words name both winners."""
    table = Table.create(GAME, 2, options={"hands": "1"}, seed=b"mm-24-share")
    for _ in range(MAX_TIEBREAKS + 1):
        block(table)
    says_why(
        table,
        "MM-24",
        "seat 0 and seat 1 share the win with the highest total after the agreed hands, "
        "32 points (still tied after the tie-break hands)",
    )


def test_mm_25_the_social_rules_are_not_part_of_the_game() -> None:
    """MM-25: no command to say "Mmm, buono!" or knock: the commands are the game's moves."""
    names = {t.__name__ for t in table_game().command_types}
    assert names == {
        "DrawCard", "PlayCard", "EndTurn", "Wish", "NoWish", "UseAbility", "DeclineAbility",
        "GiveCard", "CallColour", "ShowCard", "SwapCharacters", "ShareDrawn", "SetAside",
    }  # fmt: skip


def table_game() -> Any:
    return Table.create(GAME, 2, seed=b"g").game


# --- information (MM-26 ... MM-28) -------------------------------------------------------------


def test_mm_26_each_player_sees_their_own_hand_and_every_hand_size() -> None:
    """MM-26: dealt cards are seen by their receiver only; hand sizes are public."""
    table = new_table(QUIET, start="R11")
    dealt = of_type(table.log, CardsDealt)
    assert seen_by(table, dealt, 0) == [dealt[0], CardsDealt(1, 8, ())]
    assert seen_by(table, dealt, None) == [CardsDealt(0, 8, ()), CardsDealt(1, 8, ())]
    assert hand_of(table, 0) == sorted_cards(QUIET[0]) and hand_of(table, None) == ()
    assert view(table, 1).hand_sizes == (8, 8)


def test_mm_27_played_cards_wish_clocks_werewolf_day_night_draws_and_scores_are_public() -> None:
    """MM-27: a spectator sees the top card, every card played (with announcements), the wish,
    the clocks, the werewolf and where, Day/Night, the characters, who drew how many and why,
    the pot size and the scores."""
    table = new_table(WOLVES, start="P11")
    events = play(table, (0, play_card("WOLF", wolf=1)), (1, play_card("WOLF", wolf=0)))
    events += play(table, (1, Wish(GREEN)), (0, play_card("CLOCK")))
    events += draw_and_keep(table, 1)
    public = seen_by(table, events, None)
    assert public[:2] == events[:2]
    assert CardsDrawn(1, 1, (), DrawReason.TURN) in public
    spectator = view(table, None)
    assert (spectator.top, spectator.wish, spectator.clocks) == (card("P11"), GREEN, 1)
    assert (spectator.werewolf_seat, spectator.night, spectator.pot_size) == (0, False, 0)
    assert [c.id for c in spectator.characters] == ["C1", "C2"]
    assert spectator.totals == (0, 0) and spectator.hand_sizes == (6, 8)


def test_mm_28_a_given_card_is_seen_by_giver_and_receiver_only() -> None:
    """MM-28: (a) gives a card: seen by seats 0 and 1, hidden from seat 2 and spectators."""
    table = new_table(["R1 R6 R7 B5 B6 G7 G8 P10", None, None], start="R11")
    play(table, (0, play_card("R1")))
    events = play(table, (0, GiveCard(1, card("R6"))))
    given = events[0]
    for viewer, visible in ((0, True), (1, True), (2, False), (None, False)):
        assert (table.game.redact(given, viewer).card == card("R6")) is visible


def test_mm_28_drawn_cards_and_the_deck_order_stay_secret() -> None:
    """MM-28: a drawn card is seen by the drawer; the deck order by no one (every shuffle's
    order is redacted for every viewer, spectators included)."""
    table = new_table(QUIET, start="R11", draws="G11")
    events = play(table, (0, DrawCard()))
    assert seen_by(table, events, 0)[0].cards == cards("G11")
    assert seen_by(table, events, 1)[0].cards == ()
    for shuffle in of_type(table.log, DeckShuffled):
        assert shuffle.order and all(
            table.game.redact(shuffle, v).order == () for v in (0, 1, None)
        )


def test_mm_28_the_pot_is_seen_by_no_one_until_taken() -> None:
    """MM-28: pot cards are seen by no one (the card put in by its owner only) until taken."""
    hands = ["R7 R6 R5 B5 B6 G7 G8 P10", "CLOCK R9 B9 B10 G9 G10 P5 P6"]
    table = new_table(hands, start="R11", draws="P1", characters=["C8", "C2"])
    play(table, (0, play_card("R7")))
    aside = play(table, (0, SetAside(card("R6"))))[0]
    assert table.game.redact(aside, 0) == CardSetAside(0, card("R6"), 1, (), NONE, NONE, 2)
    assert table.game.redact(aside, None) == CardSetAside(0, HIDDEN, 1, (), NONE, NONE, 2)


def test_mm_6_mm_15_later_fixed_decks_give_top_cards_and_are_checked_at_creation() -> None:
    """MM-6, MM-15: what a later shuffle holds (the turned special cards, the discard pile) is
    known only when it happens, so a later fixed deck gives its top cards only; it is checked
    at creation (a card the game does not have, more copies than it has), so the game never
    fails mid-hand."""
    full = build_deck(2, [None, None])
    picks = picks_for(2, 1, ["C1", "C2"], False)
    for later, problem in (((["R1", "R1"]), "more copies of 'R1'"), (["X9"], "no card 'X9'")):
        with pytest.raises(SetupRefused, match=problem) as refused:
            Table.create(GAME, 2, deal=FixedDeal(decks=(full, tuple(later)), picks=picks))
        assert refused.value.field == "deal.decks[1]"
    with pytest.raises(SetupRefused) as refused:
        Table.create(GAME, 2, deal=FixedDeal(decks=(full[:-1],), picks=picks))
    assert refused.value.field == "deal.decks[0]"
    with pytest.raises(SetupRefused) as refused:
        Table.create(GAME, 2, deal=FixedDeal(decks=(full,), picks=(0, 0, 7)))
    assert refused.value.field == "deal.picks[2]"
    # A short later deck is taken: a random game with one plays to its end.
    table = Table.create(GAME, 2, seed=b"later", deal=FixedDeal(decks=(full, ("R1", "CLOCK"))))
    rng = random.Random(3)
    while table.results() is None:
        seat = rng.choice(table.pending())
        table.submit(seat, rng.choice(table.legal_commands(seat)))
    shuffles = of_type(table.log, DeckShuffled)
    assert len(shuffles) > 1


def variants(table: Table[Any], viewer: int | None, count: int = 12) -> list[Any]:
    return [table.game.hidden_variant(table.state, viewer, salt) for salt in range(count)]


def all_cards(state: Any) -> Counter[int]:
    """Every card of a state, wherever it is."""
    found: Counter[int] = Counter()
    for hand in state.hands:
        found.update({c: k for c, k in enumerate(hand) if k})
    found.update(state.deck)
    found.update({c: k for c, k in enumerate(state.pile_under) if k})
    found.update([state.top, *state.pair, *(c for c, _ in state.pot)])
    found[CLOCK] += state.clocks
    found[WEREWOLF] += 1 if state.werewolf >= 0 else 0
    return found


def test_mm_28_hidden_variants_change_only_what_the_viewer_cannot_see() -> None:
    """MM-28: the leak test's variants re-deal other hands, the deck, the pot and the cards of
    (g), keeping the viewer's view, the hand sizes and every card of the game."""
    table = new_table(
        ["R5 R6 R7 B5 B6 G7 G8 P10", None, None], start="R11", characters=["C7", "C1", "C2"]
    )
    play(table, (0, play_card("R5")), (0, UseAbility()))  # (g): two cards wait to be shared
    state = table.state
    for viewer in (0, 1, None):
        changed = 0
        for variant in variants(table, viewer):
            assert table.game.view(variant, viewer) == table.game.view(state, viewer)
            assert variant.sizes == state.sizes
            assert [sum(h) for h in variant.hands] == state.sizes
            assert all_cards(variant) == all_cards(state) == Counter(FULL_DECK)
            changed += variant != state
        assert changed
    assert all(v.pair == state.pair for v in variants(table, 0))
    assert any(v.pair != state.pair for v in variants(table, 1))
    # The same two cards the other way round, too: their order is the drawer's secret.
    assert any(v.pair == state.pair[::-1] for v in variants(table, None, 30))


def test_mm_28_hidden_variants_keep_a_called_colour_answerable_and_shown_cards() -> None:
    """MM-28, MM-22 (b): during a call, a seat still to answer keeps a card of the colour; the
    cards shown to the caller stay put for the caller, and move for the others."""
    table = new_table(CALL, start="R11", characters=["C5", "C1", "C2", "C3"])
    play(table, (0, play_card("R9")), (0, CallColour(GREEN)), (2, ShowCard(card("G4"))))
    state = table.state
    for viewer in (0, 1, 3, None):
        for variant in variants(table, viewer):
            assert table.game.view(variant, viewer) == table.game.view(state, viewer)
            assert table.game.legal_commands(variant, 1)  # seat 1 can still answer
            shower, shown = variant.shown[0]
            assert shower == 2 and variant.hands[2][shown] >= 1
            if viewer == 0:
                assert variant.shown == state.shown
    assert any(v.shown != state.shown for v in variants(table, 3, 30))


# --- the engine contract, with this game's situations -------------------------------------------


def test_decide_never_changes_the_state_and_replay_rebuilds_it() -> None:
    """decide() is pure (no mutation, no deep copy needed); apply of the log rebuilds the
    state (randomness is recorded in the events)."""
    table = Table.create(GAME, 4, seed=b"replay")
    rng = random.Random(7)
    while table.results() is None and table.version < 3000:
        seat = rng.choice(table.pending())
        command = rng.choice(table.legal_commands(seat))
        before = table.game.copy_state(table.state)
        table.game.decide(table.state, seat, command)
        assert table.state == before
        table.submit(seat, command)
    assert Table.replay(table.config, table.log).state == table.state


@pytest.mark.parametrize(
    "command",
    [
        PlayCard(Card(CardKind.MAU_MAU, RED, 12)),  # no symbol 12
        PlayCard(Card(CardKind.CLOCK, RED, 0)),  # a clock has no colour
        PlayCard(HIDDEN),
        PlayCard(card("R5"), announce=7),  # type: ignore[arg-type]
        PlayCard(card("R5"), announce=True),  # type: ignore[arg-type]
        PlayCard("R5"),  # type: ignore[arg-type]
        GiveCard("1", card("R5")),  # type: ignore[arg-type]
        ShareDrawn([0, 1]),  # type: ignore[arg-type]
        Wish(9),  # type: ignore[arg-type]
        object(),
    ],
)
def test_malformed_commands_are_refused_naming_a_rule(command: Any) -> None:
    """Library callers can send anything; a malformed command is refused with a rule id."""
    table = new_table(QUIET, start="R11")
    error = rejected(table, 0, command)
    assert error.rule_id.startswith("MM-") and error.kind == "illegal"


def test_read_card_accepts_the_usual_spellings() -> None:
    """The scenario notation helper (runner ``hands:``) reads "R1", "red:S1", "clock"."""
    assert read_card("red:S1") == "R1" and read_card("b11") == "B11"
    with pytest.raises(ValueError):
        read_card("pink:S1")
