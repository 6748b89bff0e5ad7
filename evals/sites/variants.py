"""Page variants of the bundled sites (issue 32): the same apps with the changes real sites go through, to
test what finds its way on a changed page (a workflow's replay, the oracle, a model).

Generated from the same site code, deterministically (``SitesServer(variant=N)``, ``kite sites serve
--variant N``); each variant adds to the one before:

* 0 — the sites as designed (the ids and texts of ``README.md``);
* 1 — on the pages of every app (shop, account, help, forms, dynamic, frames) every id and class renamed
  (``add-to-cart`` → ``add-to-cart-qhzw``, the same name for the same id in every response), ``<label for>``,
  the page's CSS and the page's own scripts with them (``getElementById('feed')``, ``'.feed-item'``, the
  markup a script writes: one mapping, ``Variant.name``); lists and sections reordered (the header's links,
  the catalogue's filters and their options, the checkout's fieldsets, the account page's sections; on the
  static apps the blocks their HTML marks ``<!--reorder:NAME-->``: the form's sections and options, the
  dynamic page's sections, the menu, the frames page's sections);
* 2 — a few labels changed to synonyms ("Add to cart" → "Add to basket", "View cart" → "View basket", the
  header's "Cart" → "Basket", "Proceed to checkout" → "Go to checkout"), and the catalogue in pages of 19
  behind a "Next page" link, with the Black Backpack moved to page 2 (before the last product, Black Floor
  Lamp);
* 3 — a cookie banner over every page (a full-screen dialog, "Accept all cookies" / "Only necessary
  cookies") that must be closed first; closing it sets the ``kite_consent`` cookie for the visitor.

The classes of the shared stylesheet (``/style.css``, e.g. ``result``) keep their names, as a CSS
framework's do on a real site; the adversarial test pages (``/test/``) and the index keep their ids (tests
address them): they get the banner of variant 3 only.

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
from functools import cache
from pathlib import Path
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
    "compose": "New message",
    "reply": "Respond",
    "star": "Add flag",
    "unstar": "Remove flag",
    "book": "Reserve now",
    "bookings": "My reservations",
    "cancel_booking": "Cancel reservation",
    "confirm_cancel": "Yes, cancel reservation",
}
"""English labels that variant 2 says differently (the Chinese pages keep theirs): the shop's, the mail's and
the events app's."""

T = TypeVar("T")

_START_TAG = re.compile(r"<([a-zA-Z][\w-]*)(\s[^<>]*?)?(\s*/?)>")
_ATTR = re.compile(r'\s([\w:-]+)="([^"]*)"')
_SCRIPT = re.compile(r"(<script\b.*?</script>)", re.S | re.I)
_STYLE = re.compile(r"(<style>)(.*?)(</style>)", re.S)
_BLOCK = re.compile(r"<!--reorder:([\w-]+)-->((?:(?!<!--reorder:).)*?)<!--/reorder-->", re.S)
ITEM = "<!--item-->"
"""Between the items of a ``<!--reorder:NAME-->`` ... ``<!--/reorder-->`` block of a static page."""
RENAMED_APPS = ("/forms/", "/dynamic/", "/frames/")
"""The static apps whose pages (and scripts) variant 1 renames, besides the server-rendered ones."""
ID_LISTS = ("id", "for", "aria-controls", "aria-labelledby", "aria-describedby", "aria-owns", "list")
"""Attributes that hold ids (space-separated): renamed with the ids they name."""
SHARED_CSS = Path(__file__).parent / "static" / "style.css"

# What a page's own script says about ids and classes: the calls that take one, the properties that set one,
# and markup written from a string (``'<li class="news-item">'``).
_JS_ID = re.compile(r"""((?:getElementById|\$)\(\s*)(['"])([\w-]+)\2""")
_JS_SELECTOR = re.compile(r"""((?:querySelector|querySelectorAll|closest|matches)\(\s*)(['"])(.*?)\2""")
_JS_PROP = re.compile(r"""(\.(id|className)\s*=\s*)(['"])([\w -]*)\3""")
_JS_CLASSLIST = re.compile(r"""(classList\.(?:add|remove|toggle|contains)\(\s*)(['"])([\w-]+)\2""")
_JS_MARKUP = re.compile(rf"""(\s({"|".join(ID_LISTS)}|class)=)(["'])([\w -]*)\3""")
_SEL_TOKEN = re.compile(r"([.#])(-?[a-zA-Z_][\w-]*)")
_SEL_BRACKETS = re.compile(r"(\[[^\]]*\])")
_CSS_RULE = re.compile(r"([^{}]+)(\{)")

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
    def renames_page(self, path: str, rendered: bool) -> bool:
        """Whether this variant renames the ids and classes of the page at ``path`` (``rendered``: made by
        the server): the server-rendered apps' and the static apps' (forms, dynamic, frames)."""
        return self.renames and (rendered or path.startswith(RENAMED_APPS))

    def finish(self, html: str, *, rename: bool, document: bool, consent: bool) -> str:
        """A page as this variant serves it: ``rename`` (its ids and classes renamed, in its markup, its
        styles and its scripts; its marked blocks reordered), ``document`` (a top-level page, not a frame's:
        the banner goes there), ``consent`` (the visitor closed the banner already)."""
        if self.n == 0 and not self.marks:
            return _strip_marks(html)
        rename = rename and self.renames
        if rename:
            html = self._reorder(html)

        def tag(m: re.Match[str]) -> str:
            name, attrs, end = m.group(1), m.group(2) or "", m.group(3)
            return f"<{name}{self._attrs(name, attrs, rename)}{end}>"

        def markup(part: str) -> str:
            part = _START_TAG.sub(tag, part)
            if rename:
                part = _STYLE.sub(lambda m: m.group(1) + self.css(m.group(2)) + m.group(3), part)
            return part

        parts = _SCRIPT.split(html)  # a script's strings may hold markup: its own rules below
        out = "".join((self.js(p) if rename else p) if i % 2 else markup(p) for i, p in enumerate(parts))
        if self.banner and document and not consent and "</body>" in out:
            out = out.replace("</body>", self._banner() + "</body>", 1)
        return out

    def cls(self, old: str) -> str:
        """The class ``old`` is renamed to: a class of the shared stylesheet keeps its name."""
        return old if old in _shared_classes() else self.name(old)

    def _id(self, old: str) -> str:
        """An id, or an id's prefix a script adds a number to (``'toast-' + n``)."""
        return self.name(old[:-1]) + "-" if old.endswith("-") else self.name(old)

    def _attrs(self, tag: str, attrs: str, rename: bool) -> str:
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
            if rename and key in ID_LISTS:
                value = " ".join(self.name(v) for v in value.split())
            elif rename and key == "class":
                value = " ".join(self.cls(c) for c in value.split())
            return f' {key}="{value}"'

        out = _ATTR.sub(attr, attrs)
        if self.marks and mark is not None:
            out += f' {MARK}="{mark}"'
        return out

    def selector(self, sel: str) -> str:
        """A CSS selector with this variant's ids and classes (attribute brackets left alone)."""

        def token(m: re.Match[str]) -> str:
            return m.group(1) + (self.name(m.group(2)) if m.group(1) == "#" else self.cls(m.group(2)))

        parts = _SEL_BRACKETS.split(sel)
        return "".join(p if i % 2 else _SEL_TOKEN.sub(token, p) for i, p in enumerate(parts))

    def css(self, css: str) -> str:
        """A style sheet with this variant's ids and classes in its selectors."""
        return _CSS_RULE.sub(lambda m: self.selector(m.group(1)) + m.group(2), css)

    def js(self, code: str) -> str:
        """A page's own script with this variant's ids and classes, where it names one: the calls that take
        an id or a selector, ``.id =`` / ``.className =`` / ``classList``, and the markup in its strings."""

        def quoted(m: re.Match[str], value: str) -> str:
            q = m.group(2) if m.re is not _JS_PROP else m.group(3)
            return m.group(1) + q + value + q

        code = _JS_ID.sub(lambda m: quoted(m, self._id(m.group(3))), code)
        code = _JS_SELECTOR.sub(lambda m: quoted(m, self.selector(m.group(3))), code)
        code = _JS_CLASSLIST.sub(lambda m: quoted(m, self.cls(m.group(3))), code)

        def prop(m: re.Match[str]) -> str:
            value = m.group(4)
            new = self._id(value) if m.group(2) == "id" else " ".join(self.cls(c) for c in value.split())
            return quoted(m, new)

        code = _JS_PROP.sub(prop, code)

        def attr(m: re.Match[str]) -> str:
            value = m.group(4).split()
            new = [self.cls(v) for v in value] if m.group(2) == "class" else [self._id(v) for v in value]
            return m.group(1) + m.group(3) + " ".join(new) + m.group(3)

        return _JS_MARKUP.sub(attr, code)

    def _reorder(self, html: str) -> str:
        """The page's ``<!--reorder:NAME-->`` blocks in this variant's order (inner blocks first)."""
        while True:
            new = _BLOCK.sub(lambda m: "".join(self.order(m.group(2).split(ITEM), m.group(1))), html)
            if new == html:
                return new
            html = new

    def _banner(self) -> str:
        def mark(value: str) -> str:
            return f' {MARK}="{value}"' if self.marks else ""

        return BANNER.format(
            id=self.name("cookie-consent"),
            cookie=CONSENT_COOKIE,
            mark_all=mark("consent:all"),
            mark_necessary=mark("consent:necessary"),
        )


@cache
def _shared_classes() -> frozenset[str]:
    """The classes the shared stylesheet styles (``.result``)."""
    css = SHARED_CSS.read_text(encoding="utf-8") if SHARED_CSS.is_file() else ""
    return frozenset(
        m.group(2) for sel in _CSS_RULE.findall(css) for m in _SEL_TOKEN.finditer(sel[0]) if m.group(1) == "."
    )


def _strip_marks(html: str) -> str:
    return re.sub(rf'\s{MARK}="[^"]*"', "", html) if MARK in html else html
