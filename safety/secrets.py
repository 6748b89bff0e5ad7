"""Secrets the model never sees: it writes ``<secret>name</secret>``; the executor resolves the value only on
the domains the secret is allowed on; everything written out goes through ``redact``.

Sources, later ones win: ``safety.secrets`` in the config, ``KITE_SECRET_<NAME>`` environment variables
(name lower-cased), ``--secret name=value`` / ``--secret name@example.com=value`` on the command line. A
``name@a.com,b.com`` key limits the secret to those domains and their subdomains.

Redaction guarantee: a value never survives ``redact``, nor do its common transforms (``safety.redact``), nor
the value read as a person or a server reads the text (percent-decoded again and again, combining marks and
format characters removed: ``safety.redact.decoded``);
a value shorter than 6 characters is redacted only as a whole token, one shorter than 3 is refused. To make that hold, a value that is part of the
``<secret>…</secret>`` markup or of a secret's name, or that could straddle the markup, is refused up front.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from kite_browser.agent.base.errors import KiteError, UsageError
from kite_browser.agent.config import SafetyConfig, env_with_prefix
from kite_browser.safety.domains import DomainPolicy
from kite_browser.safety.redact import (
    MIN_LENGTH,
    decoded,
    decoded_value,
    longest_match,
    needs_decoding,
    quick_decoded,
    quick_form,
    quick_needles,
    secret_pattern,
)

LONG_PIECE = 1 << 18
"""``redact_long``: characters of a long text handled at once (at least; a piece ends at a separator run)."""

NAME_RE = r"[A-Za-z_][A-Za-z0-9_.-]*"
PLACEHOLDER_RE = re.compile(rf"<secret>({NAME_RE})</secret>")
_NAME_FULL = re.compile(NAME_RE)
ENV_PREFIX = "KITE_SECRET_"


def _dotless(text: str) -> str:
    """The dotless "ı" read as "i", as the full pattern's case-insensitive match reads it (case folding keeps
    them apart): the quick test never misses what the pattern finds."""
    return text.replace("\u0131", "i")


class UnknownSecretError(KiteError):
    type = "unknown_secret"


class SecretNotAllowedError(KiteError):
    type = "secret_not_allowed"


def placeholder(name: str) -> str:
    return f"<secret>{name}</secret>"


@dataclass(frozen=True)
class Secret:
    name: str
    value: str
    domains: tuple[str, ...] = ()

    def allowed_on(self, url: str) -> bool:
        return not self.domains or DomainPolicy(allowed=self.domains, allow_loopback=False).allows(url)


def _split_key(key: str, where: str) -> tuple[str, tuple[str, ...]]:
    name, at, domains = key.partition("@")
    name = name.strip()
    if not _NAME_FULL.fullmatch(name):
        raise UsageError(
            f"{where}: bad secret name {name!r} (letters, digits, _ . - ; not starting with a digit)"
        )
    doms = tuple(d.strip().lower() for d in domains.split(",") if d.strip()) if domains else ()
    if at and not doms:
        raise UsageError(f"{where}: secret {name!r} has '@' but no domain")
    return name, doms


class SecretStore:
    def __init__(self, secrets: Iterable[Secret] = ()) -> None:
        self._secrets: dict[str, Secret] = {}
        self._hidden: frozenset[str] = frozenset()
        """Names of values hidden by ``hide`` (not the user's secrets: never offered to the model)."""
        for secret in secrets:
            self._secrets[secret.name] = secret
        self._check()
        ordered = sorted(self._secrets.values(), key=lambda s: len(s.value), reverse=True)
        self._names = [s.name for s in ordered]
        alternatives = [f"(?P<s{i}>{secret_pattern(s.value)})" for i, s in enumerate(ordered)]
        self._value_re = re.compile("|".join(alternatives)) if alternatives else None
        read = [f"(?P<s{i}>{secret_pattern(decoded_value(s.value))})" for i, s in enumerate(ordered)]
        self._decoded_re = re.compile("|".join(read)) if read else None
        """The values as ``decoded`` reads them, matched in a text read the same way (the second look)."""
        values = [*(s.value for s in ordered), *(decoded_value(s.value) for s in ordered)]
        needles = [quick_needles(v) for v in dict.fromkeys(values)]
        self._cores = [_dotless(core) for core, _ in needles if core]
        self._literals = [_dotless(lit) for _, lits in needles for lit in lits]
        # a value percent-encoded twice with a mark on each letter is some 16 characters a letter
        self._longest = max((max(longest_match(s.value), 16 * len(s.value)) for s in ordered), default=0)

    # ------------------------------------------------------------ construction

    @classmethod
    def from_sources(
        cls, config: SafetyConfig, cli: Iterable[str] = (), env: Mapping[str, str] | None = None
    ) -> SecretStore:
        env = env_with_prefix(ENV_PREFIX) if env is None else env
        found: dict[str, Secret] = {}
        for key, value in config.secrets.items():
            name, doms = _split_key(key, "config safety.secrets")
            found[name] = cls._make(name, str(value), doms, "config safety.secrets")
        for var, value in env.items():
            if var.startswith(ENV_PREFIX) and len(var) > len(ENV_PREFIX):
                name, doms = _split_key(var[len(ENV_PREFIX) :].lower(), f"environment {var}")
                found[name] = cls._make(name, value, doms, f"environment {var}")
        for item in cli:
            key, sep, value = item.partition("=")
            if not sep:
                raise UsageError("--secret expects name=value or name@domain=value (got no '=')")
            name, doms = _split_key(key, "--secret")
            found[name] = cls._make(name, value, doms, "--secret")
        return cls(found.values())

    @staticmethod
    def _make(name: str, value: str, domains: tuple[str, ...], where: str) -> Secret:
        if len(value) < MIN_LENGTH:
            raise UsageError(
                f"{where}: secret {name!r} is too short ({len(value)} characters; at least {MIN_LENGTH}): "
                "so short a value cannot be told apart from ordinary text"
            )
        try:
            DomainPolicy(allowed=domains)
        except ValueError as exc:
            raise UsageError(f"{where}: secret {name!r}: {exc}") from None
        return Secret(name, value, domains)

    def _markup(self) -> list[str]:
        return [placeholder(n) for n in self._secrets] or [placeholder("x")]

    def _markup_safe(self, value: str) -> bool:
        for mark in self._markup():
            if value in mark:
                return False
            for i in range(1, len(value)):
                if mark.endswith(value[:i]) or mark.startswith(value[i:]):
                    return False
        return True

    def _check(self) -> None:
        marks = "\n".join(self._markup())
        for s in self._secrets.values():
            if not self._markup_safe(s.value) or re.search(secret_pattern(s.value), marks):
                raise UsageError(
                    f"secret {s.name!r}: its value is part of a secret name or of the <secret> markup, "
                    "so it could not be redacted reliably; rename the secret or use another value"
                )

    # ------------------------------------------------------------ use

    def names(self) -> list[str]:
        return sorted(self._secrets if not self._hidden else set(self._secrets) - self._hidden)

    def hide(self, value: str) -> None:
        """Redact ``value`` from now on, like a secret nobody gave (what a person typed while they had the
        browser): never shown as a name the model may use. Too short a value cannot be told from ordinary text
        and is left alone."""
        if len(value) < MIN_LENGTH or self.redact(value) != value:
            return
        name = f"typed_by_person_{len(self._hidden) + 1}"
        try:
            fresh = SecretStore([*self._secrets.values(), Secret(name, value, ())])
        except UsageError:  # the value is part of the <secret> markup: it cannot be told apart
            return
        hidden = self._hidden | {name}
        self.__dict__.update(fresh.__dict__)
        self._hidden = hidden

    def only(self, names: Iterable[str]) -> SecretStore:
        """A store holding just the secrets named (names this store lacks are skipped)."""
        keep = set(names)
        return SecretStore(s for name, s in self._secrets.items() if name in keep)

    def __len__(self) -> int:
        return len(self._secrets)

    def resolve(self, text: str, url: str) -> str:
        """Replace every placeholder with its value, if the secret is allowed on ``url``."""

        def sub(match: re.Match[str]) -> str:
            name = match.group(1)
            secret = self._secrets.get(name)
            if secret is None:
                known = ", ".join(self.names()) or "none"
                raise UnknownSecretError(f"unknown secret {name!r} (known secrets: {known})", secret=name)
            if not secret.allowed_on(url):
                raise SecretNotAllowedError(
                    f"secret {name!r} may only be used on {', '.join(secret.domains)}, not on this page",
                    secret=name,
                )
            return secret.value

        return PLACEHOLDER_RE.sub(sub, text)

    def redact(self, text: str) -> str:
        """Every secret value and its common transforms (``safety.redact``) -> ``<secret>name</secret>``."""
        if self._value_re is None or not text or not self.might_contain(text):
            return text  # the quick test first: the full pattern is some 10x slower on a page's text
        out = self._value_re.sub(self._placeholder_for, text)
        if needs_decoding(out) and self._might_contain(quick_decoded(out)):
            return self._redact_decoded(out)
        return out

    def _redact_decoded(self, text: str) -> str:
        """The second look: the text read as ``decoded`` reads it, and each span of the text as written that a
        value read the same way came from replaced by its placeholder."""
        assert self._decoded_re is not None
        view, spans = decoded(text)
        # a span ends where the next character read begins: the marks after the value's last letter go too
        hits = [
            (
                spans[m.start()][0],
                spans[m.end()][0] if m.end() < len(spans) else len(text),
                self._placeholder_for(m),
            )
            for m in self._decoded_re.finditer(view)
            if m.end() > m.start()
        ]
        out: list[str] = []
        last = 0
        for start, end, mark in hits:
            if start < last:  # overlaps the span before (two values in one run): that placeholder covers both
                last = max(last, end)
                continue
            out += [text[last:start], mark]
            last = end
        out.append(text[last:])
        return "".join(out)

    def might_contain(self, text: str) -> bool:
        """A quick test for large texts (a downloaded file): False means ``redact`` leaves ``text`` as it is.
        The letters and digits of a value, in the text stripped of separators and folded, or one of its
        literal or base64 forms in the case folded text (C-speed searches, where the full pattern takes
        seconds per MB)."""
        if self._value_re is None or not text:
            return False
        if self._might_contain(text):
            return True
        return needs_decoding(text) and self._might_contain(quick_decoded(text))

    def _might_contain(self, text: str) -> bool:
        folded = _dotless(text.casefold())
        if any(lit in folded for lit in self._literals):
            return True
        if not self._cores:
            return False
        bare = _dotless(quick_form(text))
        return any(core in bare for core in self._cores)

    def redact_long(self, text: str, piece: int = LONG_PIECE) -> str:
        """``redact`` for a long text (a downloaded file): only the runs of pieces that pass ``might_contain``
        meet the full pattern (seconds per MB). Each piece is tested with as much of its neighbours on either
        side as the longest match, so a match that reaches into a piece makes it pass: no match straddles a
        piece that passed and one that did not."""
        w = self._longest
        hits = [self.might_contain(text[max(0, s - w) : s + piece + w]) for s in range(0, len(text), piece)]
        out, i = [], 0
        while i < len(hits):
            j = i
            while j < len(hits) and hits[j] == hits[i]:
                j += 1
            part = text[i * piece : j * piece]
            out.append(self.redact(part) if hits[i] else part)
            i = j
        return "".join(out)

    def _placeholder_for(self, match: re.Match[str]) -> str:
        return placeholder(self._names[int((match.lastgroup or "s0")[1:])])

    def redact_obj(self, obj: Any) -> Any:
        """Deep redaction of dicts (keys and values), lists, tuples, sets and pydantic models."""
        if self._value_re is None:
            return obj
        if isinstance(obj, str):
            return self.redact(obj)
        if isinstance(obj, BaseModel):
            return self.redact_obj(obj.model_dump(mode="json"))
        if isinstance(obj, Mapping):
            return {self.redact_obj(k): self.redact_obj(v) for k, v in obj.items()}
        if isinstance(obj, list | tuple | set | frozenset):
            return type(obj)(self.redact_obj(v) for v in obj)
        if isinstance(obj, bytes):
            return self.redact(obj.decode("utf-8", "replace")).encode("utf-8")
        return obj

    @staticmethod
    def is_placeholder(text: str) -> bool:
        """True if ``text`` is exactly one ``<secret>name</secret>``."""
        return PLACEHOLDER_RE.fullmatch(text) is not None
