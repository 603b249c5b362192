"""A platform for the tests: key pairs of each accepted type and the tokens it signs."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa

from referee.application.players.platform import PlatformKeys


@dataclass
class Platform:
    """One signing key and its public half, as a platform would hold them."""

    algorithm: str
    private: Any
    kid: str = ""

    @classmethod
    def new(cls, algorithm: str = "EdDSA", kid: str = "") -> Platform:
        private: Any
        if algorithm == "RS256":
            private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        elif algorithm == "ES256":
            private = ec.generate_private_key(ec.SECP256R1())
        else:
            private = ed25519.Ed25519PrivateKey.generate()
        return cls(algorithm, private, kid)

    @property
    def public_pem(self) -> bytes:
        return bytes(
            self.private.public_key().public_bytes(
                serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
            )
        )

    def jwk(self) -> dict[str, Any]:
        jwk = _jwk_of(self.private.public_key(), self.algorithm)
        if self.kid:
            jwk["kid"] = self.kid
        return jwk

    def keys(self, issuer: str = "", audience: str = "") -> PlatformKeys:
        return PlatformKeys.from_pem(self.public_pem, issuer, audience)

    def token(self, sub: str = "ada", lifetime: float = 300.0, **claims: Any) -> str:
        now = time.time()
        payload: dict[str, Any] = {"sub": sub, "iat": int(now), "exp": int(now + lifetime)}
        payload.update(claims)
        payload = {k: v for k, v in payload.items() if v is not None}
        headers = {"kid": self.kid} if self.kid else None
        return jwt.encode(payload, self.private, algorithm=self.algorithm, headers=headers)


def _jwk_of(public: Any, algorithm: str) -> dict[str, Any]:
    """The public key as a JWK (PyJWT's algorithm classes write them)."""
    from jwt.algorithms import ECAlgorithm, OKPAlgorithm, RSAAlgorithm

    writer: Any = {"RS256": RSAAlgorithm, "ES256": ECAlgorithm, "EdDSA": OKPAlgorithm}[algorithm]
    jwk: dict[str, Any] = json.loads(writer.to_jwk(public))
    jwk["use"] = "sig"
    return jwk


def jwks(*platforms: Platform) -> str:
    return json.dumps({"keys": [p.jwk() for p in platforms]})
