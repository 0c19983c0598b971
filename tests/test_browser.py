"""Whole matches played through the UI in real Chromium at 390×844, with axe on every page (once
for each page and set of parts on it); the hands that must fit one screen are played at 375×667
too (a small phone with its browser bars)."""

import json
import re
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from playwright.sync_api import Error, Page, expect

from .browser import (
    ON_BOTH_PHONES,
    SMALL,
    TALL,
    chip,
    enter_hand,
    in_reach,
    log_in,
    new_match,
    no_axe_violations,
    scores,
    sign_up,
    signed_in,
    slow_link,
    snap,
    tap,
    told,
)
from .conftest import SCRIPT_ERRORS
from .liveserver import PASSWORD
from .matches import CAT_WINS, CLUB, SWEEP

pytestmark = pytest.mark.django_db(transaction=True)


@ON_BOTH_PHONES
def test_standard_match_with_a_mistake_fixed_ends_in_a_sweep_and_a_payout(
    page: Page, live_server, phone
):
    assert page.viewport_size == phone
    base = live_server.url
    sign_up(page, base)
    new_match(
        page, "Standard", ["Ann", "Bob", "Cat", "Dan"], "Dan", per_game="1.00", per_point="0.10"
    )
    no_axe_violations(page)
    # A normal hand: upcard, maker, one drop, two trick chips (Ann's 0 fills in), save.
    taps = enter_hand(
        page,
        "hearts",
        maker="Bob",
        dropped=["Cat"],
        tricks={"Bob": 3, "Dan": 2},
        on_one_screen=True,
    )
    assert taps == 6
    assert scores(page) == {"Ann": 30, "Bob": 22, "Cat": 25, "Dan": 23}
    snap(page, "scoreboard")

    # A turned club: upcard, three chips (Dan's 1 fills in), save.
    taps = enter_hand(page, "clubs", tricks={"Ann": 2, "Bob": 1, "Cat": 1}, on_one_screen=True)
    assert taps == 5
    assert scores(page) == {"Ann": 28, "Bob": 21, "Cat": 24, "Dan": 22}
    # A mistake: Cat really took 2 and Dan none. Edit hand 2.
    page.get_by_role("link", name="Edit hand 2").click()
    expect(page.get_by_role("heading", name="Edit hand 2")).to_be_visible()
    no_axe_violations(page)
    chip(page, "Cat", 2)
    chip(page, "Dan", 0)
    expect(page.locator(".status")).to_contain_text("Dan")
    expect(page.locator(".status")).to_contain_text("+5")
    # The preview keeps the room it needs beside the longer Save.
    preview, save = (
        page.locator(".save-bar .status"),
        page.get_by_role("button", name="Save changes to hand 2"),
    )
    assert preview.bounding_box()["width"] >= save.bounding_box()["width"]
    snap(page, "edit-hand")
    save.click()
    expect(page.get_by_text("Hand 2 changed")).to_be_visible()
    assert scores(page) == {"Ann": 28, "Bob": 21, "Cat": 23, "Dan": 28}

    # Another mistake: a hand entered that did not happen. Undo it.
    # Everybody passed, played with no trump: upcard, pass, three chips, save.
    taps = enter_hand(
        page, "spades", maker="pass", tricks={"Ann": 1, "Bob": 1, "Cat": 2}, on_one_screen=True
    )
    assert taps == 6
    expect(page.get_by_text("Hand 2 changed")).to_have_count(0)  # old news once the board moves
    assert scores(page)["Cat"] == 21
    page.once("dialog", lambda dialog: dialog.accept())
    page.mouse.wheel(0, 2000)  # down to the history, as a player reading it would
    page.wait_for_function("() => window.scrollY > 0")
    page.get_by_role("button", name="Undo hand 3").click()
    expect(page.get_by_role("button", name="Undo hand 2")).to_be_visible()
    page.wait_for_function("() => window.scrollY === 0")  # the board from the top, the form in view
    assert scores(page) == {"Ann": 28, "Bob": 21, "Cat": 23, "Dan": 28}

    # Cat orders up and everyone drops: a lone maker takes all five by herself, and sweeps.
    taps = enter_hand(
        page, "diamonds", maker="Cat", dropped=["Ann", "Bob", "Dan"], on_one_screen=True
    )
    assert taps == 6  # upcard, maker, three drops, save
    expect(page.locator(".result h2")).to_have_text(re.compile(r"Cat\s+wins"))
    expect(page.locator(".result")).to_contain_text("Took all five tricks.")
    payouts = page.locator(".payouts li").all_inner_texts()
    assert payouts == ["Ann pays Cat $3.80", "Bob pays Cat $3.10", "Dan pays Cat $3.80"]
    snap(page, "payout")
    no_axe_violations(page)

    # It is there under past matches, and its file, imported again, is known for this match.
    page.get_by_role("link", name="Past matches").click()
    expect(page.get_by_role("heading", name="Past matches")).to_be_visible()
    no_axe_violations(page)
    with page.expect_download() as download:
        page.goto(base + "/")
        page.locator(".match-card").first.click()
        page.get_by_role("link", name="Export this match").click()
    path = download.value.path()
    page.goto(base + "/matches/")
    page.set_input_files("#id_file", path)
    page.get_by_role("button", name="Import").click()
    expect(page.get_by_text("already imported")).to_be_visible()
    expect(page.locator(".payouts li")).to_have_text(payouts)

    page.get_by_role("button", name="Rematch").click()
    # Dan, Ann and Bob dealt the three hands: the deal passes on to Cat.
    expect(page.locator("#hand-form legend").first).to_contain_text("Cat deals")
    # The rematch was a mistake: delete it.
    page.get_by_role("link", name="Delete…").click()
    expect(page.get_by_role("heading", name="Delete this match?")).to_be_visible()
    no_axe_violations(page)
    page.get_by_role("button", name="Delete the match").click()
    expect(page.get_by_text("The match was deleted.")).to_be_visible()
    expect(page.locator(".match-card")).to_have_count(1)  # its import was the same match


# The hand form answered again, as after any tap (on the phone: static/js/offline.js).
REDRAWN = """() => htmx.trigger("#hand-form", "change")"""


@ON_BOTH_PHONES
def test_three_15_with_a_club_hand_and_a_redeal(page: Page, live_server, phone):
    assert page.viewport_size == phone
    signed_in(page, live_server.url, "three")
    new_match(page, "3 players to 15", ["Ann", "Bob", "Cat"], "Cat", per_point="0.25")
    # Cat deals a turned club: Cat is the maker and needs 2; nobody else is asked.
    tap(page, "upcard", "clubs", on_one_screen=True)
    expect(page.locator(".note")).to_contain_text("Cat dealt, so Cat makes it and needs 2.")
    expect(page.locator("fieldset.makers")).to_be_hidden()
    taps = 1 + chip(page, "Cat", 1, True) + chip(page, "Ann", 2, True)  # Bob's 2 fills in
    expect(told(page, "Bob")).to_have_value("2")
    expect(page.locator(".status")).to_contain_text("Cat set +5")
    in_reach(page, page.get_by_role("button", name="Save hand 1"))
    page.get_by_role("button", name="Save hand 1").click()
    assert taps + 1 == 4
    assert scores(page) == {"Ann": 13, "Bob": 13, "Cat": 20}

    # Ann deals, everybody passes: a redeal, and the deal moves on. Three taps.
    tap(page, "upcard", "hearts")
    tap(page, "makers", "pass")
    expect(page.locator("fieldset.tricks")).to_be_hidden()
    expect(page.locator(".status .preview")).to_be_visible()
    page.get_by_role("button", name="Save hand 2").click()
    assert scores(page) == {"Ann": 13, "Bob": 13, "Cat": 20}
    expect(page.locator(".score.is-dealer .name")).to_have_text("Bob")
    snap(page, "three-15")

    # Ann orders up three times and takes all five: no sweep in three-15, she reaches zero.
    for _ in range(2):
        enter_hand(page, "spades", maker="Ann", tricks={"Ann": 5, "Bob": 0})
    # At 3, Ann can't drop out: her name is greyed, and a tap on it says why, right there.
    tap(page, "upcard", "spades")
    tap(page, "makers", "Bob")
    expect(page.locator("fieldset.drops .locked").filter(has_text="Bob")).to_contain_text("maker")
    ann = page.locator("fieldset.drops .locked").filter(has_text="Ann")
    why = "Ann is at 3, and at 5 or below a player can't drop out."
    expect(ann.get_by_text(why)).to_be_hidden()
    ann.locator("summary").click()
    expect(ann.get_by_text(why)).to_be_visible()
    page.evaluate(REDRAWN)  # the form answered again leaves it open
    expect(ann.get_by_text(why)).to_be_visible()
    in_reach(page, ann.get_by_text(why))
    snap(page, "why-must-play")
    ann.get_by_text(why).click()
    expect(ann.get_by_text(why)).to_be_hidden()
    enter_hand(page, "spades", maker="Ann", tricks={"Ann": 5, "Bob": 0})
    expect(page.locator(".result h2")).to_have_text(re.compile(r"Ann\s+wins"))
    expect(page.locator(".result")).to_contain_text("Reached zero.")
    expect(page.locator(".payouts li")).to_have_text(["Bob pays Ann $7.00", "Cat pays Ann $8.75"])


@ON_BOTH_PHONES
def test_dirty_clubs_hand_with_a_bid(page: Page, live_server, phone):
    assert page.viewport_size == phone
    signed_in(page, live_server.url, "dirty")
    new_match(page, "Dirty Clubs", ["Ann", "Bob", "Cat", "Dan"], "Ann", per_game="2.00")
    tap(page, "upcard", "hearts")
    tap(page, "makers", "Bob")
    expect(page.locator("fieldset.bids")).to_be_visible()
    expect(page.locator("fieldset.bids label")).to_have_text(["2", "3", "4", "5"])
    no_axe_violations(page)
    snap(page, "hand-form-bid")
    tap(page, "trump", "spades")
    tap(page, "bids", "4")
    # A slip: 5 for Bob, so the others took none; put right, they no longer follow from it.
    chip(page, "Bob", 5)
    for name in ("Ann", "Cat", "Dan"):
        expect(told(page, name)).to_have_value("0")
    for name, n in {"Bob": 3, "Cat": 1}.items():
        chip(page, name, n)
    expect(told(page, "Ann")).to_have_count(0)
    chip(page, "Ann", 0)
    expect(told(page, "Dan")).to_have_value("1")
    # Bob bid 4 and took 3: set.
    expect(page.locator(".status")).to_contain_text("Bob set +5")
    page.get_by_role("button", name="Save hand 1").click()
    assert scores(page) == {"Ann": 25, "Bob": 25, "Cat": 19, "Dan": 19}
    expect(page.locator(".hand-text").first).to_contain_text("Bob bid 4 in ♠")
    # Cat takes everything from here: a sweep wins at once in Dirty Clubs.
    # Upcard, maker, bid, Cat's 5 (the others took none: they fill in), save: 5 taps.
    taps = enter_hand(page, "diamonds", maker="Cat", bid=5, tricks={"Cat": 5}, on_one_screen=True)
    assert taps == 5
    expect(page.locator(".result h2")).to_have_text(re.compile(r"Cat\s+wins"))
    expect(page.locator(".payouts li")).to_have_text(
        ["Ann pays Cat $2.00", "Bob pays Cat $2.00", "Dan pays Cat $2.00"]
    )


def test_a_rule_problem_is_shown_before_saving_and_a_refused_save_comes_into_view(
    page: Page, live_server
):
    signed_in(page, live_server.url, "rules")
    new_match(page, "Standard", ["Ann", "Bob", "Cat", "Dan"], "Dan")
    tap(page, "upcard", "hearts")
    tap(page, "makers", "Bob")
    chip(page, "Bob", 1)
    expect(page.locator(".tricks .left")).to_have_text("4 of 5 left to give")
    expect(page.locator(".status")).to_contain_text("Tap how many tricks Ann, Cat and Dan took.")
    page.mouse.wheel(0, -2000)  # the player had scrolled back up to the scores
    page.get_by_role("button", name="Save hand 1").click()
    # The refusal is read out, takes the focus and is on screen: not at the bottom of the page.
    refused = page.get_by_role("alert").filter(has_text="Tap how many tricks Ann, Cat and Dan")
    expect(refused).to_be_focused()
    expect(refused).to_be_in_viewport(ratio=1)
    expect(page.locator(".hands")).to_have_count(0)
    # Bob took all five after all: one chip, and the others, who took none, fill in.
    chip(page, "Bob", 5)
    for name in ("Ann", "Cat", "Dan"):
        expect(told(page, name)).to_have_value("0")
    expect(page.locator(".status")).to_contain_text("Bob −5")
    # The Wi-Fi drops as Save is tapped: the hand is kept on the phone, and sent once it is back.
    page.context.set_offline(True)
    page.get_by_role("button", name="Save hand 1").click()
    expect(page.locator(".outbox-count")).to_contain_text("1 hand not saved yet")
    expect(page.locator(".scores .points")).to_have_text(["30", "20", "30", "30"])
    page.context.set_offline(False)
    expect(page.get_by_role("button", name="Undo hand 1")).to_be_visible()
    expect(page.locator(".outbox-count")).to_be_hidden()
    assert scores(page) == {"Ann": 30, "Bob": 20, "Cat": 30, "Dan": 30}
    page.get_by_role("link", name="Account").click()
    page.get_by_role("button", name="Log out").click()
    expect(page.get_by_role("heading", name="Log in")).to_be_visible()
    no_axe_violations(page)


def test_a_tap_is_answered_with_no_connection(page: Page, live_server):
    signed_in(page, live_server.url, "retry")
    new_match(page, "Standard", ["Ann", "Bob", "Cat", "Dan"], "Dan")
    page.context.set_offline(True)
    tap(page, "upcard", "hearts")
    expect(page.locator("fieldset.makers")).to_be_visible()  # answered on the phone
    expect(page.locator("#connection-problem")).to_be_hidden()
    page.context.set_offline(False)


def test_a_save_the_database_cannot_take_is_kept_on_the_phone_in_words_and_sent_later(
    page: Page, live_server, monkeypatch
):
    from django.db import OperationalError

    from games.models import Match
    from games.views import board

    signed_in(page, live_server.url, "locked")
    new_match(page, "Standard", ["Ann", "Bob", "Cat", "Dan"], "Dan")
    save = board.add_hand

    def locked(*args, **kwargs):
        raise OperationalError("database is locked")

    monkeypatch.setattr(board, "add_hand", locked)
    enter_hand(page, "clubs", tricks={"Ann": 2, "Bob": 1, "Cat": 1})
    # The hand is kept on the phone, with the server's words, and sent again by itself.
    expect(page.locator(".connection-state")).to_have_text(
        "The score keeper can't save right now; nothing was lost. Try again in a moment. "
        "1 hand is kept on this phone: the score keeper didn't take it yet. Trying again…"
    )
    expect(page.locator(".outbox-hands .hand-row")).to_have_count(1)
    monkeypatch.setattr(board, "add_hand", save)
    expect(page.get_by_role("button", name="Undo hand 1")).to_be_visible()
    expect(page.locator(".outbox-hands .hand-row")).to_have_count(0)
    assert scores(page) == {"Ann": 23, "Bob": 24, "Cat": 24, "Dan": 24}
    assert Match.objects.get().hands_played == 1


def without_javascript(browser, live_server, name: str):
    """A phone with JavaScript off, signed up as `name`, on a new standard match (Dan deals)."""
    context = browser.new_context(java_script_enabled=False, viewport=TALL, is_mobile=True)
    page = context.new_page()
    page.goto(live_server.url + "/signup/")
    page.fill("#id_username", name)
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    page.click("text=Sign up")
    page.get_by_role("link", name="New match").click()
    for i, seat in enumerate(["Ann", "Bob", "Cat", "Dan"]):
        page.fill(f"#id_seat_{i}", seat)
    page.locator("#dealer label").filter(has_text="Seat 4").click()
    page.get_by_role("button", name="Start the match").click()
    return context, page


def test_a_hand_can_be_entered_without_javascript(browser, live_server):
    context, page = without_javascript(browser, live_server, "plain")
    check = page.get_by_role("button", name="Check the hand")

    page.locator("fieldset.upcard label:has(input[value='hearts'])").click()
    check.click()
    page.locator("fieldset.makers label").filter(has_text=re.compile("^Bob$")).click()
    check.click()
    # Bob's name is greyed among the drops: a tap says why, without JavaScript too.
    page.locator("fieldset.drops .locked summary").filter(has_text="Bob").click()
    expect(page.get_by_text("Bob made trump, so Bob can't drop out.")).to_be_visible()
    page.locator("fieldset.drops label:has(input[value='Cat'])").click()
    check.click()
    chip(page, "Bob", 3)
    chip(page, "Dan", 2)
    check.click()  # the server fills in Ann's tricks: the 0 left
    expect(told(page, "Ann")).to_have_value("0")
    expect(page.locator(".status")).to_contain_text("Bob −3")
    page.get_by_role("button", name="Save hand 1").click()
    expect(page).to_have_url(re.compile(r"/matches/\d+/$"))
    assert scores(page) == {"Ann": 30, "Bob": 22, "Cat": 25, "Dan": 23}
    context.close()


def test_without_javascript_a_drop_ticked_after_the_tricks_is_refused_not_saved_wrong(
    browser, live_server
):
    """JavaScript off: tick Ann out after tapping her trick, leave Cat empty, Save. The page
    refuses it naming Ann, and saves only what the player then sees."""
    context, page = without_javascript(browser, live_server, "nojs")
    check = page.get_by_role("button", name="Check the hand")
    save = page.get_by_role("button", name="Save hand 1")

    page.locator("fieldset.upcard label:has(input[value='diamonds'])").click()
    check.click()
    page.locator("fieldset.makers label").filter(has_text=re.compile("^Dan$")).click()
    check.click()
    page.locator("fieldset.drops label:has(input[value='Ann'])").click()
    chip(page, "Ann", 1)
    chip(page, "Dan", 3)
    chip(page, "Bob", 1)
    save.click()
    refused = page.locator("#refused")
    expect(refused).to_contain_text("Ann is listed twice, as dropped out and with tricks")
    snap(page, "no-js-refused")
    expect(page.locator(".hands")).to_have_count(0)  # nothing saved
    # The refused page holds what was sent: Ann ticked out, and her 1.
    expect(page.locator("fieldset.drops input[value='Ann']")).to_be_checked()
    expect(told(page, "Ann")).to_have_value("1")
    # Ann played after all: untick her. Cat, left empty, is asked for, not guessed.
    page.locator("fieldset.drops label:has(input[value='Ann'])").click()
    save.click()
    expect(refused).to_contain_text("Tap how many tricks Cat took.")
    expect(page.locator(".hands")).to_have_count(0)
    chip(page, "Cat", 0)
    save.click()
    expect(page).to_have_url(re.compile(r"/matches/\d+/$"))
    assert scores(page) == {"Ann": 24, "Bob": 24, "Cat": 30, "Dan": 22}
    context.close()


LONGEST = "Wolfeschlegelsteinhausenbergerdorffvorl"  # 39 letters, no space to break at


@pytest.mark.browser_context_args(viewport=SMALL)
def test_the_longest_name_stays_within_a_small_phones_screen(page: Page, live_server):
    """A name as long as a seat takes wraps or ends in "…": no page grows wider than the
    phone, so nothing (a dealer's tile over Start the match, a card's edge) is off screen.
    So does a group's name as long as a group's (its "Leave" button, the bar atop each page)."""
    from games.models import GROUP_NAME_LENGTH, Group, groups_turn

    signed_in(page, live_server.url, "longnames")
    group = Group.objects.get(home_of__username="longnames")
    Group.objects.filter(pk=group.pk).update(name=(LONGEST * 2)[:GROUP_NAME_LENGTH])
    groups_turn(group.pk)
    new_match(page, "Standard", ["Ann", "Bob", LONGEST, "Dan"], LONGEST)
    expect(page.locator(".score").filter(has_text="Wolf")).to_be_visible()
    board = page.url
    pages = ("/", "/matches/", "/players/", "/nights/", group.get_absolute_url(), "/matches/new/")
    for path in (board, *pages):
        page.goto(path if path.startswith("http") else live_server.url + path)
        expect(page.locator("main")).to_be_visible()
        if path == "/matches/new/":
            page.fill("#id_seat_2", LONGEST)
            page.locator("#id_seat_0").focus()
            expect(page.locator("#dealer label").filter(has_text=LONGEST)).to_be_visible()
        assert page.evaluate("document.documentElement.scrollWidth") <= SMALL["width"], path


NEW_MATCH_TARGETS = (
    ".seats input[type=text]:visible, .seats button:visible, label.preset, .stakes input,"
    " #match-form summary, #dealer label:visible, #dealer button, button[name=create]"
)


SEAT_4_HINT = """(shown) => {
    const color = getComputedStyle(document.querySelector("#id_seat_3"), "::placeholder").color;
    return (color !== "rgba(0, 0, 0, 0)") === shown;
}"""


def test_seat_4_says_it_may_stay_empty_only_under_rules_for_3_players(page: Page, live_server):
    signed_in(page, live_server.url, "hint")
    page.get_by_role("link", name="New match").click()
    expect(page.locator("#id_seat_3")).to_have_attribute("placeholder", "empty if 3")
    for preset, shown in (
        ("Dirty Clubs, counted up", True),
        ("Standard", False),
        ("Spades 21", True),
    ):
        page.locator("label.preset").filter(has_text=preset).first.click()
        page.wait_for_function(SEAT_4_HINT, arg=shown)
    # Spades 21, played by four alone (once its house rules are drawn: they follow the preset).
    expect(page.locator(".house-rules")).to_contain_text("blank follows Spades 21")
    page.locator("#house-rules summary").click()
    page.select_option("#id_rule_players", value="4")
    page.wait_for_function(SEAT_4_HINT, arg=False)


@pytest.mark.browser_context_args(viewport=SMALL)
def test_a_table_that_plays_its_usual_rules_starts_within_a_screen_and_a_half(
    page: Page, live_server
):
    """At 375×667 the new-match page of a table that has played before (its players saved
    under the seats) is at most a screen and a half long, and so is a new group's: every seat,
    preset, stake and first-dealer tile in it is in sight without opening anything and a
    finger's size; its players are a tap each, and its rules already Standard's."""
    from django.contrib.auth import get_user_model

    from games import rules

    from .conftest import make_match

    base = live_server.url
    signed_in(page, base, "usual")
    page.get_by_role("link", name="New match").click()
    expect(page.get_by_role("button", name="Start the match")).to_be_visible()
    screen = SMALL["height"]
    assert page.evaluate("document.documentElement.scrollHeight") <= 1.5 * screen  # first evening
    sweep = rules.Hand("hearts", "hearts", "Bob", dropped=("Ann", "Cat", "Dan"), tricks={"Bob": 5})
    make_match(get_user_model().objects.get(username="usual"), hands=[sweep])

    page.goto(base + "/matches/new/")
    expect(page.locator("input[name=preset][value=standard]")).to_be_checked()
    assert page.evaluate("document.documentElement.scrollHeight") <= 1.5 * screen
    targets = page.locator(NEW_MATCH_TARGETS)
    assert targets.count() > 30
    for target in targets.all():
        expect(target).to_be_visible()
        box = target.bounding_box()
        assert box and box["height"] >= 44 and box["width"] >= 44, target
    for stake in ("per_game", "per_point", "per_set", "currency"):
        expect(page.locator(f"#id_{stake}")).to_be_editable()
    for i, name in enumerate(["Ann", "Bob", "Cat", "Dan"]):
        page.get_by_role("button", name=name, exact=True).click()
        expect(page.locator(f"#id_seat_{i}")).to_have_value(name)
    no_axe_violations(page)
    snap(page, "new-match-usual")
    page.locator("#dealer label").filter(has_text=re.compile("^Dan$")).click()
    page.get_by_role("button", name="Start the match").click()
    expect(page.locator(".scores .name")).to_have_text(["Ann", "Bob", "Cat", "Dan"])


def test_a_name_typed_in_other_capitals_is_the_player_already_saved(page: Page, live_server):
    signed_in(page, live_server.url, "capitals")
    new_match(page, "Standard", ["Ann", "Bob", "Cat", "Dan"], "Dan")
    # One person in two spellings at one table is refused in words, and nothing is started.
    page.goto(live_server.url + "/")
    page.get_by_role("link", name="New match").click()
    for i, name in enumerate(["ann", "Bob", "Cat", "ANN "]):
        page.fill(f"#id_seat_{i}", name)
    page.locator("#dealer label").filter(has_text=re.compile(r"^Bob$")).click()
    page.get_by_role("button", name="Start the match").click()
    expect(page.get_by_role("alert")).to_contain_text(
        "ann and ANN are one name (capitals and spaces don't count)"
    )
    expect(page.locator("#hand-form")).to_have_count(0)
    snap(page, "one-person-twice")
    # Eve takes the fourth seat: "ann" is the Ann already saved, spelled as first saved.
    page.fill("#id_seat_3", "Eve")
    page.get_by_role("button", name="Start the match").click()
    expect(page.locator("#hand-form")).to_be_visible()
    expect(page.locator(".scores .score .name")).to_have_text(["Ann", "Bob", "Cat", "Eve"])
    page.get_by_role("link", name="Past matches").click()
    expect(page.locator("#player option")).to_have_text(
        ["Everyone", "Ann", "Bob", "Cat", "Dan", "Eve"]
    )


def test_the_backup_zip_downloaded_imports_back(page: Page, live_server):
    signed_in(page, live_server.url, "backup")
    new_match(page, "Standard", ["Ann", "Bob", "Cat", "Dan"], "Dan")
    enter_hand(page, "clubs", tricks={"Ann": 2, "Bob": 1, "Cat": 1})
    enter_hand(page, "hearts", maker="Bob", dropped=["Cat"], tricks={"Bob": 3, "Dan": 2})
    before = scores(page)
    board = page.url
    page.get_by_role("link", name="Past matches").click()
    with page.expect_download() as download:
        page.get_by_role("link", name="Download all your matches").click()
    backup = download.value.path()
    assert download.value.suggested_filename.endswith(".zip")
    # The match is lost, then the backup brings it back, hands and all.
    page.goto(board)
    page.get_by_role("link", name="Delete…").click()
    page.get_by_role("button", name="Delete the match").click()
    expect(page.get_by_text("The match was deleted.")).to_be_visible()
    page.goto(live_server.url + "/matches/")
    expect(page.locator(".match-card")).to_have_count(0)
    page.set_input_files("#id_file", backup)
    page.get_by_role("button", name="Import").click()
    expect(page.get_by_text("Match imported.")).to_be_visible()
    assert scores(page) == before
    expect(page.locator(".hand-text")).to_have_count(2)
    # Imported again, it is recognised: nothing is stored twice.
    page.goto(live_server.url + "/matches/")
    page.set_input_files("#id_file", backup)
    page.get_by_role("button", name="Import").click()
    expect(page.get_by_text("already imported")).to_be_visible()
    page.goto(live_server.url + "/matches/")
    expect(page.locator(".match-card")).to_have_count(1)


# --- Two phones, one match ----------------------------------------------------------------------


def test_a_stale_phone_keeps_its_entry_and_saves_it_as_the_next_hand(
    browser, page: Page, live_server
):
    base = live_server.url
    signed_in(page, base, "phones")
    new_match(page, "Standard", ["Ann", "Bob", "Cat", "Dan"], "Dan")
    other = browser.new_context(viewport=TALL, is_mobile=True)
    phone_b = other.new_page()
    log_in(phone_b, base, "phones")
    phone_b.goto(page.url)
    # B starts entering a hand; meanwhile A saves hand 1.
    tap(phone_b, "upcard", "hearts")
    tap(phone_b, "makers", "Bob")
    expect(phone_b.locator("fieldset.drops")).to_be_visible()
    enter_hand(page, "clubs", tricks={"Ann": 2, "Bob": 1, "Cat": 1, "Dan": 1})
    assert scores(page) == {"Ann": 23, "Bob": 24, "Cat": 24, "Dan": 24}
    # B's board learns the match moved on (its poll), and says so without wiping the entry;
    # "Show it" brings the board as it is now, and B's entry kept.
    tap(phone_b, "drops", "Cat")
    expect(phone_b.locator(".saved-elsewhere")).to_contain_text("Hand 1 was saved")
    phone_b.get_by_role("button", name="Show it").click()
    expect(phone_b.get_by_role("alert")).to_contain_text("Hand 1 was saved on another phone.")
    expect(phone_b.locator(".scores")).to_contain_text("23")
    expect(phone_b.locator("#hand-form input[name=upcard][value=hearts]")).to_be_checked()
    expect(phone_b.locator("#hand-form input[name=maker][value='1']")).to_be_checked()
    expect(phone_b.locator("#hand-form input[name=dropped][value=Cat]")).to_be_checked()
    snap(phone_b, "stale-phone")
    chip(phone_b, "Bob", 3)
    chip(phone_b, "Dan", 2)
    expect(phone_b.locator(".status .preview")).to_be_visible()
    phone_b.get_by_role("button", name="Save hand 2").click()
    expect(phone_b.get_by_role("button", name="Undo hand 2")).to_be_visible()
    assert scores(phone_b) == {"Ann": 28, "Bob": 21, "Cat": 24, "Dan": 22}
    other.close()


def test_a_change_to_a_hand_undone_on_another_phone_is_kept_as_the_next_hand(
    browser, page: Page, live_server
):
    base = live_server.url
    signed_in(page, base, "undone")
    new_match(page, "Standard", ["Ann", "Bob", "Cat", "Dan"], "Dan")
    for _ in range(2):
        enter_hand(page, "clubs", tricks={"Ann": 2, "Bob": 1, "Cat": 1, "Dan": 1})
    expect(page.get_by_role("button", name="Undo hand 2")).to_be_visible()
    other = browser.new_context(viewport=TALL, is_mobile=True)
    phone_b = other.new_page()
    log_in(phone_b, base, "undone")
    # B opens hand 2 to correct it: Ann took 1, Bob 2.
    phone_b.goto(page.url + "hands/2/")
    chip(phone_b, "Bob", 2)
    chip(phone_b, "Ann", 1)
    expect(phone_b.locator(".status .preview")).to_contain_text("Bob")
    # Meanwhile A undoes hand 2; B's Save finds it gone, and keeps what B typed.
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Undo hand 2").click()
    expect(page.get_by_role("button", name="Undo hand 1")).to_be_visible()
    phone_b.get_by_role("button", name="Save changes to hand 2").click()
    expect(phone_b.get_by_role("alert")).to_contain_text("Hand 2 was undone on another phone.")
    expect(phone_b).to_have_url(page.url)
    expect(phone_b).to_have_title(page.title())  # the board's page, no longer "Edit hand 2"
    for part in ("Score race", "The night's settle-up"):  # all of it, as a reload draws it
        expect(phone_b.get_by_text(part, exact=True)).to_be_visible()
    snap(phone_b, "kept-after-undo")
    expect(phone_b.locator("#hand-form input[name=upcard][value=clubs]")).to_be_checked()
    for name, n in (("Ann", 1), ("Bob", 2)):
        row = phone_b.get_by_role("radiogroup", name=name, exact=True)
        expect(row.locator(f"input[value='{n}']")).to_be_checked()
    phone_b.get_by_role("button", name="Save hand 2").click()
    expect(phone_b.get_by_role("button", name="Undo hand 2")).to_be_visible()
    assert scores(phone_b) == {"Ann": 22, "Bob": 22, "Cat": 23, "Dan": 23}
    other.close()


def test_a_tap_while_save_is_on_its_way_waits_for_the_next_hand(page: Page, live_server):
    signed_in(page, live_server.url, "slow")
    new_match(page, "Standard", ["Ann", "Bob", "Cat", "Dan"], "Dan")
    cdp = page.context.new_cdp_session(page)
    slow = {"offline": False, "latency": 600, "downloadThroughput": -1, "uploadThroughput": -1}
    cdp.send("Network.emulateNetworkConditions", slow)
    tap(page, "upcard", "hearts")
    tap(page, "makers", "Bob")
    for name, n in {"Bob": 3, "Ann": 1, "Cat": 1}.items():
        chip(page, name, n)
    expect(page.locator(".status .preview")).to_be_visible()
    page.get_by_role("button", name="Save hand 1").click()
    # The next hand's upcard and maker, tapped on the old form before the board is back.
    tap(page, "upcard", "spades")
    tap(page, "makers", "Ann")
    expect(page.get_by_role("button", name="Undo hand 1")).to_be_visible()
    expect(page.locator("#hand-form legend").first).to_contain_text("Ann deals")
    expect(page.locator("#hand-form input[name=upcard][value=spades]")).to_be_checked()
    expect(page.locator("#hand-form input[name=maker][value='0']")).to_be_checked()
    expect(page.locator("fieldset.trump")).to_be_visible()
    expect(page.locator(".scores .points")).to_have_text(["24", "22", "24", "30"])


def test_every_phone_at_the_table_follows_the_board(browser, page: Page, live_server):
    base = live_server.url
    signed_in(page, base, "live")
    new_match(page, "Standard", ["Ann", "Bob", "Cat", "Dan"], "Dan")
    match_url = page.url
    second = browser.new_context(viewport=TALL, is_mobile=True)
    own = second.new_page()
    log_in(own, base, "live")
    own.goto(match_url)
    share_url = page.locator("#share a").first.get_attribute("href")
    guests = browser.new_context(viewport=SMALL, is_mobile=True)
    viewer = guests.new_page()
    viewer.goto(share_url)
    no_axe_violations(viewer)
    expect(viewer.locator(".scores .points")).to_have_text(["25", "25", "25", "25"])

    # Each hand the scorer saves shows on the other phones by itself, within 5 s.
    enter_hand(page, "clubs", tricks={"Ann": 2, "Bob": 1, "Cat": 1})
    for phone in (own, viewer):
        expect(phone.locator(".scores .points")).to_have_text(["23", "24", "24", "24"])
    enter_hand(page, "hearts", maker="Bob", dropped=["Cat"], tricks={"Bob": 3, "Ann": 2})
    for phone in (own, viewer):
        expect(phone.locator(".scores .points")).to_have_text(["21", "21", "24", "29"])
    expect(viewer.locator(".hand-row")).to_have_count(2)
    snap(viewer, "shared-board")

    # A hand half entered on the second phone is never wiped by the next save elsewhere.
    tap(own, "upcard", "spades")
    enter_hand(page, "clubs", tricks={"Ann": 2, "Bob": 1, "Cat": 1})
    expect(own.locator(".saved-elsewhere")).to_contain_text("Hand 3 was saved on another phone.")
    expect(own.locator("#hand-form input[name=upcard][value=spades]")).to_be_checked()
    own.get_by_role("button", name="Show it").click()
    expect(own.locator(".scores .points")).to_have_text(["19", "20", "23", "28"])
    expect(own.locator("#hand-form input[name=upcard][value=spades]")).to_be_checked()

    # A viewer reading back through every hand keeps them, and its place, as hands are saved.
    for _ in range(3):
        enter_hand(page, "clubs", tricks={"Ann": 2, "Bob": 1, "Cat": 1})
    viewer.get_by_role("link", name="Show all 6 hands").click()
    expect(viewer.locator(".hand-row")).to_have_count(6)
    viewer.mouse.wheel(0, 2000)  # down to the first hand
    viewer.wait_for_function("() => window.scrollY > 0")
    enter_hand(page, "clubs", tricks={"Ann": 2, "Bob": 1, "Cat": 1})
    expect(viewer.locator(".scores .points")).to_have_text(["11", "16", "19", "24"])
    expect(viewer.locator(".hand-row")).to_have_count(7)
    expect(viewer.locator(".hand-row").last).to_be_in_viewport()  # the first hand, still read

    # The viewer can change nothing: every write refuses it, and nothing moves.
    match = re.search(r"/matches/(\d+)/", match_url).group(1)
    for path in ("hands/", "hands/check/", "hands/1/", "hands/undo/", "share/", "rematch/"):
        response = viewer.request.post(f"{base}/matches/{match}/{path}", max_redirects=0)
        assert response.status in (302, 403, 404), path
        if response.status == 302:
            assert "/accounts/login/" in response.headers["location"]
    expect(viewer.locator(".hand-row")).to_have_count(7)

    # A new link, once confirmed, revokes the old one: a board still open on it stops and
    # says so; the new code is on screen.
    page.locator("#share summary").click()
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name=re.compile("New link")).click()
    expect(page.get_by_text("the old one no longer works")).to_be_visible()
    expect(page.locator("#share .qr svg")).to_be_in_viewport()
    assert page.locator("#share a").first.get_attribute("href") != share_url
    expect(viewer.get_by_text("This link to the board no longer works.")).to_be_visible()
    expect(viewer.locator("#connection-problem")).to_be_hidden()
    assert viewer.goto(share_url).status == 404
    expect(viewer.get_by_text("This link to the board no longer works.")).to_be_visible()
    second.close()
    guests.close()


def evening_files(tmp_path) -> list[str]:
    """Three match files of this evening: Cat wins the first, Bob sweeps the second, and the
    third is still going."""
    now = datetime.now(ZoneInfo("America/Chicago")).replace(microsecond=0)
    table = {
        "format": "buck-euchre/1",
        "rules": "standard",
        "stakes": {"per_game": "1.00", "per_point": "0.10", "currency": "USD"},
        "players": ["Ann", "Bob", "Cat", "Dan"],
        "first_dealer": "Dan",
    }
    paths = []
    for hours, hands in ((3, CAT_WINS), (2, SWEEP), (1, [CLUB])):
        path = tmp_path / f"match-{hours}.json"
        played_at = (now - timedelta(hours=hours)).isoformat()
        path.write_text(json.dumps({**table, "played_at": played_at, "hands": hands}))
        paths.append(str(path))
    return paths


def test_an_evening_imported_is_settled_charted_and_raced(page: Page, live_server, tmp_path):
    base = live_server.url
    signed_in(page, base, "evening")
    page.goto(base + "/matches/")
    page.set_input_files("#id_file", evening_files(tmp_path))
    page.get_by_role("button", name="Import").click()
    expect(page.get_by_text("3 matches imported.")).to_be_visible()

    # Home offers tonight's settle-up: nets Ann −7.20, Bob +7.50, Cat +6.30, Dan −6.60, no two
    # of which cancel out, so three payments.
    page.get_by_role("link", name="Buck Euchre").click()
    expect(page.get_by_role("heading", name="Tonight's settle-up")).to_be_visible()
    expect(page.locator(".tonight .transfer")).to_have_text(
        ["Ann pays Bob $7.20", "Dan pays Bob $0.30", "Dan pays Cat $6.30"]
    )
    no_axe_violations(page)
    snap(page, "home-tonight")

    # The night: where Ann's net comes from, match by match, and a payment marked paid.
    page.get_by_role("link", name=re.compile("^The night")).click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("The night of")
    page.locator(".nets summary").filter(has_text="Ann").first.click()
    workings = page.locator(".nets details[open] .working")
    expect(workings).to_have_text(
        ["lost: $1.00 a game + 27 points × $0.10", "lost: $1.00 a game + 25 points × $0.10"]
    )
    page.get_by_role("button", name="Mark paid: Ann to Bob").click()
    expect(page.locator(".settle-up .transfer").first).to_contain_text("Paid")
    expect(page.get_by_role("button", name="Not paid after all: Ann to Bob")).to_be_visible()
    no_axe_violations(page)
    snap(page, "night")

    # Ann's own page: the statistics and her net money over time, drawn.
    page.locator(".nets summary").filter(has_text="Ann").first.click()
    page.get_by_role("link", name="Ann's statistics and charts").click()
    expect(page.get_by_role("heading", name="Ann", exact=True)).to_be_visible()
    expect(page.locator("table.stats").first).to_contain_text("Win rate")
    expect(page.locator("svg.chart polyline")).to_have_count(1)
    no_axe_violations(page)
    snap(page, "player")

    # The first match's score race, under its board, opened on demand.
    page.go_back()
    page.locator(".match-card").first.click()
    expect(page.locator(".result")).to_contain_text("Took all five tricks.")
    page.get_by_text("Score race", exact=True).click()
    expect(page.locator("#race svg.chart polyline")).to_have_count(4)
    expect(page.locator("#race table tbody tr")).to_have_count(5)  # the start and 4 hands
    no_axe_violations(page)
    snap(page, "race")


def test_the_pages_keep_to_the_content_security_policy(page: Page, live_server):
    refused = []
    page.on("console", lambda m: "Content Security Policy" in m.text and refused.append(m.text))
    sign_up(page, live_server.url, "strict")
    page.get_by_role("link", name="New match").click()
    for i, name in enumerate(["Ann", "Bob", "Cat", "Dan"]):
        page.fill(f"#id_seat_{i}", name)
    page.get_by_role("button", name="Deal for the first Jack").click()
    expect(page.locator(".jack-result")).to_be_visible()  # dealt in turn, by class
    page.get_by_role("button", name="Start the match").click()
    enter_hand(page, "clubs", tricks={"Ann": 2, "Bob": 1, "Cat": 1, "Dan": 1})
    expect(page.get_by_role("button", name="Undo hand 1")).to_be_visible()
    page.get_by_role("link", name="Past matches").click()
    page.select_option("#player", label="Bob")  # app.js submits the filter
    expect(page.get_by_role("heading", name="Bob's record")).to_be_visible()
    page.get_by_role("link", name="Account").click()
    expect(page.get_by_role("heading", name="Your account")).to_be_visible()
    snap(page, "account")
    no_axe_violations(page)
    page.get_by_role("link", name="Delete your account").click()
    expect(page.get_by_role("heading", name="Delete your account?")).to_be_visible()
    snap(page, "account-delete")
    no_axe_violations(page)
    assert refused == []
    # The policy is enforced, not only sent: a script written into the page does not run.
    with pytest.raises(Error):
        page.add_script_tag(content="window.injected = true")
    assert page.evaluate("window.injected") is None
    # The one script error this test means to cause: the browser's word that it refused it.
    blocked = [e for e in SCRIPT_ERRORS if "Executing inline script violates" in e]
    assert blocked
    SCRIPT_ERRORS[:] = [e for e in SCRIPT_ERRORS if e not in blocked]


# --- A slow link, the screen, offline, a phone on its side ---------------------------------------


def test_nothing_typed_or_tapped_is_lost_on_a_slow_link(page: Page, live_server):
    signed_in(page, live_server.url, "lag")
    slow_link(page, 300)
    page.get_by_role("link", name="New match").click()
    # Typed at a person's pace while the preset's answer is on its way.
    page.locator("label.preset").filter(has_text="Short game to 15").click()
    for i, name in enumerate(["Ann", "Bob", "Cat", "Dan"]):
        page.locator(f"#id_seat_{i}").press_sequentially(name, delay=90)
    page.locator("#dealer label").filter(has_text=re.compile("^Dan$")).click()
    page.get_by_role("button", name="Start the match").click()
    expect(page.locator(".scores .name")).to_have_text(["Ann", "Bob", "Cat", "Dan"])

    # Tapped at a person's pace (a finger is down for 80 ms), never waiting for an answer
    # except for the tiles that only the answer brings.
    tap_ = {"delay": 80}
    page.locator("fieldset.upcard label:has(input[value=hearts])").click(**tap_)
    page.locator("fieldset.makers label").filter(has_text=re.compile("^Bob$")).click(**tap_)
    page.locator("fieldset.drops label:has(input[value=Cat])").click(**tap_)
    for name, n in (("Bob", 2), ("Dan", 1), ("Bob", 3), ("Dan", 2)):  # two second thoughts
        row = page.get_by_role("radiogroup", name=name, exact=True)
        row.locator(f"label.chip:has(input[value='{n}'])").click(**tap_)
    # Once the answers are in, every tap is still there, and Ann's 0 filled itself in.
    expect(page.locator(".status .preview")).to_contain_text("Bob −3")
    form = page.locator("#hand-form")
    expect(form.locator("input[name=upcard][value=hearts]")).to_be_checked()
    expect(form.locator("input[name=maker][value='1']")).to_be_checked()
    expect(form.locator("input[name=dropped][value=Cat]")).to_be_checked()
    for seat, n in (("t0", "0"), ("t1", "3"), ("t3", "2")):
        expect(form.locator(f"input[name={seat}]:checked")).to_have_value(n)
    page.get_by_role("button", name="Save hand 1").click(**tap_)
    assert scores(page) == {"Ann": 20, "Bob": 12, "Cat": 15, "Dan": 13}


def test_a_stake_typed_while_a_presets_rules_are_on_their_way_is_kept(page: Page, live_server):
    signed_in(page, live_server.url, "quick")
    page.get_by_role("link", name="New match").click()
    slow_link(page, 400)
    page.locator("label.preset").filter(has_text="3 players to 15").click()
    page.fill("#id_per_point", "0.25")  # before the preset's house rules and stakes are back
    expect(page.locator(".house-rules")).to_contain_text("blank follows 3 players to 15")
    expect(page.locator("#id_per_point")).to_have_value("0.25")


WAKE_LOCK_SPY = """
window.wakeLocks = [];
Object.defineProperty(navigator, "wakeLock", {value: {request: async (type) => {
    const sentinel = new EventTarget();
    sentinel.released = false;
    sentinel.release = async () => { sentinel.released = true; };
    window.wakeLocks.push(sentinel);
    return sentinel;
}}});
"""


def test_the_screen_stays_awake_during_a_match_and_nothing_breaks_without_the_api(
    browser, page: Page, live_server
):
    page.add_init_script(WAKE_LOCK_SPY)
    signed_in(page, live_server.url, "awake")
    new_match(page, "Standard", ["Ann", "Bob", "Cat", "Dan"], "Dan")
    page.wait_for_function("() => window.wakeLocks.length === 1")
    enter_hand(page, "hearts", maker="Bob", dropped=["Ann", "Cat", "Dan"])  # a lone sweep
    expect(page.locator(".result")).to_be_visible()
    page.wait_for_function("() => window.wakeLocks[0].released")  # the match is over

    # A browser without the API (or on a plain http address): the match goes on all the same.
    bare = browser.new_context(viewport=TALL, is_mobile=True)
    phone = bare.new_page()
    phone.add_init_script("delete Navigator.prototype.wakeLock;")
    errors = []
    phone.on("pageerror", lambda error: errors.append(error))
    log_in(phone, live_server.url, "awake")
    phone.goto(page.url)
    phone.get_by_role("button", name="Rematch").click()
    enter_hand(phone, "clubs", tricks={"Ann": 2, "Bob": 1, "Cat": 1})
    expect(phone.locator(".hands .hand-row")).to_have_count(1)  # saved, not only kept
    assert errors == []
    bare.close()


def test_the_last_board_seen_opens_without_a_network_and_keeps_taking_hands(
    browser_type, browser_type_launch_args, browser_context_args, live_server
):
    # A browser of its own: a service worker left behind must not stall the tests after it.
    browser = browser_type.launch(**browser_type_launch_args)
    try:
        _last_board_offline(browser.new_context(**browser_context_args).new_page(), live_server)
    finally:
        browser.close()


# What the reopened board was drawn from: the copy the service worker served (when it was kept,
# the match its data block holds) and how many hands the phone still keeps.
KEPT = """async () => {
    const root = document.documentElement;
    const data = JSON.parse(document.querySelector("#twin-data")?.textContent || "null");
    return {provisional: root.hasAttribute("data-provisional"), copied: root.dataset.offline,
            hands: data?.state?.hands, scores: data?.state?.scores,
            kept: await globalThis.BuckOutbox?.count()};
}"""


def _last_board_offline(page: Page, live_server):
    signed_in(page, live_server.url, "offline")
    new_match(page, "Standard", ["Ann", "Bob", "Cat", "Dan"], "Dan")
    page.wait_for_function("() => navigator.serviceWorker.controller !== null")
    enter_hand(page, "clubs", tricks={"Ann": 2, "Bob": 1, "Cat": 1})
    assert scores(page) == {"Ann": 23, "Bob": 24, "Cat": 24, "Dan": 24}
    page.wait_for_function(
        """async () => {
            const mine = "boards-" + document.querySelector("meta[name=account]").content;
            const copy = await caches.match(location.pathname, {cacheName: mine});
            const html = copy ? await copy.text() : "";
            return html.includes("♣ turned") && html.includes("Undo hand 1");
        }"""
    )
    page.context.set_offline(True)
    page.reload()
    try:
        expect(page.locator(".scores .points")).to_have_text(["23", "24", "24", "24"])
    except AssertionError as failed:  # rare (#40's note): what the phone kept, to find why
        raise AssertionError(f"{failed}\nkept: {page.evaluate(KEPT)}") from None
    expect(page.locator(".connection-state")).to_have_text("Offline — hands are kept on this phone")
    expect(page.locator("#hand-form")).to_be_visible()  # hands go on being entered
    expect(page.locator("#connection-problem")).to_be_hidden()
    snap(page, "offline-board")
    unseen = page.context.new_page()  # a page this phone never showed
    unseen.goto(live_server.url + "/matches/")
    expect(unseen.get_by_role("heading", name="No connection")).to_be_visible()
    page.context.set_offline(False)


def test_on_its_side_the_board_and_the_hand_form_sit_side_by_side(page: Page, live_server):
    signed_in(page, live_server.url, "wide")
    new_match(page, "Standard", ["Ann", "Bob", "Cat", "Dan"], "Dan")
    page.set_viewport_size({"width": 844, "height": 390})
    tap(page, "upcard", "clubs")
    scores_box = page.locator(".scores").bounding_box()
    form_box = page.locator("#hand-form").bounding_box()
    assert form_box["x"] >= scores_box["x"] + scores_box["width"]
    assert form_box["y"] < scores_box["y"] + scores_box["height"]  # beside it, not below
    for name, n in (("Ann", 2), ("Bob", 1), ("Cat", 1)):
        chip(page, name, n)
    expect(page.get_by_role("button", name="Save hand 1")).to_be_in_viewport()
    snap(page, "landscape")


def test_a_save_tapped_while_a_check_is_on_its_way_is_drawn_and_the_next_tap_lands(
    page: Page, live_server
):
    signed_in(page, live_server.url, "hasty")
    new_match(page, "3 players to 15", ["Ann", "Bob", "Cat"], "Cat")
    cdp = page.context.new_cdp_session(page)
    slow = {"offline": False, "latency": 400, "downloadThroughput": -1, "uploadThroughput": -1}
    cdp.send("Network.emulateNetworkConditions", slow)
    tap(page, "upcard", "hearts")
    expect(page.locator("fieldset.makers")).to_be_visible()
    tap(page, "makers", "pass")  # its check is still on its way when Save is tapped
    page.get_by_role("button", name="Save hand 1").click()
    tap(page, "upcard", "spades")
    expect(page.get_by_role("button", name="Undo hand 1")).to_be_visible()
    expect(page.locator(".score.is-dealer .name")).to_have_text("Ann")
    expect(page.locator("#hand-form input[name=upcard][value=spades]")).to_be_checked()
    expect(page.locator("fieldset.makers")).to_be_visible()


def test_a_friend_invited_by_qr_keeps_score_on_their_own_phone(browser, page: Page, live_server):
    base = live_server.url
    signed_in(page, base, "host")
    new_match(page, "Standard", ["Ann", "Bob", "Cat", "Dan"], "Dan")
    match_url = page.url
    enter_hand(page, "clubs", tricks={"Ann": 2, "Bob": 1, "Cat": 1})

    # The host invites a scorer: a link and its code on the group's page.
    page.get_by_role("link", name="Buck Euchre").click()
    page.locator(".group-bar a").click()
    page.locator("label.choice", has_text="Scorer: keeps score").click()
    page.get_by_role("button", name="Make an invitation link").click()
    expect(page.locator(".invite .qr svg")).to_be_visible()
    no_axe_violations(page)
    snap(page, "group-invite")
    link = page.locator(".invite a[href*='/join/']").first.get_attribute("href")
    # For the group's chat: the link copied in one tap, no long press on a long address.
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.locator(".invite").first.get_by_role("button", name="Copy the link").click()
    page.wait_for_function(
        "async (link) => (await navigator.clipboard.readText()) === link", arg=link
    )
    page.goto(match_url)

    # The friend opens it signed out, signs up from it and joins.
    friends = browser.new_context(viewport=TALL, is_mobile=True)
    phone = friends.new_page()
    phone.goto(link)
    expect(phone.get_by_role("heading", name="Join Host's table")).to_be_visible()
    no_axe_violations(phone)
    phone.get_by_role("link", name="Sign up and join").click()
    phone.fill("#id_username", "friend")
    expect(phone.get_by_text("Then you are in Host's table at once.")).to_be_visible()
    expect(phone.locator("#id_table")).to_have_count(0)  # no table of their own to name
    phone.fill("#id_password1", PASSWORD)
    phone.fill("#id_password2", PASSWORD)
    phone.get_by_role("button", name="Sign up").click()
    # In the group at once: no second tap on Join.
    expect(phone.get_by_text("Welcome to Host's table.")).to_be_visible()
    expect(phone.get_by_role("heading", name="Host's table")).to_be_visible()

    # The friend finds the match on their home page and saves the next hand.
    phone.get_by_role("link", name="Buck Euchre").click()
    phone.locator(".match-cards a").first.click()
    assert phone.url == match_url
    enter_hand(phone, "hearts", maker="Bob", dropped=["Cat"], tricks={"Bob": 3, "Ann": 2})
    expect(phone.locator(".scores .points")).to_have_text(["21", "21", "24", "29"])

    # The host's board follows by itself and says who saved it.
    expect(page.locator(".scores .points")).to_have_text(["21", "21", "24", "29"])
    expect(page.locator(".hand-row").first).to_contain_text("saved by friend")
    snap(page, "host-sees-friend")
    friends.close()


# --- The first evening (#33 §3) and a member taken out (§2) -------------------------------------


def no_console_errors(page: Page) -> list:
    """Every error or warning the page writes to its console (a CSP refusal is one), kept as
    it comes, across every page the phone opens."""
    said: list = []
    page.on("console", lambda m: m.type in ("error", "warning") and said.append(m.text))
    page.on("pageerror", lambda e: said.append(str(e)))
    return said


@ON_BOTH_PHONES
def test_a_new_group_meets_no_console_error_and_the_rules_stay_open_across_presets(
    page: Page, live_server, phone
):
    errors = no_console_errors(page)
    base = live_server.url
    page.goto(base + "/signup/")
    page.fill("#id_username", "ann")
    # A suggestion, not a value: typing replaces it, and left alone it is the table's name.
    expect(page.locator("#id_table")).to_have_attribute("placeholder", "Ann's table")
    expect(page.locator("#id_table")).to_have_value("")
    page.locator("#id_table").press_sequentially("Friday")
    expect(page.locator("#id_table")).to_have_value("Friday")
    page.locator("#id_table").fill("")
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    page.get_by_role("button", name="Sign up").click()
    expect(page.locator(".group-bar .group-name")).to_have_text(
        "Ann's table · members and invitations"
    )
    page.get_by_role("link", name="New match").click()
    page.locator("#rules-words summary").click()
    for preset in page.locator("label.preset").all():
        preset.click()
        expect(preset.locator("input")).to_be_checked()
        expect(page.locator("#rules-words")).to_have_attribute("open", "")
    expect(page.locator("#rules-words")).to_contain_text("count up to 15")  # dirty-clubs-up, last
    page.locator("label.preset").filter(has=page.get_by_text("3 players to 15", exact=True)).click()
    expect(page.locator("#rules-words")).to_contain_text("+5 is the house's choice")
    expect(page.locator("#rules-words")).to_contain_text("a redeal included")
    page.locator("label.preset").filter(has=page.get_by_text("Dirty Clubs", exact=True)).click()
    expect(page.locator("#rules-words")).to_contain_text("The card swap")
    for i, name in enumerate(["Ann", "Bob", "Cat", "Dan"]):
        page.fill(f"#id_seat_{i}", name)
    page.get_by_role("button", name="Cut for the deal").click()
    expect(page.locator(".jack-result")).to_contain_text("cut the low card and deals first")
    snap(page, "new-match-cut")
    page.get_by_role("button", name="Start the match").click()
    expect(page.locator("#hand-form")).to_be_visible()
    head = page.locator(".match-head > p")
    expect(head).to_have_text("Hand 1 · no stakes")
    for path in ("/", "/matches/", "/players/", "/nights/", "/groups/", "/me/", "/accounts/"):
        page.goto(base + path)
    page.go_back()
    assert errors == []


def test_a_board_left_open_by_a_member_an_owner_removed_clears_and_stops_asking(
    browser, page: Page, live_server
):
    base = live_server.url
    signed_in(page, base, "host")
    new_match(page, "Standard", ["Ann", "Bob", "Cat", "Dan"], "Dan")
    match_url = page.url

    from django.contrib.auth import get_user_model

    from games.models import Group, Role

    host = get_user_model().objects.get(username="host")
    val = get_user_model().objects.create_user("val", password=PASSWORD)
    Group.home(host).join(val, Role.SCORER)
    friends = browser.new_context(viewport=SMALL, is_mobile=True)
    phone = friends.new_page()
    errors = no_console_errors(phone)
    phone.goto(base + "/accounts/login/")
    phone.fill("#id_username", "val")
    phone.fill("#id_password", PASSWORD)
    phone.get_by_role("button", name="Log in").click()
    phone.goto(match_url)
    tap(phone, "upcard", "hearts")  # halfway through a hand
    expect(phone.locator("fieldset.makers")).to_be_visible()

    # The host takes Val out, with the board links renewed (ticked by default).
    page.goto(base + "/groups/")
    page.locator(".match-cards a").first.click()
    form = page.locator("form.member-role").filter(has=page.locator("input[value=val]"))
    expect(form.locator("input[type=checkbox][name=links]")).to_be_checked()
    form.locator("select").select_option("remove")
    form.get_by_role("button", name="Change").click()
    expect(page.get_by_text("val is no longer in Host's table.")).to_be_visible()

    expect(phone.get_by_text("You are no longer in this group.")).to_be_visible()
    expect(phone.locator("form")).to_have_count(0)
    expect(phone.locator("[data-poll]")).to_have_count(0)
    snap(phone, "removed")
    asked = []
    phone.on("request", lambda r: asked.append(r.url))
    phone.wait_for_timeout(1500)  # three polls' time: none is sent
    assert [u for u in asked if "/matches/" in u] == []
    assert errors == []
    friends.close()


@ON_BOTH_PHONES
@pytest.mark.parametrize("seats", [5, 6])
def test_five_or_six_count_up_and_a_moon_made_ends_the_match(page: Page, live_server, phone, seats):
    assert page.viewport_size == phone
    names = ["Ann", "Bob", "Cat", "Dan", "Eve", "Fay"][:seats]
    signed_in(page, live_server.url, f"moon{seats}")
    page.get_by_role("link", name="New match").click()
    expect(page.locator("#id_seat_4")).to_be_hidden()  # the standard preset is for 3 or 4
    snap(page, f"moon-new-match-{seats}")
    page.go_back()
    new_match(page, "Dirty Clubs, counted up", names, names[-1])
    snap(page, f"moon-board-{seats}")
    # Hand 1: Ann bids 3 and makes it; Dan drops; the last to play fills in with none.
    enter_hand(
        page,
        "hearts",
        maker="Ann",
        trump="spades",
        bid=3,
        dropped=["Dan"],
        tricks={"Ann": 3, "Bob": 1, "Cat": 1},
        on_one_screen=True,
    )
    shown = scores(page)
    assert (shown["Ann"], shown["Bob"], shown["Dan"]) == (3, 1, 0)  # counted up
    # Hand 2: Ann is on the board: one tap shoots the moon, and all five win it.
    tap(page, "upcard", "diamonds")
    tap(page, "makers", "Ann")
    tap(page, "bids", "4")
    expect(page.locator("fieldset.moon")).to_be_hidden()  # the moon is a bid of five
    tap(page, "bids", "5")
    expect(page.locator("fieldset.moon")).to_be_visible()
    tap(page, "makers", "Dan")
    expect(page.locator("fieldset.moon")).to_be_hidden()  # Dan has not played yet
    tap(page, "makers", "Ann")
    tap(page, "bids", "5")  # a radio: checked still, or checked again
    tap(page, "moon", "1")
    snap(page, f"moon-hand-form-{seats}")
    no_axe_violations(page)
    chip(page, "Ann", 5, on_one_screen=True)
    expect(page.locator(".status .preview")).to_be_visible()
    in_reach(page, page.get_by_role("button", name="Save hand 2"))
    page.get_by_role("button", name="Save hand 2").click()
    expect(page.locator(".result h2")).to_have_text(re.compile(r"Ann\s+wins"))
    expect(page.locator(".result")).to_contain_text("Shot the moon.")
    snap(page, f"moon-won-{seats}")
