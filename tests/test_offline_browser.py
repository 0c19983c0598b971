"""The table keeps going without a connection (issue 35), in real Chromium at 390×844: hands
entered offline are kept on the phone, the board moves on with provisional scores, survives a
reload, and every hand is stored once, in order, when the network is back."""

import re

import pytest
from playwright.sync_api import Page, expect

from .browser import (
    SMALL,
    chip,
    enter_hand,
    in_reach,
    log_in,
    new_match,
    no_axe_violations,
    signed_in,
    snap,
    tap,
    told,
)

pytestmark = pytest.mark.django_db(transaction=True)


def points(page: Page) -> dict:
    return {
        tile.locator(".name").inner_text(): int(
            tile.locator(".points").inner_text().replace("−", "-")
        )
        for tile in page.locator(".scores .score").all()
    }


def waiting(page: Page, n: int):
    words = "1 hand not saved yet" if n == 1 else f"{n} hands not saved yet"
    expect(page.locator(".outbox-count")).to_contain_text(words)


def stored(match_id: int) -> list[tuple]:
    from games.models import Hand

    hands = Hand.objects.filter(match_id=match_id).order_by("number")
    return list(hands.values_list("number", "upcard", "passed"))


def test_five_hands_entered_offline_are_kept_and_stored_once_in_order(
    own_browser, browser_context_args, live_server
):
    page = own_browser.new_context(**browser_context_args).new_page()
    signed_in(page, live_server.url, "cabin")
    new_match(page, "3 players to 15", ["Ann", "Bob", "Cat"], "Cat")
    match_id = int(re.search(r"/matches/(\d+)/", page.url).group(1))
    page.wait_for_function("() => navigator.serviceWorker.controller !== null")
    enter_hand(page, "clubs", tricks={"Cat": 1, "Ann": 2})  # Cat dealt a club: set
    expect(page.get_by_role("button", name="Undo hand 1")).to_be_visible()
    page.wait_for_function(
        """async () => {
            const mine = "boards-" + document.querySelector("meta[name=account]").content;
            const copy = await caches.match(location.pathname, {cacheName: mine});
            const html = copy ? await copy.text() : "";
            return html.includes("Undo hand 1") && html.includes('id="hand-form"')
                && Boolean(await caches.match(document.querySelector("[src*='rules.js']").src));
        }"""
    )

    page.context.set_offline(True)
    # A redeal (Ann deals, everybody passes), a drop, a turned club.
    enter_hand(page, "hearts", maker="pass")
    waiting(page, 1)
    expect(page.locator(".connection-state")).to_have_text("Offline — hands are kept on this phone")
    expect(page.locator("#hand-form legend .dealer")).to_have_text("Bob")
    enter_hand(page, "spades", maker="Ann", dropped=["Cat"], tricks={"Ann": 3})
    waiting(page, 2)
    enter_hand(page, "clubs", tricks={"Cat": 2, "Ann": 2})
    waiting(page, 3)
    expect(page.locator(".outbox-hands .hand-row")).to_have_count(3)
    expect(page.locator(".outbox-hands .hand-row").first).to_contain_text("kept on this phone")
    kept = points(page)

    # The phone reloads the board with no network: the hands are still there.
    page.reload()
    waiting(page, 3)
    assert points(page) == kept
    expect(page.locator(".scores")).to_have_class(re.compile("provisional"))
    enter_hand(page, "spades", maker="Ann", tricks={"Ann": 5, "Bob": 0})
    waiting(page, 4)
    enter_hand(page, "spades", maker="Ann", tricks={"Ann": 5, "Bob": 0})
    waiting(page, 5)
    expect(page.locator(".provisional-result")).to_have_text(
        "Ann wins — to be confirmed when the hands are saved"
    )
    expect(page.locator(".provisional-result .money")).to_be_hidden()  # not played for money
    expect(page.locator("#hand-form")).to_be_hidden()
    snap(page, "offline-five-hands")
    provisional = points(page)
    assert stored(match_id) == [(1, "clubs", False)]

    # The network is back: the hands go, in order, once each; the board is the server's.
    page.context.set_offline(False)
    expect(page.locator(".result h2")).to_have_text(re.compile(r"Ann\s+wins"))
    expect(page.locator(".outbox-hands .hand-row")).to_have_count(0)
    assert points(page) == provisional
    assert stored(match_id) == [
        (1, "clubs", False),
        (2, "hearts", True),
        (3, "spades", False),
        (4, "clubs", False),
        (5, "spades", False),
        (6, "spades", False),
    ]
    page.reload()
    assert points(page) == provisional
    expect(page.locator(".outbox-hands .hand-row")).to_have_count(0)


def test_a_match_for_money_ended_offline_shows_who_pays_whom_as_the_server_then_does(
    own_browser, browser_context_args, live_server
):
    page = own_browser.new_context(**browser_context_args).new_page()
    signed_in(page, live_server.url, "stakes")
    stakes = {"per_game": "1.00", "per_point": "0.25", "per_set": "0.50", "currency": "CHF"}
    new_match(page, "3 players to 15", ["Ann", "Bob", "Cat"], "Cat", **stakes)
    match_id = int(re.search(r"/matches/(\d+)/", page.url).group(1))
    page.wait_for_function("() => navigator.serviceWorker.controller !== null")
    enter_hand(page, "clubs", tricks={"Cat": 1, "Ann": 2})  # Cat dealt a club: set
    expect(page.get_by_role("button", name="Undo hand 1")).to_be_visible()

    # Ann orders up and takes all five three times: at −2 she wins, on the phone alone.
    page.context.set_offline(True)
    for n in (1, 2, 3):
        enter_hand(page, "spades", maker="Ann", tricks={"Ann": 5, "Bob": 0})
        waiting(page, n)
    phone = page.locator(".provisional-result")
    expect(phone.locator("h2")).to_have_text("Ann wins — to be confirmed when the hands are saved")
    # Bob: a game, 28 points and 3 hands without a trick; Cat: a game, 35 points, 4 short.
    payments = ["Bob pays Ann 9.50 CHF", "Cat pays Ann 11.75 CHF"]
    nets = ["Ann +21.25 CHF", "Bob −9.50 CHF", "Cat −11.75 CHF"]
    expect(phone.locator("h3")).to_have_text("Who pays whom")
    expect(phone.locator(".payouts li")).to_have_text(payments)
    expect(phone.locator(".net li")).to_have_text(nets)
    expect(phone.locator(".net .gain")).to_have_text("+21.25 CHF")
    expect(phone.locator(".net .loss")).to_have_count(2)
    expect(page.locator(".if-ended")).to_be_hidden()  # the server's, for the hand saved
    expect(page.locator("#hand-form")).to_be_hidden()
    no_axe_violations(page)
    snap(page, "offline-money")
    assert stored(match_id) == [(1, "clubs", False)]

    # The network is back: the server's result says the same.
    page.context.set_offline(False)
    expect(page.locator(".result h2")).to_have_text(re.compile(r"Ann\s+wins"))
    expect(page.locator(".provisional-result")).to_have_count(0)
    expect(page.locator(".result h3")).to_have_text("Who pays whom")
    expect(page.locator(".result .payouts li")).to_have_text(payments)
    expect(page.locator(".result .net li")).to_have_text(nets)
    assert len(stored(match_id)) == 4
    snap(page, "offline-money-saved")


@pytest.mark.browser_context_args(service_workers="block")  # page.route sees every request
def test_a_save_whose_answer_is_lost_is_stored_once_when_sent_again(page: Page, live_server):
    signed_in(page, live_server.url, "lost")
    new_match(page, "Standard", ["Ann", "Bob", "Cat", "Dan"], "Dan")
    match_id = int(re.search(r"/matches/(\d+)/", page.url).group(1))
    lost = []

    def reply_lost(route):
        if lost:  # the resend goes through
            route.continue_()
            return
        lost.append(route.fetch())  # the server stores it; its answer never arrives
        route.abort()

    page.route(f"**/matches/{match_id}/hands/", reply_lost)
    enter_hand(page, "clubs", tricks={"Ann": 2, "Bob": 1, "Cat": 1})
    expect(page.get_by_role("button", name="Undo hand 1")).to_be_visible()
    expect(page.locator(".outbox-hands .hand-row")).to_have_count(0)
    assert lost and lost[0].status == 200
    assert stored(match_id) == [(1, "clubs", False)]
    assert points(page) == {"Ann": 23, "Bob": 24, "Cat": 24, "Dan": 24}


def test_under_slow_3g_a_tap_in_the_hand_form_sends_nothing(page: Page, live_server):
    """What makes every tap answer at once on a slow link: none waits for the network (the
    time each takes is measured by bench/offline_bench.py)."""
    signed_in(page, live_server.url, "slow3g")
    new_match(page, "Dirty Clubs", ["Ann", "Bob", "Cat", "Dan"], "Ann")
    cdp = page.context.new_cdp_session(page)
    slow = {"offline": False, "latency": 2000, "downloadThroughput": 50000}
    cdp.send("Network.emulateNetworkConditions", {**slow, "uploadThroughput": 50000})
    sent = []
    page.on("request", lambda r: r.method == "POST" and sent.append(r.url))
    page.route("**/hands/check/", lambda route: sent.append(route.request.url) or route.abort())
    tap(page, "upcard", "hearts")
    tap(page, "makers", "Bob")
    tap(page, "trump", "spades")
    tap(page, "bids", "4")
    tap(page, "drops", "Cat")
    chip(page, "Bob", 3)
    chip(page, "Dan", 1)
    expect(told(page, "Ann")).to_have_value("1")  # the row the others fix
    expect(page.locator(".status")).to_contain_text("Bob set +5")
    tap(page, "drops", "Cat")  # Cat played after all: her row, asked for
    expect(page.locator(".status .hint")).to_contain_text("Tap how many tricks")
    assert sent == []


def offline_with_two_hands_while_another_phone_saves_hand_2(page: Page, live_server, name):
    """This phone keeps hands 2 and 3 while offline; meanwhile another phone, online, saves a
    different hand 2. The network comes back: the outbox stops on the two entries of hand 2."""
    signed_in(page, live_server.url, name)
    new_match(page, "Standard", ["Ann", "Bob", "Cat", "Dan"], "Dan")
    match_id = int(re.search(r"/matches/(\d+)/", page.url).group(1))
    enter_hand(page, "clubs", tricks={"Ann": 2, "Bob": 1, "Cat": 1})
    expect(page.get_by_role("button", name="Undo hand 1")).to_be_visible()
    page.context.set_offline(True)
    enter_hand(page, "hearts", maker="Bob", dropped=["Cat"], tricks={"Bob": 3, "Dan": 2})
    waiting(page, 1)
    enter_hand(page, "spades", maker="Ann", dropped=["Bob"], tricks={"Ann": 3, "Cat": 1})
    waiting(page, 2)

    other = page.context.browser.new_context(viewport=page.viewport_size).new_page()
    log_in(other, live_server.url, name)
    other.goto(f"{live_server.url}/matches/{match_id}/")
    enter_hand(other, "diamonds", maker="Ann", tricks={"Ann": 3, "Bob": 1, "Cat": 1})
    expect(other.get_by_role("button", name="Undo hand 2")).to_be_visible()
    other.context.close()
    assert stored(match_id) == [(1, "clubs", False), (2, "diamonds", False)]

    page.context.set_offline(False)
    conflict = page.locator("#conflict")
    expect(conflict.locator("[data-entry=stored]")).to_contain_text("Saved by you")
    expect(conflict.locator("[data-entry=stored]")).to_contain_text("♦")
    expect(conflict.locator("[data-entry=mine]")).to_contain_text("♥")
    assert stored(match_id) == [(1, "clubs", False), (2, "diamonds", False)]  # nothing more
    return match_id


@pytest.mark.browser_context_args(service_workers="block")
def test_a_hand_kept_offline_whose_number_another_phone_took_is_kept_as_the_next(
    page: Page, live_server
):
    match_id = offline_with_two_hands_while_another_phone_saves_hand_2(page, live_server, "mine")
    snap(page, "offline-conflict")
    page.get_by_role("button", name="Mine is the next hand").click()
    expect(page.locator(".status .preview")).to_be_visible()  # its preview first
    assert stored(match_id) == [(1, "clubs", False), (2, "diamonds", False)]
    page.get_by_role("button", name="Save hand 3").click()
    # Mine went as hand 3, then the one kept after it as hand 4: nothing lost, in order.
    expect(page.get_by_role("button", name="Undo hand 4")).to_be_visible()
    expect(page.locator(".outbox-hands .hand-row")).to_have_count(0)
    assert stored(match_id) == [
        (1, "clubs", False),
        (2, "diamonds", False),
        (3, "hearts", False),
        (4, "spades", False),
    ]
    expect(page.locator(".scores")).not_to_have_class(re.compile("provisional"))


@pytest.mark.browser_context_args(service_workers="block")
def test_keep_theirs_throws_the_kept_hand_away_and_sends_the_rest(page: Page, live_server):
    match_id = offline_with_two_hands_while_another_phone_saves_hand_2(page, live_server, "theirs")
    page.get_by_role("button", name="Keep theirs").click()
    expect(page.get_by_role("button", name="Undo hand 3")).to_be_visible()
    expect(page.locator(".outbox-hands .hand-row")).to_have_count(0)
    assert stored(match_id) == [(1, "clubs", False), (2, "diamonds", False), (3, "spades", False)]


@pytest.mark.browser_context_args(viewport=SMALL, service_workers="block")
def test_on_a_small_phone_both_choices_of_a_conflict_are_in_reach(page: Page, live_server):
    offline_with_two_hands_while_another_phone_saves_hand_2(page, live_server, "small")
    in_reach(page, page.get_by_role("button", name="Keep theirs"))
    in_reach(page, page.get_by_role("button", name="Mine is the next hand"))
    snap(page, "offline-conflict")


@pytest.mark.browser_context_args(service_workers="block")  # page.route sees every request
def test_a_hand_saved_while_the_one_before_is_on_its_way_is_sent_after_it(page: Page, live_server):
    """The scorer taps the next hand in and saves it while the last one's answer is still on
    its way (a slow link, a busy server): both are stored, in order; the answer to the first
    never writes over the second on the phone (it did, and the second was lost unsaid)."""
    signed_in(page, live_server.url, "quick")
    new_match(page, "Standard", ["Ann", "Bob", "Cat", "Dan"], "Dan")
    match_id = int(re.search(r"/matches/(\d+)/", page.url).group(1))
    held = []

    def first_waits(route):
        if held:
            route.continue_()
        else:
            held.append(route)

    page.route(f"**/matches/{match_id}/hands/", first_waits)
    enter_hand(page, "clubs", tricks={"Ann": 2, "Bob": 1, "Cat": 1})
    page.wait_for_function("() => document.documentElement.hasAttribute('data-sending')")
    enter_hand(page, "hearts", maker="Bob", dropped=["Cat"], tricks={"Bob": 3, "Ann": 2})
    expect(page.locator(".outbox-hands .hand-row")).to_have_count(2)
    assert len(held) == 1
    held[0].continue_()  # the first hand's answer arrives, with the second kept meanwhile
    expect(page.get_by_role("button", name="Undo hand 2")).to_be_visible()
    expect(page.locator(".outbox-hands .hand-row")).to_have_count(0)
    assert stored(match_id) == [(1, "clubs", False), (2, "hearts", False)]
    assert points(page) == {"Ann": 21, "Bob": 21, "Cat": 24, "Dan": 29}
