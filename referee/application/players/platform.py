"""A platform's signed tokens (JWT): players this server has no account for.

A platform with its own users configures the server with its public key (a PEM file) or its
key set (a JWKS file) and hands each of its users a short-lived token it signed; the referee
checks the signature, the expiry and the optional issuer/audience and reads who the player is
from the claims (docs/embedding.md, "Platform tokens"):

- ``sub``: the player's name (required; the same rule as account names);
- ``exp``: required, at most :data:`MAX_LIFETIME` seconds after ``iat`` (or after now when
  the token has no ``iat``): a leaked token is worth little for long;
- ``kind``: ``"person"`` or ``"bot"`` (optional);
- ``game_id`` and ``seat``: the token only serves that game (and seat) (optional);
- ``role: "spectator"``: the token only watches (optional).

Only asymmetric algorithms are accepted (RS256, ES256, EdDSA): the server holds no secret
that could sign a token, and each key is used with the one algorithm its type implies, so a
token cannot pick a weaker one (the classic "alg" confusion). Nothing here ever puts a token,
or a part of one, in an error or a log line.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jwt
import structlog
from cryptography.hazmat.primitives.asymmetric import ec, ed448, ed25519, rsa
from cryptography.hazmat.primitives.serialization import load_pem_public_key

from referee.application.tables import errors
from referee.application.tables.errors import RefereeError

log = structlog.get_logger("referee")

#: The algorithms a platform may sign with.
ALGORITHMS = ("RS256", "ES256", "EdDSA")
#: Longest a token may live (``exp`` minus ``iat``), in seconds.
MAX_LIFETIME = 24 * 3600
#: Least time between two looks at whether the JWKS file changed, in seconds.
RELOAD_SECONDS = 10.0
#: Clock difference between the platform and the referee that is forgiven, in seconds.
LEEWAY = 10.0


def _algorithm_of(key: Any) -> str:
    """The one algorithm a public key of this type is used with."""
    if isinstance(key, rsa.RSAPublicKey):
        return "RS256"
    if isinstance(key, ec.EllipticCurvePublicKey):
        if key.curve.name != "secp256r1":
            raise ValueError(f"an EC key must be on P-256 for ES256, not {key.curve.name}")
        return "ES256"
    if isinstance(key, ed25519.Ed25519PublicKey | ed448.Ed448PublicKey):
        return "EdDSA"
    raise ValueError(f"a platform key must be RSA, EC P-256 or Ed25519, not {type(key).__name__}")


@dataclass(frozen=True)
class PlatformKeys:
    """The keys a platform signs with, each with its algorithm, and what its tokens must say.

    ``keys``: ``{kid: (algorithm, key)}``; ``""`` is the key of a PEM file (a token's ``kid``
    is then not looked at) or of a key set's only key without a ``kid``."""

    keys: dict[str, tuple[str, Any]]
    issuer: str = ""
    audience: str = ""
    #: The JWKS file the keys came from: read again when it changed (looked at, at most
    #: every :data:`RELOAD_SECONDS`, when a token comes), so the platform can rotate its
    #: keys without a restart: it adds the new key to the file before signing with it, and
    #: removes the old one when its tokens have expired.
    source: str = ""
    _reloaded: dict[str, float] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def from_pem(cls, data: bytes, issuer: str = "", audience: str = "") -> PlatformKeys:
        key = load_pem_public_key(data)
        return cls({"": (_algorithm_of(key), key)}, issuer, audience)

    @classmethod
    def from_jwks(cls, data: bytes | str, issuer: str = "", audience: str = "") -> PlatformKeys:
        """A JWKS document (``{"keys": [...]}``): its signing keys of the accepted types."""
        document = json.loads(data)
        if not isinstance(document, dict):
            raise ValueError("a JWKS file holds a JSON object with a 'keys' list")
        keys: dict[str, tuple[str, Any]] = {}
        for entry in document.get("keys", []):
            if entry.get("use", "sig") != "sig":
                continue  # an encryption key signs nothing
            try:
                key = jwt.PyJWK(entry).key
            except jwt.PyJWTError as error:  # e.g. a key type PyJWT cannot read
                raise ValueError(f"JWKS key {entry.get('kid', '')!r}: {error}") from None
            algorithm = _algorithm_of(key)
            stated = entry.get("alg")
            if stated is not None and stated != algorithm:
                raise ValueError(f"JWKS key {entry.get('kid', '')!r}: alg {stated} is not accepted")
            keys[str(entry.get("kid", ""))] = (algorithm, key)
        if not keys:
            raise ValueError("the JWKS file has no RSA, EC P-256 or Ed25519 signing key")
        return cls(keys, issuer, audience)

    @classmethod
    def from_files(
        cls, pem: str = "", jwks: str = "", issuer: str = "", audience: str = ""
    ) -> PlatformKeys | None:
        """The keys of ``--platform-key FILE`` or ``--platform-jwks FILE`` (None: neither);
        raises ``ValueError`` (or ``OSError``) when the file cannot serve."""
        if pem and jwks:
            raise ValueError("give --platform-key or --platform-jwks, not both")
        if pem:
            return cls.from_pem(Path(pem).read_bytes(), issuer, audience)
        if jwks:
            keys = cls.from_jwks(Path(jwks).read_bytes(), issuer, audience).keys
            return cls(keys, issuer, audience, source=jwks, _reloaded=_stamp(jwks))
        if issuer or audience:
            raise ValueError("--platform-issuer/--platform-audience need a platform key")
        return None

    def claims(self, token: str) -> dict[str, Any]:
        """The claims of a token this platform signed, still valid and for this server;
        raises UNAUTHENTICATED with the reason. What the claims mean is
        :mod:`referee.application.players.accounts`' business."""
        algorithm, key = self._key_for(token)
        try:
            claims: dict[str, Any] = jwt.decode(
                token,
                key,
                algorithms=[algorithm],
                issuer=self.issuer or None,
                audience=self.audience or None,
                leeway=LEEWAY,
                # An "aud" claim is checked even when no audience is configured (then any
                # "aud" is refused): a token meant for another service is not one for us.
                options={"require": ["exp", "sub"]},
            )
        except jwt.ExpiredSignatureError:
            raise errors.unauthenticated(
                "TOKEN_EXPIRED", "the platform token has expired"
            ) from None
        except (jwt.InvalidSignatureError, jwt.InvalidAlgorithmError):
            raise _signature() from None
        except jwt.MissingRequiredClaimError as error:
            raise invalid_claim(error.claim, "is required") from None
        except jwt.InvalidIssuerError:
            raise invalid_claim("iss", "is not the configured issuer") from None
        except jwt.InvalidAudienceError:
            raise invalid_claim("aud", "does not name this server's audience") from None
        except jwt.ImmatureSignatureError:
            raise invalid_claim("nbf", "is in the future") from None
        except jwt.PyJWTError:
            # Malformed: bad base64, JSON, a non-numeric exp... (the library's text may
            # quote the token's parts, so it is not passed on).
            raise errors.unauthenticated(
                "CREDENTIAL_INVALID", "the credential is not a well-formed platform token"
            ) from None
        return claims

    def _key_for(self, token: str) -> tuple[str, Any]:
        try:
            header = jwt.get_unverified_header(token)
        except jwt.PyJWTError:
            raise errors.unauthenticated(
                "CREDENTIAL_INVALID", "the credential is neither an account token nor a JWT"
            ) from None
        if self.source:
            self._reload()
        if "" in self.keys and len(self.keys) == 1:
            found = self.keys[""]
        else:
            kid = header.get("kid")
            if not isinstance(kid, str) or kid not in self.keys:
                raise _signature("no key of the platform has the token's kid")
            found = self.keys[kid]
        if header.get("alg") != found[0]:
            raise _signature(f"the platform's key signs with {found[0]} only")
        return found

    def _reload(self) -> None:
        """Read the JWKS file again if it changed (a file that no longer serves is logged
        and the keys kept: a bad edit must not sign everybody out)."""
        now = time.monotonic()
        if now - self._reloaded.get("checked", 0.0) < RELOAD_SECONDS:
            return
        self._reloaded["checked"] = now
        try:
            changed = _stamp(self.source)["mtime"] != self._reloaded.get("mtime")
            if changed:
                fresh = PlatformKeys.from_jwks(Path(self.source).read_bytes()).keys
        except (OSError, ValueError) as error:
            log.warning("platform_keys_unreadable", file=self.source, error=str(error))
            return
        if changed:
            self.keys.clear()
            self.keys.update(fresh)
            self._reloaded.update(_stamp(self.source))
            log.info("platform_keys_reloaded", file=self.source, keys=len(fresh))


def _stamp(path: str) -> dict[str, float]:
    """When ``path`` last changed (its mtime in ns), as :class:`PlatformKeys` keeps it."""
    return {"mtime": float(os.stat(path).st_mtime_ns)}


def _signature(why: str = "the platform token's signature does not verify") -> RefereeError:
    return errors.unauthenticated("TOKEN_SIGNATURE", why)


def invalid_claim(claim: str, why: str) -> RefereeError:
    return errors.unauthenticated(
        "CREDENTIAL_INVALID", f"the platform token's {claim!r} claim {why}", claim=claim
    )


__all__ = ["ALGORITHMS", "LEEWAY", "MAX_LIFETIME", "PlatformKeys", "invalid_claim"]
