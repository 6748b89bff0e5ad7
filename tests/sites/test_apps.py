"""The two WebArena-style apps, Kite Mail (/mail/) and Kite Events (/events/), in a real Chromium: a person's
clicks and typing change the server's state, and the suites' checks (evals/suites/mail.yaml, events.yaml) pass
on the final state a task asks for and fail on a wrong one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from playwright.async_api import Page, expect

from kite_browser.agent.batch.checks import evaluate
from kite_browser.agent.batch.tasks import Check
from kite_browser.evals.sites import SitesServer
from kite_browser.evals.tasks import find_suite, load_suite
from tests.sites.helpers import state

FILES = Path(find_suite("mail")).parent / "files"


def check_of(suite: str, task_id: str, sites: SitesServer) -> Check:
    """The check of a bundled suite's task, its placeholders filled in for ``sites``."""
    loaded = load_suite(find_suite(suite))
    (task,) = loaded.select([task_id])
    values = {
        "sites": sites.url("/").rstrip("/"),
        "cross": sites.cross_origin_url,
        "suite_dir": str(FILES.parent),
    }
    resolved = task.resolve(values).check
    assert resolved is not None
    return resolved


async def checked(suite: str, task_id: str, session: Any, sites: SitesServer) -> list[str]:
    """The failures of the task's check on the session's final page and state (empty: it passes)."""
    out = await evaluate(check_of(suite, task_id, sites), session, answer="", base_url=sites.url("/"))
    return out.failures


async def reset(page: Page, sites: SitesServer) -> None:
    resp = await page.request.post(sites.url("/api/reset"))
    assert resp.ok


async def move(page: Page, sites: SitesServer, subject: str, folder: str) -> None:
    await page.goto(sites.url("/mail/"))
    await page.get_by_role("link", name=subject).click()
    await page.get_by_label("Move to").select_option(folder)
    await page.get_by_role("button", name="Move", exact=True).click()
    await expect(page.locator("#notice")).to_have_text("Message moved.")


async def test_mail_filing_passes_in_the_right_folder_and_fails_in_another(
    ctx_session: Any, sites: SitesServer
) -> None:
    page = ctx_session.page
    await move(page, sites, "Invoice 2026-031 overdue", "Receipts")
    assert await checked("mail", "mail-file-invoice", ctx_session, sites) == []

    await reset(page, sites)
    await move(page, sites, "Invoice 2026-031 overdue", "Work")
    failures = await checked("mail", "mail-file-invoice", ctx_session, sites)
    assert failures == ['state: mail.messages.m5.folder = "Work", expected "Receipts"'], failures


async def reply(page: Page, sites: SitesServer, subject: str, text: str, attach: Path | None) -> None:
    await page.goto(sites.url("/mail/"))
    await page.get_by_role("link", name=subject).click()
    await page.get_by_role("link", name="Reply").click()
    await expect(page.get_by_label("Subject")).to_have_value(f"Re: {subject}")
    await page.get_by_label("Message").fill(text)
    if attach is not None:
        await page.get_by_label("Attach a file").set_input_files(str(attach))
    await page.get_by_role("button", name="Send").click()
    await expect(page.locator("#notice")).to_have_text("Message sent.")


async def test_mail_reply_with_attachment_reaches_the_state_and_the_check(
    ctx_session: Any, sites: SitesServer
) -> None:
    page = ctx_session.page
    await reply(page, sites, "Q3 budget review", "Report attached.", FILES / "report-q3.txt")
    sent = (await state(page, sites))["mail"]["sent"]
    assert [(s["to"], s["in_reply_to"], s["attachments"]) for s in sent] == [
        ("priya@northwind.test", "m1", ["report-q3.txt"])
    ]
    await expect(page.get_by_role("link", name="Re: Q3 budget review")).to_be_visible()  # listed in Sent
    assert await checked("mail", "mail-reply-attach", ctx_session, sites) == []

    await reset(page, sites)
    await reply(page, sites, "Q3 budget review", "Report attached.", None)  # the file forgotten
    failures = await checked("mail", "mail-reply-attach", ctx_session, sites)
    assert failures == ['state: mail.sent.0.attachments = [], expected ["report-q3.txt"]'], failures


async def test_mail_read_star_unread_search_and_folders(page: Page, sites: SitesServer) -> None:
    await page.goto(sites.url("/mail/"))
    await expect(page.locator("tr.message")).to_have_count(12)
    assert (await state(page, sites))["mail"]["unread"] == 6
    await page.get_by_role("link", name="Team offsite in Lisbon").click()
    await page.get_by_role("button", name="Add star").click()
    await expect(page.get_by_role("button", name="Remove star")).to_be_visible()
    await page.get_by_role("button", name="Mark as unread").click()
    m8 = (await state(page, sites))["mail"]["messages"]["m8"]
    assert (m8["starred"], m8["read"]) == (True, False)

    await page.get_by_label("Search mail").fill("wi-fi password")
    await page.keyboard.press("Enter")
    await expect(page.locator("tr.message")).to_have_count(1)
    assert (await state(page, sites))["mail"]["searches"] == ["wi-fi password"]

    await page.get_by_label("New folder name").fill("Clients")
    await page.get_by_role("button", name="Create folder").click()
    await expect(page.locator("#list-title")).to_have_text("Clients")
    await page.get_by_label("New folder name").fill("clients")  # taken (case aside): refused
    await page.get_by_role("button", name="Create folder").click()
    assert (await state(page, sites))["mail"]["folders"][-2:] == ["Trash", "Clients"]


async def test_mail_send_without_a_recipient_is_refused(page: Page, sites: SitesServer) -> None:
    await page.goto(sites.url("/mail/compose"))
    await page.get_by_label("Subject").fill("No one")
    await page.get_by_role("button", name="Send").click()
    await expect(page.locator("#errors")).to_contain_text("Enter at least one recipient address")
    await expect(page.get_by_label("Subject")).to_have_value("No one")
    assert (await state(page, sites))["mail"]["sent"] == []


async def book(page: Page, sites: SitesServer, title: str, tickets: int, kind: str = "standard") -> None:
    await page.goto(sites.url("/events/"))
    await page.get_by_role("link", name=title).click()
    await page.get_by_label("Tickets").fill(str(tickets))
    await page.get_by_label("Ticket type").select_option(kind)
    await page.get_by_role("button", name="Book now").click()
    await expect(page.locator("#booking-title")).to_have_text("Booking confirmed")


async def cancel(page: Page, sites: SitesServer, title: str) -> None:
    await page.goto(sites.url("/events/"))
    await page.get_by_role("link", name="My bookings").click()
    await page.get_by_role("link", name=f"Cancel booking for {title}").click()
    await page.get_by_role("button", name="Yes, cancel booking").click()
    await expect(page.locator("#notice")).to_have_text("Booking cancelled.")


async def test_events_cancel_and_rebook_passes_only_when_both_are_done(
    ctx_session: Any, sites: SitesServer
) -> None:
    page = ctx_session.page
    await cancel(page, sites, "Hertha vs Union")
    await book(page, sites, "Berlin Philharmonic: Brahms", 2)
    assert await checked("events", "events-cancel-rebook", ctx_session, sites) == []
    await expect(page.locator("#bookings-count")).to_have_text("1")

    await reset(page, sites)
    await book(page, sites, "Berlin Philharmonic: Brahms", 2)  # the old booking kept
    failures = await checked("events", "events-cancel-rebook", ctx_session, sites)
    assert failures == [
        'state: booking.bookings.0.status = "booked", expected "cancelled"',
        'state: booking.active = ["berlin-football", "berlin-philharmonic"], expected ["berlin-philharmonic"]',
    ], failures


async def test_events_premium_tickets_cost_more_and_standard_ones_fail_the_check(
    ctx_session: Any, sites: SitesServer
) -> None:
    page = ctx_session.page
    await book(page, sites, "La Traviata at the Opera", 2, "premium")
    await expect(page.locator("#booking-total")).to_have_text("€360.00")
    assert await checked("events", "events-premium-traviata", ctx_session, sites) == []

    await reset(page, sites)
    await book(page, sites, "La Traviata at the Opera", 2)
    failures = await checked("events", "events-premium-traviata", ctx_session, sites)
    assert failures == [
        'state: booking.bookings.1.ticket_type = "standard", expected "premium"',
        "state: booking.bookings.1.total = 240.0, expected 360.0",
    ], failures


async def test_events_filters_by_date_and_price_and_refuses_sold_out(page: Page, sites: SitesServer) -> None:
    await page.goto(sites.url("/events/"))
    await expect(page.locator("li.event")).to_have_count(20)
    await page.get_by_label("Category").select_option("festival")
    await page.get_by_label("From date").fill("2026-06-01")
    await page.get_by_label("To date").fill("2026-06-30")
    await page.get_by_label("Max price").fill("30")
    await page.get_by_role("button", name="Search").click()
    await expect(page.locator("li.event a")).to_have_text(["Lisbon Surf Festival"])
    assert (await state(page, sites))["booking"]["searches"][-1] == {
        "category": "festival",
        "from": "2026-06-01",
        "to": "2026-06-30",
        "max_price": "30",
    }
    await page.goto(sites.url("/events/event/london-late-jazz"))
    await expect(page.locator("#sold-out")).to_contain_text("Sold out")
    await expect(page.get_by_role("button", name="Book now")).to_have_count(0)
    resp = await page.request.post(
        sites.url("/events/book"),
        form={"event_id": "london-late-jazz", "tickets": "1", "name": "A", "email": "a@b.test"},
    )
    assert resp.status == 422
    assert len((await state(page, sites))["booking"]["bookings"]) == 1


async def test_variants_rename_relabel_page_and_cover_the_apps(sites_variant: Any) -> None:
    import urllib.request

    def get(n: int, path: str) -> str:
        with urllib.request.urlopen(sites_variant(n).url(path)) as resp:
            return str(resp.read().decode("utf-8"))

    assert 'id="move-to"' in get(0, "/mail/message/m8") and 'id="move-to"' not in get(1, "/mail/message/m8")
    msg2, list2 = get(2, "/mail/message/m8"), get(2, "/mail/")
    assert "Respond" in msg2 and "Add flag" in msg2 and ">Reply<" not in msg2
    assert "Next page" in list2 and list2.count('class="message') == 8
    event2 = get(2, "/events/event/lisbon-fado")
    assert "Reserve now" in event2 and "My reservations" in event2
    assert "Cookie consent" in get(3, "/events/") and "Cookie consent" not in get(2, "/events/")
