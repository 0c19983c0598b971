"""Nothing lost (issue 40), in real Chromium at 390×844: a board opened from the phone's copy
with no connection keeps its hands, the browser restarted in between too; a hand leaves the
phone only on the server's word that it stored it, so a session that ended keeps it; and one
account's hands and boards are never sent or shown as another's on a shared browser."""

import re

import pytest
from django.contrib.auth import get_user_model
from django.contrib.sessions.models import Session
from playwright.sync_api import Page, expect

from games.models import Change, Group, Match, Role

from .browser import enter_hand, log_in, new_match
from .liveserver import PASSWORD
from .test_offline_browser import points, stored, waiting

pytestmark = pytest.mark.django_db(transaction=True)


def account(name: str):
    user = get_user_model().objects.create_user(name, password=PASSWORD)
    Group.home(user)
    return user


def board_kept(page: Page, *text: str):
    """The phone has its copy of the board as it is now, and the files it needs offline."""
    checks = " && ".join(f"html.includes({t!r})" for t in text)
    page.wait_for_function(
        f"""async () => {{
            await navigator.serviceWorker.ready;
            if (!navigator.serviceWorker.controller) return false;
            const mine = "boards-" + document.querySelector("meta[name=account]").content;
            const copy = await caches.match(location.pathname, {{cacheName: mine}});
            const html = copy ? await copy.text() : "";
            return {checks or "true"} && html.includes('id="hand-form"')
                && Boolean(await caches.match(document.querySelector("[src*='offline.js']").src));
        }}"""
    )


def match_of(page: Page) -> int:
    return int(re.search(r"/matches/(\d+)/", page.url).group(1))


def a_match_with_one_hand(page: Page, base: str, name: str) -> int:
    account(name)
    log_in(page, base, name)
    new_match(page, "Standard", ["Ann", "Bob", "Cat", "Dan"], "Dan")
    enter_hand(page, "clubs", tricks={"Ann": 2, "Bob": 1, "Cat": 1})
    expect(page.get_by_role("button", name="Undo hand 1")).to_be_visible()
    board_kept(page, "Undo hand 1")
    return match_of(page)


def test_a_board_reopened_with_no_connection_keeps_its_first_hand_and_the_next(
    own_browser, browser_context_args, live_server
):
    page = own_browser.new_context(**browser_context_args).new_page()
    match_id = a_match_with_one_hand(page, live_server.url, "cabin")

    page.context.set_offline(True)
    page.reload()  # the phone's copy: no hand waits yet
    expect(page.locator("html")).to_have_attribute("data-offline", re.compile(r"\d+"))
    expect(page.locator(".connection-state")).to_have_text("Offline — hands are kept on this phone")
    enter_hand(page, "hearts", maker="Bob", dropped=["Cat"], tricks={"Bob": 3, "Dan": 2})
    waiting(page, 1)
    expect(page.locator(".outbox-hands .hand-row")).to_have_count(1)
    expect(page.get_by_role("button", name="Save hand 3")).to_be_hidden()  # the form is ready…
    expect(page.locator("#hand-form legend .dealer")).to_have_text("Bob")  # …for Bob's deal
    enter_hand(page, "spades", maker="Ann", dropped=["Bob"], tricks={"Ann": 3, "Cat": 1})
    waiting(page, 2)
    provisional = points(page)
    assert provisional != {"Ann": 23, "Bob": 24, "Cat": 24, "Dan": 24}
    expect(page.locator(".scores")).to_have_class(re.compile("provisional"))
    assert stored(match_id) == [(1, "clubs", False)]

    page.context.set_offline(False)
    expect(page.get_by_role("button", name="Undo hand 3")).to_be_visible()
    expect(page.locator(".outbox-hands .hand-row")).to_have_count(0)
    assert points(page) == provisional
    assert stored(match_id) == [(1, "clubs", False), (2, "hearts", False), (3, "spades", False)]


@pytest.mark.parametrize(
    ("preset", "table", "online", "offline"),
    [
        (
            "Dirty Clubs, counted up",
            ["Ann", "Bob", "Cat", "Dan", "Eve"],
            {"upcard": "clubs", "tricks": {"Ann": 2, "Bob": 1, "Cat": 1, "Dan": 1}},
            [
                {
                    "upcard": "hearts",
                    "maker": "Bob",
                    "bid": 3,
                    "dropped": ["Cat"],
                    "tricks": {"Bob": 3, "Ann": 1, "Dan": 1},
                },
                {"upcard": "clubs", "tricks": {"Eve": 3, "Ann": 1, "Bob": 1, "Cat": 0}},
            ],
        ),
        (
            "3 players (widow)",
            ["Ann", "Bob", "Cat"],
            {"upcard": "clubs", "tricks": {"Ann": 2, "Bob": 1}},
            [
                {"upcard": "hearts", "maker": "Bob", "tricks": {"Bob": 3, "Ann": 1}},
                {"upcard": "spades", "maker": "Cat", "dropped": ["Ann"], "tricks": {"Cat": 4}},
            ],
        ),
    ],
)
def test_a_board_reopened_offline_keeps_its_hands_whatever_the_rules(
    own_browser, browser_context_args, live_server, preset, table, online, offline
):
    """As above, on rules of other shapes: five seats counted up, three with a widow. The
    phone's rules draw the same scores as the server's once the hands are stored."""
    page = own_browser.new_context(**browser_context_args).new_page()
    account("widow")
    log_in(page, live_server.url, "widow")
    new_match(page, preset, table, table[-1])
    enter_hand(page, **online)
    expect(page.get_by_role("button", name="Undo hand 1")).to_be_visible()
    board_kept(page, "Undo hand 1")
    match_id = match_of(page)

    page.context.set_offline(True)
    page.reload()
    expect(page.locator("html")).to_have_attribute("data-offline", re.compile(r"\d+"))
    for n, hand in enumerate(offline, start=1):
        enter_hand(page, **hand)
        waiting(page, n)
    provisional = points(page)
    assert len(stored(match_id)) == 1

    page.context.set_offline(False)
    expect(page.get_by_role("button", name=f"Undo hand {1 + len(offline)}")).to_be_visible()
    expect(page.locator(".outbox-hands .hand-row")).to_have_count(0)
    assert points(page) == provisional
    assert [upcard for _, upcard, _ in stored(match_id)] == [
        hand["upcard"] for hand in [online, *offline]
    ]


def test_a_board_reopened_offline_after_the_browser_restarted_keeps_its_hands(
    browser_type, browser_type_launch_args, browser_context_args, live_server, tmp_path
):
    """The phone's browser closed and opened again at the cabin: a new context over the same
    stored state (its cookies, service worker, copies and outbox)."""

    def phone():
        args = {**browser_type_launch_args, **browser_context_args}
        return browser_type.launch_persistent_context(str(tmp_path / "profile"), **args)

    first = phone()
    page = first.pages[0] if first.pages else first.new_page()
    match_id = a_match_with_one_hand(page, live_server.url, "restart")
    board = page.url
    first.close()

    second = phone()
    second.set_offline(True)
    # (A browser started with a service worker it had before lets that worker's requests out
    # though it is told it is offline: the saves are cut as the network would cut them.)
    second.route("**/hands/", lambda route: route.abort("internetdisconnected"))
    page = second.pages[0] if second.pages else second.new_page()
    page.goto(board)
    expect(page.locator("html")).to_have_attribute("data-offline", re.compile(r"\d+"))
    enter_hand(page, "hearts", maker="Bob", dropped=["Cat"], tricks={"Bob": 3, "Dan": 2})
    waiting(page, 1)
    enter_hand(page, "spades", maker="Ann", dropped=["Bob"], tricks={"Ann": 3, "Cat": 1})
    waiting(page, 2)
    provisional = points(page)
    second.close()
    assert stored(match_id) == [(1, "clubs", False)]

    third = phone()  # opened again where there is a network
    page = third.pages[0] if third.pages else third.new_page()
    page.goto(board)
    expect(page.get_by_role("button", name="Undo hand 3")).to_be_visible()
    assert points(page) == provisional
    assert stored(match_id) == [(1, "clubs", False), (2, "hearts", False), (3, "spades", False)]
    third.close()


def test_hands_waiting_when_the_session_ends_are_kept_until_signed_in_again(
    own_browser, browser_context_args, live_server
):
    page = own_browser.new_context(**browser_context_args).new_page()
    match_id = a_match_with_one_hand(page, live_server.url, "ended")
    page.context.set_offline(True)
    enter_hand(page, "hearts", maker="Bob", dropped=["Cat"], tricks={"Bob": 3, "Dan": 2})
    enter_hand(page, "spades", maker="Ann", dropped=["Bob"], tricks={"Ann": 3, "Cat": 1})
    waiting(page, 2)

    Session.objects.all().delete()  # logged out on another phone, or expired meanwhile
    page.context.set_offline(False)
    sign_in = page.get_by_role("link", name="Sign in again to send 2 kept hands")
    expect(sign_in).to_be_visible()
    waiting(page, 2)
    assert stored(match_id) == [(1, "clubs", False)]

    sign_in.click()
    page.fill("#id_username", "ended")
    page.fill("#id_password", PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("button", name="Undo hand 3")).to_be_visible()
    assert stored(match_id) == [(1, "clubs", False), (2, "hearts", False), (3, "spades", False)]


def test_a_shared_browser_never_sends_or_shows_one_account_s_hands_or_board_as_another_s(
    own_browser, browser_context_args, live_server
):
    context = own_browser.new_context(**browser_context_args)
    page = context.new_page()
    match_id = a_match_with_one_hand(page, live_server.url, "ann")
    match = Match.objects.get(pk=match_id)
    match.group.join(account("bob"), Role.SCORER)
    account("carl")  # in none of Ann's groups

    # Ann keeps a hand the score keeper can't take yet (no route to it), then her session
    # ends without the log-out button.
    context.route("**/hands/", lambda route: route.abort())
    enter_hand(page, "hearts", maker="Bob", dropped=["Cat"], tricks={"Bob": 3, "Dan": 2})
    waiting(page, 1)
    context.clear_cookies()
    context.unroute("**/hands/")

    # Bob, a scorer of the same group, on the same browser: Ann's hand is not his to send.
    log_in(page, live_server.url, "bob")
    page.goto(f"{live_server.url}/matches/{match_id}/")
    expect(page.get_by_role("button", name="Undo hand 1")).to_be_visible()
    expect(page.locator(".outbox")).to_be_hidden()
    expect(page.locator(".outbox-hands .hand-row")).to_have_count(0)
    enter_hand(page, "spades", maker="Ann", dropped=["Bob"], tricks={"Ann": 3, "Cat": 1})
    expect(page.get_by_role("button", name="Undo hand 2")).to_be_visible()
    assert stored(match_id) == [(1, "clubs", False), (2, "spades", False)]
    assert Change.objects.get(match_id=match_id, number=2, kind="saved").user.username == "bob"

    # Carl, in none of Ann's groups, offline: never Ann's board, nor Bob's.
    context.clear_cookies()
    log_in(page, live_server.url, "carl")
    context.set_offline(True)
    page.goto(f"{live_server.url}/matches/{match_id}/")
    expect(page.get_by_role("heading", name="No connection")).to_be_visible()
    expect(page.locator("body")).not_to_contain_text("Dan")
    context.set_offline(False)

    # Ann again: her hand is hers to send, after the one Bob saved it now fits only as a
    # conflict, which she is shown.
    context.clear_cookies()
    log_in(page, live_server.url, "ann")
    page.goto(f"{live_server.url}/matches/{match_id}/")
    expect(page.locator("#conflict")).to_be_visible()
    page.get_by_role("button", name="Keep theirs").click()
    expect(page.locator(".outbox-hands .hand-row")).to_have_count(0)
    assert stored(match_id) == [(1, "clubs", False), (2, "spades", False)]


def test_a_log_out_with_hands_waiting_asks_first_and_never_hands_them_on(
    own_browser, browser_context_args, live_server
):
    context = own_browser.new_context(**browser_context_args)
    page = context.new_page()
    match_id = a_match_with_one_hand(page, live_server.url, "leaving")
    context.route("**/hands/", lambda route: route.abort())  # the score keeper can't be reached
    enter_hand(page, "hearts", maker="Bob", dropped=["Cat"], tricks={"Bob": 3, "Dan": 2})
    enter_hand(page, "spades", maker="Ann", dropped=["Bob"], tricks={"Ann": 3, "Cat": 1})
    waiting(page, 2)

    page.get_by_role("link", name="Account").click()
    page.wait_for_url("**/accounts/")
    expect(page.locator("form[data-logout]")).to_have_attribute("data-count", "2")
    asked = []
    for answer in ("dismiss", "accept"):
        page.once("dialog", lambda d, a=answer: asked.append(d.message) or getattr(d, a)())
        page.get_by_role("button", name="Log out").click()
        if answer == "dismiss":
            expect(page.get_by_role("button", name="Log out")).to_be_visible()  # still signed in
    words = (
        "2 hands entered on this phone are not saved yet, and nobody else can send them. "
        "Log out and throw them away?"
    )
    assert asked == [words, words]
    expect(page.locator("#id_username")).to_be_visible()  # logged out
    context.unroute("**/hands/")

    log_in(page, live_server.url, "leaving")
    page.goto(f"{live_server.url}/matches/{match_id}/")
    expect(page.get_by_role("button", name="Undo hand 1")).to_be_visible()
    expect(page.locator(".outbox")).to_be_hidden()
    assert stored(match_id) == [(1, "clubs", False)]
