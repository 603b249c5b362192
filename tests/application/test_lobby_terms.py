"""The terms a challenge or pairing request asks for are checked as CreateGame checks its
fields, named ``terms.<field>``, and normalised so equal games pair."""

from __future__ import annotations

import pytest

from referee.application.lobby.terms import Terms, check_terms
from referee.application.tables.clocks import Clock
from referee.application.tables.errors import Kind, RefereeError


def refusal(terms: Terms) -> RefereeError:
    with pytest.raises(RefereeError) as caught:
        check_terms(terms)
    return caught.value


def test_the_fewest_seats_and_every_default_are_filled_in() -> None:
    checked = check_terms(Terms("dracula-vs-van-helsing", 0))
    assert checked.players == 2
    assert checked == check_terms(Terms("dracula-vs-van-helsing", 2, dict(checked.options)))
    assert checked.key == check_terms(Terms("dracula-vs-van-helsing", 2)).key


@pytest.mark.parametrize(
    ("terms", "field", "reason"),
    [
        (Terms("", 2), "terms.game_type", "BAD_REQUEST"),
        (Terms("no-such-game", 2), "terms.game_type", "BAD_REQUEST"),
        (Terms("x" * 500, 2), "terms.game_type", "BAD_REQUEST"),
        (Terms("vampire-queen", 2), "terms.players", "BAD_REQUEST"),
        (Terms("vampire-queen", 3, {"nonsense": "1"}), "terms.options.nonsense", "BAD_REQUEST"),
        (
            Terms("vampire-queen", 3, clock=Clock(decision_ms=1)),
            "terms.clock.decision_ms",
            "BAD_REQUEST",
        ),
    ],
)
def test_bad_terms_are_refused_naming_the_field(terms: Terms, field: str, reason: str) -> None:
    error = refusal(terms)
    assert error.kind is Kind.INVALID
    assert error.reason == reason
    assert error.field_violations[0][0] == field


def test_terms_survive_their_stored_form() -> None:
    terms = check_terms(Terms("vampire-queen", 4, clock=Clock(500, 1000, 2), rated=True))
    assert Terms.from_json(terms.to_json()) == terms
