"""Players and their credentials: accounts of this server, and a platform's signed tokens.

A **player** is a unique name and a kind (person or bot). It proves who it is with a
**credential**, sent as ``authorization: Bearer <credential>`` by both transports:

- an **account token** (``acct-...``), made when the account is created (by the operator's
  ``referee account create NAME``, or by Register on a server with open registration). The
  token is shown once; the store keeps only its SHA-256 (an ``account`` document per name,
  an ``account_token`` document per hash, written together), and a presented token is
  compared with the stored hash in constant time. The operator revokes it or replaces it
  (``referee account revoke|rotate NAME``), the player replaces its own (RotateToken): on
  every replica within a bound, streams opened with it included
  (:mod:`referee.application.players.credentials`);
- a **platform token**: a JWT signed by a platform that has its own users
  (:mod:`referee.application.players.platform`, docs/embedding.md). No account is needed; the token
  may be scoped to one game, one seat, or to watching only. The platform's players live in a
  name space of their own: the token's ``sub`` is the player ``<namespace>:<sub>`` here
  (``--platform-namespace``, ``platform`` unless set), a name no account can have, so a token
  can never act as an account or a house bot. A server may keep the subjects' names bare
  (namespace ``""``): a subject that names a player of this server that is not the
  platform's is then refused (PERMISSION_DENIED ``PLATFORM_NAME_TAKEN``).

:class:`Players` (``Referee.players``) resolves a credential to a :class:`Principal` (who is
calling, and what the credential allows), counts the call against the player's per-minute
limit (:mod:`referee.application.tables.limits`), and keeps the accounts and ratings
(:mod:`referee.application.players.ratings`, ``Referee.players.ratings``). A refusal never quotes a
credential.
"""

from __future__ import annotations

import re
import secrets
import time
from dataclasses import dataclass, field
from typing import Any

import structlog

from referee.application.players.credentials import (
    ACCOUNT,
    ACCOUNT_TOKEN,
    CHANGES,
    Credentials,
    changed,
    revoked,
)
from referee.application.players.platform import LEEWAY, MAX_LIFETIME, PlatformKeys, invalid_claim
from referee.application.players.ratings import Ratings
from referee.application.tables import errors
from referee.application.tables.access import Player, Principal, hash_token
from referee.application.tables.limits import (
    DEFAULT_PER_MINUTE,
    REGISTRATIONS,
    AddressLimits,
    CallLimits,
)
from referee.application.tables.live import now_ms
from referee.application.tables.repository import Repository
from referee.store import Document, DocumentWrite, RevisionConflict

log = structlog.get_logger("referee")

#: An account's name: 1-32 characters, letters, digits, "-", "_", "." (not first).
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,31}")
#: A platform's name space: 1-16 characters, as names.
NAMESPACE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,15}")
#: A platform's player: its name space, ":", the token's ``sub`` (no account has a ":").
PLATFORM_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,15}:[A-Za-z0-9][A-Za-z0-9_.-]{0,31}")
#: The name space of a platform's players unless configured (``--platform-namespace``).
DEFAULT_PLATFORM_NAMESPACE = "platform"
#: What every account token starts with (so a platform token is never looked up as one).
ACCOUNT_TOKEN_PREFIX = "acct-"
#: The kinds of player an account is.
KINDS = ("person", "bot")
#: Document kind of an account by its name in lower case (names are unique whatever their
#: case: "Ada" cannot pass for "ada"); the kinds by name and by token hash are
#: :mod:`~referee.application.players.credentials`' ``ACCOUNT`` and ``ACCOUNT_TOKEN``.
ACCOUNT_NAME = "account_name"
#: Longest credential looked at: anything longer is no token of ours (and not parsed).
MAX_CREDENTIAL = 8192
#: How many times a revocation or rotation is tried again after another writer changed the
#: account (or revoked another token) at the same moment.
TOKEN_CHANGE_RETRIES = 5
#: Platform players remembered as let in, at most (forgetting one costs a read).
MAX_SEEN = 10_000
#: Register calls per minute per replica unless configured.
DEFAULT_REGISTRATIONS_PER_MINUTE = 60


@dataclass(frozen=True)
class PlayerSettings:
    """How a server treats players (``referee serve``'s flags)."""

    #: Anyone may create an account with Register (``--open-registration``).
    open_registration: bool = False
    #: The platform whose signed tokens are accepted (``--platform-key``/``--platform-jwks``).
    platform: PlatformKeys | None = None
    #: Calls per minute per player (0: unlimited).
    calls_per_minute: int = DEFAULT_PER_MINUTE
    #: Register calls per minute on one replica, whoever makes them (0: unlimited): open
    #: registration must not let one script fill the store with accounts.
    registrations_per_minute: int = DEFAULT_REGISTRATIONS_PER_MINUTE
    #: What one client address may do per minute without a player's credential.
    per_address: AddressLimits = field(default_factory=AddressLimits)
    #: The platform's players are named ``<namespace>:<sub>`` (``--platform-namespace``);
    #: ``""``: by their ``sub`` alone (a subject that names a player of this server that is
    #: not the platform's is then refused).
    platform_namespace: str = DEFAULT_PLATFORM_NAMESPACE

    def __post_init__(self) -> None:
        if self.platform_namespace and not NAMESPACE.fullmatch(self.platform_namespace):
            raise ValueError(
                "a platform namespace is 1-16 letters, digits, '-', '_' or '.', starting with "
                "a letter or digit (or empty: the subjects' names as they are)"
            )


def is_player_name(name: str) -> bool:
    """True for a name a player may have: an account's, or a platform's player's.

    >>> is_player_name("ada"), is_player_name("platform:ada"), is_player_name(":ada")
    (True, True, False)
    """
    return bool(NAME.fullmatch(name) or PLATFORM_NAME.fullmatch(name))


def check_name(name: str) -> None:
    """Refuse (INVALID_ARGUMENT, field ``name``) a name that is not a player name.

    >>> check_name("ada-2")
    >>> check_name("-ada")
    Traceback (most recent call last):
    ...
    referee.application.tables.errors.RefereeError: invalid: name: must be 1-32 letters, digits, '-', '_' or '.', starting with a letter or digit
    >>> check_name("platform:ada")
    Traceback (most recent call last):
    ...
    referee.application.tables.errors.RefereeError: invalid: name: ':' is kept for a platform's players (namespace:name); an account's name has none
    """  # noqa: E501
    if ":" in name:
        raise errors.bad_request(
            "name",
            "':' is kept for a platform's players (namespace:name); an account's name has none",
        )
    if not NAME.fullmatch(name):
        raise errors.bad_request(
            "name", "must be 1-32 letters, digits, '-', '_' or '.', starting with a letter or digit"
        )


def new_account_token() -> str:
    """A fresh account token (256 random bits)."""
    return f"{ACCOUNT_TOKEN_PREFIX}{secrets.token_urlsafe(32)}"


def check_scope(
    principal: Principal, game_id: str, seat: int | None = None, play: bool = True
) -> None:
    """Refuse (PERMISSION_DENIED ``TOKEN_SCOPE``) a call a platform token does not cover:
    another game than its ``game_id``, another seat than its ``seat``, or playing (``play``)
    with a spectator token. Account credentials cover every game. A call about no game
    (a challenge, a pairing request) passes ``game_id=""``: a game-scoped token is refused
    there too, since it was handed out for that one game."""
    if principal.spectator_only and play:
        raise errors.denied(
            "TOKEN_SCOPE", "this platform token may only watch (role: spectator)", game_id=game_id
        )
    if principal.scope_game and principal.scope_game != game_id:
        raise errors.denied(
            "TOKEN_SCOPE", "this platform token is scoped to another game", game_id=game_id
        )
    if seat is not None and principal.scope_seat is not None and principal.scope_seat != seat:
        raise errors.denied(
            "TOKEN_SCOPE",
            "this platform token is scoped to another seat",
            game_id=game_id,
            seat=str(seat),
        )


def principal_of(
    claims: dict[str, Any], now: float, namespace: str = DEFAULT_PLATFORM_NAMESPACE
) -> Principal:
    """The :class:`Principal` a platform token's verified ``claims`` name (their shape is
    checked here; UNAUTHENTICATED ``CREDENTIAL_INVALID`` naming the claim at fault): the
    player ``<namespace>:<sub>`` (``sub`` alone when ``namespace`` is empty)."""
    exp = claims["exp"]
    iat = claims.get("iat")
    start = iat if isinstance(iat, int | float) and not isinstance(iat, bool) else now
    if exp - start > MAX_LIFETIME + LEEWAY:
        raise invalid_claim("exp", f"is more than {MAX_LIFETIME // 3600} h after 'iat'")
    name = claims["sub"]
    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise invalid_claim("sub", "is not a player name (1-32 letters, digits, '-', '_', '.')")
    kind = claims.get("kind", "")
    if kind != "" and kind not in KINDS:
        raise invalid_claim("kind", "must be 'person' or 'bot'")
    game_id = claims.get("game_id", "")
    if not isinstance(game_id, str):
        raise invalid_claim("game_id", "must be a string")
    seat = claims.get("seat")
    if seat is not None:
        if isinstance(seat, bool) or not isinstance(seat, int) or seat < 0:
            raise invalid_claim("seat", "must be a seat number")
        if not game_id:
            raise invalid_claim("seat", "needs a 'game_id' claim")
    role = claims.get("role", "player")
    if role not in ("player", "spectator"):
        raise invalid_claim("role", "must be 'player' or 'spectator'")
    return Principal(
        Player(f"{namespace}:{name}" if namespace else name, str(kind), platform=True),
        scope_game=game_id,
        scope_seat=seat,
        spectator_only=role == "spectator",
    )


class Players:
    """Accounts, credentials, per-player limits and ratings (``Referee.players``)."""

    def __init__(self, repository: Repository, settings: PlayerSettings | None = None) -> None:
        self.repository = repository
        self.ratings = Ratings(repository)
        #: Account tokens: checked, trusted, revoked (and the streams opened with them).
        self.credentials = Credentials(repository)
        self.configure(settings or PlayerSettings())
        #: Platform players let in already (see :meth:`_admit`).
        self._seen: set[str] = set()

    def configure(self, settings: PlayerSettings) -> None:
        """Use ``settings`` from now on (the server applies its flags this way once the
        referee is built, so the facade's constructor stays the same for every room)."""
        self.settings = settings
        self.limits = CallLimits(
            settings.calls_per_minute, settings.per_address, settings.registrations_per_minute
        )

    # --- credentials ------------------------------------------------------------------------

    async def authenticate(self, credential: str) -> Principal:
        """Who ``credential`` names, counted against the player's calls per minute.

        UNAUTHENTICATED: ``CREDENTIAL_MISSING`` (none), ``CREDENTIAL_INVALID`` (not a token of
        an account here, or a platform token that is malformed, not for this server, or
        lives too long), ``TOKEN_EXPIRED``, ``TOKEN_SIGNATURE``; RESOURCE_EXHAUSTED with a
        retry delay past the player's calls per minute."""
        if not credential:
            raise errors.unauthenticated(
                "CREDENTIAL_MISSING",
                "this call needs a player's credential: authorization: Bearer <token>",
            )
        if len(credential) > MAX_CREDENTIAL:
            raise _not_ours()
        if credential.startswith(ACCOUNT_TOKEN_PREFIX):
            digest = hash_token(credential)
            principal = Principal(await self.credentials.player(digest), credential=digest)
        elif self.settings.platform is not None:
            claims = self.settings.platform.claims(credential)
            principal = principal_of(claims, time.time(), self.settings.platform_namespace)
        else:
            raise _not_ours()
        self.limits.player(principal.player.name)
        if principal.player.platform:
            await self._admit(principal.player)
        return principal

    async def count(self, credential: str, address: str, kind: str) -> None:
        """Count a call of ``kind`` (a field of :class:`AddressLimits`) coming from
        ``address``: against the player of ``credential`` when it names one, else against
        the address. A credential that names nobody is not refused here (the call may not
        need one), but it buys no player's limit either."""
        if credential:
            try:
                await self.authenticate(credential)
                return
            except errors.RefereeError as error:
                if error.kind is errors.Kind.LIMIT:
                    raise
        self.limits.address(address, kind)

    async def optional(self, credential: str) -> Principal | None:
        """:meth:`authenticate`, or ``None`` for a call without a credential (a bad one is
        still refused: a caller who meant to sign in learns that it did not)."""
        return await self.authenticate(credential) if credential else None

    async def _admit(self, player: Player) -> None:
        """Let a platform's player in under its name, the first time this process sees it:
        make it known by name (an ``account`` document with no token hash, which no account
        token matches), so others can reserve it a seat or challenge it (:meth:`get`) and
        nobody can register its name; PERMISSION_DENIED ``PLATFORM_NAME_TAKEN`` when the name
        (in any case) is a player of this server that is not the platform's: an account or a
        house bot (possible only when the platform's names are bare, without a namespace)."""
        if player.name in self._seen:
            return
        call, store = self.repository.call, self.repository.store
        found = await call(store.read_document, ACCOUNT, player.name)
        if found is None:
            created = now_ms()
            body = {"kind": player.kind, "token_hash": "", "created_ms": created, "platform": True}
            writes = [
                DocumentWrite(ACCOUNT, player.name, body, 0),
                DocumentWrite(ACCOUNT_NAME, player.name.lower(), {"name": player.name}, 0),
            ]
            try:
                await call(store.write_documents, writes)
            except RevisionConflict:
                # Another replica wrote it first, or a player has the name in another case.
                found = await self._namesake(player.name)
        if found is not None and not found.body.get("platform", False):
            raise errors.denied(
                "PLATFORM_NAME_TAKEN",
                f"the platform token's 'sub' names {found.key!r}, a player of this server that "
                "is not the platform's (an account or a house bot): the platform must name its "
                "players apart (referee serve --platform-namespace)",
                claim="sub",
            )
        self._seen.add(player.name)
        if len(self._seen) > MAX_SEEN:
            self._seen.clear()  # a bound on memory; forgetting costs one read each

    async def _namesake(self, name: str) -> Document | None:
        """The player whose name is ``name`` in any case (``None``: none, or its index points
        nowhere): the account itself, else the one the lower-case index names."""
        call, store = self.repository.call, self.repository.store
        found = await call(store.read_document, ACCOUNT, name)
        if found is not None:
            return found
        index = await call(store.read_document, ACCOUNT_NAME, name.lower())
        other = index.body.get("name") if index is not None else None
        return await call(store.read_document, ACCOUNT, other) if isinstance(other, str) else None

    # --- accounts ---------------------------------------------------------------------------

    async def register(self, name: str, kind: str = "person") -> tuple[Player, str]:
        """Register: a new account and its token (shown only now), when the server allows
        anyone to register; PERMISSION_DENIED ``REGISTRATION_CLOSED`` otherwise;
        RESOURCE_EXHAUSTED (with a retry delay) past the registrations per minute."""
        if not self.settings.open_registration:
            raise errors.denied(
                "REGISTRATION_CLOSED",
                "this server does not let anyone register: ask its operator for an account "
                "(referee account create NAME)",
            )
        # One bucket for everyone: RESOURCE_EXHAUSTED past it.
        self.limits.everyone(REGISTRATIONS)
        return await self.create_account(name, kind)

    async def create_account(self, name: str, kind: str = "person") -> tuple[Player, str]:
        """A new account named ``name`` and its token (the operator's path: whatever
        ``open_registration`` says). INVALID_ARGUMENT for a bad name or kind;
        FAILED_PRECONDITION ``NAME_TAKEN`` when the name, in any case, has an account."""
        check_name(name)
        if kind not in KINDS:
            raise errors.bad_request("kind", "must be 'person' or 'bot'")
        token = new_account_token()
        digest = hash_token(token)
        created = now_ms()
        body = {"kind": kind, "token_hash": digest, "created_ms": created}
        writes = [
            DocumentWrite(ACCOUNT, name, body, 0, created / 1000),
            DocumentWrite(ACCOUNT_TOKEN, digest, {"name": name}, 0, created / 1000),
            DocumentWrite(ACCOUNT_NAME, name.lower(), {"name": name}, 0, created / 1000),
        ]
        try:
            await self.repository.call(self.repository.store.write_documents, writes)
        except RevisionConflict:
            raise errors.name_taken(name) from None
        log.info("account_created", player=name, kind=kind)
        return Player(name, kind, created), token

    async def revoke(self, name: str) -> Player:
        """``referee account revoke NAME``: the account's token signs in no more, on every
        replica within ``credentials.RECHECK_SECONDS``, and the streams opened with it end
        (UNAUTHENTICATED ``CREDENTIAL_REVOKED``) within the same bound; :meth:`rotate` gives
        the account a new one. NOT_FOUND ``PLAYER_UNKNOWN``; FAILED_PRECONDITION
        ``NOT_AN_ACCOUNT`` for a platform's player (its tokens are the platform's)."""
        player = await self._replace_token(name, "")
        log.info("account_token_revoked", player=name)
        return player

    async def rotate(self, name: str, current: str = "") -> tuple[Player, str]:
        """``referee account rotate NAME``: a new token for the account, shown only now; the
        old one is revoked as by :meth:`revoke`. The same refusals. ``current``: the hash
        of the token the account must have now (RotateToken: the caller's own), else
        UNAUTHENTICATED ``CREDENTIAL_REVOKED`` (it was replaced meanwhile)."""
        token = new_account_token()
        player = await self._replace_token(name, hash_token(token), current)
        log.info("account_token_rotated", player=name)
        return player, token

    async def _replace_token(self, name: str, digest: str, current: str = "") -> Player:
        """One transaction: the account's token hash (``digest``; "" for none), its old
        token's index entry marked revoked, the new one's added, and
        ``credentials.CHANGES`` moved on, so every replica checks its trusted tokens again.
        ``current``: the old token's hash must be this one."""
        call, store = self.repository.call, self.repository.store
        if not is_player_name(name):
            raise errors.player_unknown(name)
        for _attempt in range(TOKEN_CHANGE_RETRIES):
            account = await call(store.read_document, ACCOUNT, name)
            if account is None:
                raise errors.player_unknown(name)
            if account.body.get("platform", False):
                raise errors.not_now(
                    f"{name!r} is a platform's player, not an account of this server: its "
                    "tokens are the platform's to stop signing",
                    "NOT_AN_ACCOUNT",
                )
            now = time.time()
            old = str(account.body.get("token_hash", ""))
            if current and old != current:
                raise revoked()
            body = {**account.body, "token_hash": digest, "token_changed_ms": int(now * 1000)}
            writes = [DocumentWrite(ACCOUNT, name, body, account.revision, now)]
            if old:
                entry = await call(store.read_document, ACCOUNT_TOKEN, old)
                if entry is not None:
                    gone = {"name": name, "revoked_ms": int(now * 1000)}
                    writes.append(DocumentWrite(ACCOUNT_TOKEN, old, gone, entry.revision, now))
            if digest:
                writes.append(DocumentWrite(ACCOUNT_TOKEN, digest, {"name": name}, 0, now))
            kind, key = CHANGES
            writes.append(changed(await call(store.read_document, kind, key)))
            try:
                await call(store.write_documents, writes)
            except RevisionConflict:
                continue  # the account, or the changes' count, moved meanwhile: read again
            self.credentials.moved()  # refused here at once, whatever the store announces
            return _player(name, body)
        raise errors.not_now("the account is being changed; try again", "BUSY")

    async def get(self, name: str) -> Player:
        """The player named ``name``: an account, or a platform's player this server has
        seen a token of; NOT_FOUND ``PLAYER_UNKNOWN``."""
        if not is_player_name(name):
            raise errors.player_unknown(name)
        store = self.repository.store
        found = await self.repository.call(store.read_document, ACCOUNT, name)
        if found is None:
            raise errors.player_unknown(name)
        return _player(found.key, found.body)

    async def accounts(self) -> list[Player]:
        """Every account (and platform player seen), by name."""
        store = self.repository.store
        found = await self.repository.call(store.documents, ACCOUNT)
        return [_player(document.key, document.body) for document in found]


def _player(name: str, body: dict[str, Any]) -> Player:
    if body.get("platform", False):
        return Player(name, str(body.get("kind", "")), platform=True)  # no account: no date
    return Player(name, str(body.get("kind", "")), int(body.get("created_ms", 0)))


def _not_ours() -> errors.RefereeError:
    return errors.unauthenticated(
        "CREDENTIAL_INVALID", "the credential is not a token of an account or platform here"
    )


__all__ = [
    "ACCOUNT",
    "ACCOUNT_NAME",
    "ACCOUNT_TOKEN",
    "ACCOUNT_TOKEN_PREFIX",
    "DEFAULT_PLATFORM_NAMESPACE",
    "DEFAULT_REGISTRATIONS_PER_MINUTE",
    "KINDS",
    "NAME",
    "NAMESPACE",
    "PLATFORM_NAME",
    "Player",
    "PlayerSettings",
    "Players",
    "Principal",
    "check_name",
    "check_scope",
    "is_player_name",
    "new_account_token",
    "principal_of",
]
