"""The safety policy: ``evaluate(action, observation) -> Decision``, pure and deterministic.

Built-in checks (levels configurable in ``config/safety.yaml``):

- an action's own level from its registry entry (executeJS / uploadFile -> confirm), or one listed in
  ``always_confirm`` -> confirm;
- click on a submit-like or destructive control on a sensitive page -> confirm. A control is anything a click
  activates, judged as what it is for and not by its tag: buttons, links, a div with onclick or a click
  listener, a <label> of a (hidden) submit button, role=button. The text judged is the element's from the
  observation (found by index, by simple ``#id``/``[name=…]`` selector, or by hit-testing coordinates), never
  anything the model claims, against a lexicon in ten languages (config/safety.yaml). Unknown target on a
  sensitive page -> confirm;
- a paying label ("Jetzt bezahlen", "今すぐ支払う") on a page that shows a price, a link or form whose target
  path pays (``/checkout/pay/confirm``: on any page), a submit button on a page with a payment card field
  -> confirm; a target path that deletes is destructive;
- a destructive button or link on an ordinary page -> notify. Every reading of the label is judged (accessible
  name, visible text with CSS generated content, title, value, alt), folded by ``safety.text.fold`` (NFKC,
  combining marks and format characters removed, case and spaces folded; the rules are folded alike and a
  space between two of their words may be left out); the most sensitive reading wins;
- a value-changing control (checkbox, radio, switch, option) is judged like a button by its label, and
  choosing an option (``select``) by the option's words: a change handler pays as a click handler does;
- Enter (pressKey, or a typed newline) in a form on a sensitive page, or in a field whose form goes to a
  paying or deleting target (on any page) -> confirm;
- typing a literal value (not a known ``<secret>name</secret>``) into a password or payment-card field, or
  text that looks like a card number anywhere -> confirm;
- navigation or a link to a blocked domain (or outside allowed_domains) -> block (nothing lowers it);
  ``javascript:`` / ``file:`` URLs -> confirm; another site than the current page's, or a download -> notify;
- a ``javascript:`` link (other than a no-op like ``javascript:void(0)``) on a sensitive page -> confirm, and
  its code's words are judged like its label (``javascript:deleteAll()`` is destructive anywhere);
- refresh of a sensitive page -> notify (it may resubmit a form);
- a page's own confirm()/prompt()/beforeunload whose text is sensitive -> confirm (``evaluate_dialog``).

A page is sensitive when its URL matches a sensitive pattern, its text (visible text and every reading of its
elements, frames included) contains a sensitive keyword in any of the lexicon's languages, or by its
structure, whatever its URL and words: it draws a frame whose URL is a payment provider's, it has a payment
card field or another payment field (an IBAN, an amount to pay or send; in any frame), a form on it is sent
by POST to a paying or deleting target, or a frame on it (nested, ``srcdoc``, ``blob:``, sandboxed: its URL
may say nothing) shows a price beside a control or words that pay or submit. ``sensitivity(obs, target)`` is
the one judgement other layers ask (the network hold of a state-changing request): the page's, else the
target URL's (``target_sensitivity``). Then the user's rules: plain rules raise the level, the first matching
``override`` rule sets it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

from kite_browser.agent.base.resources import resource_path
from kite_browser.agent.browser.actions import Action, Click, Navigate, PressKey, Select, Type, spec_of
from kite_browser.agent.browser.observation import Element, Observation
from kite_browser.agent.config import SafetyConfig
from kite_browser.safety.domains import DomainPolicy, host_of, site_of
from kite_browser.safety.rules import ConfirmLevel, Decision, Rule, SafetyRules, load_rules
from kite_browser.safety.secrets import PLACEHOLDER_RE
from kite_browser.safety.text import fold, folded_forms, readings, skeleton, unmark

__all__ = ["ConfirmLevel", "Decision", "SafetyPolicy"]

A, N, C, B = ConfirmLevel.AUTO, ConfirmLevel.NOTIFY, ConfirmLevel.CONFIRM, ConfirmLevel.BLOCK
ENTER_KEYS = frozenset({"enter", "numpadenter", "return", "\n", "\r"})
BUTTON_ROLES = frozenset({"button", "menuitem", "menuitemcheckbox", "menuitemradio", "option", "tab"})
BUTTON_INPUT_TYPES = frozenset({"submit", "button", "image", "reset"})
TOGGLE_INPUT_TYPES = frozenset({"checkbox", "radio"})
TOGGLE_ROLES = frozenset({"checkbox", "radio", "switch", "menuitemcheckbox", "menuitemradio", "option"})
_SIMPLE_SELECTOR = re.compile(r"""^(?:[a-z]+)?(?:#([\w-]+)|\[name=["']?([^"'\]]+)["']?\])$""", re.IGNORECASE)
_NOOP_SCRIPT = re.compile(r"^\s*javascript:\s*(?:;|void\s*\(?\s*0\s*\)?;?|//.*|return false;?|)\s*$", re.I)
_CARD_RE = re.compile(r"(?<!\d)(?:\d[ -]?){12,18}\d(?!\d)")


def _any_re(
    patterns: Iterable[str], escape: bool = False, folded: bool = False, text: bool = False
) -> re.Pattern[str] | None:
    """One pattern for any of ``patterns``. ``folded``: the words and the text searched are both ``fold``ed
    (casefolded), so the search is exact: ``re.IGNORECASE`` over a page's text made it about 12x slower.
    ``text``: the patterns are matched in folded text, which has no combining marks, so theirs are removed
    too (``unmark``: "bestätigen" in a rule is "bestatigen", as a page's "bestätigen" folds)."""
    patterns = [_as_folded(p) for p in patterns] if text else list(patterns)
    parts = [re.escape(p) if escape else f"(?:{p})" for p in patterns]
    if text:  # a space between two words may be left out ("Send\u2063money" folds to "sendmoney")
        parts = [p.replace("\\ ", " ").replace(" ", " ?") for p in parts]
    return re.compile("|".join(parts), 0 if folded else re.IGNORECASE) if parts else None


_Trie = dict[str, "_Trie"]
"""A character -> the rest of the words that go on with it; the key "" marks a word's end."""


def _words_re(words: Iterable[str]) -> re.Pattern[str] | None:
    """One case-exact pattern for any of ``words`` (folded text, searched in folded text), written as a trie
    so that the search fails fast at each position of a page's text (an alternation of a hundred words tried
    one by one took twice as long); a space between two words may be left out."""
    trie: _Trie = {}
    for word in words:
        if word:
            node = trie
            for ch in word:
                node = node.setdefault(ch, {})
            node[""] = {}
    return re.compile(_trie_pattern(trie)) if trie else None


def _trie_pattern(node: _Trie) -> str:
    ends = "" in node
    branches = [(" ?" if ch == " " else re.escape(ch)) + _trie_pattern(sub) for ch, sub in node.items() if ch]
    if not branches:
        return ""
    body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
    if ends:  # a word ends here, and a longer one goes on
        return f"(?:{body})?" if len(branches) > 1 or len(body) > 1 else f"{body}?"
    return body


def _as_folded(pattern: str) -> str:
    """A text pattern as ``fold`` writes text: without combining marks, its letters beyond ASCII case folded
    ("schließen" is "schliessen"); ASCII is left to ``re.IGNORECASE`` (``\\W`` must stay ``\\W``)."""
    return "".join(c if c.isascii() else c.casefold() for c in unmark(pattern))


def _luhn(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch) * (2 if i % 2 else 1)
        total += d - 9 if d > 9 else d
    return total % 10 == 0


def looks_like_card_number(text: str) -> bool:
    return any(_luhn(re.sub(r"\D", "", m.group(0))) for m in _CARD_RE.finditer(text))


def activates(el: Element) -> bool:
    """Whether a click on ``el`` activates something (a button, a link, a div with onclick or a click
    listener, a label standing for a button, an image that takes clicks): judged as what it is for, not by
    its tag. Fields, selects, checkboxes and radios only change a value."""
    if el.tag in ("button", "label") or el.kind in ("button", "link", "other", "image"):
        return True
    if (el.role or "") in BUTTON_ROLES:
        return True
    return el.tag == "input" and (el.type or "").lower() in BUTTON_INPUT_TYPES


def toggles(el: Element) -> bool:
    """Whether a click on ``el`` changes a value (a checkbox, a radio, a switch, an option): its change
    handler can pay or delete as a button's click can, so its label is judged like a button's."""
    if (el.role or "") in TOGGLE_ROLES:
        return True
    return el.tag == "input" and (el.type or "").lower() in TOGGLE_INPUT_TYPES


def url_scheme(url: str) -> str:
    """The scheme of ``url`` as the browser's URL parser reads it (WHATWG): leading and trailing C0 controls
    and spaces trimmed, every tab and newline removed first, so "java\tscript:" and "\x01javascript:" are
    javascript:."""
    clean = _TAB_NEWLINE.sub("", url.strip(_C0_OR_SPACE))
    m = _SCHEME.match(clean)
    return m.group(1).lower() if m else ""


_C0_OR_SPACE = "".join(chr(c) for c in range(0x21))
_TAB_NEWLINE = re.compile("[\t\n\r]")
_SCHEME = re.compile(r"([a-zA-Z][a-zA-Z0-9+.-]*):")


class _Findings:
    def __init__(self, rules: SafetyRules) -> None:
        self.rules = rules
        self.items: list[tuple[ConfirmLevel, str, str]] = []

    def add(self, check: str, reason: str, level: ConfirmLevel | None = None) -> None:
        self.items.append((level or self.rules.level(check), check, reason))


class SafetyPolicy:
    def __init__(
        self, rules: SafetyRules, domains: DomainPolicy | None = None, *, secret_names: Iterable[str] = ()
    ) -> None:
        self.rules = rules
        self.domains = domains or DomainPolicy(allow_loopback=rules.domains.allow_loopback)
        self.secret_names = frozenset(secret_names)
        self._url_re = _any_re(rules.url_patterns)
        self._kw_re = _words_re(f(k) for k in rules.keywords for f in (fold, skeleton))
        self._submit_re = _any_re(rules.submit_texts, text=True)
        self._destroy_re = _any_re(rules.destructive_texts, text=True)
        fields = rules.sensitive_fields
        self._field_types = frozenset(t.lower() for t in fields.types)
        self._field_ac = tuple(a.lower() for a in fields.autocomplete)
        self._field_name_re = _any_re(fields.names, text=True)
        self._download = tuple(e.lower() for e in rules.download_extensions)
        pay = rules.payment
        self._pay_re = _any_re(pay.pay_texts, text=True)
        self._price_re = re.compile(pay.price, re.IGNORECASE) if pay.price else None
        self._card_ac = tuple(a.lower() for a in pay.card_fields.autocomplete)
        self._card_types = frozenset(t.lower() for t in pay.card_fields.types)
        self._card_name_re = _any_re(pay.card_fields.names, text=True)
        self._money_ac = tuple(a.lower() for a in pay.payment_fields.autocomplete)
        self._money_name_re = _any_re(pay.payment_fields.names, text=True)
        self._form_target_re = _any_re(pay.form_targets)
        self._frame_re = _any_re(pay.frame_urls)
        self._pay_path_re = _any_re(pay.pay_paths)
        self._delete_path_re = _any_re(pay.delete_paths)
        self._always = frozenset(rules.always_confirm)
        self._user = [
            (
                r,
                _any_re([r.when.url]) if r.when.url else None,
                _any_re([r.when.element_text]) if r.when.element_text else None,
            )
            for r in rules.rules
        ]
        self._cache: tuple[Observation | None, str | None] = (None, None)

    @classmethod
    def from_config(cls, config: SafetyConfig, *, secret_names: Iterable[str] = ()) -> SafetyPolicy:
        """config/safety.yaml, then ``config.rules_file``; a bad file -> ConfigError naming file and line."""
        paths: list[str | Path] = [resource_path("config", "safety.yaml")]
        if config.rules_file:
            paths.append(config.rules_file)
        rules = load_rules(paths)
        domains = DomainPolicy(
            config.allowed_domains, config.blocked_domains, allow_loopback=rules.domains.allow_loopback
        )
        return cls(rules, domains, secret_names=secret_names)

    # ------------------------------------------------------------ page facts

    def page_sensitivity(self, obs: Observation | None) -> str | None:
        """Why the page is sensitive (its URL, words in any language, a payment card field or a payment
        provider's frame on it), or None."""
        if obs is None:
            return None
        if self._cache[0] is obs:
            return self._cache[1]
        why = self._sensitivity(obs)
        self._cache = (obs, why)
        return why

    def sensitivity(self, obs: Observation | None, target: str | None = None) -> str | None:
        """The one judgement of "is this sensitive", for every layer that asks (the click-time policy, the
        network hold of a state-changing request): why the page ``obs`` is sensitive (``page_sensitivity``,
        its frames included), or why a request to ``target`` is (``target_sensitivity``), or None."""
        return self.page_sensitivity(obs) or (self.target_sensitivity(target) if target else None)

    def target_sensitivity(self, url: str, base: str = "") -> str | None:
        """Why a request or form sent to ``url`` pays, sends money or deletes, by its path (``pay_paths``,
        ``delete_paths``, ``form_targets`` of config/safety.yaml), or None. ``base``: the page's URL, for a
        relative ``url``."""
        path = unquote(urlsplit(urljoin(base, url) if base else url).path).lower()
        if not path:
            return None
        for what, regex in (
            ("pays", self._pay_path_re),
            ("deletes", self._delete_path_re),
            ("pays, sends money or closes an account", self._form_target_re),
        ):
            if regex is not None and regex.search(path):
                return f"its target {path} {what}"
        return None

    def _sensitivity(self, obs: Observation) -> str | None:
        if self._url_re and (m := self._url_re.search(obs.summary.url)):
            return f"the URL matches {m.group(0).lower()!r}"
        if self._kw_re:
            parts = [obs.summary.visible_text, *(r for e in obs.elements for r in readings(e))]
            joined = "\n".join(parts)
            if m := self._kw_re.search(fold(joined)) or self._kw_re.search(skeleton(joined)):
                return f"the page mentions {m.group(0)!r}"
        if self._frame_re:
            for frame_url in obs.summary.frames:
                if m := self._frame_re.search(frame_url):
                    return f"a frame on it is a payment page ({host_of(frame_url) or frame_url} matches {m.group(0)!r})"
        return self._structure(obs) or self._frame_pays(obs)

    def _structure(self, obs: Observation) -> str | None:
        """Sensitivity from what the page holds, whatever its URL and words: a payment card field, another
        payment field (an IBAN, an amount to pay or send), a form sent by POST to a paying or deleting
        target (frames included: their elements are in the observation)."""
        for e in obs.elements:
            label = e.name or e.attrs.get("name", e.tag)
            if e.editable and self.is_card_field(e):
                return f'it has a payment card field ("{label}")'
            if (e.editable or e.tag == "select") and self.is_payment_field(e):
                return f'it has a payment field ("{label}")'
            if e.attrs.get("formmethod") == "post" and (
                why := self.target_sensitivity(e.attrs.get("formaction") or e.attrs.get("form") or "")
            ):
                return f"a form on it is sent by POST and {why}"
        return None

    def _frame_pays(self, obs: Observation) -> str | None:
        """A frame that shows a price beside a control that pays or submits (its URL may say nothing: a
        nested, ``srcdoc``, ``blob:`` or sandboxed frame). A frame's text is the part of the flow that is not
        the top document's; a control the snapshot could not list in it still shows in that text."""
        if not obs.summary.frames:
            return None
        top = obs.summary.visible_text
        framed = [e for e in obs.elements if e.frame is not None]
        lines = [x for x in obs.flow if isinstance(x, str) and x not in top]
        lines += [obs.tails[e.index] for e in framed if e.index in obs.tails]
        text = " ".join(lines) + " " + " ".join(r for e in framed for r in readings(e))
        m = self._price_re.search(fold(text)) if self._price_re is not None else None
        if m is None:
            return None
        for e in framed:
            if activates(e) or toggles(e):
                reading, submit, destroy = self._judge_label(e)
                if submit or destroy:
                    return f'a frame on it shows a price ({m.group(0)}) and "{reading[:40]}"'
        if any(self._pays(line) for line in lines):
            return f"a frame on it shows a price ({m.group(0)}) and a paying word"
        return None

    def is_payment_field(self, el: Element) -> bool:
        """A payment field other than a card's: an IBAN or bank account, an amount to pay or send (by its
        autocomplete token, name, id, label or placeholder)."""
        ac = el.attrs.get("autocomplete", "").lower()
        if ac and any(p in ac.split() for p in self._money_ac):
            return True
        if self._money_name_re is None:
            return False
        text = fold(
            " ".join((el.attrs.get("name", ""), el.attrs.get("id", ""), el.name, el.placeholder or ""))
        )
        return bool(self._money_name_re.search(text))

    def is_card_field(self, el: Element) -> bool:
        """A payment card field (card number, expiry, security code), by autocomplete, name, id or label."""
        if (el.type or "").lower() in self._card_types:
            return True
        ac = el.attrs.get("autocomplete", "").lower()
        if ac and any(token.startswith(p) for token in ac.split() for p in self._card_ac):
            return True
        text = fold(
            " ".join((el.attrs.get("name", ""), el.attrs.get("id", ""), el.name, el.placeholder or ""))
        )
        return bool(self._card_name_re and self._card_name_re.search(text))

    def _card_on(self, obs: Observation | None) -> bool:
        return obs is not None and any(e.editable and self.is_card_field(e) for e in obs.elements)

    def _shows_price(self, obs: Observation | None) -> str | None:
        if obs is None or self._price_re is None:
            return None
        m = self._price_re.search(fold(obs.summary.visible_text))
        return m.group(0) if m else None

    def target(self, action: Action, obs: Observation | None) -> Element | None:
        """The element an action acts on, from the observation only (None if unknown)."""
        if obs is None:
            return None
        index = getattr(action, "index", None)
        if (
            action.action in ("type", "pressKey")
            and index is None
            and getattr(action, "selector", None) is None
        ):
            index = obs.summary.focused
        if index is not None:
            return obs.element(index)
        if (selector := getattr(action, "selector", None)) and (
            m := _SIMPLE_SELECTOR.match(selector.strip())
        ):
            key, val = ("id", m.group(1)) if m.group(1) else ("name", m.group(2))
            hits = [e for e in obs.elements if e.attrs.get(key) == val and e.frame is None]
            return hits[0] if len(hits) == 1 else None
        x, y = getattr(action, "x", None), getattr(action, "y", None)
        if x is not None and y is not None:
            hits = [
                e
                for e in obs.elements
                if e.in_viewport
                and e.rect.x <= x <= e.rect.x + e.rect.width
                and e.rect.y <= y <= e.rect.y + e.rect.height
            ]
            return min(hits, key=lambda e: e.rect.width * e.rect.height) if hits else None
        return None

    def is_sensitive_field(self, el: Element) -> bool:
        if (el.type or "").lower() in self._field_types:
            return True
        ac = el.attrs.get("autocomplete", "").lower()
        if ac and any(token.startswith(p) for token in ac.split() for p in self._field_ac):
            return True
        text = fold(" ".join((el.attrs.get("name", ""), el.attrs.get("id", ""), el.name)))
        return bool(self._field_name_re and self._field_name_re.search(text))

    def _safe_secret(self, text: str) -> bool:
        m = PLACEHOLDER_RE.fullmatch(text)
        return m is not None and (not self.secret_names or m.group(1) in self.secret_names)

    # ------------------------------------------------------------ evaluate

    def evaluate(self, action: Action, observation: Observation | None) -> Decision:
        f = _Findings(self.rules)
        name = action.action
        el = self.target(action, observation)
        default = spec_of(action).safety  # the action's own level, from its registry entry
        if name in self._always or default == "confirm":
            f.add("always_confirm", f"{name} always needs the user's confirmation")
        elif default != "auto":
            f.add("always_confirm", f"{name} is {default} by default", ConfirmLevel(default))
        if isinstance(action, Navigate):
            self._check_url(f, action.url, observation, "navigating to")
        elif isinstance(action, Click):
            self._check_click(f, el, observation, has_target=True)
        elif isinstance(action, Type):
            self._check_type(f, action.text, el, observation)
        elif isinstance(action, PressKey):
            self._check_key(f, action.key, el, observation)
        elif isinstance(action, Select):
            self._check_select(f, action.value, el, observation)
        elif name == "refresh" and (why := self.page_sensitivity(observation)):
            f.add("sensitive_refresh", f"reloading a sensitive page may resubmit a form ({why})")
        return self._decide(f, action, el, observation)

    def evaluate_dialog(self, kind: str, message: str, url: str) -> Decision:
        """A page's own confirm()/prompt()/beforeunload, judged like a button: accepting a sensitive one
        (its text is submit-like or destructive or names a sensitive keyword, or it guards leaving a
        sensitive page) needs the user's confirmation; an alert only informs."""
        f = _Findings(self.rules)
        if kind != "alert":
            forms = folded_forms(message)
            hit = next(
                (
                    what
                    for what, regex in (("destructive", self._destroy_re), ("submit-like", self._submit_re))
                    if regex is not None and any(regex.search(t) for t in forms)
                ),
                None,
            )
            if hit is None and self._kw_re is not None and any(self._kw_re.search(t) for t in forms):
                hit = "sensitive"
            if hit is not None:
                f.add("sensitive_dialog", f'accepting the page\'s {kind} "{message[:120]}" ({hit})')
            elif kind == "beforeunload" and self._url_re is not None and self._url_re.search(url):
                f.add(
                    "sensitive_dialog",
                    "leaving a sensitive page that asks to stay (unsaved input may be lost)",
                )
        items = sorted(f.items, key=lambda i: -i[0].rank)
        if not items:
            return Decision(level=A)
        return Decision(level=items[0][0], reasons=[r for _, _, r in items], rule=items[0][1])

    def request_target(self, url: str) -> str | None:
        """Why a request's target is sensitive (its path pays or deletes: ``payment.pay_paths``,
        ``payment.delete_paths``), or None."""
        path = unquote(urlsplit(url).path).lower()
        for regex, what in ((self._pay_path_re, "pays"), (self._delete_path_re, "deletes")):
            if regex is not None and regex.search(path):
                return f"its target {path} {what}"
        return None

    def request_page(self, obs: Observation | None, page_url: str) -> str | None:
        """Why a page's state-changing requests are sensitive, or None: the page takes payment (a card field,
        a payment provider's frame), or it is sensitive (``page_sensitivity``; with no observation, its URL)
        and shows a price or its path reads as paying or destroying. A sign-in, settings or account page is
        sensitive for its submit-like clicks, not for every form it posts (a "Log out" there)."""
        if obs is not None and self._card_on(obs):
            return "it has a payment card field"
        if obs is not None and self._frame_re is not None:
            if frame := next((u for u in obs.summary.frames if self._frame_re.search(u)), None):
                return f"a frame on it is a payment page ({host_of(frame) or frame})"
        why = self.page_sensitivity(obs) if obs is not None else None
        if why is None and self._url_re is not None and (m := self._url_re.search(page_url)):
            why = f"the URL matches {m.group(0).lower()!r}"
        if why is None:
            return None
        words = re.sub(r"[\W_]+", " ", unquote(urlsplit(page_url).path))
        if any(self._judge_text(words)):
            return f"{why}, and its path reads as paying or destroying"
        if price := self._shows_price(obs):
            return f"{why}, and it shows a price ({price})"
        return None

    def evaluate_request(
        self, method: str, url: str, kind: str, obs: Observation | None, page_url: str
    ) -> Decision:
        """A state-changing request the page sends (a form post, a non-GET fetch/XHR, a beacon, a ping),
        judged at the network layer whatever set it off: it needs the user's confirmation when it goes to a
        paying or deleting target (``request_target``) or leaves a page that pays or destroys
        (``request_page``: ``obs`` is the page's latest observation, None when there is none)."""
        why = self.request_target(url)
        if why is None and (page := self.request_page(obs, page_url)):
            why = f"it leaves a sensitive page: {page}"
        if why is None:
            return Decision(level=A)
        what = f"the page sends {method} {kind} {host_of(url) or ''}{urlsplit(url).path[:120]} ({why})"
        return Decision(level=self.rules.level("sensitive_request"), reasons=[what], rule="sensitive_request")

    def _check_url(self, f: _Findings, url: str, obs: Observation | None, verb: str) -> None:
        current = obs.summary.url if obs else ""
        scheme = url_scheme(url)
        url = _TAB_NEWLINE.sub("", url.strip(_C0_OR_SPACE))
        absolute = urljoin(current, url) if current and not scheme else url
        scheme = scheme or urlsplit(absolute).scheme.lower()
        if scheme == "javascript":
            f.add("script_url", f"{verb} a javascript: URL runs code in the page")
            return
        if scheme == "file":
            f.add("file_url", f"{verb} a local file")
            return
        if reason := self.domains.reason(absolute):
            f.add("blocked_domain", f"{verb} {host_of(absolute) or absolute}: {reason}", B)
            return
        new, old = host_of(absolute), host_of(current)
        if new and old and site_of(new) != site_of(old):
            f.add("new_domain", f"{verb} another site ({new})")
        if urlsplit(absolute).path.lower().endswith(self._download):
            f.add("download", f"{verb} a downloadable file")

    def _check_click(  # noqa: C901  (landed beside the C90 rule; to split by signal)
        self, f: _Findings, el: Element | None, obs: Observation | None, has_target: bool
    ) -> None:
        why = self.page_sensitivity(obs)
        if el is None:
            if why and has_target:
                f.add(
                    "unknown_target",
                    f"the target element is not in the snapshot and the page is sensitive ({why})",
                )
            return
        text, submit, destroy = self._judge_label(el)
        is_link = el.tag == "a" or el.kind == "link" or el.role == "link"
        button = (
            is_link or activates(el) or toggles(el)
        )  # a checkbox's change handler can pay as a button does
        sends_to = el.attrs.get("formaction", "") if button else ""
        goes = ""
        if sends_to:  # a submit button is judged by where its form goes too: "Next" may post to /checkout/pay
            path = unquote(urlsplit(sends_to).path)
            form_submit, form_destroy = self._judge_text(re.sub(r"[\W_]+", " ", path))
            if form_submit or form_destroy:
                goes = f"; its form goes to {path}"
            submit, destroy = submit or form_submit, destroy or form_destroy
        if sends_to and not submit and self._card_on(obs):  # a form on a page with card fields sends them
            submit, goes = True, "; it sends a form on a page with a payment card field"
        # Where it leads, by path: a "Continue" link to /checkout/pay/confirm pays, whatever it says.
        pays_there = ""
        for where in (sends_to, el.href or "") if button else ():
            path = (
                unquote(urlsplit(urljoin(obs.summary.url if obs else "", where)).path).lower()
                if where
                else ""
            )
            if path and self._pay_path_re is not None and self._pay_path_re.search(path):
                pays_there, submit, goes = path, True, goes or f"; it goes to {path}"
            elif path and self._delete_path_re is not None and self._delete_path_re.search(path):
                destroy, goes = True, goes or f"; it goes to {path}"
        if button and not why:  # paying on a page that shows a price, or through a paying target
            if pays_there:
                why = f"its target {pays_there} pays"
            elif any(self._pays(r) for r in readings(el)) and (price := self._shows_price(obs)):
                why = f"the page shows a price ({price})"
        script = unquote(el.attrs.get("script", "")) if is_link else ""
        if script and not _NOOP_SCRIPT.match(script):  # javascript:pay() runs code: judged by its words too
            script_submit, script_destroy = self._judge_text(re.sub(r"[\W_]+", " ", script[11:]))
            if why:
                f.add("script_url", f'clicking "{text}" runs {script[:80]!r} on a sensitive page ({why})')
            submit, destroy = submit or script_submit, destroy or script_destroy
        if button and (submit or destroy):  # links and buttons alike: a link can pay or delete too
            what = ("destructive" if destroy else "submit-like") + goes
            if why:
                f.add("sensitive_click", f'clicking "{text}" ({what}) on a sensitive page ({why})')
            elif destroy:
                f.add("destructive_click", f'clicking "{text}" ({what})')
        if el.href:
            self._check_url(f, el.href, obs, f'clicking "{text}" leads to')
        if sends_to:
            self._check_url(f, sends_to, obs, f'clicking "{text}" sends its form to')

    def _judge_label(self, el: Element) -> tuple[str, bool, bool]:
        """(the reading judged, submit-like?, destructive?) over every reading of the element's label,
        each folded; the most sensitive reading wins (destructive over submit-like over neither)."""
        best: tuple[int, str, bool, bool] = (-1, el.name or el.value or "", False, False)
        for raw in readings(el):
            submit, destroy = self._judge_text(raw)
            rank = 2 if destroy else 1 if submit else 0
            if rank > best[0]:
                best = (rank, raw, submit, destroy)
        return best[1], best[2], best[3]

    def _pays(self, raw: str) -> bool:
        return self._pay_re is not None and any(self._pay_re.search(t) for t in folded_forms(raw))

    def _judge_text(self, raw: str) -> tuple[bool, bool]:
        """(submit-like?, destructive?) for one text, in every folded form."""
        forms = folded_forms(raw)
        submit = any(
            (self._submit_re is not None and self._submit_re.search(t))
            or (self._pay_re is not None and self._pay_re.search(t))
            for t in forms
        )
        destroy = any(self._destroy_re is not None and self._destroy_re.search(t) for t in forms)
        return submit, destroy

    def _check_type(self, f: _Findings, text: str, el: Element | None, obs: Observation | None) -> None:
        why = self.page_sensitivity(obs)
        literal = not self._safe_secret(text.rstrip("\n"))
        if literal and el is not None and self.is_sensitive_field(el):
            f.add(
                "sensitive_field",
                f'typing a literal value into "{el.name or el.attrs.get("name", el.tag)}" '
                "(a password or payment field); use a <secret>name</secret> placeholder",
            )
        elif literal and el is None and why:
            f.add(
                "unknown_target",
                f"typing into an element that is not in the snapshot on a sensitive page ({why})",
            )
        if literal and looks_like_card_number(PLACEHOLDER_RE.sub("", text)):
            f.add("card_number", "the text looks like a payment card number")
        if "\n" in text and (why := why or self._form_target(el, obs)):
            f.add("sensitive_enter", f"a typed newline submits the form on a sensitive page ({why})")

    def _check_key(self, f: _Findings, key: str, el: Element | None, obs: Observation | None) -> None:
        k = key.lower()
        pressing = k in (*ENTER_KEYS, " ", "space")
        if el is not None and not el.editable and (activates(el) or toggles(el)) and pressing:
            self._check_click(f, el, obs, has_target=True)
        elif k in ENTER_KEYS and (why := self.page_sensitivity(obs) or self._form_target(el, obs)):
            f.add("sensitive_enter", f"Enter submits the form on a sensitive page ({why})")

    def _form_target(self, el: Element | None, obs: Observation | None) -> str | None:
        """Why the form of the field ``el`` (where Enter sends it) pays, sends money or deletes, or None."""
        where = el.attrs.get("form", "") if el is not None else ""
        return self.target_sensitivity(where, obs.summary.url if obs else "") if where else None

    def _check_select(
        self, f: _Findings, value: str | list[str], el: Element | None, obs: Observation | None
    ) -> None:
        """Choosing an option is judged like a click on a button labelled with it: a checkout page's
        ``<select>`` whose change handler pays is chosen by its option's words ("Pay now", "Delete all")."""
        if el is None:
            if why := self.page_sensitivity(obs):
                f.add(
                    "unknown_target",
                    f"the target element is not in the snapshot and the page is sensitive ({why})",
                )
            return
        wanted = [value] if isinstance(value, str) else list(value)
        # the option's label as listed ("value (label)"), beside the value the model wrote
        texts = [*wanted, *(o for o in el.options or [] if any(w and w in o for w in wanted))]
        why = self.page_sensitivity(obs)
        for text in texts:
            submit, destroy = self._judge_text(text)
            if not why and self._pays(text) and (price := self._shows_price(obs)):
                why = f"the page shows a price ({price})"
            if not (submit or destroy):
                continue
            what = "destructive" if destroy else "submit-like"
            if why:
                f.add("sensitive_click", f'choosing "{text[:80]}" ({what}) on a sensitive page ({why})')
            elif destroy:
                f.add("destructive_click", f'choosing "{text[:80]}" ({what})')
            return

    # ------------------------------------------------------------ combine

    def _decide(self, f: _Findings, action: Action, el: Element | None, obs: Observation | None) -> Decision:
        items = sorted(f.items, key=lambda i: -i[0].rank)  # stable: check order within a level
        level, rule = (items[0][0], items[0][1]) if items else (A, None)
        reasons = [r for lvl, _, r in items if lvl is not A]
        if level is B and rule == "blocked_domain":
            return Decision(level=B, reasons=reasons, rule=rule)
        for user, url_re, text_re in self._user:
            if not self._matches(user, url_re, text_re, action, el, obs):
                continue
            note = user.reason or f"rule {user.name!r} sets {user.level.value}"
            if user.override:
                return Decision(level=user.level, reasons=[note, *reasons], rule=user.name)
            if user.level.rank > level.rank:
                level, rule = user.level, user.name
                reasons.insert(0, note)
        return Decision(level=level, reasons=reasons, rule=rule)

    def _matches(
        self,
        r: Rule,
        url_re: re.Pattern[str] | None,
        text_re: re.Pattern[str] | None,
        action: Action,
        el: Element | None,
        obs: Observation | None,
    ) -> bool:
        w = r.when
        if w.action is not None and action.action not in w.action:
            return False
        url = obs.summary.url if obs else ""
        if w.domain is not None and not DomainPolicy(allowed=w.domain, allow_loopback=False).allows(
            url or "http://-"
        ):
            return False
        if w.target_domain is not None:
            target = (
                getattr(action, "url", None) if action.action == "navigate" else (el.href if el else None)
            )
            if not target or not DomainPolicy(allowed=w.target_domain, allow_loopback=False).allows(
                urljoin(url, target)
            ):
                return False
        if url_re is not None and not url_re.search(url):
            return False
        if text_re is not None and not (el is not None and text_re.search(el.name or "")):
            return False
        if w.key is not None and getattr(action, "key", "").lower() != w.key.lower():
            return False
        return w.sensitive is None or w.sensitive == (self.page_sensitivity(obs) is not None)
