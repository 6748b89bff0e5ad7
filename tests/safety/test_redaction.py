"""Redaction of a secret's common transforms, short values only as whole tokens, too-short values refused;
end to end: a page that re-displays the typed secret transformed never gets it to the model or the disk."""

from __future__ import annotations

import base64
import html
import json
from urllib.parse import quote, quote_plus

import pytest

from kite_browser.agent.base.errors import UsageError
from kite_browser.agent.config import SafetyConfig
from kite_browser.agent.run.loop import Agent
from kite_browser.safety.secrets import SecretStore
from tests.agent.test_safety_e2e import everything_on_disk
from tests.fixtures.browser import PagesServer

VALUE = "Tr0ub4dor&3x"


def _store(**secrets: str) -> SecretStore:
    return SecretStore.from_sources(SafetyConfig(secrets=secrets), env={})


def transforms(v: str) -> dict[str, str]:
    return {
        "upper": v.upper(),
        "lower": v.lower(),
        "spaced": " ".join(v),
        "dashed": "-".join(v),
        "base64": base64.b64encode(v.encode()).decode(),
        "base64-in-basic-auth": base64.b64encode(f"user:{v}".encode()).decode(),
        "base64-url": base64.urlsafe_b64encode(f"ab{v}".encode()).decode(),
        "url": quote(v, safe=""),
        "url-plus": quote_plus(v + " x"),
        "html": html.escape(v),
        "html-numeric": "".join(f"&#{ord(c)};" for c in v),
        # the page's own look-alikes: redacted after NFKC, with any non-alphanumeric separators (were not)
        "zero-width": "\u200b".join(v),
        "fullwidth": "".join(chr(ord(c) + 0xFEE0) for c in v),
        "slashed": "/".join(v),
        "fullwidth-slashed": "\uff0f".join(v),
        "mixed": "\u2060".join(v[:4]) + "/" + v[4:].upper(),
        "math-bold-digits": v.replace("0", "\U0001d7ce").replace("4", "\U0001d7d2"),
        # read as a person or a server reads them: percent-decoded again and again, marks and format
        # characters removed
        "percent-every-byte": _every_byte(v),
        "percent-twice": _every_byte(v).replace("%", "%25"),
        "percent-half": "".join(_every_byte(c) if i % 2 else c for i, c in enumerate(v)),
        "combining-marks": "".join(c + "\u0301\u0336" for c in v),
        "percent-combining-marks": _every_byte("".join(c + "\u0308" for c in v)),
        "invisible-separator": "\u2063".join(v),
        "precomposed-accents": v.replace("r", "\u0155").replace("u", "\u00fa").replace("o", "\u00f3"),
    }


def _every_byte(text: str) -> str:
    """Every byte of ``text`` percent-encoded, letters too (``quote`` leaves letters as they are)."""
    return "".join(f"%{b:02X}" for b in text.encode())


@pytest.mark.parametrize(("kind", "form"), list(transforms(VALUE).items()))
def test_common_transforms_are_redacted(kind: str, form: str) -> None:
    out = _store(pw=VALUE).redact(f"before {form} after")
    assert "<secret>pw</secret>" in out, (kind, out)
    core = form[4:-4] if kind.startswith("base64-") else form  # edge chars also carry neighbouring bytes
    assert core not in out, (kind, out)
    if not kind.startswith(("base64-", "url-plus")):  # the whole form goes, marks and encoded bytes included
        assert out == "before <secret>pw</secret> after", (kind, out)


@pytest.mark.parametrize(("kind", "form"), list(transforms(VALUE).items()))
def test_a_long_text_is_redacted_as_a_whole_piece_by_piece(kind: str, form: str) -> None:
    # what a downloaded file goes through: the quick test never misses a form the pattern finds, and the
    # pieces (cut wherever, here every 64 characters) redact what the whole text's redaction does
    store = _store(pw=VALUE, card="4242 4242 4242 4242")
    filler = "The quick brown fox jumps over the lazy dog; Tr0ub4dor-3 is not it. "
    for offset in range(0, 64, 7):
        text = filler[:offset] + form + " " + filler * 3
        assert store.might_contain(text), (kind, offset)
        assert store.redact_long(text, piece=64) == store.redact(text), (kind, offset)
    assert not store.might_contain(filler * 200)


def test_ordinary_text_is_not_taken_for_a_folded_secret() -> None:
    store = _store(pw=VALUE, card="4242 4242 4242 4242")
    text = "The troubadour sang 3x; order 4242 4242 4241 4242; Tr0ub4dor-3 is not it."
    assert store.redact(text) == text
    # percent-encoded and accented ordinary text is read, and left as it is
    other = "q=caf%C3%A9%20cr%C3%A8me&x=%FF%2G; na\u0308ive r\u00e9sum\u00e9 \u2063 Tr0ub%34dor-3"
    assert store.redact(other) == other


def test_short_values_are_redacted_only_as_whole_tokens() -> None:
    store = _store(attempt="wrong", cvc="123", expiry="12/30")
    task = "Try the wrong password; CVC 123, expiry 12/30; the price is $1234 and 12/305 is not a date."
    assert store.redact(task) == (
        "Try the <secret>attempt</secret> password; CVC <secret>cvc</secret>, expiry <secret>expiry</secret>;"
        " the price is $1234 and 12/305 is not a date."
    )
    assert store.redact("Wrong wrongly wrong.") == "Wrong wrongly <secret>attempt</secret>."
    assert store.redact("q=12%2F30") == "q=<secret>expiry</secret>"


def test_too_short_values_are_refused_with_a_clear_message() -> None:
    with pytest.raises(UsageError, match=r"secret 'pin' is too short \(2 characters; at least 3\)"):
        SecretStore.from_sources(SafetyConfig(), cli=["pin=42"], env={})


PAGE = """<!doctype html><meta charset=utf-8><title>Profile</title>
<label>Passphrase <input id=pw name=pw autocomplete=off></label>
<pre id=out></pre>
<script>
document.getElementById('pw').addEventListener('input', (e) => {
  const v = e.target.value;
  document.getElementById('out').textContent = [
    'shouting: ' + v.toUpperCase(), 'spaced: ' + v.split('').join(' '), 'b64: ' + btoa(v),
    'auth: Basic ' + btoa('user:' + v), 'url: ' + encodeURIComponent(v), 'lower: ' + v.toLowerCase(),
  ].join('\\n');
});
</script>"""


async def test_a_page_that_transforms_the_secret_never_gets_it_to_the_model(
    kite_config, ctx_session, pages_server: PagesServer, scripted_model
) -> None:
    url = pages_server.add("/transform", PAGE)
    store = SecretStore.from_sources(kite_config().safety, cli=[f"phrase={VALUE}"], env={})
    scripted_model.script(
        [
            {"name": "type", "arguments": {"selector": "#pw", "text": "<secret>phrase</secret>"}},
            {"name": "done", "arguments": {"success": True, "answer": "typed"}},
        ]
    )
    result = await Agent(kite_config(), context=ctx_session, secrets=store).run(
        "type the passphrase", start_url=url
    )
    assert result.success, result
    shown = await ctx_session.page.inner_text("#out")
    forms = [VALUE.upper(), " ".join(VALUE), base64.b64encode(VALUE.encode()).decode(), quote(VALUE, safe="")]
    assert all(f in shown for f in forms), shown  # the page really displays every transform
    sent = json.dumps([c.model_dump() for c in scripted_model.calls], ensure_ascii=False)
    disk = everything_on_disk(result.run_dir).decode("utf-8", "replace")
    basic = base64.b64encode(f"user:{VALUE}".encode()).decode()
    for text in (sent, disk):
        for form in (*forms, VALUE.lower(), basic[4:-4]):
            assert form not in text
    assert "<secret>phrase</secret>" in sent


@pytest.mark.parametrize("form", ["admın12345", "ADMİN12345", "\u212adm1n2345x", "ＡＤＭＩＮ12345"])
def test_the_quick_test_never_misses_what_the_pattern_finds(form: str) -> None:
    """``redact`` runs the quick test first: a form the case-insensitive pattern matches (a dotless or dotted
    capital I, the Kelvin sign for K, fullwidth letters) passes it too."""
    store = _store(pw="Admin12345", k="Kdm1n2345x")
    out = store.redact(f"a {form} b")
    assert out in ("a <secret>pw</secret> b", "a <secret>k</secret> b"), out
