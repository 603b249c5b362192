"""The one rating model of the referee and its tournament runner, so both agree.

Ratings are openskill's Plackett-Luce model with its defaults (``mu`` 25, ``sigma`` 25/3): a
Bayesian rating for games of any number of players, TrueSkill-like. The **ordinal**
``mu - 3 sigma`` is what standings and leaderboards sort by: a player ranks high only once
the rating is sure of it. The referee's persisted ratings
(:mod:`referee.application.players.ratings`) and ``referee-tournament``'s standings
(``referee_tournament.ratings``) both build the model here: change it here, and both change.

>>> model = plackett_luce()
>>> a, b = model.rating(), model.rating()
>>> [[a], [b]] = model.rate([[a], [b]], ranks=[1.0, 2.0])
>>> a.mu > 25 > b.mu
True
>>> round(ordinal(25.0, 25 / 3), 6)
0.0
"""

from __future__ import annotations

from openskill.models import PlackettLuce


def plackett_luce() -> PlackettLuce:
    """The rating model (openskill Plackett-Luce, default parameters)."""
    return PlackettLuce()


def ordinal(mu: float, sigma: float) -> float:
    """What ratings are sorted by: the skill the rating is nearly sure of."""
    return mu - 3 * sigma


__all__ = ["ordinal", "plackett_luce"]
