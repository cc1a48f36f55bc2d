"""Who may do what over SSH: guests, keyed users and the authorized keys file (ARCHITECTURE.md,
serving over SSH).

* With no ``--authorized-keys`` every login is a **guest**, whatever the user name, and no key is
  asked for.
* With one, the user name ``guest`` still logs in with no key (a guest); any other name must
  prove a key listed in the file (OpenSSH ``authorized_keys`` format, option-prefixed lines such
  as ``from="10.0.0.0/8",restrict ssh-ed25519 AAAA… alice`` included; ``from=`` is honoured
  against the client's address) and is a **keyed user**, who may post.

SSH clients send a first request with no key at all (``none``), and whether that request
succeeds has to be decided before any key is seen: so the user name decides whether a key is
asked for, and a client whose keys are all unlisted is refused rather than quietly made a guest
(it would otherwise turn whichever key it offered first into the role). Passwords and
keyboard-interactive are never offered.

The role is decided once authentication has completed, from the final user name and the key
whose signature completed it: a client may change its user name between attempts, and a key is
looked up before its signature is checked.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from tui.errors import RoostError
from tui.ssh.mode import GUEST, KEYED

if TYPE_CHECKING:
    import asyncssh

__all__ = ["GUEST_NAME", "AuthorizedKeys", "AuthorizedKeysError", "Identity"]

#: The user name that never needs a key.
GUEST_NAME = "guest"


class AuthorizedKeysError(RoostError):
    """The authorized keys file cannot be used; the message names the file and the line."""


@dataclass(frozen=True)
class Identity:
    """Who a session belongs to: the role, the user name given, and for a keyed user the
    fingerprint of their key (their outbox is kept under it)."""

    role: str
    username: str
    fingerprint: str | None = None

    @property
    def folder_name(self) -> str:
        """A file name that stands for this keyed user (their key, not the name they typed:
        any keyed user may type any name)."""
        if self.fingerprint is None:
            return GUEST
        digest = self.fingerprint.split(":", 1)[-1]
        return "key-" + digest.replace("/", "_").replace("+", "-").rstrip("=")


class AuthorizedKeys:
    """The keys of keyed users, read once when the server starts."""

    def __init__(self, entries: asyncssh.SSHAuthorizedKeys | None, count: int, source: str):
        self._entries = entries
        self.count = count
        self.source = source

    @classmethod
    def none(cls) -> AuthorizedKeys:
        """No file: everyone is a guest."""
        return cls(None, 0, "")

    @classmethod
    def read(cls, path: Path) -> AuthorizedKeys:
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise AuthorizedKeysError(f"{path}: authorized keys file not found") from None
        except UnicodeDecodeError as exc:
            raise AuthorizedKeysError(f"{path}: not UTF-8 text (byte {exc.start})") from None
        except OSError as exc:
            raise AuthorizedKeysError(f"{path}: cannot be read ({exc.strerror})") from None
        return cls.parse(text, str(path))

    @classmethod
    def parse(cls, text: str, source: str = "authorized keys") -> AuthorizedKeys:
        """Every line a key (with or without options), a comment or blank; anything else is an
        error naming the line: a key silently skipped would lock its owner out unseen."""
        import asyncssh  # deferred: off the start path

        count = 0
        for number, line in enumerate(text.splitlines(), 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            try:
                asyncssh.import_authorized_keys(line)
            except (ValueError, asyncssh.KeyImportError) as exc:
                shown = ascii(line[:40]) + ("…" if len(line) > 40 else "")
                raise AuthorizedKeysError(
                    f"{source}:{number}: not a public key line ({exc}): {shown}"
                ) from None
            count += 1
        if not count:
            raise AuthorizedKeysError(f"{source}: no keys in it (an empty file lets no one post)")
        return cls(asyncssh.import_authorized_keys(text), count, source)

    @property
    def enabled(self) -> bool:
        return self._entries is not None

    def needs_key(self, username: str) -> bool:
        """Whether ``username`` must prove a key (False: admitted as a guest at once)."""
        return self.enabled and username != GUEST_NAME

    def lists(self, key: asyncssh.SSHKey, address: str) -> bool:
        """Whether ``key`` may log in from ``address`` (its line's ``from=`` included)."""
        if self._entries is None:
            return False
        try:
            return self._entries.validate(key, address, address) is not None
        except ValueError:  # an address the patterns cannot read
            return False

    def identity(
        self, username: str, key: asyncssh.SSHKey | None, key_username: str | None, address: str
    ) -> Identity:
        """The role of a completed login: keyed only when the key whose signature completed it
        was offered for the final user name and is listed."""
        if (
            self.needs_key(username)
            and key is not None
            and key_username == username
            and self.lists(key, address)
        ):
            return Identity(KEYED, username, key.get_fingerprint("sha256"))
        return Identity(GUEST, username)
