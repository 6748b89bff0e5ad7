"""The mailbox every visitor of Kite Mail (/mail/) starts with: the user, the folders and the messages.

Ids, senders, subjects and bodies are stable (evals/suites/mail.yaml relies on them; README.md lists them)."""

from __future__ import annotations

from typing import Any

USER = "sam@kite.test"
USER_NAME = "Sam Taylor"
FOLDERS = ["Inbox", "Work", "Travel", "Receipts", "Archive", "Sent", "Trash"]
SYSTEM_FOLDERS = frozenset({"Inbox", "Sent", "Trash"})
"""Folders a message cannot be moved into by hand (Sent and Trash are where sending and deleting put them)."""

# id, folder, sender name, sender address, subject, date, read, starred, attachments, body
_SEED: list[tuple[str, str, str, str, str, str, bool, bool, list[str], str]] = [
    ("m1", "Inbox", "Priya Natarajan", "priya@northwind.test", "Q3 budget review", "2026-03-09 16:40", False, False, [],
     "Hi Sam, could you send me the Q3 report before Friday? I want to go through the numbers with finance. Thanks, Priya"),
    ("m2", "Inbox", "Lufthansa", "no-reply@lufthansa.test", "Your booking confirmation LH-4821", "2026-03-09 11:05", True, False, [],
     "Thank you for flying with us. Flight LH 904 from Frankfurt to London on 14 April 2026, seat 12C. Booking reference LH-4821."),
    ("m3", "Inbox", "Marco Rossi", "marco@acme.test", "Lunch on Thursday?", "2026-03-08 18:22", False, False, [],
     "Hey Sam, are you free for lunch on Thursday at 12:30 at Cafe Milano? Marco"),
    ("m4", "Inbox", "GitHub", "noreply@github.test", "[kite] New issue #512: flaky test", "2026-03-08 09:47", False, False, [],
     "A new issue was opened: the test test_toast_disappears in tests/sites/test_dynamic.py fails about one run in twenty."),
    ("m5", "Inbox", "Hannah Becker", "hannah@northwind.test", "Invoice 2026-031 overdue", "2026-03-07 14:10", False, False,
     ["invoice-2026-031.pdf"],
     "Dear Sam, invoice 2026-031 over EUR 1,240.00 is now ten days overdue. Please arrange the payment. Kind regards, Hannah"),
    ("m6", "Inbox", "City Library", "library@city.test", "Your books are due", "2026-03-06 08:00", True, False, [],
     "Two books are due back on 20 March 2026: Dune and Neuromancer. You can renew them online."),
    ("m7", "Inbox", "Aisha Khan", "aisha@acme.test", "Design review slides", "2026-03-05 17:31", True, False,
     ["design-review.pdf"], "Hi Sam, attached are the slides for Monday's design review. Aisha"),
    ("m8", "Inbox", "Tom Muller", "tom@northwind.test", "Team offsite in Lisbon", "2026-03-05 10:12", False, False, [],
     "Hi all, the team offsite is from 5 to 7 May in Lisbon. Please confirm that you can come by replying to this email. Tom"),
    ("m9", "Inbox", "Bank of Kite", "alerts@bank.test", "Your March statement is ready", "2026-03-04 07:30", True, False, [],
     "Your account statement for March is ready. Closing balance: EUR 3,402.18."),
    ("m10", "Inbox", "Priya Natarajan", "priya@northwind.test", "Re: hiring plan", "2026-03-03 15:55", True, True, [],
     "Let's meet on Monday at 10:00 to go over the hiring plan. Priya"),
    ("m11", "Inbox", "Browser Weekly", "news@weekly.test", "This week in browsers", "2026-03-02 06:00", True, False, [],
     "Issue 214: new rendering engines, faster layout and a look at accessibility trees."),
    ("m12", "Inbox", "Marco Rossi", "marco@acme.test", "Wi-Fi password for the office", "2026-03-01 12:03", False, False, [],
     "The guest Wi-Fi network is AcmeGuest and its password is kite-guest-2026."),
    ("m13", "Work", "Hannah Becker", "hannah@northwind.test", "Onboarding checklist", "2026-02-27 09:20", True, False, [],
     "Welcome aboard! Please finish the onboarding checklist and tell me when it is done. Hannah"),
    ("m14", "Work", "Priya Natarajan", "priya@northwind.test", "Quarterly goals", "2026-02-25 13:00", True, False, [],
     "Here are the goals for this quarter: ship the new reports page and cut support tickets by a fifth."),
    ("m15", "Archive", "Lufthansa", "no-reply@lufthansa.test", "Your trip to Munich", "2026-01-18 10:00", True, False, [],
     "Flight LH 2031 from London to Munich on 2 February 2026. Booking reference LH-1177."),
]


def fresh_mail() -> dict[str, Any]:
    """A new visitor's mailbox: messages by id (newest first), the folders, nothing sent or searched yet."""
    messages = {
        mid: {
            "id": mid,
            "folder": folder,
            "from_name": name,
            "from": address,
            "to": USER,
            "subject": subject,
            "date": date,
            "read": read,
            "starred": starred,
            "attachments": list(attachments),
            "body": body,
            "replied": False,
        }
        for mid, folder, name, address, subject, date, read, starred, attachments, body in _SEED
    }
    return {"user": USER, "folders": list(FOLDERS), "messages": messages, "sent": [], "searches": [], "next_id": 100}
