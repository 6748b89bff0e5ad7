"""``kite mcp --http`` (streamable HTTP, ``--isolated``) driven by the MCP SDK's own client."""

from __future__ import annotations

import base64
import re

import anyio
import mcp_types as types
import pytest
from mcp import Client

from kite_browser.agent.mcp.image import MAX_CAPTURE_PX, MAX_IMAGE_BYTES
from kite_browser.evals.sites import SitesServer
from tests.fixtures.browser import PagesServer
from tests.mcp.conftest import HttpServer, error_of, records, ref, text_of, wait_until
from tests.mcp.scenarios import (
    Answers,
    bad_input,
    check_tools,
    confirmations,
    secrets_hidden,
    shop_task,
    structured_results,
)

# one `kite mcp --http` server (a module fixture) for the file, on one xdist worker
pytestmark = pytest.mark.xdist_group("mcp_http")


async def test_http_task_stale_ref_confirmations_and_bad_input(
    http_server: HttpServer, sites: SitesServer
) -> None:
    answers = Answers(True, False)
    async with Client(http_server.url, elicitation_callback=answers) as c:
        assert c.protocol_version == "2025-11-25"  # --isolated: discover steers auto clients to sessions
        await check_tools(c)
        assert await shop_task(c, sites, "Navy Travel Mug") == "$18.50"
        await confirmations(c, answers)
        await bad_input(c)
        await secrets_hidden(c, sites)


async def test_http_client_pinned_to_2026_07_28(http_server: HttpServer, sites: SitesServer) -> None:
    """No session in 2026-07-28: its requests share one browser state, elicitation comes as input rounds."""
    answers = Answers(True, False)
    async with Client(http_server.url, mode="2026-07-28", elicitation_callback=answers) as c:
        assert c.protocol_version == "2026-07-28"
        page = text_of(await c.call_tool("navigate", {"url": sites.url("/account/login")}))
        await confirmations(c, answers, "/account/login")
        register = text_of(await c.call_tool("click", {"ref": ref(page, "link", "Register")}))
        assert "\nPage: Register — " in register and "/account/register" in register
        stale = error_of(await c.call_tool("click", {"ref": ref(page, "link", "Register")}))
        assert stale["error"] == "stale_element" and "Create account" in stale["page"]
    async with Client(http_server.url, mode="2026-07-28") as c:  # the same state: still on the register page
        assert "/account/register" in text_of(await c.call_tool("snapshot", {}))
        await structured_results(c, sites)
    rounds = [r for r in records(http_server.home) if r["event"] == "input_required"]
    assert [r["client"] for r in rounds] == ["shared", "shared"]


async def test_two_isolated_sessions_at_once(http_server: HttpServer, sites: SitesServer) -> None:
    carts: dict[str, str] = {}

    async def shopper(product: str) -> None:
        async with Client(http_server.url) as c:
            carts[product] = await shop_task(c, sites, product)
            snap = text_of(await c.call_tool("snapshot", {}))
            assert re.search(r"link Cart \( ?1 ?\)$", snap, re.M), snap  # only this session's item

    async with anyio.create_task_group() as tg:
        tg.start_soon(shopper, "Classic Blue Mug")
        tg.start_soon(shopper, "Ocean Blue Mug XL")
    assert carts == {"Classic Blue Mug": "$12.99", "Ocean Blue Mug XL": "$15.00"}
    calls = [r for r in records(http_server.home) if r["event"] == "call"]
    shoppers = {r["client"] for r in calls if r["tool"] == "snapshot"} - {"shared"}  # 2026-07-28: no session
    assert len(shoppers) >= 2  # told apart by their MCP session ids

    def ended() -> bool:  # each client's DELETE closed its own browser context
        return shoppers <= {r["client"] for r in records(http_server.home) if r["event"] == "session_end"}

    wait_until(ended, 10, "both sessions to end")


async def test_client_without_elicitation_is_refused_with_how_to_allow(
    http_server: HttpServer, sites: SitesServer
) -> None:
    async with Client(http_server.url) as c:  # no elicitation callback: the capability is not declared
        home = text_of(await c.call_tool("navigate", {"url": sites.url("/dynamic/")}))
        assert "button Show alert" not in home and "9 below (visible_only=false" in home
        error = error_of(await c.call_tool("evaluate", {"code": "return 1"}))
        assert error["error"] == "refused" and "--approve confirm" in error["message"]
        assert error["message"].startswith("refused: this client cannot ask for confirmation; allow with")
        whole = text_of(await c.call_tool("snapshot", {"visible_only": False}))
        shown = ref(whole, "button", "Show alert")
        clicked = text_of(await c.call_tool("click", {"ref": shown}))
        assert 'alert dialog "Hello from Kite!" was accepted' in clicked


async def test_a_client_that_vanishes_mid_call_leaves_the_server_serving(
    http_server: HttpServer, sites: SitesServer
) -> None:
    """The client goes away while the server waits for its user's answer: other clients are still served,
    nothing reaches the protocol stream as a traceback (the fixture then checks: clean exit, no Chromium)."""
    asked = anyio.Event()

    async def never_answers(ctx: object, params: object) -> types.ElicitResult:
        asked.set()
        await anyio.sleep_forever()
        raise AssertionError("unreachable")

    async def vanishing() -> None:
        async with Client(http_server.url, elicitation_callback=never_answers) as c:
            await c.call_tool("navigate", {"url": sites.url("/forms/")})
            await c.call_tool("evaluate", {"code": "return 1"})

    with anyio.fail_after(60):
        async with anyio.create_task_group() as tg:
            tg.start_soon(vanishing)
            await asked.wait()  # the server is in the middle of the call, asking
            tg.cancel_scope.cancel()
    async with Client(http_server.url) as c:
        page = text_of(await c.call_tool("navigate", {"url": sites.url("/account/login")}))
        assert "Page: Log in" in page
        assert error_of(await c.call_tool("click", {"ref": 10**6}))["error"] == "stale_element"
    assert "Traceback" not in "".join(http_server.stderr)


NOISY = """<!doctype html><title>Long</title><body style="margin:0">
<canvas id=c width=1200 height=6000></canvas>
<script>
  const c = document.getElementById('c').getContext('2d'), img = c.createImageData(1200, 6000);
  let x = 7;
  for (let i = 0; i < img.data.length; i++) { x = (x * 1103515245 + 12345) & 0x7fffffff; img.data[i] = i % 4 === 3 ? 255 : (x >> 16) & 255; }
  c.putImageData(img, 0, 0);
</script>"""


async def test_a_full_page_screenshot_of_a_long_page_fits_one_reply(
    http_server: HttpServer, pages_server: PagesServer
) -> None:
    """A full-page PNG of a long page is megabytes, and the SDK's HTTP client refuses an event over 1 MiB: the
    tool failed for every HTTP client. It now sends a JPEG that fits, cut to the top of the page if need be."""
    async with Client(http_server.url) as c:
        await c.call_tool("navigate", {"url": pages_server.add("/noisy.html", NOISY)})
        viewport = await c.call_tool("screenshot", {})
        assert not viewport.is_error
        full = await c.call_tool("screenshot", {"full_page": True})
    assert not full.is_error, full
    image, note = full.content
    assert isinstance(image, types.ImageContent) and image.mime_type == "image/jpeg"
    data = base64.b64decode(image.data)
    assert data[:3] == b"\xff\xd8\xff" and len(data) <= MAX_IMAGE_BYTES
    assert isinstance(note, types.TextContent)
    cut = r"only the top (\d+) px of the 600\d px page \(the whole page was (\d+) kB even at that quality\)"
    sent = re.fullmatch(
        rf"Screenshot sent as a JPEG at quality 30, {len(data) // 1000} kB, of {cut}: the PNG was \d+ kB.*\.",
        note.text,
    )
    assert sent, note.text
    assert int(sent.group(1)) < 6000 and int(sent.group(2)) * 1000 > MAX_IMAGE_BYTES


async def test_a_page_taller_than_the_capture_cap_is_captured_down_to_the_cap_and_the_note_says_so(
    http_server: HttpServer, pages_server: PagesServer
) -> None:
    """A full page taller than MAX_CAPTURE_PX (Chromium's largest texture side) is captured down to that height
    only: the PNG of a plain page that tall fits, and its note says it is the top part of a taller page."""
    tall = '<!doctype html><title>Tall</title><body style="margin:0"><div style="height:40000px">Top</div>'
    async with Client(http_server.url) as c:
        await c.call_tool("navigate", {"url": pages_server.add("/tall.html", tall)})
        full = await c.call_tool("screenshot", {"full_page": True})
    assert not full.is_error, full
    image, note = full.content
    assert isinstance(image, types.ImageContent) and image.mime_type == "image/png"
    data = base64.b64decode(image.data)
    assert int.from_bytes(data[20:24], "big") == MAX_CAPTURE_PX  # the PNG header's height
    assert isinstance(note, types.TextContent)
    assert note.text == f"Screenshot sent as a PNG of only the top {MAX_CAPTURE_PX} px of the 40000 px page."


async def test_an_element_too_big_for_one_reply_even_as_a_jpeg_is_cut_and_the_note_says_so(
    http_server: HttpServer, pages_server: PagesServer
) -> None:
    """An element whose quality-30 JPEG is still over the limit (megabytes: the event would be refused) is cut
    to its top part like a long page; the note says the format, quality, size and the cut."""
    noisy_button = NOISY.replace("<canvas", '<button aria-label="Noise" style="border:0;padding:0"><canvas')
    noisy_button = noisy_button.replace("</canvas>", "</canvas></button>")
    async with Client(http_server.url) as c:
        page = text_of(
            await c.call_tool("navigate", {"url": pages_server.add("/noisy-button.html", noisy_button)})
        )
        shot = await c.call_tool("screenshot", {"ref": ref(page, "button", "Noise")})
    assert not shot.is_error, shot
    image, note = shot.content
    assert isinstance(image, types.ImageContent) and image.mime_type == "image/jpeg"
    data = base64.b64decode(image.data)
    assert data[:3] == b"\xff\xd8\xff" and len(data) <= MAX_IMAGE_BYTES
    assert isinstance(note, types.TextContent)
    sent = re.fullmatch(
        rf"Screenshot sent as a JPEG at quality 30, {len(data) // 1000} kB, of only the top (\d+) px of the "
        r"600\d px element \(the whole element was (\d+) kB even at that quality\): the PNG was \d+ kB.*\.",
        note.text,
    )
    assert sent, note.text
    assert int(sent.group(1)) < 6000 and int(sent.group(2)) * 1000 > MAX_IMAGE_BYTES
