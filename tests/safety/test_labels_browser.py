"""Labels that lie, in a real Chromium: a checkout page served over HTTP whose buttons and links say "Pay now"
(or 删除) to a person while their accessible name says something harmless, hides characters in the word, or
draws it in fullwidth forms or with look-alike letters of other scripts (Greek Rho in "Ρay", Cyrillic "е" in
"Dеlete"). Every click on them must need confirmation; the honest controls stay auto."""

from __future__ import annotations

import pytest
from playwright.async_api import Page

from kite_browser.agent.browser.actions import parse_action
from kite_browser.agent.browser.snapshot import Snapshotter
from kite_browser.safety.policy import ConfirmLevel, SafetyPolicy
from kite_browser.safety.rules import Decision
from kite_browser.safety.text import fold, folded_forms, skeleton
from tests.fixtures.browser import PagesServer

ATTACKS = {
    "aria": '<button id=aria aria-label="Continue">Pay now</button>',
    "zwsp": "<button id=zwsp>P&#8203;ay n&#8203;ow</button>",
    "bidi": "<button id=bidi>P&#8238;ay&#8236; now</button>",
    "soft-hyphen": "<button id=shy>Pur&shy;chase</button>",
    "link": '<a id=link href="/pay?go=1">Pay now</a>',
    "fullwidth": "<button id=full>Ｐａｙ ｎｏｗ</button>",
    "pseudo": '<button id=pseudo aria-label="Next"><span class=paint></span></button>',
    "image-button": '<input id=img type=image alt="Pay now" src="data:," aria-label="Continue">',
    "input-value": '<input id=val type=submit value="Place order" aria-label="Back">',
    "split": "<button id=split><span>Pa</span><span>y n</span><span>ow</span></button>",
    "title": '<button id=title title="Delete account" aria-label="Profile">&#x1F5D1;</button>',
    "labelledby": "<span id=lbl hidden>Help</span><button id=lb aria-labelledby=lbl>立即支付</button>",
    "role-link": '<span id=rl role=link tabindex=0 aria-label="Home">删除订单</span>',
    "greek-rho": "<button id=rho>&#x3A1;ay now</button>",  # Greek capital Rho
    "cyrillic": "<button id=cyr>&#x420;lace &#x43E;rder</button>",  # Cyrillic Er and o
    "cyrillic-link": '<a id=cdel href="/x">D&#x435;l&#x435;t&#x435; card</a>',  # Cyrillic ie
    "mixed": '<input id=mix type=submit value="&#x420;&#x3C5;r&#x441;h&#x430;s&#x435;">',  # Purchase
    # Drawn otherwise than the DOM reads: reversed by a bidi override, or junk letters that paint nothing.
    "rlo": "<button id=rlo>&#x202E;won yaP&#x202C;</button>",
    "css-bidi": "<button id=cbidi style='direction:rtl;unicode-bidi:bidi-override'>won yaP</button>",
    "font-size-0": "<button id=fs0>P<i style=font-size:0>xx</i>ay now</button>",
    "transparent": "<button id=clear>P<i style=color:transparent>lz</i>ay now</button>",
    "opacity-0": "<a id=opq href=/x>P<i style=opacity:0>xx</i>ay now</a>",
    "clipped": "<button id=clip>P<i style='display:inline-block;width:0;overflow:hidden'>xx</i>ay now</button>",
    "off-box": "<button id=offs>P<i style='position:absolute;left:-9999px'>xx</i>ay now</button>",
    "marker": "<a id=mark href=/y aria-label=Next class=mk style='display:list-item;list-style-position:inside'></a>",
}
HONEST = (
    '<button id=ok>Continue shopping</button><a id=help href="/help">Help</a>'
    "<button id=icon><i>&#x2605;</i> <i>Save</i> for <b style=direction:rtl>later</b></button>"
)
PAGE = (
    "<!doctype html><meta charset=utf-8><title>Checkout</title>"
    "<style>.paint::before{content:'Pay ' 'now'} .mk::marker{content:'Pay now'}"
    " button,a,input,span{display:block;margin:4px}</style>"
    "<h1>Checkout</h1>" + HONEST + "".join(ATTACKS.values())
)


def test_fold_undoes_hidden_and_compatibility_characters() -> None:
    assert fold("P\u200bay n\u200bow") == "pay now"
    assert fold("Ｐａｙ\u3000ＮＯＷ") == "pay now"
    assert fold("\u202epay\u202c  \n now") == "pay now"
    assert fold("Pur\u00adchase") == "purchase"
    assert skeleton("\u03a1ay N\u043ew") == "pay now" and fold("\u03a1ay") == "\u03c1ay"
    assert "pay now" in folded_forms("\u03a1ay now") and "\u03c1ay now" in folded_forms("\u03a1ay now")


@pytest.mark.parametrize("prefix", ["/checkout", "/shop/checkout"])
async def test_lying_labels_need_confirmation(
    page: Page, pages_server: PagesServer, policy: SafetyPolicy, prefix: str
) -> None:
    await page.set_viewport_size({"width": 1280, "height": 1600})  # every control in view
    await page.goto(pages_server.add(prefix, PAGE))
    obs = await Snapshotter().snapshot(page)
    by_id = {e.attrs.get("id"): e for e in obs.elements}
    ids = [
        "aria",
        "zwsp",
        "bidi",
        "shy",
        "link",
        "full",
        "pseudo",
        "img",
        "val",
        "split",
        "title",
        "lb",
        "rl",
        "rho",
        "cyr",
        "cdel",
        "mix",
        "rlo",
        "cbidi",
        "fs0",
        "clear",
        "opq",
        "clip",
        "offs",
        "mark",
    ]
    missing = [i for i in ids if i not in by_id]
    assert not missing, [e.attrs for e in obs.elements]
    for element_id in ids:
        el = by_id[element_id]
        decision = policy.evaluate(parse_action({"action": "click", "index": el.index}), obs)
        assert decision.level is ConfirmLevel.CONFIRM, (element_id, el, decision)
        assert decision.rule == "sensitive_click"
    for element_id in ("ok", "help", "icon"):
        decision = policy.evaluate(parse_action({"action": "click", "index": by_id[element_id].index}), obs)
        assert decision.level is ConfirmLevel.AUTO, (element_id, decision)


async def test_destructive_link_on_an_ordinary_page_is_judged_like_a_button(
    page: Page, pages_server: PagesServer, policy: SafetyPolicy
) -> None:
    await page.goto(
        pages_server.add(
            "/notes",
            '<a id=a href="/n/1/x" aria-label="Open note">Delete</a><button id=b aria-label="Open">Delete</button>',
        )
    )
    obs = await Snapshotter().snapshot(page)
    levels = {
        e.attrs["id"]: policy.evaluate(parse_action({"action": "click", "index": e.index}), obs).level
        for e in obs.elements
    }
    assert levels == {"a": ConfirmLevel.NOTIFY, "b": ConfirmLevel.NOTIFY}


def test_look_alike_letters_in_page_text_and_dialogs(policy: SafetyPolicy) -> None:
    """An innocuous URL whose text warns in Cyrillic look-alikes ("саnnot bе undone") is still sensitive, and
    a confirm() asking to "Dеlete" (Cyrillic ie) is judged destructive."""
    from kite_browser.agent.browser.observation import Element, Observation, PageSummary, Rect

    obs = Observation(
        summary=PageSummary(
            url="http://127.0.0.1:9/p/42", visible_text="Your data \u0441\u0430nnot b\u0435 undone."
        ),
        elements=[
            Element(
                index=0, tag="button", kind="button", name="Submit", rect=Rect(x=0, y=0, width=9, height=9)
            )
        ],
    )
    assert policy.page_sensitivity(obs) == "the page mentions 'cannot be undone'"
    assert policy.evaluate(parse_action({"action": "click", "index": 0}), obs).level is ConfirmLevel.CONFIRM
    asked = policy.evaluate_dialog("confirm", "D\u0435l\u0435t\u0435 all notes?", "http://127.0.0.1:9/notes")
    assert asked.level is ConfirmLevel.CONFIRM and asked.rule == "sensitive_dialog"


FORMS = (
    "<!doctype html><meta charset=utf-8><title>{title}</title>"
    '<form action="/checkout/pay" method=post><input id=next type=submit value="Next"></form>'
    '<form action="/account/delete" method=post><button id=cont>Continue</button></form>'
    '<form action="/x"><button id=attr formaction="/orders/purchase">Go</button></form>'
    '<form action="http://evil.test/collect" method=post><button id=away>Next</button></form>'
    '<form action="/checkout/shipping" method=post><button id=ship>Next</button>'
    "<button id=plain type=button>Back</button></form>"
)


@pytest.mark.parametrize("prefix", ["/checkout", "/notes"])
async def test_a_submit_button_is_judged_by_where_its_form_goes(
    page: Page, pages_server: PagesServer, policy: SafetyPolicy, prefix: str
) -> None:
    """A "Next" that posts its form to /checkout/pay pays: its label alone hid that from the policy."""
    await page.goto(pages_server.add(prefix, FORMS.format(title=prefix.strip("/"))))
    obs = await Snapshotter().snapshot(page)
    by_id = {e.attrs.get("id"): e for e in obs.elements}

    def decide(element_id: str) -> Decision:
        return policy.evaluate(parse_action({"action": "click", "index": by_id[element_id].index}), obs)

    # /notes is sensitive too, by what it holds: a form on it is sent by POST to /checkout/pay
    why = policy.page_sensitivity(obs) or ""
    assert ("the URL" if prefix == "/checkout" else "sent by POST and its target /checkout/pay") in why, why
    sensitive = True
    for element_id, level, rule, said in [
        ("next", "confirm" if sensitive else "auto", "sensitive_click", "its form goes to /checkout/pay"),
        (
            "cont",
            "confirm" if sensitive else "notify",
            "sensitive_click" if sensitive else "destructive_click",
            "its form goes to /account/delete",
        ),
        ("attr", "confirm" if sensitive else "auto", "sensitive_click", "its form goes to /orders/purchase"),
        ("away", "block", "blocked_domain", "sends its form to evil.test"),
    ]:
        decision = decide(element_id)
        assert decision.level == level, (element_id, decision)
        if level != "auto":
            assert decision.rule == rule and any(said in r for r in decision.reasons), (element_id, decision)
    for element_id in ("ship", "plain"):
        assert decide(element_id).level is ConfirmLevel.AUTO, element_id
    assert "formaction" not in by_id["plain"].attrs  # a type=button sends nothing


SCRIPTS = (
    "<!doctype html><meta charset=utf-8><title>{title}</title>"
    '<a id=pay href="javascript:pay()">Details</a>'
    '<a id=wipe href="javascript:%20deleteAll()">Tidy up</a>'
    '<a id=hidden href="javascript://%0Apay()">Help</a>'
    '<a id=help href="javascript:openHelp()">Help</a>'
    '<a id=void href="javascript:void(0)" onclick="openHelp()">More</a>'
)


@pytest.mark.parametrize("prefix", ["/checkout", "/notes"])
async def test_a_javascript_link_is_judged_by_its_code(
    page: Page, pages_server: PagesServer, policy: SafetyPolicy, prefix: str
) -> None:
    """A "Details" link whose href runs javascript:pay() on a checkout page pays: the element list hides the
    href (it is no address), but the policy reads the code; a no-op javascript:void(0) link stays a click."""
    await page.goto(pages_server.add(prefix + "/js", SCRIPTS.format(title=prefix.strip("/"))))
    obs = await Snapshotter().snapshot(page)
    by_id = {e.attrs.get("id"): e for e in obs.elements}
    assert all(by_id[i].href is None for i in ("pay", "wipe", "help", "void"))
    levels = {
        i: policy.evaluate(parse_action({"action": "click", "index": e.index}), obs)
        for i, e in by_id.items()
        if i
    }
    if prefix == "/checkout":
        expected = {
            "pay": "confirm",
            "wipe": "confirm",
            "hidden": "confirm",
            "help": "confirm",
            "void": "auto",
        }
        assert any("runs 'javascript:pay()'" in r for r in levels["pay"].reasons), levels["pay"]
    else:
        expected = {"pay": "auto", "wipe": "notify", "hidden": "auto", "help": "auto", "void": "auto"}
    assert {i: d.level.value for i, d in levels.items()} == expected, levels
