"""What a person reads: text folded for the policy's matching, and every reading of an element's label.

A page can make the accessible name say one thing and the screen another (``aria-label="Continue"`` on a
"Pay now" button), hide characters inside a word (zero-width spaces, bidi controls), or draw letters in
compatibility forms (fullwidth "Ｐａｙ") or small capitals ("ᴘᴀʏ ɴᴏᴡ", which NFKC keeps), or stack combining marks
on its letters ("P̸a̷y̶ n̴o̵w̷"). ``fold`` undoes what can be undone: Unicode NFKC, small capitals read as their
letters, case folded, then ``unmark``: every combining mark (category Mn, after NFKD) and every format
character (category Cf: zero-width, bidi, soft hyphen, the invisible separator U+2063) removed, whitespace
collapsed. The lexicon's words are folded the same way (``unmark`` of each rule), so "bestätigen" in a rule
matches "bestätigen", "bestatigen" and "besta\u0308tigen" on a page alike.
``readings`` gives every text a person or a screen reader gets for an element; the policy judges each and
the most sensitive one wins.

Look-alike letters from other scripts that NFKC keeps apart (Greek "Ρ" in "Ρay", Cyrillic "е" in "Dеlete")
are undone by ``skeleton``: the folded text with each common Greek, Cyrillic, Armenian or Latin-extension
look-alike of a Latin letter replaced by that letter. ``folded_forms`` gives both, so a rule written in
Greek or Cyrillic still matches the plain fold.

A right-to-left override character draws the letters after it reversed: ``drawn`` gives that order, and
``folded_forms`` judges it too. CSS that hides letters (font-size 0, transparent) or reverses them (a bidi
override) is undone by the snapshot, which reads the text as drawn into the ``shown`` reading.

Not undone: rarer look-alikes (Cherokee, mathematical symbols outside NFKC), text drawn in images or canvas
without alt text, and CSS that reorders letters by other means (flex order, absolute positions).
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from kite_browser.agent.browser.observation import Element

READING_ATTRS = ("text", "shown", "title", "value", "alt", "control", "over")
"""Element.attrs keys the snapshot fills for anything that takes a click (buttons, links, clickable divs,
labels) besides the accessible name: the rendered text (with CSS ::before/::after/::marker content at any
depth), the text a person sees when it differs (invisible text nodes left out, CSS bidi overrides drawn), the
title, an input button's value, an image button's alt, the label of the button a <label> clicks, and text
that an overlay which lets the pointer through (``pointer-events: none``) draws over it."""
_SPACE = re.compile(r"\s+")
_LOOKALIKES = {
    "a": "аɑα",  # Cyrillic a, Latin alpha, Greek alpha
    "b": "вьβ",
    "c": "сϲ",
    "d": "ԁ",
    "e": "еёє",
    "g": "ɡ",
    "h": "һнհ",
    "i": "іїιıӏ",
    "j": "јϳ",
    "k": "кκ",
    "l": "ⅼ",
    "m": "м",
    "n": "ηп",
    "o": "оοօσ",
    "p": "рρ",
    "q": "ԛ",
    "s": "ѕ",
    "t": "тτ",
    "u": "υսμ",
    "v": "νѵ",
    "w": "ԝω",
    "x": "хχ",
    "y": "уүγ",
}
_SKELETON = str.maketrans({ch: latin for latin, chars in _LOOKALIKES.items() for ch in chars})


def _small_capitals() -> dict[int, str]:
    """Small capital letters ("ᴘᴀʏ ɴᴏᴡ"), which NFKC keeps as they are, mapped to the letter they draw: every
    code point Unicode names LATIN LETTER SMALL CAPITAL X in the blocks that hold them (modifier forms
    such as U+1DA6 become one of these under NFKC first)."""
    table: dict[int, str] = {}
    for lo, hi in ((0x0250, 0x02B0), (0x1D00, 0x1DC0), (0xA720, 0xA800), (0x1DF00, 0x1E000)):
        for cp in range(lo, hi):
            m = re.fullmatch(r"LATIN LETTER SMALL CAPITAL ([A-Z]|AE|OE|OU)", unicodedata.name(chr(cp), ""))
            if m:
                table[cp] = m.group(1).lower()
    return table


_FOLD = _small_capitals()


_UNSEEN_CATEGORIES = frozenset({"Mn", "Cf"})


def _is_unseen(ch: str) -> bool:
    return not ch.isascii() and unicodedata.category(ch) in _UNSEEN_CATEGORIES


def unmark(text: str) -> str:
    """``text`` without combining marks and format characters: NFKD, every Mn and Cf character removed, then
    NFC (so Hangul syllables, split into their letters by NFKD, come back whole). "Pay" with a combining
    long stroke on each letter, "P\u2063ay" and "Páy" all read "Pay"."""
    if text.isascii():
        return text
    text = unicodedata.normalize("NFKD", text)
    if unseen := [ch for ch in set(text) if _is_unseen(ch)]:  # a class of the few there: C speed
        text = re.sub("[" + "".join(map(re.escape, unseen)) + "]+", "", text)
    return unicodedata.normalize("NFC", text)


@lru_cache(maxsize=4096)
def fold(text: str) -> str:
    """NFKC, small capitals read as their letters, casefolded, combining marks and format characters
    (zero-width, bidi controls, soft hyphen, invisible separators) removed (``unmark``), spaces collapsed."""
    if not text:
        return ""
    if text.isascii():
        return _SPACE.sub(" ", text.lower()).strip()
    text = unicodedata.normalize("NFKC", text).translate(_FOLD)
    return _SPACE.sub(" ", unmark(text.casefold())).strip()


def skeleton(text: str) -> str:
    """``fold(text)`` with look-alike letters of other scripts read as the Latin letter they imitate."""
    return fold(text).translate(_SKELETON)


def readings(el: Element) -> list[str]:
    """Every distinct label of ``el`` as given (name, visible text, title, value, alt), first the name."""
    out: list[str] = []
    seen: set[str] = set()
    for raw in (el.name, *(el.attrs.get(k, "") for k in READING_ATTRS), el.value or ""):
        key = fold(raw)
        if key and key not in seen:
            seen.add(key)
            out.append(raw.strip())
    return out


_OVERRIDE = re.compile("\u202e([^\u202c\u2029\n]*)")


def drawn(text: str) -> str:
    """``text`` in the order it is drawn: a right-to-left override (U+202E, up to its U+202C or the line's
    end) draws its letters reversed, so "\u202ewon yaP\u202c" shows "Pay now"."""
    return _OVERRIDE.sub(lambda m: m.group(1)[::-1], text) if "\u202e" in text else text


def folded_forms(text: str) -> tuple[str, ...]:
    """``fold(text)``, its ``skeleton`` ("Ρay" with a Greek Rho reads "pay"), the same of the text as drawn
    (a bidi override reversed), and each without spaces ("Pa y now" drawn from split spans); every distinct
    one once."""
    f = fold(text)
    forms: tuple[str, ...] = (f, f.translate(_SKELETON))
    if (seen := fold(drawn(text))) != f:
        forms += (seen, seen.translate(_SKELETON))
    return tuple(dict.fromkeys((*forms, *(x.replace(" ", "") for x in forms))))
