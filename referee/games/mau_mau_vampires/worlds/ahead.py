"""Mau Mau Vampires worlds: the start's forward checks (:class:`Ahead`), so that its search
fails at the choice that went wrong, not many choices later.

The start (:mod:`referee.games.mau_mau_vampires.worlds.start`) lays a card played on a token
the player held; which token is a choice, and a poor one shows only much later: the only
token of a shuffle that could hold a card the seat plays later spent on an earlier play, a
card shown in answer to a call laid on another token than the one the answer narrowed, whose
colour then runs out under the other seats' plays, or a hidden gift that had to carry the
card its taker plays next. Chronological backtracking then tries every choice in between
again first (minutes, in a few positions of six seats). Two checks see it at once:

* **each seat's own plays** (:meth:`Ahead.holds`): each card a seat will play (MM-8 ...
  MM-12; a known card given or set aside too) needs an item of its own, held from before the
  play, that may be that card, and held through no pass or "none" call ruling the card out
  in between (MM-15 ruling, MM-22 b); a bipartite matching of the plays to the items says
  whether that can still be. A hidden gift not chosen yet takes an item of the giver's too,
  one that may be a card the taker's own matching leaves it to carry, along chains of gifts
  (:meth:`Ahead._gifts`, :meth:`Ahead._needs`, MM-19);
* **a shuffle's copies for all who need them** (:meth:`Ahead.forced`,
  :meth:`Ahead.reserved`): the plays that only one shuffle's blank tokens can serve, and
  those that only its copies and no narrowed token can, each take a copy of their card in
  one matching with the narrowed tokens
  (:func:`referee.games.mau_mau_vampires.worlds.start._serve`), where a narrowed token
  that may serve a play stands for the play's copy.

Each seat's items and plays are read once per branch for all the checks (:class:`Look`).
All are relaxations (an item that comes in unseen may be any item its giver could hold
then, through the gifts it took in before; a call's answer and a card shown are not
counted), so none rejects a partial deal that has a completion: the search stays complete
(any deal it could find, it still can) and only fails sooner. The law of the sampled
worlds is the chain's (:mod:`referee.games.mau_mau_vampires.worlds.chain`), which the start
only begins.
"""

from __future__ import annotations

from bisect import bisect_left

from referee.engine.matching import owners, unmatched
from referee.games.mau_mau_vampires.worlds.partial import Option, Partial, Room
from referee.games.mau_mau_vampires.worlds.walk import EVERY_CARD, Item, Walk, slot_token

#: a play a shuffle's blank tokens must serve: (step, card, the tokens that may serve it)
Play = tuple[int, int, tuple[int, ...]]
#: an item a seat holds: (the step it comes in at, -1 if held now; the items it may be)
Held = tuple[int, tuple[Item | None, ...]]
#: a play of a seat's: (step, card, the last step ruling the card out of its hand, or -1)
Ruled = tuple[int, int, int]
#: what an item may be: the cards of the candidates not blank tokens, each blank token's
Kind = tuple[frozenset[int], tuple[tuple[int, frozenset[int]], ...]]
#: a seat seen by a :class:`Look`: its items, its plays, the items each play may take, what
#: each item may be
Seen = tuple[list[Held], list[Ruled], list[list[int]], list[Kind]]
#: blank tokens alike for the cards they may be: (shuffle, cards allowed, a new order's place)
Alike = tuple[int, frozenset[int], bool]


class Ahead:
    """One hand's steps by seat, read once, for :meth:`holds` and :meth:`reserved`."""

    def __init__(self, walk: Walk, segment: int) -> None:
        self.walk = walk
        self.steps = walk.steps[segment]
        self.at: dict[int, list[int]] = {}  # seat -> the indexes of its steps
        #: card -> (step, seat) of each play of it (a card laid elsewhere is one less copy
        #: for them)
        self.players: dict[int, list[tuple[int, int]]] = {}
        #: ("v", hidden choice) or ("s", share) -> the seats that take it in
        self.takers: dict[Item, set[int]] = {}
        #: group -> the first step that names one of its tokens (a shuffle's cards can serve
        #: no play before it)
        self.first: dict[int, int] = {}
        #: the places of the specials' new orders (MM-6): room on them counts turned copies
        self.renewed = frozenset().union(*(places for places, _ in walk.fresh.values()))
        self.giver: dict[int, int] = {}  # hidden choice -> the seat it left (MM-19, MM-22 a)
        self.given: dict[int, int] = {}  # hidden choice -> the step it left at
        self.gives: dict[int, list[int]] = {}  # seat -> the hidden choices it gives
        #: hidden choice -> (seat, step) of each taking it in
        self.taken: dict[int, list[tuple[int, int]]] = {}
        self.takes: dict[int, list[int]] = {}  # seat -> the hidden choices it takes in
        #: seat -> (step, card) of each card it plays, -1 for a hidden one (:meth:`forced`)
        self.outs: dict[int, list[tuple[int, int]]] = {}
        for index, (what, seat, thing) in enumerate(self.steps):
            if isinstance(thing, tuple) and thing[0] in ("t", "s"):
                kind, x = thing
                for token in [x] if kind == "t" else walk.shares[x // 2][0]:
                    self.first.setdefault(walk.group[token], index)
            if seat < 0:
                continue
            self.at.setdefault(seat, []).append(index)
            if what == "out":
                self.outs.setdefault(seat, []).append((index, thing[1] if thing[0] == "c" else -1))
            if what == "out" and thing[0] == "c":
                self.players.setdefault(thing[1], []).append((index, seat))
            elif what == "out" and thing[0] == "v":
                self.giver[thing[1]] = seat
                self.given[thing[1]] = index
                self.gives.setdefault(seat, []).append(thing[1])
            elif what == "in" and thing[0] in ("v", "s"):
                if thing[0] == "v":
                    self.taken.setdefault(thing[1], []).append((seat, index))
                    self.takes.setdefault(seat, []).append(thing[1])
                key = ("v", thing[1]) if thing[0] == "v" else ("s", thing[1] // 2)
                self.takers.setdefault(key, set()).add(seat)

    def seats_playing(self, code: int, at: int) -> set[int]:
        """The seats that play ``code`` from step ``at`` on."""
        return {seat for index, seat in self.players.get(code, ()) if index >= at}

    def touched(self, option: Option, seat: int, thing: Item | frozenset[int]) -> set[int]:
        """The seats whose plays a choice other than a card laid or a token narrowed may
        change (:meth:`holds`): a hidden gift's giver and taker, a share's takers, the seat
        whose card set aside into a pot is now known."""
        if option[0] == "item":
            assert isinstance(thing, tuple)  # an item's step holds an item
            return {seat, *self.takers.get(("v", thing[1]), ())}
        if option[0] == "perm":
            return set(self.takers.get(("s", option[1]), ()))
        return {seat}

    def with_givers(self, look: Look, seats: set[int]) -> set[int]:
        """``seats`` and the givers of the hidden gifts they take in from step ``at`` on, not
        chosen yet, and theirs in turn: a giver's gift may have to carry a card the taker
        plays (:meth:`_gifts`), so what changes the taker's plays changes the giver's."""
        links, at = look.state.links, look.at
        found = set(seats)
        todo = list(seats)
        while todo:
            seat = todo.pop()
            for choice in self.takes.get(seat, ()):
                giver = self.giver.get(choice)
                if (
                    giver is not None
                    and giver not in found
                    and choice not in links
                    and self.given[choice] >= at
                ):
                    found.add(giver)
                    todo.append(giver)
        return found

    def holds(self, look: Look, seat: int) -> bool:
        """Whether every play of ``seat`` from the look's step on can still get an item of its
        own (the relaxation of the module's docstring)."""
        items, _, fits, kinds = look.seat(seat)
        options = [*fits, *self._gifts(look, seat, items, kinds)]
        if not options:
            return True
        if not all(options):
            return False
        # The rows with the fewest items first: a dead end is found sooner.
        return _saturated(options)

    def _gifts(
        self, look: Look, seat: int, items: list[Held], kinds: list[Kind]
    ) -> list[list[int]]:
        """For each hidden gift ``seat`` makes from step ``at`` on, not chosen yet, the items
        (by number) it may move (:meth:`_row`). The gift takes an item of the giver's that
        no play of the giver's can then take (MM-19, MM-22 a)."""
        rows: list[list[int]] = []
        for choice in self.gives.get(seat, ()):
            if self._open(look, choice):
                row = self._row(look, choice)
                if not row:
                    return [[]]
                rows.append(row)
        return rows

    def _open(self, look: Look, choice: int) -> bool:
        """Whether a hidden gift is from the look's step on and not chosen yet (a card set
        aside into a pot the seat took has its play row instead)."""
        state = look.state
        return (
            self.given[choice] >= look.at
            and choice not in state.links
            and choice not in state.picked
        )

    def _row(self, look: Look, choice: int) -> list[int]:
        """The items (by number) of the giver's that a hidden gift not chosen yet may move:
        held before it, and that may be one of the cards it may carry (:meth:`_needs`)."""
        if choice not in look.rows:
            needed = self._needs(look, choice)
            items, _, _, kinds = look.seat(self.giver[choice])
            given = self.given[choice]
            look.rows[choice] = [
                number
                for number, (entry, _) in enumerate(items)
                if entry < given
                and (
                    needed is None
                    or not needed.isdisjoint(kinds[number][0])
                    or any(not needed.isdisjoint(cards) for _, cards in kinds[number][1])
                )
            ]
        return look.rows[choice]

    def _needs(self, look: Look, choice: int) -> frozenset[int] | None:
        """The cards a hidden gift not chosen yet may carry (None: any), from what its taker
        does with it: where the taker's plays and later gifts can each get an item of their
        own only if one of them takes this one (a matching, as :meth:`holds`), the item is
        the card of a play, or one a gift may carry, that can take it in such a matching.
        So a chain of gifts is followed (MM-19: seat A gives to B, B gives back to A, who
        plays it). Only the taker's gifts after this one's are rows: each is later, so the
        chain ends, and leaving rows out is a relaxation."""
        if choice in look.needs:
            return look.needs[choice]
        needed: frozenset[int] | None = None
        for taker, entry in self.taken.get(choice, ()):
            their, plays, fits, _ = look.seat(taker)
            number = next(n for n, (step, _) in enumerate(their) if step == entry)
            rows: list[list[int]] = list(fits)
            cards: list[frozenset[int] | None] = [frozenset((code,)) for _, code, _ in plays]
            for later in self.gives.get(taker, ()):
                if self.given[later] > entry and self._open(look, later):
                    rows.append(self._row(look, later))
                    cards.append(self._needs(look, later))
            found = _carried(rows, cards, number)
            if found is not None:
                needed = found if needed is None else needed & found
        look.needs[choice] = needed
        return needed

    def forced(self, look: Look, groups: set[int]) -> dict[int, list[Play]]:
        """For each of ``groups``, the plays from step ``at`` on that only its blank tokens can
        serve: every item the player may play the card from (:meth:`holds`'s relaxation) is
        such a token. Each play takes one of the group's copies of its card, on one of them."""
        group_of = self.walk.group
        found: dict[int, list[Play]] = {g: [] for g in groups}
        left = [look.state.left[g] for g in groups]
        for seat, outs in self.outs.items():
            # Only a card with copies left in the group can be its blank tokens' (:meth:`_kind`),
            # so a seat with no such play left needs no look (a hidden card may be any).
            if not any(
                code < 0 or any(copies[code] > 0 for copies in left)
                for index, code in outs
                if index >= look.at
            ):
                continue
            _, plays, options, kinds = look.seat(seat)
            for (when, code, _), fits in zip(plays, options, strict=True):
                tokens: set[int] = set()
                group = -1
                for number in fits:
                    other, blank = kinds[number]
                    if code in other:
                        break  # an item not a blank token may be the card
                    for token, cards in blank:
                        if code in cards:
                            if group >= 0 and group != group_of[token]:
                                break
                            group = group_of[token]
                            tokens.add(token)
                    else:
                        continue
                    break  # blank tokens of two groups may serve it
                else:
                    if group in found:
                        found[group].append((when, code, tuple(sorted(tokens))))
        return found

    def seen(self, look: Look, seat: int) -> Seen:
        """``seat`` from the look's step on (:meth:`Look.seat`, which keeps it): its items,
        its plays, the items each play may take and what each item may be."""
        items, plays = self._history(look, seat)
        kinds = [self._kind(look.state, m, look.room, look.alike) for _, m in items]
        return items, plays, self._fits(look.state, items, plays, kinds), kinds

    def _history(self, look: Look, seat: int) -> tuple[list[Held], list[Ruled]]:
        """``seat``'s items from the look's step on, each (the step it comes in at, -1 if
        held now; the items it may be, :meth:`_maybe`), and its plays, (step, card, the last
        step ruling the card out)."""
        state, at = look.state, look.at
        indexes = self.at.get(seat)
        if not indexes:
            return [], []
        steps = self.steps
        items: list[Held] = [(-1, (item,)) for item in state.hands.get(seat, ())]
        plays: list[Ruled] = []
        nones: list[tuple[int, frozenset[int]]] = []
        for index in indexes[bisect_left(indexes, at) :]:
            what, _, thing = steps[index]
            if what == "in":
                items.append((index, self._maybe(look, thing)))
            elif what == "out":
                kind, x = thing
                code = x if kind == "c" else state.picked.get(x, -1) if kind == "v" else -1
                if code >= 0:
                    since = max((q for q, cards in nones if code in cards), default=-1)
                    plays.append((index, code, since))
            elif what == "none":
                nones.append((index, thing))
        return items, plays

    def _maybe(self, look: Look, thing: Item) -> tuple[Item | None, ...]:
        """The items a step from the look's step on may bring in: the one it brings, where
        known; either place of a share not dealt yet; for a hidden gift not chosen yet, an
        item the giver may hold by then, following a chain of such gifts back (None: any
        item, where that is not known either)."""
        state = look.state
        item = self._coming(state, thing)
        if item is not None:
            return (item,)
        kind, x = thing
        if kind == "s":
            return tuple(("t", token) for token in self.walk.shares[x // 2][0])
        giver = self.giver.get(x)
        if giver is None:
            return (None,)
        if x not in look.maybe:
            given = self.given[x]
            held: dict[Item | None, None] = dict.fromkeys(state.hands.get(giver, ()))
            steps, at = self.at[giver], look.at
            for index in steps[bisect_left(steps, at) :]:
                if index >= given:
                    break
                what, _, other = self.steps[index]
                if what == "in":  # an earlier step, so the chain ends
                    held.update(dict.fromkeys(self._maybe(look, other)))
            look.maybe[x] = tuple(held)
        return look.maybe[x]

    def _fits(
        self, state: Partial, items: list[Held], plays: list[Ruled], kinds: list[Kind]
    ) -> list[list[int]]:
        """For each play, the items (by number) it may be played from: held before it and
        through no "none" call or pass ruling its card out, and that may be its card
        (``kinds``: :meth:`_kind` of each item)."""
        cards = [other.union(*[c for _, c in blank]) if blank else other for other, blank in kinds]
        entries = [entry for entry, _ in items]  # in order: held now, then by step
        fits = []
        for when, code, since in plays:
            low = bisect_left(entries, since)
            fits.append(
                [n for n in range(low, bisect_left(entries, when, low)) if code in cards[n]]
            )
        return fits

    def _kind(
        self,
        state: Partial,
        maybe: tuple[Item | None, ...],
        room: Room,
        alike: dict[Alike, frozenset[int]],
    ) -> Kind:
        """The cards an item that is one of ``maybe`` may still be: those of its candidates
        not a blank token (all, for one not known), and each blank token's (``alike``: the
        sets found so far, by what decides them)."""
        other: set[int] = set()
        blank: list[tuple[int, frozenset[int]]] = []
        for item in maybe:
            if item is None:
                return EVERY_CARD, ()
            kind, x = item
            if kind == "c":
                other.add(x)
            elif x in state.code:
                other.add(state.code[x])
            else:
                g = self.walk.group[x]
                allowed = state.allow.get(x, EVERY_CARD)
                key = (g, allowed, x in self.renewed)  # room differs on a new order's place
                if key not in alike:
                    left = state.left[g]
                    alike[key] = frozenset(
                        c
                        for c in allowed
                        if ((left[c] > 0) if g not in state.spare else room(state, x, c))
                    )
                blank.append((x, alike[key]))
        return frozenset(other), tuple(blank)

    def reserved(self, state: Partial, group: int, narrowed: list[int], at: int) -> list[Play]:
        """The plays from step ``at`` on that must take a copy of ``group``'s that none of its
        ``narrowed`` tokens may have: the card is left in no other group out before the play,
        and its player can hold neither a known copy of it nor a narrowed token that may be it
        before the play (held now or coming in, an item coming in unseen being any item its
        giver could hold then). The place the play takes it from is then a blank token not
        narrowed: one copy each to keep back (no token named)."""
        left = state.left
        elsewhere = [g for g in left if g != group]
        codes = state.code
        allow = state.allow
        pool = set(narrowed)
        held: dict[int, set[int]] = {}  # seat -> the narrowed tokens it may hold by now
        known: dict[int, set[int]] = {}  # seat -> the cards of known value it may hold

        def take(seat: int, item: Item) -> None:
            kind, x = item
            if kind == "c" or x in codes:
                known.setdefault(seat, set()).add(x if kind == "c" else codes[x])
            elif x in pool:
                held.setdefault(seat, set()).add(x)

        for seat, hand in state.hands.items():
            for item in hand:
                take(seat, item)
        cards: list[Play] = []
        steps = self.steps
        for index in range(at, len(steps)):
            what, seat, thing = steps[index]
            if what == "in":
                coming = self._coming(state, thing)
                if coming is not None:
                    take(seat, coming)
                elif thing[0] == "s":  # either place of the share
                    for token in self.walk.shares[thing[1] // 2][0]:
                        take(seat, ("t", token))
                else:  # a hidden gift or set-aside: whatever its giver may hold
                    giver = self.giver.get(thing[1])
                    held.setdefault(seat, set()).update(
                        pool if giver is None else held.get(giver, ())
                    )
                    known.setdefault(seat, set()).update(
                        EVERY_CARD if giver is None else known.get(giver, ())
                    )
            elif what == "out" and thing[0] == "c":
                code = thing[1]
                if (
                    left[group][code] > 0
                    and code not in known.get(seat, ())
                    and not any(
                        left[g][code] > 0 and self.first.get(g, 0) < index for g in elsewhere
                    )
                    and not any(code in allow[t] for t in held.get(seat, ()))
                ):
                    cards.append((index, code, ()))
        return cards

    def _coming(self, state: Partial, thing: Item) -> Item | None:
        """The item a step brings in, or None where a choice not made yet decides it."""
        kind, x = thing
        if kind == "v":
            return state.links.get(x)
        if kind == "s":
            perm = state.perm.get(x // 2)
            return None if perm is None else ("t", slot_token(self.walk, x, perm))
        return thing


def _saturated(options: list[list[int]]) -> bool:
    """Whether every row of ``options`` gets an item of its own (the fewest items first)."""
    order = sorted(range(len(options)), key=lambda row: len(options[row]))
    return next(unmatched(options, order), None) is None


def _carried(
    rows: list[list[int]], cards: list[frozenset[int] | None], item: int
) -> frozenset[int] | None:
    """The cards ``item`` may be, where each of ``rows`` (of the cards ``cards``, None: any)
    needs an item of its own: None if the rows can do without it; else the cards of the
    rows that can take it with the others served (none: the rows cannot all be served).
    One matching, then the items the row holding ``item`` reaches by alternating paths
    without it: a free one means the rows can do without it; a row can take it in some
    matching exactly when the item it holds is reached (the path shifts to free it)."""
    owner = owners(rows, sorted(range(len(rows)), key=lambda row: len(rows[row])))
    if owner is None:
        return frozenset()
    first = owner.get(item)
    if first is None:
        return None
    reached: set[int] = {item}
    todo = [first]
    while todo:
        for other in rows[todo.pop()]:
            if other not in reached:
                if other not in owner:
                    return None  # the holder can move to a free item
                reached.add(other)
                todo.append(owner[other])
    found: set[int] = set()
    for row in {first, *(owner[other] for other in reached if other != item)}:
        if item in rows[row]:
            these = cards[row]
            if these is None:
                return None
            found |= these
    return frozenset(found)


class Look:
    """One partial deal seen from step ``at`` on: each seat's items, plays, the items each
    play may take and what each item may be (:meth:`Ahead.seen`), read once for all the
    checks of one branch
    (:func:`referee.games.mau_mau_vampires.worlds.start._feasible`, :meth:`Ahead.holds`),
    which ask for the same seats."""

    __slots__ = ("ahead", "alike", "at", "maybe", "needs", "room", "rows", "seats", "state")

    def __init__(self, ahead: Ahead, state: Partial, at: int, room: Room) -> None:
        self.ahead = ahead
        self.state = state
        self.at = at
        self.room = room
        self.seats: dict[int, Seen] = {}
        #: the cards blank tokens alike may be (:meth:`Ahead._kind`), for every seat
        self.alike: dict[Alike, frozenset[int]] = {}
        #: hidden choice not made yet -> the items it may move (:meth:`Ahead._maybe`)
        self.maybe: dict[int, tuple[Item | None, ...]] = {}
        #: hidden gift not chosen yet -> its giver's items it may move (:meth:`Ahead._row`)
        self.rows: dict[int, list[int]] = {}
        #: hidden gift not chosen yet -> the cards it may carry (:meth:`Ahead._needs`)
        self.needs: dict[int, frozenset[int] | None] = {}

    def seat(self, seat: int) -> Seen:
        """``seat``'s items and plays from the step on, the items each play may take and
        what each item may be."""
        if seat not in self.seats:
            self.seats[seat] = self.ahead.seen(self, seat)
        return self.seats[seat]
