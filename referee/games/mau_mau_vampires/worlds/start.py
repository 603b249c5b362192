"""Mau Mau Vampires worlds: the start, a consistent deal of each hand (:func:`start`).

The start is a consistent deal found by a depth-first search over each hand's history
(:func:`_solve`): a card is laid on a token only where a play, a gift or a shown card names
it, a colour call or a pass narrows the cards a held token may be, a choice (which token held
the card played, which item a hidden gift moved, which pot card was which) is a branch, and
the blank tokens left are dealt by a bipartite matching; it cannot miss a deal when one
exists, and the true one does. Forward checks after each choice
(:mod:`referee.games.mau_mau_vampires.worlds.ahead`) fail a partial deal as soon as a later
play can no longer be made. The chain (:mod:`referee.games.mau_mau_vampires.worlds.chain`)
then mixes it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from referee.engine.matching import unmatched
from referee.games.mau_mau_vampires.model import CODES
from referee.games.mau_mau_vampires.worlds.ahead import Ahead, Look, Play
from referee.games.mau_mau_vampires.worlds.partial import Option, Partial
from referee.games.mau_mau_vampires.worlds.walk import (
    COLOUR_CODES,
    EVERY_CARD,
    Item,
    Walk,
    consistent,
    slot_token,
)
from referee.search.worlds import Chance


class _Search:
    """The depth-first search of one hand's deal (:func:`_solve`): the tokens of the hand, the
    partial deal at its root, and each step of the hand's history read into what it lays,
    narrows or branches on."""

    def __init__(
        self, walk: Walk, segment: int, rng: Chance, budget: list[int] | None = None
    ) -> None:
        self.walk, self.rng, self.budget = walk, rng, budget
        self.tokens = [
            t
            for t, g in enumerate(walk.group)
            if walk.segment[g] == segment and t not in walk.retired
        ]
        self.renewed: frozenset[int] = frozenset().union(
            *(places for places, _ in walk.fresh.values())
        )
        self.steps = walk.steps[segment]
        self.root = self._root(segment)
        self.ahead = Ahead(walk, segment)

    def _root(self, segment: int) -> Partial:
        """The deal before any step: each shuffle's copies, the turned specials kept for the
        places of their new order, and the seat's own cards laid on their tokens."""
        walk = self.walk
        root = Partial()
        root.pots = [list(p) for p in walk.pots]
        for g, pool in enumerate(walk.pools):
            if walk.segment[g] == segment:
                counts = [0] * CODES
                for code in pool:
                    counts[code] += 1
                root.left[g] = counts
        for g, (_, turned) in walk.fresh.items():
            if walk.segment[g] == segment:
                root.spare[g] = [turned.get(c, 0) for c in range(CODES)]
        for token in self.tokens:
            if token in walk.pin:
                if not self.room(root, token, walk.pin[token]):
                    raise ValueError("the seat's own cards do not fit the shuffles (a bug)")
                self.lay(root, token, walk.pin[token])
        return root

    # --- the partial deal's cards ---------------------------------------------------------

    def fresh(self, token: int) -> bool:
        """Whether ``token`` is a place of a new order (a turned special may go there)."""
        return token in self.renewed

    def room(self, state: Partial, token: int, code: int) -> bool:
        g = self.walk.group[token]
        spare = state.spare.get(g)
        reserved = 0 if spare is None or self.fresh(token) else spare[code]
        return state.left[g][code] - reserved > 0

    def lay(self, state: Partial, token: int, code: int) -> None:
        g = self.walk.group[token]
        state.code[token] = code
        state.allow.pop(token, None)
        state.left[g][code] -= 1
        spare = state.spare.get(g)
        if spare is not None and self.fresh(token) and spare[code] > 0:
            spare[code] -= 1  # a place of the new order takes a turned card first: no loss

    def possible(self, state: Partial, token: int, within: frozenset[int] | None = None) -> bool:
        allowed = state.allow.get(token, EVERY_CARD)
        if within is not None:
            allowed = allowed & within
        return any(self.room(state, token, c) for c in allowed)

    def blanks(
        self, state: Partial, hand: list[Item], fits: Callable[[int], bool]
    ) -> list[list[int]]:
        """The blank tokens of ``hand`` that ``fits``, by kind (shuffle, new order or not,
        cards allowed): tokens of a kind are alike for what follows."""
        kinds: dict[tuple[int, bool, frozenset[int] | None], list[int]] = {}
        for kind, x in hand:
            if kind == "t" and x not in state.code and fits(x):
                key = (self.walk.group[x], self.fresh(x), state.allow.get(x))
                kinds.setdefault(key, []).append(x)
        return list(kinds.values())

    def look(self, state: Partial, at: int) -> Look:
        return Look(self.ahead, state, at, self.room)

    def feasible(self, state: Partial, at: int, groups: set[int]) -> bool:
        return _feasible(self.walk, self.look(state, at), groups, self.fresh)

    # --- the search -----------------------------------------------------------------------

    def run(self) -> tuple[dict[int, int], dict[int, int]]:
        """Down the steps, each choice's other options kept to come back to, until a deal
        of every blank token is found."""
        # a branch: (step index, the state before it, the option taken there)
        stack: list[tuple[int, Partial, Option]] = []
        state, at, option = self.root, 0, None
        while True:
            failed = False
            if option is not None:  # a branch taken up again
                at, failed = self.branch(state, at, option)
                option = None
            if not failed:
                failed = self.descend(state, at, stack)
            if not failed:
                dealt = _fill(self.walk, state, self.tokens, self.rng, self.fresh)
                if dealt is not None:
                    for share, perm in state.perm.items():
                        self.walk.perm[share] = perm
                    return dealt
            if not stack:
                raise ValueError("no deal of the hand fits what the seat saw (a bug)")
            at, state, option = stack.pop()

    def descend(self, state: Partial, at: int, stack: list[tuple[int, Partial, Option]]) -> bool:
        """Read the steps from ``at`` on, taking each choice's first option and keeping the
        others on ``stack``; whether the deal failed on the way."""
        while at < len(self.steps):
            options, failed = self.read(state, at)
            if failed:
                return True
            if options is None:
                at += 1
                continue
            if not options:
                return True
            ordered = _ordered(options, self.rng)
            for other in ordered[1:]:
                stack.append((at, state.copy(), other))
            at, failed = self.branch(state, at, ordered[0])
            if failed:
                return True
        return False

    def branch(self, state: Partial, at: int, option: Option) -> tuple[int, bool]:
        """Take a branch's option at step ``at``: the step to read next, and whether the
        deal can no longer be completed (:func:`_feasible`, :meth:`Ahead.holds`)."""
        budget, walk, ahead = self.budget, self.walk, self.ahead
        if budget is not None:
            budget[0] -= 1
            if budget[0] < 0:
                raise ValueError("the start's search took more branches than its budget")
        _, seat, thing = self.steps[at]
        at += _take(state, state.hands.setdefault(seat, []), option, thing, self.lay)
        seats = ahead.touched(option, seat, thing)
        groups: set[int] = set()
        if option[0] in ("lay", "narrow") or (option[0] == "item" and option[1][0] == "t"):
            groups.add(walk.group[option[1] if option[0] != "item" else option[1][1]])
        if option[0] == "lay":  # the one shuffle left with copies of the card
            others = [g for g, left in state.left.items() if left[option[2]] > 0]
            groups |= set(others) if len(others) == 1 else set()
        look = self.look(state, at)
        if not _feasible(walk, look, groups, self.fresh):
            return at, True
        if option[0] in ("lay", "narrow"):
            seats = {seat}
            if option[0] == "lay":  # one copy less of the card for whoever plays it
                seats |= ahead.seats_playing(option[2], at)
        seats = ahead.with_givers(look, seats)
        return at, not all(ahead.holds(look, s) for s in seats)

    def read(self, state: Partial, at: int) -> tuple[list[tuple[int, Option]] | None, bool]:
        """Step ``at`` of the hand's history on ``state``: the options of the choice it asks
        for (``None``: none, the step holds as it is), and whether the deal failed there."""
        what, seat, thing = self.steps[at]
        hand = state.hands.setdefault(seat, [])
        if what == "in":
            if thing[0] == "s":
                thing = ("t", slot_token(self.walk, thing[1], state.perm[thing[1] // 2]))
            hand.append(state.links[thing[1]] if thing[0] == "v" else thing)
            return None, False
        if what == "share":  # MM-22 g: which place went to whom
            return self._share(state, at, thing)
        if what == "pot":  # MM-22 h: a deck card set aside into a pot the seat took
            return self._pot(state, thing)
        if what == "out" and thing[0] == "v" and thing[1] not in state.picked:
            return self._unseen(state, thing, hand), False
        if what == "out" or (what == "shown" and thing[0] != "v"):
            return self._played(state, what, thing, hand), False
        if what in ("has", "shown"):
            return self._answered(state, what, thing, hand), False
        return None, self._passed(state, at, seat, thing, hand)

    def _share(
        self, state: Partial, at: int, thing: Item
    ) -> tuple[list[tuple[int, Option]] | None, bool]:
        """MM-22 g: which of a share's places went to whom, and the card the seat saw."""
        share = thing[1] // 2
        if share not in state.perm:
            return [(1, ("perm", share, 0)), (1, ("perm", share, 1))], False
        code = self.walk.shares[share][1][thing[1] % 2]
        token = slot_token(self.walk, thing[1], state.perm[share])
        if code >= 0 and token not in state.code:  # the seat got it and saw it
            if code in state.allow.get(token, EVERY_CARD) and self.room(state, token, code):
                self.lay(state, token, code)
                return None, not self.feasible(state, at, {self.walk.group[token]})
            return None, True
        if code >= 0:
            return None, state.code[token] != code
        return None, False

    def _pot(self, state: Partial, thing: Item) -> tuple[list[tuple[int, Option]] | None, bool]:
        """MM-22 h: a deck card set aside into a pot the seat took is one of its cards."""
        pot = self.walk.potted.get(thing)
        if pot is None:
            return None, False
        cards = state.pots[pot]
        token = thing[1]
        if token in state.code:
            cards[state.code[token]] -= 1
            return None, cards[state.code[token]] < 0
        options: list[tuple[int, Option]] = [
            (n, ("lay", token, c))
            for c, n in enumerate(cards)
            if n > 0 and c in state.allow.get(token, EVERY_CARD) and self.room(state, token, c)
        ]
        return options, False

    def _unseen(self, state: Partial, thing: Item, hand: list[Item]) -> list[tuple[int, Option]]:
        """The card given or set aside unseen (MM-19, MM-22 a/h): an item of the hand, or,
        set aside into a pot the seat took, one of the pot's cards."""
        pot = self.walk.potted.get(thing)
        if pot is None:
            return _kinds(state, hand, _value, self.blanks(state, hand, lambda t: True), self.rng)
        return [(n, ("pick", thing[1], c, pot)) for c, n in enumerate(state.pots[pot]) if n]

    def _played(
        self, state: Partial, what: str, thing: Item, hand: list[Item]
    ) -> list[tuple[int, Option]] | None:
        """MM-8 ... MM-12: a card played, given, set aside or shown was held, so on a blank
        token that may be it when no item of the hand is it yet."""
        code = state.picked[thing[1]] if thing[0] == "v" else thing[1]
        found = [i for i in hand if _value(state, i) == code]
        if not found:
            fits = self.blanks(
                state,
                hand,
                lambda t: code in state.allow.get(t, EVERY_CARD) and self.room(state, t, code),
            )
            return [(len(k), ("lay", self.rng.choice(k), code)) for k in fits]
        if what == "out":
            hand.remove(found[0])
            if thing[0] == "v":
                state.links[thing[1]] = found[0]
        return None

    def _answered(
        self, state: Partial, what: str, thing: Any, hand: list[Item]
    ) -> list[tuple[int, Option]] | None:
        """MM-22 b: an opponent answering a colour call (or showing a card of it) holds a card
        of the colour; when no item of the hand may be one, a blank token held answers it."""
        within = COLOUR_CODES[self.walk.shown_colour[thing[1]]] if what == "shown" else thing
        if any(
            _value(state, i) in within
            or (
                i[0] == "t"
                and i[1] not in state.code
                and state.allow.get(i[1], EVERY_CARD) <= within
            )
            for i in hand
        ):
            if what == "shown":
                state.shows.append((thing[1], within, tuple(hand)))
            return None
        fits = self.blanks(state, hand, lambda t: self.possible(state, t, within))
        return [(len(k), ("narrow", self.rng.choice(k), within)) for k in fits]

    def _passed(
        self, state: Partial, at: int, seat: int, thing: frozenset[int], hand: list[Item]
    ) -> bool:
        """MM-22 b, MM-15 ruling: a seat that held none of ``thing`` (a "none" call, a pass):
        its blank tokens narrowed; whether the deal failed."""
        narrowed = set()
        failed = False
        for kind, x in hand:
            if kind == "c" or x in state.code:
                failed = _value(state, (kind, x)) in thing
            elif thing & state.allow.get(x, EVERY_CARD):
                state.allow[x] = state.allow.get(x, EVERY_CARD) - thing
                narrowed.add(self.walk.group[x])
            if failed:
                break
        failed = failed or not self.feasible(state, at, narrowed)
        return failed or not self.ahead.holds(self.look(state, at + 1), seat)


def _value(state: Partial, item: Item) -> int:
    """The card of ``item``, ``-1`` for a blank token."""
    return state.code.get(item[1], -1) if item[0] == "t" else item[1]


def _solve(
    walk: Walk, segment: int, rng: Chance, budget: list[int] | None = None
) -> tuple[dict[int, int], dict[int, int]]:
    """A consistent deal of one hand (its tokens' cards, its hidden choices' cards), found by
    a depth-first search over the history that never fails when one exists (the true deal
    is one). Blank tokens keep the set of cards they may still be (a colour call answered
    narrows one, a "none" call or a pass narrows all those held); a card is laid on a token
    only where a play, a gift or a shown card names it, and the last blank tokens are dealt
    by a bipartite matching of tokens to the cards left. A choice (which blank token held
    the card played, which item a hidden gift moved, which token answers a call) is a branch,
    tried in a random order; equivalent options (same shuffle, same set of cards allowed)
    are one branch, and a branch is given up as soon as the forward checks fail
    (:class:`Ahead`; ``budget``: the branches left to take, across hands). The start need not
    be uniform: the chain mixes it (:func:`referee.games.mau_mau_vampires.worlds.chain.mix`)."""
    return _Search(walk, segment, rng, budget).run()


def _kinds(
    state: Partial,
    hand: list[Item],
    value: Callable[[Partial, Item], int],
    blanks: list[list[int]],
    rng: Chance,
) -> list[tuple[int, Option]]:
    """A hidden gift's options: the items of ``hand`` up to equivalence (one per card held,
    one per kind of blank token), each weighed by the items it stands for."""
    known: dict[int, list[Item]] = {}
    for item in hand:
        code = value(state, item)
        if code >= 0:
            known.setdefault(code, []).append(item)
    return [
        *((len(items), ("item", items[0])) for items in known.values()),
        *((len(kind), ("item", ("t", rng.choice(kind)))) for kind in blanks),
    ]


def _ordered(options: list[tuple[int, Option]], rng: Chance) -> list[Option]:
    """The options in a random order, each next one drawn in proportion to its weight (so
    the first is as likely as the items it stands for: a start close to the law)."""
    left = list(options)
    order = []
    while left:
        pick = rng.below(sum(w for w, _ in left))
        for i, (w, option) in enumerate(left):
            if pick < w:
                order.append(option)
                del left[i]
                break
            pick -= w
    return order


def _take(
    state: Partial,
    hand: list[Item],
    option: Option,
    thing: Any,
    lay: Callable[[Partial, int, int], None],
) -> int:
    """Do a branch's option at its step; 1 if the step is done, 0 if it is to be read again
    (a card laid or a token narrowed, the step now holds as it is)."""
    if option[0] == "item":  # a hidden gift moved this item
        hand.remove(option[1])
        state.links[thing[1]] = option[1]
        return 1
    if option[0] == "perm":  # a share's places go to its receivers crosswise or not
        state.perm[option[1]] = option[2]
    elif option[0] == "pick":  # the card of a hidden one put in a pot the seat took
        _, x, code, pot = option
        state.picked[x] = code
        state.pots[pot][code] -= 1
    elif option[0] == "lay":
        lay(state, option[1], option[2])
    else:  # "narrow": this blank token answers the call
        state.allow[option[1]] = state.allow.get(option[1], EVERY_CARD) & option[2]
    return 0


def _match(
    walk: Walk,
    state: Partial,
    group: int,
    blank: list[int],
    rng: Chance,
    fresh: Callable[[int], bool],
) -> dict[int, int] | None:
    """Cards left in ``group`` for the ``blank`` tokens, each within the cards it may get
    and a turned special's copy on a place of its new order, by augmenting paths (Kuhn, in
    a random order); ``None`` when there is no such deal."""
    left = state.left[group]
    spare = state.spare.get(group, [0] * CODES)
    caps: dict[tuple[int, bool], int] = {}
    for c in range(CODES):
        if spare[c]:
            caps[(c, True)] = spare[c]
        if left[c] - spare[c]:
            caps[(c, False)] = left[c] - spare[c]
    taken: dict[tuple[int, bool], list[int]] = {kind: [] for kind in caps}

    def place(token: int, tried: set[tuple[int, bool]]) -> bool:
        allowed = state.allow.get(token, EVERY_CARD)
        kinds = [k for k in caps if k[0] in allowed and (fresh(token) or not k[1])]
        for kind in rng.shuffled(kinds):
            if kind in tried:
                continue
            tried.add(kind)
            if len(taken[kind]) < caps[kind]:
                taken[kind].append(token)
                return True
            for other in list(taken[kind]):
                if place(other, tried):
                    taken[kind].remove(other)
                    taken[kind].append(token)
                    return True
        return False

    for token in rng.shuffled(blank):
        if not place(token, set()):
            return None
    return {token: c for (c, _), placed in taken.items() for token in placed}


def _serve(
    state: Partial, group: int, narrowed: list[int], fresh: Callable[[int], bool], plays: list[Play]
) -> bool:
    """Whether ``group``'s copies left can go to its ``narrowed`` tokens, each within the
    cards it may get, and to the ``plays`` only its blank tokens can serve, each a copy of
    its card, at once: one bipartite matching. A play has a place of its own too, which a
    narrowed token among those that may serve it takes to stand for the play's copy (the
    token is then the one played). A relaxation (the true deal is such a matching): a play's
    copy is on a place of the new order only if one of its tokens is, no more."""
    left = state.left[group]
    spare = state.spare.get(group, [0] * CODES)
    copies: dict[tuple[int, bool], range] = {}  # (card, turned special) -> its places
    places = 0
    for c in range(CODES):
        for kind, count in (((c, True), spare[c]), ((c, False), left[c] - spare[c])):
            if count:
                copies[kind] = range(places, places + count)
                places += count
    options: list[list[int]] = []
    serves: dict[int, list[int]] = {}  # narrowed token -> the places of the plays it may be
    for _, code, tokens in plays:
        turned = copies.get((code, True), ()) if not tokens or any(map(fresh, tokens)) else ()
        options.append([*copies.get((code, False), ()), *turned])
        for token in tokens:
            if code in state.allow.get(token, ()):
                serves.setdefault(token, []).append(places)
        places += 1
    for token in narrowed:
        allowed = state.allow[token]
        row = [
            p
            for (c, t), run in copies.items()
            if c in allowed and (fresh(token) or not t)
            for p in run
        ]
        options.append(row + serves.get(token, []))
    # The rows with the fewest places first: a dead end is found sooner.
    order = sorted(range(len(options)), key=lambda row: len(options[row]))
    return next(unmatched(options, order), None) is None


def _feasible(walk: Walk, look: Look, groups: set[int], fresh: Callable[[int], bool]) -> bool:
    """Whether the blank tokens narrowed so far in ``groups`` can still all get a card, with
    a copy for each play from the look's step on that only the group's cards can serve:
    those only its blank tokens can (:meth:`Ahead.forced`) and those no narrowed token and
    no other group can (:meth:`Ahead.reserved`), in one matching (:func:`_serve`). A check
    after each card laid, token narrowed or item given, so a search fails where it went
    wrong, not many choices later."""
    if not groups:
        return True
    ahead, state = look.ahead, look.state
    narrowed: dict[int, list[int]] = {g: [] for g in groups}
    for token in state.allow:
        if walk.group[token] in narrowed:
            narrowed[walk.group[token]].append(token)
    forced = ahead.forced(look, groups)
    for g, tokens in narrowed.items():
        plays = {play[0]: play for play in ahead.reserved(state, g, tokens, look.at)}
        plays.update((play[0], play) for play in forced[g])
        if not _serve(state, g, tokens, fresh, list(plays.values())):
            return False
    return True


def _fill(
    walk: Walk, state: Partial, tokens: list[int], rng: Chance, fresh: Callable[[int], bool]
) -> tuple[dict[int, int], dict[int, int]] | None:
    """The hand's blank tokens dealt the cards left (:func:`_match`); then the hidden choices
    read off the items they moved. ``None`` when no such deal exists."""
    code = dict(state.code)
    by_group: dict[int, list[int]] = {}
    for token in tokens:
        if token not in code:
            by_group.setdefault(walk.group[token], []).append(token)
    for g, blank in by_group.items():
        if sum(state.left[g]) != len(blank):
            raise ValueError("a shuffle's tokens and cards differ (a bug)")
        found = _match(walk, state, g, blank, rng, fresh)
        if found is None:
            return None
        code.update(found)
    chosen = dict(state.picked)
    for x, (kind, y) in state.links.items():
        chosen[x] = code[y] if kind == "t" else y
    for x, within, hand in state.shows:
        codes = [c for c in (code[y] if k == "t" else y for k, y in hand) if c in within]
        if not codes:
            return None
        chosen[x] = rng.choice(codes)
    return {t: code[t] for t in tokens}, chosen


def start(walk: Walk, rng: Chance, budget: int | None = None) -> tuple[dict[int, int], list[int]]:
    """A consistent deal and hidden choices, hand by hand (:func:`_solve`); with a
    ``budget``, :class:`ValueError` once the search has taken more branches than that."""
    left = None if budget is None else [budget]
    deal: dict[int, int] = {}
    chosen = [-1] * len(walk.choices)
    for segment in range(len(walk.steps)):
        cards, picks = _solve(walk, segment, rng, left)
        deal.update(cards)
        for x, code in picks.items():
            chosen[x] = code
        if not consistent(walk, segment, deal, chosen):
            raise ValueError(f"hand {segment + 1}: the deal found breaks its history (a bug)")
    if min(chosen, default=0) < 0:
        raise ValueError("a hidden card was never given a value (a bug)")
    return deal, chosen
