"""Page variants of the bundled sites (issue 32): the same apps with the changes real sites go through, to
test what finds its way on a changed page (a workflow's replay, the oracle, a model).

Generated from the same site code, deterministically (``SitesServer(variant=N)``, ``kite sites serve
--variant N``); each variant adds to the one before:

* 0 — the sites as designed (the ids and texts of ``README.md``);
* 1 — on the server-rendered pages (shop, account, help) every id and class renamed (``add-to-cart`` →
  ``add-to-cart-qhzw``, the same name for the same id in every response), ``<label for>`` and the page's CSS
  with them; lists and sections reordered (the header's links, the catalogue's filters and their options, the
  checkout's fieldsets, the account page's sections);
* 2 — a few labels changed to synonyms ("Add to cart" → "Add to basket", "View cart" → "View basket", the
  header's "Cart" → "Basket", "Proceed to checkout" → "Go to checkout"), and the catalogue in pages of 19
  behind a "Next page" link, with the Black Backpack moved to page 2 (before the last product, Black Floor
  Lamp);
* 3 — a cookie banner over every page (a full-screen dialog, "Accept all cookies" / "Only necessary
  cookies") that must be closed first; closing it sets the ``kite_consent`` cookie for the visitor.

The static pages (forms, dynamic, frames, /test/) keep their ids, whose scripts use them: they get the
banner of variant 3 only.

``marks=True`` adds a hidden marker to every element that has an id on variant 0 (its variant-0 id) and to
links (their ``href``) and a few id-less controls: ``data-kite-mark``, the same on every variant, so a bench
can tell which element an action landed on. Nothing that finds elements may read it: the fingerprint of an
element (agent/browser/fingerprint.js) takes only named attributes, and it is not one of them.
"""

from __future__ import annotations

import hashlib
import random
import re
from dataclasses import dataclass
from typing import TypeVar

VARIANTS = (0, 1, 2, 3)
MARK = "data-kite-mark"
PAGE_SIZE = 19
"""Products per catalogue page from variant 2 on: 21 products, the last two on page 2."""
MOVED = "black-backpack"
"""The product variant 2 moves to page 2 (of the catalogue in its featured order): just before the last one."""
CONSENT_COOKIE = "kite_consent"

SYNONYMS = {
    "add_to_cart": "Add to basket",
    "view_cart": "View basket",
    "cart": "Basket",
    "checkout": "Go to checkout",
}
"""English labels that variant 2 says differently (the Chinese pages keep theirs)."""

T = TypeVar("T")

_START_TAG = re.compile(r"<([a-zA-Z][\w-]*)(\s[^<>]*?)?(\s*/?)>")
_ATTR = re.compile(r'\s([\w:-]+)="([^"]*)"')
_SCRIPT = re.compile(r"(<script\b.*?</script>)", re.S | re.I)
_STYLE = re.compile(r"(<style>)(.*?)(</style>)", re.S)

BANNER = """<div id="{id}" role="dialog" aria-modal="true" aria-label="Cookie consent" style="position:fixed;inset:0;
z-index:2147483647;background:#f4f4f4;display:flex;flex-direction:column;align-items:center;justify-content:center;
font-family:system-ui,sans-serif"><h2>Your privacy</h2><p>We use cookies to run this shop and to improve your visit.</p>
<p><button type="button" data-consent="all"{mark_all}>Accept all cookies</button>
<button type="button" data-consent="necessary"{mark_necessary}>Only necessary cookies</button></p></div>
<script>(function () {{
  var box = document.getElementById("{id}");
  box.querySelectorAll("button").forEach(function (b) {{
    b.addEventListener("click", function () {{
      document.cookie = "{cookie}=" + b.getAttribute("data-consent") + "; path=/; max-age=31536000; SameSite=Lax";
      box.remove();
    }});
  }});
}})();</script>"""


def _letters(seed: str, n: int = 4) -> str:
    digest = hashlib.sha256(seed.encode()).digest()
    return "".join(chr(ord("a") + b % 26) for b in digest[:n])


@dataclass(frozen=True)
class Variant:
    """Variant ``n`` of the sites (0–3); ``marks``: put the hidden ``data-kite-mark`` on elements."""

    n: int = 0
    marks: bool = False

    def __post_init__(self) -> None:
        if self.n not in VARIANTS:
            raise ValueError(f"sites variant must be one of {', '.join(map(str, VARIANTS))}, not {self.n}")

    @property
    def renames(self) -> bool:
        return self.n >= 1

    @property
    def reorders(self) -> bool:
        return self.n >= 1

    @property
    def synonyms(self) -> bool:
        return self.n >= 2

    @property
    def paged(self) -> bool:
        return self.n >= 2

    @property
    def banner(self) -> bool:
        return self.n >= 3

    def name(self, old: str) -> str:
        """The id or class ``old`` is renamed to (itself on variant 0)."""
        return f"{old}-{_letters(f'{self.n}/{old}')}" if self.renames else old

    def order(self, items: list[T], what: str) -> list[T]:
        """``items`` in this variant's order for the list ``what`` (as given on variant 0; never the same
        order on the others when there are two or more)."""
        if not self.reorders or len(items) < 2:
            return list(items)
        out = list(items)
        random.Random(f"{self.n}/{what}").shuffle(out)
        return out if out != items else out[::-1]

    def word(self, lang: str, key: str, text: str) -> str:
        """The label ``text`` (of the string ``key``) as this variant says it."""
        return SYNONYMS[key] if self.synonyms and lang == "en" and key in SYNONYMS else text

    def mark(self, value: str) -> str:
        """An explicit marker attribute for a template (`` data-kite-mark="..."``); dropped without marks."""
        return f' {MARK}="{value}"'

    # ------------------------------------------------------------------ the served page
    def finish(self, html: str, *, rendered: bool, document: bool, consent: bool) -> str:
        """A page as this variant serves it: ``rendered`` (server-rendered: ids and classes renamed),
        ``document`` (a top-level page, not a frame's: the banner goes there), ``consent`` (the visitor
        closed the banner already)."""
        if self.n == 0 and not self.marks:
            return _strip_marks(html)
        classes: set[str] = set()

        def tag(m: re.Match[str]) -> str:
            name, attrs, end = m.group(1), m.group(2) or "", m.group(3)
            return f"<{name}{self._attrs(name, attrs, rendered, classes)}{end}>"

        parts = _SCRIPT.split(html)  # scripts as they are: their strings may hold markup
        out = "".join(p if i % 2 else _START_TAG.sub(tag, p) for i, p in enumerate(parts))
        if rendered and self.renames and classes:
            out = _STYLE.sub(lambda m: m.group(1) + self._css(m.group(2), classes) + m.group(3), out)
        if self.banner and document and not consent and "</body>" in out:
            out = out.replace("</body>", self._banner() + "</body>", 1)
        return out

    def _attrs(self, tag: str, attrs: str, rendered: bool, classes: set[str]) -> str:
        found = dict(_ATTR.findall(attrs))
        mark = found.get(MARK)
        if mark is None and "id" in found:
            mark = found["id"]
        elif mark is None and tag == "a" and "href" in found:
            mark = "href:" + found["href"]

        def attr(m: re.Match[str]) -> str:
            key, value = m.group(1), m.group(2)
            if key == MARK:
                return ""
            if rendered and self.renames and key in ("id", "for"):
                value = self.name(value)
            elif rendered and self.renames and key == "class":
                classes.update(value.split())
                value = " ".join(self.name(c) for c in value.split())
            return f' {key}="{value}"'

        out = _ATTR.sub(attr, attrs)
        if self.marks and mark is not None:
            out += f' {MARK}="{mark}"'
        return out

    def _css(self, css: str, classes: set[str]) -> str:
        for cls in sorted(classes, key=len, reverse=True):
            css = re.sub(rf"\.{re.escape(cls)}(?![\w-])", "." + self.name(cls), css)
        return css

    def _banner(self) -> str:
        def mark(value: str) -> str:
            return f' {MARK}="{value}"' if self.marks else ""

        return BANNER.format(
            id=self.name("cookie-consent"),
            cookie=CONSENT_COOKIE,
            mark_all=mark("consent:all"),
            mark_necessary=mark("consent:necessary"),
        )


def _strip_marks(html: str) -> str:
    return re.sub(rf'\s{MARK}="[^"]*"', "", html) if MARK in html else html
