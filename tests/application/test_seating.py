"""Seats that are claimed, not handed out, at the application
layer: open, reserved and creator seats, claim codes, a table that deals when full, the join
deadline, resigning, and every refusal with its kind and reason, changing nothing."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from referee.application import Clock, Kind, PlayerSeat, Principal, Referee
from referee.application.tables.timekeeper import JOIN_DEADLINE_REASON
from referee.engine.table_events import (
    DefaultPlayed,
    GameAborted,
    PlayerKind,
    SeatClaimed,
    SeatForfeited,
    SeatResigned,
    SeedCommitted,
    TableEvent,
    TimedOut,
)
from referee.store import EventStore, MemoryEventStore, SqliteEventStore
from tests.application.seating_support import (
    CREATOR,
    DV,
    OPEN,
    account,
    assert_no_secret,
    seats,
    snapshot,
    unchanged,
)
from tests.application.support import first_legal, refused, run, until
from tests.store.pg import temporary_database


def test_a_game_of_token_seats_keeps_todays_log_and_tokens() -> None:
    async def scenario(referee: Referee) -> None:
        created = await referee.create(DV, 2)
        live = referee.games[created.game_id]
        assert all(created.seat_tokens) and created.invitations == ()
        assert not any(isinstance(e, SeatClaimed) for e in live.table.log)
        summary = created.summary
        assert summary.started and summary.join_deadline_unix_ms == 0
        assert [(h.state, h.player) for h in summary.seat_holders] == [("held", "")] * 2
        view = await referee.view(created.game_id, seat_token=created.seat_tokens[0])
        assert view.holders == (), "views of token games are as before"

    run(scenario)


def test_open_seats_wait_and_the_claim_that_fills_the_table_deals() -> None:
    async def scenario(referee: Referee) -> None:
        created = await referee.create(DV, 2, settings=seats(OPEN, OPEN))
        game_id = created.game_id
        live = referee.games[game_id]
        assert created.seat_tokens == ("", ""), "an open seat's token is its claimant's only"
        codes = dict(created.invitations)
        assert sorted(codes) == [0, 1] and all(c.startswith("claim-") for c in codes.values())
        assert [type(e) for e in live.table.log] == [SeedCommitted]
        summary = await referee.summary(game_id)
        assert not summary.started and summary.pending_seats == ()
        assert summary.join_deadline_unix_ms == summary.created_unix_ms + 600_000
        assert [h.state for h in summary.seat_holders] == ["open", "open"]

        first = await referee.seating.claim(game_id, None, None, codes[1])
        assert first.seat == 1 and first.token.startswith("seat-")
        assert not first.summary.started and live.table.version == 2
        assert live.table.log[-1] == SeatClaimed(1, "", PlayerKind.UNSPECIFIED)
        ann, _ = await account(referee, "ann", "person")
        second = await referee.seating.claim(game_id, ann, 0, codes[0])
        assert second.summary.started and live.table.pending()
        assert live.table.log[2] == SeatClaimed(0, "ann", PlayerKind.PERSON)
        assert live.batch_ends[2] == live.table.version, "the claim and the deal: one batch"
        holders = second.summary.seat_holders
        assert [(h.state, h.player, h.kind) for h in holders] == [
            ("held", "ann", "person"),
            ("held", "", ""),
        ]
        assert second.summary.join_deadline_unix_ms == 0
        view = await referee.view(game_id, seat_token=second.token)
        assert view.view.viewer == 0 and view.holders == holders
        held = referee.store.documents("holding")
        assert [d.key for d in held] == [f"ann/{game_id}/0"]
        assert held[0].body["seat"] == 0 and held[0].body["game_id"] == game_id
        assert set(referee.store.seat_claims(game_id)) == {0, 1}
        assert_no_secret(repr(second.summary) + repr(held[0].body), [first.token, *codes.values()])

    run(scenario)


def test_claim_refusals_name_their_reason_and_change_nothing() -> None:
    async def scenario(referee: Referee) -> None:
        ann, _ = await account(referee, "ann")
        bob, _ = await account(referee, "bob")
        created = await referee.create(
            "vampire-queen", 3, settings=seats(OPEN, OPEN, "reserved:bob")
        )
        game_id, codes = created.game_id, dict(created.invitations)
        claim = referee.seating.claim
        bad = await unchanged(
            referee,
            game_id,
            claim(game_id, None, None, "claim-nope"),
            Kind.FORBIDDEN,
            "CLAIM_CODE_INVALID",
        )
        assert "claim-nope" not in str(bad)
        await unchanged(  # a seat's code used for another seat
            referee,
            game_id,
            claim(game_id, None, 1, codes[0]),
            Kind.FORBIDDEN,
            "CLAIM_CODE_INVALID",
        )
        await unchanged(
            referee,
            game_id,
            claim(game_id, None, None, ""),
            Kind.UNAUTHENTICATED,
            "CREDENTIAL_MISSING",
        )
        await unchanged(
            referee, game_id, claim(game_id, ann, 2, ""), Kind.FORBIDDEN, "SEAT_RESERVED"
        )
        await unchanged(  # an unlisted game's open seat needs its code
            referee, game_id, claim(game_id, ann, 0, ""), Kind.FORBIDDEN, "CLAIM_CODE_INVALID"
        )
        scoped = Principal(ann.player, scope_game="another")
        await unchanged(
            referee,
            game_id,
            claim(game_id, scoped, None, codes[0]),
            Kind.FORBIDDEN,
            "TOKEN_SCOPE",
        )
        await claim(game_id, ann, None, codes[0])
        used = await unchanged(
            referee,
            game_id,
            claim(game_id, None, None, codes[0]),
            Kind.NOT_NOW,
            "CLAIM_CODE_USED",
        )
        assert codes[0] not in str(used)
        await unchanged(
            referee, game_id, claim(game_id, ann, None, codes[1]), Kind.NOT_NOW, "ALREADY_SEATED"
        )
        await unchanged(referee, game_id, claim(game_id, bob, 0, ""), Kind.NOT_NOW, "SEAT_TAKEN")
        await claim(game_id, bob, None, "")  # its reserved seat: no code needed
        await claim(game_id, None, None, codes[1])
        assert referee.games[game_id].table.started
        await unchanged(
            referee, game_id, claim(game_id, None, None, codes[1]), Kind.NOT_NOW, "GAME_STARTED"
        )
        missing = await refused(claim("0000", ann, None, ""))
        assert missing.kind is Kind.NOT_FOUND

        waiting = await referee.create(DV, 2, settings=seats(OPEN, OPEN))
        await referee.abort(waiting.game_id, waiting.organiser_token, "no")
        code = waiting.invitations[0][1]
        await unchanged(
            referee,
            waiting.game_id,
            claim(waiting.game_id, None, None, code),
            Kind.NOT_NOW,
            "GAME_OVER",
        )

    run(scenario)


def test_two_claims_of_one_seat_one_wins() -> None:
    async def scenario(referee: Referee) -> None:
        ann, _ = await account(referee, "ann")
        bob, _ = await account(referee, "bob")
        created = await referee.create(DV, 2, settings=seats(OPEN, OPEN, listed=True))
        claim = referee.seating.claim
        results = await asyncio.gather(
            claim(created.game_id, ann, 0, ""),
            claim(created.game_id, bob, 0, ""),
            return_exceptions=True,
        )
        won = [r for r in results if not isinstance(r, BaseException)]
        lost = [r for r in results if isinstance(r, BaseException)]
        assert len(won) == 1 and len(lost) == 1
        assert getattr(lost[0], "reason", "") == "SEAT_TAKEN"
        log = referee.games[created.game_id].table.log
        assert sum(isinstance(e, SeatClaimed) for e in log) == 1

    run(scenario)


def test_reserved_and_creator_seats() -> None:
    async def scenario(referee: Referee) -> None:
        ann, _ = await account(referee, "ann", "person")
        bob, _ = await account(referee, "bob")
        unknown = await refused(
            referee.create(DV, 2, settings=seats(CREATOR, "reserved:zed"), creator=ann)
        )
        assert unknown.reason == "PLAYER_UNKNOWN"
        nobody = await refused(referee.create(DV, 2, settings=seats(CREATOR, OPEN)))
        assert (nobody.kind, nobody.reason) == (Kind.UNAUTHENTICATED, "CREDENTIAL_MISSING")
        assert not referee.games, "nothing was created"
        created = await referee.create(DV, 2, settings=seats(CREATOR, "reserved:bob"), creator=ann)
        game_id = created.game_id
        live = referee.games[game_id]
        assert created.seat_tokens[0] and not created.seat_tokens[1]
        assert created.invitations == ()
        assert [type(e) for e in live.table.log] == [SeedCommitted, SeatClaimed]
        assert live.table.log[1] == SeatClaimed(0, "ann", PlayerKind.PERSON)
        assert [(h.state, h.player) for h in created.summary.seat_holders] == [
            ("held", "ann"),
            ("reserved", "bob"),
        ]
        claimed = await referee.seating.claim_for(game_id, 1, bob.player)
        assert claimed.summary.started and claimed.token
        assert live.table.status.claims[1] == SeatClaimed(1, "bob", PlayerKind.BOT)
        keys = sorted(d.key for d in referee.store.documents("holding"))
        assert keys == [f"ann/{game_id}/0", f"bob/{game_id}/1"]
        # Both play with their credentials, and ann also with the creator's token.
        seat = live.table.pending()[0]
        player = ann if seat == 0 else bob
        submitted = await referee.submit(
            game_id, PlayerSeat(player), "by-credential", first_legal(live, seat)
        )
        assert submitted.seat == seat

    run(scenario)


def test_a_listed_game_is_claimed_from_the_lobby_and_leaves_it_when_full() -> None:
    async def scenario(referee: Referee) -> None:
        ann, _ = await account(referee, "ann")
        bob, _ = await account(referee, "bob")
        created = await referee.create(DV, 2, settings=seats(OPEN, OPEN, listed=True))
        game_id = created.game_id
        listed = referee.store.read_document("lobby", game_id)
        assert listed is not None and listed.body["open_seats"] == [0, 1]
        assert created.summary.listed
        assert_no_secret(repr(listed.body), [c for _, c in created.invitations])
        first = await referee.seating.claim(game_id, ann, None, "")
        assert first.seat == 0
        after = referee.store.read_document("lobby", game_id)
        assert after is not None and after.body["open_seats"] == [1]
        await referee.seating.claim(game_id, bob, None, "")
        assert referee.store.read_document("lobby", game_id) is None, "full: gone"

    run(scenario)


def test_a_table_that_does_not_fill_is_aborted_at_its_deadline_never_timed_out() -> None:
    async def scenario(referee: Referee) -> None:
        clock = Clock(decision_ms=50, forfeit_after_timeouts=1)
        settings = seats(OPEN, OPEN, listed=True, join_deadline_ms=300, clock=clock)
        created = await referee.create(DV, 2, settings=settings)
        live = referee.games[created.game_id]
        await referee.seating.claim(created.game_id, None, None, created.invitations[0][1])
        await until(lambda: live.over)
        log = live.table.log
        aborted = [e for e in log if isinstance(e, GameAborted)]
        assert aborted == [GameAborted(JOIN_DEADLINE_REASON)]
        assert not any(isinstance(e, TimedOut | SeatForfeited | DefaultPlayed) for e in log)
        assert live.summary().seat_stats[0].timeouts == 0
        await until(lambda: referee.store.read_document("lobby", created.game_id) is None)
        assert (await referee.summary(created.game_id)).abort_reason == JOIN_DEADLINE_REASON

    run(scenario)


def test_the_join_deadline_survives_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "referee.sqlite3"
    found: dict[str, Any] = {}

    async def first(referee: Referee) -> None:
        created = await referee.create(DV, 2, settings=seats(OPEN, OPEN, join_deadline_ms=1500))
        found["game_id"] = created.game_id
        found["claimed"] = await referee.seating.claim(
            created.game_id, None, None, created.invitations[0][1]
        )

    run(first, store=SqliteEventStore(path))

    async def second(referee: Referee) -> None:
        game_id = found["game_id"]
        await until(lambda: game_id in referee.games)  # preloaded: its deadline runs
        live = referee.games[game_id]
        assert live.claims[0].token_hash, "the claim's token hash came back from the store"
        await until(lambda: live.over)
        assert live.table.status.aborted == JOIN_DEADLINE_REASON
        view = await referee.view(game_id, seat_token=found["claimed"].token)
        assert view.view.viewer == 0, "the claimed token works after the restart"

    run(second, store=SqliteEventStore(path))


def test_resigning() -> None:
    async def scenario(referee: Referee) -> None:
        ann, _ = await account(referee, "ann")
        created = await referee.create(DV, 2)
        game_id = created.game_id
        live = referee.games[game_id]
        seat = live.table.pending()[0]
        summary = await referee.seating.resign(game_id, created.seat_tokens[seat])
        resigned = [e for e in live.table.log if isinstance(e, SeatResigned)]
        assert resigned == [SeatResigned(seat)]
        assert [h.resigned for h in summary.seat_holders] == [s == seat for s in range(2)]
        at = live.table.log.index(resigned[0])
        assert isinstance(live.table.log[at + 1], DefaultPlayed), "played for at once"
        await unchanged(
            referee,
            game_id,
            referee.seating.resign(game_id, created.seat_tokens[seat]),
            Kind.NOT_NOW,
            "ALREADY_RESIGNED",
        )
        other = 1 - seat
        # The resigned seat's own command: its own reason, not NOT_YOUR_TURN (the referee
        # plays for it to the end).
        late = await refused(
            referee.submit(game_id, created.seat_tokens[seat], "late", first_legal(live, other))
        )
        assert (late.kind, late.reason, late.rule_id) == (Kind.NOT_NOW, "SEAT_RESIGNED", "RESIGNED")
        await referee.seating.resign(game_id, created.seat_tokens[other])
        await until(lambda: live.over)
        assert live.table.results() is not None, "played to the end, with results"
        await unchanged(
            referee,
            game_id,
            referee.seating.resign(game_id, created.seat_tokens[other]),
            Kind.NOT_NOW,
            "GAME_OVER",
        )
        waiting = await referee.create(DV, 2, settings=seats(CREATOR, OPEN), creator=ann)
        await unchanged(
            referee,
            waiting.game_id,
            referee.seating.resign(waiting.game_id, PlayerSeat(ann)),
            Kind.NOT_NOW,
            "GAME_NOT_STARTED",
        )
        wrong = await refused(referee.seating.resign(game_id, "seat-nope"))
        assert wrong.reason == "TOKEN_INVALID"

    run(scenario)


def test_seats_by_credential() -> None:
    async def scenario(referee: Referee) -> None:
        ann, _ = await account(referee, "ann")
        bob, _ = await account(referee, "bob")
        created = await referee.create(
            "vampire-queen", 3, settings=seats(CREATOR, OPEN, OPEN, listed=True), creator=ann
        )
        game_id = created.game_id
        await referee.seating.claim(game_id, bob, None, "")
        stranger = await refused(
            referee.view(game_id, seat_token=PlayerSeat(Principal(type(ann.player)("cy", "bot"))))
        )
        assert (stranger.kind, stranger.reason) == (Kind.FORBIDDEN, "NOT_SEATED")
        wrong_seat = await refused(referee.view(game_id, seat_token=PlayerSeat(bob, 0)))
        assert wrong_seat.reason == "NOT_SEATED"
        mine = await referee.view(game_id, seat_token=PlayerSeat(bob))
        assert mine.view.viewer == 1
        watcher = Principal(bob.player, spectator_only=True)
        watched = await referee.view(game_id, seat_token=PlayerSeat(watcher))
        assert watched.view.viewer is None, "a spectator credential watches as a spectator"
        live = referee.games[game_id]
        await referee.seating.claim(game_id, None, None, created.invitations[-1][1])
        seat = live.table.pending()[0]
        if seat in (0, 1):
            player = ann if seat == 0 else bob
            playing = await refused(
                referee.submit(
                    game_id,
                    PlayerSeat(Principal(player.player, spectator_only=True)),
                    "s",
                    first_legal(live, seat),
                )
            )
            assert playing.reason == "TOKEN_SCOPE"

    run(scenario)


def test_replay_with_claims_is_equal(tmp_path: Path) -> None:
    path = tmp_path / "referee.sqlite3"
    found: dict[str, Any] = {}

    async def first(referee: Referee) -> None:
        ann, _ = await account(referee, "ann")
        created = await referee.create(DV, 2, settings=seats(CREATOR, OPEN), creator=ann)
        claimed = await referee.seating.claim(
            created.game_id, None, None, created.invitations[0][1]
        )
        live = referee.games[created.game_id]
        found.update(
            game_id=created.game_id,
            log=list(live.table.log),
            summary=claimed.summary,
            view=(await referee.view(created.game_id, seat_token=claimed.token)).view,
            token=claimed.token,
        )

    run(first, store=SqliteEventStore(path))

    async def second(referee: Referee) -> None:
        game_id = found["game_id"]
        summary = await referee.summary(game_id)
        live = referee.games[game_id]
        assert live.table.log == found["log"]
        assert summary.seat_holders == found["summary"].seat_holders
        assert (await referee.view(game_id, seat_token=found["token"])).view == found["view"]
        assert all(isinstance(e, TableEvent) for e in live.table.log[:3])

    run(second, store=SqliteEventStore(path))


def test_a_host_cannot_obtain_an_invited_seats_token_or_hidden_cards() -> None:
    """Over every call a host can make (it created the game, holds a seat, the organiser
    token and the invitation's claim code), nothing carries the invited friend's token, and
    no view it gets is the friend's seat's (the organiser's watch of a claimed seat and the
    full log are refused), before and after the game's end."""

    async def scenario(referee: Referee) -> None:
        host, _ = await account(referee, "host", "person")
        created = await referee.create(
            DV, 2, settings=seats(CREATOR, OPEN), creator=host, seed="", deal=None
        )
        game_id, organiser = created.game_id, created.organiser_token
        code = created.invitations[0][1]
        friend = await referee.seating.claim(game_id, None, None, code)
        secret = friend.token
        live = referee.games[game_id]
        seen: list[Any] = []
        views: list[Any] = []

        async def everything() -> None:
            seen.append(await referee.summary(game_id))
            seen.append(await referee.list_games())
            for key in (created.seat_tokens[0], PlayerSeat(host)):
                views.append(await referee.view(game_id, seat_token=key))
            views.append(await referee.view(game_id, spectator=True))
            views.append(await referee.view(game_id, organiser_token=organiser))
            views.append(await referee.view(game_id, organiser_token=organiser, as_seat=0))
            watch = await refused(referee.view(game_id, organiser_token=organiser, as_seat=1))
            assert watch.reason == "SEAT_CLAIMED"
            again = await refused(referee.seating.claim(game_id, host, None, code))
            seen.append(again)
            for key in (created.seat_tokens[0], ""):
                stream = referee.stream(game_id, seat_token=key, spectator=not key)
                update = await anext(stream)
                await stream.aclose()
                views.append(update.view)
            stream = referee.stream(game_id, organiser_token=organiser, as_seat=0)
            views.append((await anext(stream)).view)
            await stream.aclose()
            exported = await refused(referee.export(game_id, organiser))
            assert exported.reason in ("SEAT_CLAIMED", "NOT_REVEALED")
            seen.append(exported)

        await everything()
        await referee.abort(game_id, organiser, "over")
        await referee.reveal(game_id, organiser)
        await everything()
        exported = await refused(referee.export(game_id, organiser))
        assert exported.reason == "SEAT_CLAIMED", "the full log shows the friend's cards"
        for view in views:
            assert view.view.viewer in (0, None), "never the friend's seat's view"
            assert secret.encode() not in view.data
        text = repr(seen) + repr([v.view for v in views])
        assert_no_secret(text, [secret])
        assert live.claims[1].token_hash and secret not in repr(live.claims)

    run(scenario)


async def _claims_across_replicas(first_store: EventStore, second_store: EventStore) -> None:
    first, second = Referee(first_store), Referee(second_store)
    await first.recover()
    await second.recover()
    try:
        created = await first.create(DV, 2, settings=seats(OPEN, OPEN))
        game_id, codes = created.game_id, dict(created.invitations)
        await second.summary(game_id)  # loaded on the second before the claims
        mine = await first.seating.claim(game_id, None, None, codes[0])
        ann, _ = await account(first, "ann")
        race = await asyncio.gather(
            first.seating.claim(game_id, ann, None, codes[1]),
            second.seating.claim(game_id, None, None, codes[1]),
            return_exceptions=True,
        )
        assert sum(not isinstance(r, BaseException) for r in race) == 1, race
        lost = next(r for r in race if isinstance(r, BaseException))
        assert getattr(lost, "reason", "") in ("SEAT_TAKEN", "CLAIM_CODE_USED", "GAME_STARTED")
        mirror = second.games[game_id]
        await until(lambda: mirror.table.started)
        view = await second.view(game_id, seat_token=mine.token)
        assert view.view.viewer == 0
        live = first.games[game_id]
        await until(lambda: live.table.started)
        seat = live.table.pending()[0]
        winner = next(r for r in race if not isinstance(r, BaseException))
        token = mine.token if seat == 0 else winner.token
        submitted = await second.submit(game_id, token, "across", first_legal(live, seat))
        assert submitted.seat == seat
    finally:
        if second_store is first_store:
            second._stop_listening()  # the first closes the store they share
        else:
            second.close()
        first.close()


def test_a_claim_on_one_replica_plays_on_another() -> None:
    """Two referees on one store: a seat claimed on the first is recognised by its token on
    the second (the claim's hash is read from the store), and a race for one seat across
    the two is won once."""
    store = MemoryEventStore()
    asyncio.run(_claims_across_replicas(store, store))


def test_a_claim_on_one_replica_plays_on_another_on_postgresql() -> None:
    """The same on two PostgreSQL stores of one database (LISTEN/NOTIFY between them)."""
    from referee.store.postgres import PostgresEventStore

    with temporary_database() as url:
        asyncio.run(_claims_across_replicas(PostgresEventStore(url), PostgresEventStore(url)))


def test_seat_settings_refusals_name_the_field_and_create_nothing() -> None:
    async def scenario(referee: Referee) -> None:
        cases = [
            (seats(OPEN), "seat_requests"),  # one plan for two seats
            (seats(OPEN, "reserved"), "seat_requests[1].player"),
            (seats(OPEN, "open:ann"), "seat_requests[1].player"),
            (seats(OPEN, "sideways"), "seat_requests[1].mode"),
            (seats("token", "token", listed=True), "listed"),
            (seats("token", OPEN, rated=True), "rated"),
            (seats(OPEN, OPEN, join_deadline_ms=0), "join_deadline_ms"),
            (seats(OPEN, OPEN, connect_grace_ms=-1), "connect_grace_ms"),
        ]
        for settings, field in cases:
            error = await refused(referee.create(DV, 2, settings=settings))
            assert (error.kind, error.reason) == (Kind.INVALID, "BAD_REQUEST"), error
            assert error.field_violations[0][0] == field, error
        assert not referee.games and not referee.store.list_games()

    run(scenario)


def test_a_rated_game_needs_signed_in_claimants_and_one_seat_must_be_named() -> None:
    async def scenario(referee: Referee) -> None:
        ann, _ = await account(referee, "ann")
        created = await referee.create(DV, 2, settings=seats(OPEN, OPEN, rated=True))
        game_id, codes = created.game_id, dict(created.invitations)
        await unchanged(
            referee,
            game_id,
            referee.seating.claim(game_id, None, None, codes[0]),
            Kind.UNAUTHENTICATED,
            "CREDENTIAL_MISSING",
        )
        await referee.seating.claim(game_id, ann, None, codes[0])
        assert created.summary.rated

        both = await referee.create(DV, 2, settings=seats(CREATOR, CREATOR), creator=ann)
        which = await refused(referee.view(both.game_id, seat_token=PlayerSeat(ann)))
        assert (which.kind, which.reason) == (Kind.INVALID, "BAD_REQUEST")
        assert which.field_violations[0][0] == "seat"
        assert (await referee.view(both.game_id, seat_token=PlayerSeat(ann, 1))).view.viewer == 1

    run(scenario)


def test_an_audited_game_exports_to_its_organiser_after_the_end_only() -> None:
    """``organiser_audit``: the organiser (e.g. a tournament runner that checks every deal)
    may export the full log of a game with claimed seats once it is over; the claimant sees
    the setting in the summary before claiming; the claimed seat stays unwatchable, and the
    export is refused while the game runs."""

    async def scenario(referee: Referee) -> None:
        created = await referee.create(
            DV, 2, settings=seats("token", OPEN, organiser_audit=True), seed="", deal=None
        )
        game_id, organiser = created.game_id, created.organiser_token
        before = await referee.summary(game_id)
        assert before.organiser_audit, "shown to everyone before they claim"
        await referee.seating.claim(game_id, None, None, created.invitations[0][1])
        watch = await refused(referee.view(game_id, organiser_token=organiser, as_seat=1))
        assert watch.reason == "SEAT_CLAIMED"
        early = await refused(referee.export(game_id, organiser))
        assert early.reason == "NOT_REVEALED"
        await referee.abort(game_id, organiser, "over")
        await referee.reveal(game_id, organiser)
        exported = await referee.export(game_id, organiser)
        assert exported.events, "the full log, the claimed seat's cards included"
        nobody = await refused(referee.export(game_id, ""))
        assert nobody.kind is Kind.UNAUTHENTICATED

    run(scenario)


def test_a_claim_checked_only_answers_as_the_claim_would_and_takes_nothing() -> None:
    """``check_only`` (a join page before its button is pressed): a good code names its seat
    and leaves the game as it was, with no token; a made-up or spent code gets the refusal
    the claim itself would get."""

    async def scenario(referee: Referee) -> None:
        created = await referee.create("vampire-queen", 3, settings=seats(OPEN, OPEN, OPEN))
        game_id, codes = created.game_id, dict(created.invitations)
        before = snapshot(referee, game_id)
        checked = await referee.seating.claim(game_id, None, None, codes[1], check_only=True)
        assert (checked.seat, checked.token) == (1, "")
        assert snapshot(referee, game_id) == before, "a check takes nothing"
        await unchanged(
            referee,
            game_id,
            referee.seating.claim(game_id, None, None, "claim-made-up", check_only=True),
            Kind.FORBIDDEN,
            "CLAIM_CODE_INVALID",
        )
        await referee.seating.claim(game_id, None, None, codes[1])
        await unchanged(
            referee,
            game_id,
            referee.seating.claim(game_id, None, None, codes[1], check_only=True),
            Kind.NOT_NOW,
            "CLAIM_CODE_USED",
        )

    run(scenario)
