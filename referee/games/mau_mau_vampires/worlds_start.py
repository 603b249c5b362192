"""Mau Mau Vampires worlds: the start, a consistent deal of each hand (:func:`start`).

The start is a consistent deal found by a depth-first search over each hand's history
(:func:`_solve`): a card is laid on a token only where a play, a gift or a shown card names
it, a colour call or a pass narrows the cards a held token may be, a choice (which token held
the card played, which item a hidden gift moved, which pot card was which) is a branch, and
the blank tokens left are dealt by a bipartite matching; it cannot miss a deal when one
exists, and the true one does. Forward checks after each choice
(:mod:`referee.games.mau_mau_vampires.worlds_ahead`) fail a partial deal as soon as a later
play can no longer be made. The chain (:mod:`referee.games.mau_mau_vampires.worlds_chain`)
then mixes it.
"""

from __future__ import annotations

from typing import Any

from referee.engine.matching import unmatched
from referee.games.mau_mau_vampires.model import CODES
from referee.games.mau_mau_vampires.worlds_ahead import Ahead, Look, Play
from referee.games.mau_mau_vampires.worlds_walk import (
    COLOUR_CODES,
    EVERY_CARD,
    Item,
    Walk,
    consistent,
    slot_token,
)
from referee.search.worlds import Chance


class _Partial:
    """A hand's deal while :func:`_solve` builds it: the cards laid on tokens so far, the
    cards each blank token may still get, the cards of each shuffle not laid yet, what each
    other seat holds and which item each hidden gift moved."""

    __slots__ = (
        "allow",
        "code",
        "hands",
        "left",
        "links",
        "perm",
        "picked",
        "pots",
        "shows",
        "spare",
    )

    def __init__(self) -> None:
        self.code: dict[int, int] = {}  # token -> its card
        self.allow: dict[int, frozenset[int]] = {}  # blank token -> the cards it may get
        self.left: dict[int, list[int]] = {}  # group -> copies of each card not laid
        #: group -> copies of each turned special not laid on a place of its new order yet
        self.spare: dict[int, list[int]] = {}
        self.hands: dict[int, list[Item]] = {}  # seat -> its items ("t" or "c")
        self.links: dict[int, Item] = {}  # hidden choice -> the item it moved
        self.shows: list[tuple[int, frozenset[int], tuple[Item, ...]]] = []
        self.pots: list[list[int]] = []  # each pot the seat took: its cards not placed yet
        self.picked: dict[int, int] = {}  # hidden choice put in such a pot -> its card
        self.perm: dict[int, int] = {}  # share -> crosswise or not (:meth:`Walk._share`)

    def copy(self) -> _Partial:
        other = _Partial()
        other.code = dict(self.code)
        other.allow = dict(self.allow)
        other.left = {g: list(c) for g, c in self.left.items()}
        other.spare = {g: list(c) for g, c in self.spare.items()}
        other.hands = {s: list(h) for s, h in self.hands.items()}
        other.links = dict(self.links)
        other.shows = list(self.shows)
        other.pots = [list(p) for p in self.pots]
        other.picked = dict(self.picked)
        other.perm = dict(self.perm)
        return other


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
    be uniform: the chain mixes it (:func:`referee.games.mau_mau_vampires.worlds_chain.mix`)."""
    tokens = [
        t for t, g in enumerate(walk.group) if walk.segment[g] == segment and t not in walk.retired
    ]
    root = _Partial()
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

    renewed = frozenset().union(*(places for places, _ in walk.fresh.values()))

    def fresh(token: int) -> bool:
        return token in renewed

    def room(state: _Partial, token: int, code: int) -> bool:
        g = walk.group[token]
        spare = state.spare.get(g)
        reserved = 0 if spare is None or fresh(token) else spare[code]
        return state.left[g][code] - reserved > 0

    def lay(state: _Partial, token: int, code: int) -> None:
        g = walk.group[token]
        state.code[token] = code
        state.allow.pop(token, None)
        state.left[g][code] -= 1
        spare = state.spare.get(g)
        if spare is not None and fresh(token) and spare[code] > 0:
            spare[code] -= 1  # a place of the new order takes a turned card first: no loss

    def possible(state: _Partial, token: int, within: frozenset[int] | None = None) -> bool:
        allowed = state.allow.get(token, EVERY_CARD)
        if within is not None:
            allowed = allowed & within
        return any(room(state, token, c) for c in allowed)

    def value(state: _Partial, item: Item) -> int:
        return state.code.get(item[1], -1) if item[0] == "t" else item[1]

    def blanks(state: _Partial, hand: list[Item], fits: Any) -> list[list[int]]:
        """The blank tokens of ``hand`` that ``fits``, by kind (shuffle, new order or not,
        cards allowed): tokens of a kind are alike for what follows."""
        kinds: dict[Any, list[int]] = {}
        for kind, x in hand:
            if kind == "t" and x not in state.code and fits(x):
                kinds.setdefault((walk.group[x], fresh(x), state.allow.get(x)), []).append(x)
        return list(kinds.values())

    for token in tokens:
        if token in walk.pin:
            if not room(root, token, walk.pin[token]):
                raise ValueError("the seat's own cards do not fit the shuffles (a bug)")
            lay(root, token, walk.pin[token])
    steps = walk.steps[segment]
    ahead = Ahead(walk, segment)

    def branch(state: _Partial, at: int, option: Any) -> tuple[int, bool]:
        """Take a branch's option at step ``at``: the step to read next, and whether the
        deal can no longer be completed (:func:`_feasible`, :meth:`Ahead.holds`)."""
        if budget is not None:
            budget[0] -= 1
            if budget[0] < 0:
                raise ValueError("the start's search took more branches than its budget")
        _, seat, thing = steps[at]
        at += _take(state, state.hands.setdefault(seat, []), option, thing, lay)
        seats = ahead.touched(option, seat, thing)
        groups: set[int] = set()
        if option[0] in ("lay", "narrow") or (option[0] == "item" and option[1][0] == "t"):
            groups.add(walk.group[option[1] if option[0] != "item" else option[1][1]])
        if option[0] == "lay":  # the one shuffle left with copies of the card
            others = [g for g, left in state.left.items() if left[option[2]] > 0]
            groups |= set(others) if len(others) == 1 else set()
        look = Look(ahead, state, at, room)
        if not _feasible(walk, look, groups, fresh):
            return at, True
        if option[0] in ("lay", "narrow"):
            seats = {seat}
            if option[0] == "lay":  # one copy less of the card for whoever plays it
                seats |= ahead.seats_playing(option[2], at)
        seats = ahead.with_givers(look, seats)
        return at, not all(ahead.holds(look, s) for s in seats)

    # a branch: (step index, the state before it, the option taken there)
    stack: list[tuple[int, _Partial, Any]] = []
    state, at, option = root, 0, None
    while True:
        failed = False
        if option is not None:  # a branch taken up again
            at, failed = branch(state, at, option)
            option = None
        while at < len(steps) and not failed:
            what, seat, thing = steps[at]
            hand = state.hands.setdefault(seat, [])
            options: list[Any] | None = None
            if what == "in":
                if thing[0] == "s":
                    thing = ("t", slot_token(walk, thing[1], state.perm[thing[1] // 2]))
                hand.append(state.links[thing[1]] if thing[0] == "v" else thing)
            elif what == "share":  # MM-22 g: which place went to whom
                share = thing[1] // 2
                if share not in state.perm:
                    options = [(1, ("perm", share, 0)), (1, ("perm", share, 1))]
                else:
                    code = walk.shares[share][1][thing[1] % 2]
                    token = slot_token(walk, thing[1], state.perm[share])
                    if code >= 0 and token not in state.code:  # the seat got it and saw it
                        if code in state.allow.get(token, EVERY_CARD) and room(state, token, code):
                            lay(state, token, code)
                            look = Look(ahead, state, at, room)
                            failed = not _feasible(walk, look, {walk.group[token]}, fresh)
                        else:
                            failed = True
                    elif code >= 0:
                        failed = state.code[token] != code
            elif what == "pot":  # MM-22 h: a deck card set aside into a pot the seat took
                pot = walk.potted.get(thing)
                if pot is not None:
                    cards = state.pots[pot]
                    token = thing[1]
                    if token in state.code:
                        cards[state.code[token]] -= 1
                        failed = cards[state.code[token]] < 0
                    else:
                        options = [
                            (n, ("lay", token, c))
                            for c, n in enumerate(cards)
                            if n > 0
                            and c in state.allow.get(token, EVERY_CARD)
                            and room(state, token, c)
                        ]
            elif what == "out" and thing[0] == "v" and thing[1] not in state.picked:
                pot = walk.potted.get(thing)
                if pot is None:  # MM-19, MM-22 a/h: the card given or set aside unseen
                    options = _kinds(state, hand, value, blanks(state, hand, lambda t: True), rng)
                else:  # set aside into a pot the seat took: one of its cards
                    options = [
                        (n, ("pick", thing[1], c, pot)) for c, n in enumerate(state.pots[pot]) if n
                    ]
            elif what == "out" or (what == "shown" and thing[0] != "v"):
                code = state.picked[thing[1]] if thing[0] == "v" else thing[1]
                found = [i for i in hand if value(state, i) == code]
                if not found:  # MM-8 ... MM-12: held, so on a blank token that may be it
                    fits = blanks(
                        state,
                        hand,
                        lambda t, c=code, s=state: (
                            c in s.allow.get(t, EVERY_CARD) and room(s, t, c)
                        ),
                    )
                    options = [(len(k), ("lay", rng.choice(k), code)) for k in fits]
                elif what == "out":
                    hand.remove(found[0])
                    if thing[0] == "v":
                        state.links[thing[1]] = found[0]
            elif what in ("has", "shown"):
                within = COLOUR_CODES[walk.shown_colour[thing[1]]] if what == "shown" else thing
                if any(
                    value(state, i) in within
                    or (
                        i[0] == "t"
                        and i[1] not in state.code
                        and state.allow.get(i[1], EVERY_CARD) <= within
                    )
                    for i in hand
                ):
                    if what == "shown":
                        state.shows.append((thing[1], within, tuple(hand)))
                else:  # MM-22 b: a blank token held answers the call
                    fits = blanks(state, hand, lambda t, w=within, s=state: possible(s, t, w))
                    options = [(len(k), ("narrow", rng.choice(k), within)) for k in fits]
            else:  # "none": MM-22 b, MM-15 ruling
                narrowed = set()
                for kind, x in hand:
                    if kind == "c" or x in state.code:
                        failed = value(state, (kind, x)) in thing
                    elif thing & state.allow.get(x, EVERY_CARD):
                        state.allow[x] = state.allow.get(x, EVERY_CARD) - thing
                        narrowed.add(walk.group[x])
                    if failed:
                        break
                look = Look(ahead, state, at, room)
                failed = failed or not _feasible(walk, look, narrowed, fresh)
                failed = failed or not ahead.holds(Look(ahead, state, at + 1, room), seat)
            if failed:
                break
            if options is None:
                at += 1
                continue
            if not options:
                failed = True
                break
            options = _ordered(options, rng)
            for other in options[1:]:
                stack.append((at, state.copy(), other))
            at, failed = branch(state, at, options[0])
            if failed:
                break
        if not failed:
            dealt = _fill(walk, state, tokens, rng, fresh)
            if dealt is not None:
                for share, perm in state.perm.items():
                    walk.perm[share] = perm
                return dealt
        if not stack:
            raise ValueError("no deal of the hand fits what the seat saw (a bug)")
        at, state, option = stack.pop()


def _kinds(
    state: _Partial, hand: list[Item], value: Any, blanks: list[list[int]], rng: Chance
) -> list[tuple[int, Any]]:
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


def _ordered(options: list[tuple[int, Any]], rng: Chance) -> list[Any]:
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


def _take(state: _Partial, hand: list[Item], option: Any, thing: Any, lay: Any) -> int:
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
    state: _Partial,
    group: int,
    blank: list[int],
    rng: Chance,
    fresh: Any,
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


def _serve(state: _Partial, group: int, narrowed: list[int], fresh: Any, plays: list[Play]) -> bool:
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


def _feasible(walk: Walk, look: Look, groups: set[int], fresh: Any) -> bool:
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
    walk: Walk, state: _Partial, tokens: list[int], rng: Chance, fresh: Any
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
