"""Who is paired with whom: the pairing rule, with no I/O (the room is
:mod:`referee.application.lobby.pairing`).

Waiting tickets are paired only with tickets of the same :attr:`Terms.key` (game type, seats,
options, clock, rated), one ticket per seat, never two tickets of one player in a group.
Among those, **nearest rating first**: the candidate groups are runs of consecutive tickets
in rating order (for two seats: neighbours, the closest pair is always among them), taken by
smallest spread of ratings first (then by the longest wait, then by ticket id, so every
replica computes the same groups from the same tickets).

A group is allowed when its spread (highest rating minus lowest) is within the allowed gap of
*every* member: each player's own tolerance, which widens with that player's wait::

    allowed_gap(waited) = BASE_GAP + GAP_PER_SECOND * waited_seconds

(ratings are openskill ordinals, ``mu - 3 sigma``: a new player is at 0, a strong one at
30-40; so a new request pairs within 3 points, and after a minute within 33, anyone). A
newcomer is never pulled into a far group by someone else's long wait: the minimum counts.

:func:`pair` repeats the selection over what is left until no group is allowed, so the result
is maximal: no allowed run of tickets remains unpaired (a property test checks it).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

#: Rating points (openskill ordinal) two players may differ by when neither has waited.
BASE_GAP = 3.0
#: Rating points the allowed gap widens by per second a player has waited.
GAP_PER_SECOND = 0.5


def allowed_gap(waited_ms: int) -> float:
    """The spread of ratings a player who has waited ``waited_ms`` accepts.

    >>> allowed_gap(0), allowed_gap(10_000), allowed_gap(60_000)
    (3.0, 8.0, 33.0)
    """
    return BASE_GAP + GAP_PER_SECOND * max(0, waited_ms) / 1000


@dataclass(frozen=True, slots=True)
class Waiting:
    """What the rule reads of a waiting ticket."""

    ticket_id: str
    player: str
    #: Tickets pair only with tickets of an equal key (:attr:`Terms.key`).
    key: Hashable
    #: How many seats the game has (a group has this many tickets).
    seats: int
    rating: float
    created_ms: int


def _allowed(group: Sequence[Waiting], now_ms: int) -> bool:
    if len({w.player for w in group}) < len(group):
        return False
    spread = group[-1].rating - group[0].rating
    return all(spread <= allowed_gap(now_ms - w.created_ms) for w in group)


def pair(waiting: Sequence[Waiting], now_ms: int) -> list[tuple[Waiting, ...]]:
    """The groups to pair now (each in rating order), by the rule of the module's docstring.

    No ticket and no player is in two groups; every group has its key's number of seats."""
    buckets: dict[Hashable, list[Waiting]] = {}
    for ticket in waiting:
        if ticket.seats >= 2:
            buckets.setdefault((ticket.key, ticket.seats), []).append(ticket)
    groups: list[tuple[Waiting, ...]] = []
    # Players already in a group, across buckets: the guard document keeps a player to one
    # waiting ticket, but the rule does not count on it.
    players: set[str] = set()
    ordered = [tickets for _, tickets in sorted(buckets.items(), key=lambda item: repr(item[0]))]
    while True:  # until no bucket pairs more (a player paired in one leaves gaps in another)
        found = [group for tickets in ordered for group in _pair_bucket(tickets, now_ms, players)]
        if not found:
            return groups
        groups.extend(found)


def _pair_bucket(
    tickets: list[Waiting], now_ms: int, players: set[str]
) -> list[tuple[Waiting, ...]]:
    seats = tickets[0].seats
    left = sorted(tickets, key=lambda w: (w.rating, w.created_ms, w.ticket_id))
    chosen: list[tuple[Waiting, ...]] = []
    while True:
        left = [w for w in left if w.player not in players]
        if len(left) < seats:
            break
        runs = [tuple(left[i : i + seats]) for i in range(len(left) - seats + 1)]
        allowed = [run for run in runs if _allowed(run, now_ms)]
        if not allowed:
            break
        allowed.sort(
            key=lambda run: (
                run[-1].rating - run[0].rating,
                min(w.created_ms for w in run),
                tuple(w.ticket_id for w in run),
            )
        )
        for run in allowed:
            names = {w.player for w in run}
            if names & players:  # a ticket of this run is in a group already (its player)
                continue
            chosen.append(run)
            players |= names
    return chosen


__all__ = ["BASE_GAP", "GAP_PER_SECOND", "Waiting", "allowed_gap", "pair"]
