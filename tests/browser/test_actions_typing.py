# ruff: noqa: F811  (the kite fixture is imported into each module)
"""type / select / pressKey on the bundled forms page."""

from __future__ import annotations

from kite_browser.agent.base.errors import KiteError
from kite_browser.agent.browser.exec.base import NO_EFFECT
from kite_browser.evals.sites import SitesServer
from tests.browser.action_pages.harness import (
    Kite,
    kite,  # noqa: F401
    make_kite,
)
from tests.fixtures.browser import PagesServer


async def test_type_appends_when_asked_then_replaces_and_reads_back(kite: Kite, sites: SitesServer) -> None:
    await kite.goto(sites.url("/forms/"))
    idx = await kite.index_of("#full-name")
    first = await kite.act(action="type", index=idx, text="Jane")
    assert first.ok and first.method == "keyboard" and first.effects.value == "Jane"
    second = await kite.act(action="type", index=idx, text=" Doe", clear=False)
    assert second.effects.value == "Jane Doe"
    third = await kite.act(action="type", index=idx, text="Ann")
    assert third.ok and third.effects.value == "Ann"
    assert await kite.page.input_value("#full-name") == "Ann"
    assert third.effects.focused and "full-name" in third.effects.focused


async def test_type_textarea_and_contenteditable(kite: Kite, sites: SitesServer) -> None:
    await kite.goto(sites.url("/forms/"))
    res = await kite.act(action="type", selector="#comments", text="line one")
    assert res.ok and res.effects.value == "line one"
    bio = await kite.act(action="type", selector="#bio-editor", text="Hello bio", clear=True)
    assert bio.ok and bio.effects.value == "Hello bio"
    assert (await kite.page.locator("#bio-editor").inner_text()).strip() == "Hello bio"


async def test_type_into_a_checkbox_is_refused(kite: Kite, sites: SitesServer) -> None:
    await kite.goto(sites.url("/forms/"))
    res = await kite.act(action="type", selector="#terms", text="x")
    assert res.error is not None and res.error.error == "not_interactable"


async def test_password_value_is_masked_and_secrets_never_leak(kite: Kite, sites: SitesServer) -> None:
    def resolver(text: str, url: str) -> str:
        if "nope" in text:
            raise KiteError("secret 'nope' is not allowed on this site")
        return text.replace("<secret>pw</secret>", "hunter2")

    k = make_kite(kite.session, kite.run_dir, secret_resolver=resolver)
    await k.goto(sites.url("/forms/"))
    res = await k.act(action="type", selector="#password", text="<secret>pw</secret>")
    assert res.ok and await k.page.input_value("#password") == "hunter2"
    assert "hunter2" not in res.model_dump_json()
    plain = await k.act(action="type", selector="#full-name", text="<secret>pw</secret>", clear=True)
    assert await k.page.input_value("#full-name") == "hunter2"
    assert "hunter2" not in plain.model_dump_json() and plain.effects.value == "***"
    refused = await k.act(action="type", selector="#full-name", text="<secret>nope</secret>")
    assert not refused.ok and refused.error is not None and "not allowed" in refused.message


async def test_select_native_by_value_and_label(kite: Kite, sites: SitesServer) -> None:
    await kite.goto(sites.url("/forms/"))
    options = await kite.page.locator("#country option").evaluate_all("os => os.map(o => [o.value, o.label])")
    value, label = options[-1]
    res = await kite.act(action="select", selector="#country", value=value)
    assert res.ok and res.effects.value == label.strip()
    value2, label2 = options[1]
    res2 = await kite.act(action="select", index=await kite.index_of("#country"), value=label2)
    assert res2.ok and await kite.page.input_value("#country") == value2
    bad = await kite.act(action="select", selector="#country", value="Atlantis")
    assert bad.error is not None and bad.error.error == "option_not_found" and label2.strip() in bad.message


async def test_select_multi(kite: Kite, sites: SitesServer) -> None:
    await kite.goto(sites.url("/forms/"))
    labels = await kite.page.locator("#interests option").evaluate_all("os => os.map(o => o.label)")
    res = await kite.act(action="select", selector="#interests", value=labels[:2])
    assert res.ok
    read = "s => Array.from(s.selectedOptions).map(o => o.label)"
    chosen = await kite.page.locator("#interests").evaluate(read)
    assert chosen == labels[:2]
    # one value more adds to the selection, as a ctrl-click would (recorded: MiniWoB click-scroll-list,
    # told to select two names, selected each in turn and the second replaced the first)
    more = await kite.act(action="select", selector="#interests", value=labels[3])
    assert more.ok and "added to" in more.message and "a list of values replaces" in more.message
    assert await kite.page.locator("#interests").evaluate(read) == [*labels[:2], labels[3]]
    again = await kite.act(action="select", selector="#interests", value=labels[3])
    assert again.ok and again.data.get(NO_EFFECT)  # already among them: nothing changed
    only = await kite.act(action="select", selector="#interests", value=[labels[1]])
    assert only.ok and await kite.page.locator("#interests").evaluate(read) == [labels[1]]
    # several values written as the page listing shows options (recorded: the model sent "Reading|Music")
    piped = await kite.act(action="select", selector="#interests", value=f"{labels[1]}|{labels[3]}")
    assert piped.ok and await kite.page.locator("#interests").evaluate(read) == [labels[1], labels[3]]
    # and as a result line writes the selection ("Reading, Music": recorded, sent back by the model)
    commas = await kite.act(action="select", selector="#interests", value=f"{labels[0]}, {labels[4]}")
    assert commas.ok and await kite.page.locator("#interests").evaluate(read) == [labels[0], labels[4]]
    bad = await kite.act(action="select", selector="#interests", value=f"{labels[1]}|Skydiving")
    assert bad.error is not None and bad.error.error == "option_not_found" and "Skydiving" in bad.message


async def test_select_custom_dropdown_by_text(kite: Kite, sites: SitesServer) -> None:
    await kite.goto(sites.url("/forms/"))
    combo = await kite.page.locator(
        "#fruit-combo [role=combobox], #fruit-combo button, #fruit-combo input"
    ).first.element_handle()
    assert combo
    res = await kite.act(action="select", selector="#fruit-combo [role=combobox]", value="Mango")
    assert res.ok, res.error
    assert res.method and res.method.startswith("custom")
    assert await kite.page.input_value("#fruit") == "mango"
    bad = await kite.act(action="select", selector="#fruit-combo [role=combobox]", value="Durian")
    assert bad.error is not None and bad.error.error == "option_not_found" and "Kiwi" in bad.message


async def test_press_key_with_modifiers(kite: Kite, sites: SitesServer) -> None:
    await kite.goto(sites.url("/forms/"))
    await kite.act(action="type", selector="#full-name", text="abc")
    sel = await kite.act(action="pressKey", key="a", modifiers=["ctrl"])
    assert sel.ok and sel.method == "keyboard"
    await kite.act(action="pressKey", key="Backspace")
    assert await kite.page.input_value("#full-name") == ""
    bad = await kite.act(action="pressKey", key="NotAKey")
    assert bad.error is not None and "unknown key" in bad.message


_KEYS_PAGE = """<!doctype html><body><input id="f"><textarea id="t"></textarea><p id="log"></p><script>
const seen = {keydown: [], keypress: [], keyup: [], input: 0};
const f = document.getElementById('f');
for (const type of ['keydown', 'keypress', 'keyup']) f.addEventListener(type, (e) => seen[type].push(e.key));
f.addEventListener('input', () => { seen.input += 1; });
window.seen = seen;</script></body>"""


async def test_type_fires_real_key_events_for_every_character(kite: Kite, pages_server: PagesServer) -> None:
    await kite.goto(pages_server.add("/type-keys.html", _KEYS_PAGE))
    res = await kite.act(action="type", selector="#f", text="aB3 .@")
    assert res.ok and res.effects.value == "aB3 .@"
    seen = await kite.page.evaluate("window.seen")
    assert seen["keydown"] == list("aB3 .@") and seen["keyup"] == list("aB3 .@")
    assert seen["keypress"] == list("aB3 .@") and seen["input"] == 6
    assert await kite.page.evaluate("window.seen.keydown.length") == 6  # no stray events after the read-back


async def test_type_newlines_and_non_ascii(kite: Kite, pages_server: PagesServer) -> None:
    await kite.goto(pages_server.add("/type-keys.html", _KEYS_PAGE))
    res = await kite.act(action="type", selector="#t", text="héllo\nwörld 😀")
    assert res.ok and res.effects.value == "héllo\nwörld 😀"
    assert await kite.page.input_value("#t") == "héllo\nwörld 😀"


def test_masking_a_numeric_secret_never_corrupts_numbers():
    from kite_browser.agent.browser.executor import _mask
    from kite_browser.agent.browser.observation import ActionResult, Effects

    result = ActionResult(
        action="type",
        ok=True,
        message="typed 123 into [4]",
        duration_ms=123.0,
        effects=Effects(value="123", scroll={"x": 0.0, "y": 1230.0}),
        data={"settle_ms": 12.3, "n": 123},
    )
    masked = _mask(result, ["123"])
    assert masked.message == "typed *** into [4]" and masked.effects.value == "***"
    assert masked.duration_ms == 123.0 and masked.data == {"settle_ms": 12.3, "n": 123}
    assert masked.effects.scroll == {"x": 0.0, "y": 1230.0}


_DROPS_KEYS_PAGE = """<!doctype html><body><input id=f aria-label=Code onkeydown="event.preventDefault()"
oninput="document.body.insertAdjacentHTML('beforeend', '<button>Saved ' + this.value + '</button>')"></body>"""


async def test_a_field_that_drops_keys_is_filled_and_the_fill_is_in_the_effects(
    kite: Kite, pages_server: PagesServer
) -> None:
    """The keys change nothing (the page cancels them), so the value is set directly; what the fill set off (a
    button the page adds on input) is in the action's effects: the settle begun after the keys is dropped and
    the page settled again after the fill, from the same mark."""
    await kite.goto(pages_server.add("/drops-keys.html", _DROPS_KEYS_PAGE))
    res = await kite.act(action="type", index=await kite.index_of("#f"), text="Ada")
    assert res.ok and res.method == "fill" and res.effects.value == "Ada", res
    assert res.effects.added == 1 and res.effects.changed, res.effects
    assert await kite.page.evaluate("document.querySelector('button').textContent") == "Saved Ada"


_WHEN_PAGE = """<!doctype html><body>
<label for="d">Day</label><input id="d" type="date">
<label for="t">Time</label><input id="t" type="time">
<label for="m">Month</label><input id="m" type="month">
<label for="w">Week</label><input id="w" type="week">
<label for="dt">When</label><input id="dt" type="datetime-local">
<script>window.changes = 0; document.body.addEventListener('change', () => { window.changes += 1; });</script>
</body>"""


async def test_date_and_time_inputs_take_dates_as_people_write_them(
    kite: Kite, pages_server: PagesServer
) -> None:
    """A date input refuses "05/20/2010" as such (recorded: the model typed it three steps running and the
    run failed): ``type`` sets the same date in the input's format and says so."""
    await kite.goto(pages_server.add("/when.html", _WHEN_PAGE))
    cases = [
        ("#d", "05/20/2010", "2010-05-20"),
        ("#d", "2011-10-11", "2011-10-11"),  # already the input's format: set as written
        ("#t", "9:37 PM", "21:37"),
        ("#m", "May 2010", "2010-05"),
        ("#w", "May 20, 2010", "2010-W20"),
        ("#dt", "05/20/2010 9:37 PM", "2010-05-20T21:37"),
    ]
    for selector, text, value in cases:
        res = await kite.act(action="type", selector=selector, text=text)
        assert res.ok and res.effects.value == value, (selector, text, res.message)
        assert await kite.page.input_value(selector) == value
        if value != text:
            assert repr(value) in res.message and repr(text) in res.message
    assert await kite.page.evaluate("window.changes") == len(cases)


async def test_a_date_input_refuses_what_is_no_date_and_keeps_its_value(
    kite: Kite, pages_server: PagesServer
) -> None:
    await kite.goto(pages_server.add("/when.html", _WHEN_PAGE))
    assert (await kite.act(action="type", selector="#d", text="2010-05-20")).ok
    for selector, text in [("#d", "next tuesday-ish"), ("#d", "9:37 PM"), ("#t", "05/20/2010")]:
        res = await kite.act(action="type", selector=selector, text=text)
        assert res.error is not None and res.error.error == "not_interactable", res.message
        assert "YYYY-MM-DD" in res.message or "HH:MM" in res.message
    assert await kite.page.input_value("#d") == "2010-05-20" and await kite.page.input_value("#t") == ""


_POPUP_PAGE = """<!doctype html><body><div id="area" style="position:relative;width:300px">
<p>Username <input id="u"></p><p>Password <input id="p" type="password"></p>
<script>
document.getElementById('u').addEventListener('focus', () => {
  if (document.getElementById('popup')) return;
  for (const id of ['u', 'p']) document.getElementById(id).disabled = true;
  const pop = document.createElement('div');
  pop.id = 'popup';
  pop.style = 'position:absolute;top:0;left:0;width:300px;height:120px;background:#fff';
  pop.innerHTML = '<p>Your session is timing out soon.</p><button>OK</button> <button>Cancel</button>';
  document.getElementById('area').appendChild(pop);
});
</script></div></body>"""


async def test_a_popup_that_opens_as_a_field_is_typed_into_is_named_not_a_playwright_timeout(
    kite: Kite, pages_server: PagesServer
) -> None:
    """Recorded (MiniWoB login-user-popup): focusing the field opened a popup over the form and disabled it;
    the model was shown "ElementHandle.fill: Timeout 1000ms exceeded". The result now names what covers it."""
    await kite.goto(pages_server.add("/popup.html", _POPUP_PAGE))
    res = await kite.act(action="type", index=await kite.index_of("#u"), text="vina")
    assert res.error is not None and res.error.error == "element_covered", res.message
    assert "Timeout" not in res.message and "session is timing out" in res.message
    assert "close or dismiss it first" in res.message
