"""The patterns that find a secret's value in text, including the common ways a page or a URL transforms it.

For a value of at least ``WHOLE_TOKEN_BELOW`` characters, one case-insensitive pattern matches:

* the value's letters and digits as NFKC folds them, in any case, with up to four characters that are not
  letters or digits between them (spaces, ``-``, ``/``, zero-width spaces, fullwidth punctuation): "HUNTER22",
  "h u n t e r 2 2", "h/u/n/t/e/r/2/2", "hun\u200bter22", fullwidth "ｈｕｎｔｅｒ２２", "4242-4242-4242-4242" for
  "4242 4242 4242 4242". Each letter or digit of the value becomes the class of every code point whose NFKC
  case fold is that character (fullwidth, mathematical, circled, superscript forms), so the match runs on the
  text as written and the whole span is replaced;
* its URL encodings (``%XX`` and ``+`` for spaces) and HTML encodings (``&amp;`` and numeric entities);
* its base64 (standard and URL-safe), on its own or inside a longer encoded string (each of the three byte
  alignments, so ``btoa("user:" + password)`` is caught; the one or two characters at the edges of such a
  run, which also carry neighbouring bytes, are left).

A second look reads the text as a person or a server would (``decoded``): percent-encoding decoded, again and
again ("%2568" -> "%68" -> "h", each letter encoded or not), and every combining mark (Mn, after NFKD) and
format character (Cf: U+2063 INVISIBLE SEPARATOR, bidi controls) removed; the value is read the same way.
Where the pattern matches there, the span of the text as written that it came from is replaced: a value
written "h%75%6E%74er22", "h\u0301u\u0301nter22" or "%68%CC%81..." is found and goes whole.

A shorter value ("wrong", "123", "12/30") would rewrite ordinary words and numbers, so it is matched only
exactly (with its URL encodings) and only as a whole token: not inside a longer word or number. A value
shorter than ``MIN_LENGTH`` is refused.

What no pattern catches is written in docs/safety.md (Secrets): encryption or hashing, other encodings (hex,
rot13, reversed, JSON ``\\u`` escapes), a value split across separate strings, or a page that shows part of it.
"""

from __future__ import annotations

import base64
import codecs
import html
import re
import unicodedata
from functools import cache
from urllib.parse import quote, quote_plus, unquote

from kite_browser.safety.text import unmark

MIN_LENGTH = 3
WHOLE_TOKEN_BELOW = 6
SEPARATORS = r"[\W_]{0,4}"
"""Between two letters or digits of a value: up to four characters that are neither (any script's spaces,
punctuation, symbols, zero-width and bidi format characters)."""
MIN_B64_CORE = 8
_FOLD_SCAN_END = 0x20000
"""Code points scanned for NFKC forms of letters and digits: the BMP and the SMP (mathematical alphanumerics,
enclosed forms)."""


def fold(text: str) -> str:
    """NFKC, then case folded: the form values and text are compared in."""
    return unicodedata.normalize("NFKC", text).casefold()


@cache
def _forms() -> dict[str, str]:
    """For each single letter or digit, every other code point whose ``fold`` is that one character."""
    groups: dict[str, list[str]] = {}
    for cp in range(_FOLD_SCAN_END):
        if 0xD800 <= cp <= 0xDFFF:
            continue
        ch = chr(cp)
        folded = fold(ch)
        if len(folded) == 1 and folded != ch and folded.isalnum():
            groups.setdefault(folded, []).append(ch)
    return {k: "".join(v) for k, v in groups.items()}


def _char_class(c: str) -> str:
    """A regex class for one folded letter or digit: itself, its upper case and every form that folds to it."""
    members = sorted({c, c.upper() if len(c.upper()) == 1 else c, *_forms().get(c, "")})
    return "[" + "".join(re.escape(m) for m in members) + "]"


def letters_and_digits(value: str) -> str:
    """The folded value with everything that is not a letter or digit removed (what separators cannot hide)."""
    return "".join(c for c in fold(value) if c.isalnum())


def _b64_cores(value: str) -> list[str]:
    """Base64 runs that any text containing ``value`` encodes to, for each of the 3 byte alignments."""
    raw = value.encode("utf-8")
    out: set[str] = set()
    for shift in range(3):
        enc = base64.b64encode(b"\0" * shift + raw).decode()
        whole = enc if shift == 0 else ""
        end = 4 * ((shift + len(raw)) // 3)
        core = enc[4 if shift else 0 : end]
        if shift == 0 and len(raw) % 3 == 0:
            core = enc
        for text in (whole.rstrip("="), core):
            if len(text) >= MIN_B64_CORE:
                out.add(text)
                out.add(text.replace("+", "-").replace("/", "_"))
    return sorted(out, key=len, reverse=True)


def _literal_forms(value: str) -> list[str]:
    forms = {
        value,
        quote(value, safe=""),
        quote(value),
        quote_plus(value),
        html.escape(value),
        "".join(f"&#{ord(c)};" for c in value),
        "".join(f"&#x{ord(c):x};" for c in value),
    }
    return sorted(forms, key=len, reverse=True)


_NON_WORD = re.compile(r"[\W_]+")


def longest_match(value: str) -> int:
    """An upper bound on the length of a match of ``secret_pattern(value)``: its longest literal or encoded
    form, or its letters and digits with four separators between each two."""
    forms = [value, quote(value, safe=""), quote_plus(value), *_literal_forms(value), *_b64_cores(value)]
    return max([5 * len(letters_and_digits(value)), *map(len, forms)])


def quick_needles(value: str) -> tuple[str | None, list[str]]:
    """What a match of ``secret_pattern(value)`` cannot lack, for a quick first test of a large text: the
    folded letters and digits (found in ``quick_form`` of the text), or one of the literal and base64 forms
    (found in the case folded text)."""
    if len(value) < WHOLE_TOKEN_BELOW:
        return None, sorted({f.casefold() for f in (value, quote(value, safe=""), quote_plus(value))})
    literals = sorted({f.casefold() for f in (*_literal_forms(value), *_b64_cores(value))})
    chars = letters_and_digits(value)
    return (chars if len(chars) >= WHOLE_TOKEN_BELOW else None), literals


_ASCII_NON_ALNUM = bytes(b for b in range(128) if not chr(b).isalnum())


def quick_form(text: str) -> str:
    """``text`` without anything that is not a letter or digit, then folded: a value spelled out with
    separators or look-alike letters is a plain substring of it. Fast on large texts: the ASCII separators go
    as bytes (they never occur inside a UTF-8 sequence), so the regex meets only the few others."""
    raw = text.encode("utf-8", "surrogateescape").translate(None, _ASCII_NON_ALNUM)
    if raw.isascii():
        return raw.decode("ascii").lower()
    return fold(_NON_WORD.sub("", raw.decode("utf-8", "surrogateescape")))


def secret_pattern(value: str) -> str:
    """A regular expression (no capturing groups) matching ``value`` and its common transforms."""
    if len(value) < WHOLE_TOKEN_BELOW:
        forms = sorted({value, quote(value, safe=""), quote_plus(value)}, key=len, reverse=True)
        before = r"(?<!\w)" if re.match(r"\w", value) else ""
        after = r"(?!\w)" if re.search(r"\w$", value) else ""
        return before + "(?:" + "|".join(map(re.escape, forms)) + ")" + after
    alternatives = [*map(re.escape, _literal_forms(value)), *map(re.escape, _b64_cores(value))]
    chars = letters_and_digits(value)
    if (
        len(chars) >= WHOLE_TOKEN_BELOW
    ):  # folded, spaced-out / re-separated forms, only for values long enough
        alternatives.append(SEPARATORS.join(_char_class(c) for c in chars))
    return "(?i:" + "|".join(alternatives) + ")"


_PERCENT_RUN = re.compile(r"(?:%[0-9A-Fa-f]{2})+")
MAX_DECODE_ROUNDS = 5
"""Rounds of percent-decoding a text gets (``%25`` encodes ``%``: a value encoded twice needs two)."""
_UNSEEN_CATEGORIES = frozenset({"Mn", "Cf"})


@cache
def _unmarked(ch: str) -> str:
    """One character without its combining marks and format characters (NFKD, Mn and Cf removed); the
    character itself when it has none (a Hangul syllable or a fullwidth letter stays as it is)."""
    if unicodedata.category(ch) in _UNSEEN_CATEGORIES:
        return ""
    parts = unicodedata.normalize("NFKD", ch)
    if not any(unicodedata.category(c) in _UNSEEN_CATEGORIES for c in parts):
        return ch
    return "".join(c for c in parts if unicodedata.category(c) not in _UNSEEN_CATEGORIES)


def needs_decoding(text: str) -> bool:
    """Whether ``decoded`` reads ``text`` otherwise than it is written: a percent-encoded byte, a combining
    mark or a format character in it (a quick test: ASCII text without ``%XX`` never does)."""
    if _PERCENT_RUN.search(text):
        return True
    if text.isascii():
        return False
    return any(_unmarked(ch) != ch for ch in set(text) if not ch.isascii())


Spans = list[tuple[int, int]]


def _percent_round(text: str, spans: Spans) -> tuple[str, Spans]:
    """One round of percent-decoding (UTF-8; a byte that is not UTF-8 stays as written), each character out
    with the span of the original text it came from."""
    out: list[str] = []
    out_spans: Spans = []
    last = 0
    for m in _PERCENT_RUN.finditer(text):
        out.append(text[last : m.start()])
        out_spans.extend(spans[last : m.start()])
        decoder = codecs.getincrementaldecoder("utf-8")("strict")
        begin = m.start()
        for k in range(m.start(), m.end(), 3):
            try:
                chars = decoder.decode(bytes([int(text[k + 1 : k + 3], 16)]))
            except UnicodeDecodeError:  # not UTF-8: left as written
                decoder.reset()
                out.append(text[begin : k + 3])
                out_spans.extend(spans[begin : k + 3])
                begin = k + 3
                continue
            if chars:
                span = (spans[begin][0], spans[k + 2][1])
                out.append(chars)
                out_spans.extend([span] * len(chars))
                begin = k + 3
        if begin < m.end():  # an incomplete sequence at the end of the run: as written
            out.append(text[begin : m.end()])
            out_spans.extend(spans[begin : m.end()])
        last = m.end()
    out.append(text[last:])
    out_spans.extend(spans[last:])
    return "".join(out), out_spans


def decoded(text: str) -> tuple[str, Spans]:
    """``text`` as read: percent-decoded (up to ``MAX_DECODE_ROUNDS`` times), then without combining marks
    and format characters; with, for each character of it, the span ``(start, end)`` of ``text`` it came
    from."""
    spans: Spans = [(i, i + 1) for i in range(len(text))]
    for _ in range(MAX_DECODE_ROUNDS):
        if not _PERCENT_RUN.search(text):
            break
        before = text
        text, spans = _percent_round(text, spans)
        if text == before:  # only bytes that are not UTF-8 were left
            break
    out: list[str] = []
    out_spans: Spans = []
    for ch, span in zip(text, spans, strict=True):
        plain = ch if ch.isascii() else _unmarked(ch)
        out.append(plain)
        out_spans.extend([span] * len(plain))
    return "".join(out), out_spans


def quick_decoded(text: str) -> str:
    """``decoded(text)`` without the spans, at C speed, for the quick test (``SecretStore.might_contain``):
    it may read a little more than ``decoded`` (a byte that is not UTF-8 becomes U+FFFD), never less."""
    for _ in range(MAX_DECODE_ROUNDS):
        if not _PERCENT_RUN.search(text):
            break
        text = unquote(text, errors="replace")
    return unmark(text)


def decoded_value(value: str) -> str:
    """A secret's value read as ``decoded`` reads a text (what its second-look pattern is made from)."""
    return decoded(value)[0]
