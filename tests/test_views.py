"""Pages: full page vs htmx fragment, ownership, invalid input, idempotent saves, query counts."""

import csv
import html
import io
import json
import re
from decimal import Decimal

import pytest
from django.conf import settings as django_settings
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from pytest_django.asserts import assertInHTML

from games import rules
from games.models import (
    Group,
    Hand,
    Match,
    MatchQuerySet,
    Membership,
    Night,
    Play,
    Player,
    Role,
    add_hand,
    record_hands,
)
from games.rules import Hand as GameHand

from .conftest import HX, drawn, make_match, url
from .liveserver import PASSWORD
from .matches import CLUB as CLUB_FILE
from .matches import CLUB_HAND as CLUB
from .matches import EXAMPLE, NEW_MATCH, ORDERED_POST
from .pages import shown
from .stored import assert_results_are_a_replay

pytestmark = pytest.mark.django_db


def test_pages_need_a_login(client):
    for path in (url("home"), url("match_list"), url("match_create"), url("match_detail", 1)):
        response = client.get(path)
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_an_htmx_request_after_the_session_ends_loads_the_login_page_whole(client):
    response = client.post(url("hand_check", 1), {"upcard": "hearts"}, **HX)
    assert response.status_code == 200
    assert response["HX-Redirect"].startswith("/accounts/login/?next=")


def test_an_htmx_check_on_a_finished_match_reloads_the_page(client_in, user):
    sweep = GameHand("hearts", "hearts", "Bob", None, ("Ann", "Cat", "Dan"), {"Bob": 5})
    match = make_match(user, hands=[sweep])
    response = client_in.post(url("hand_check", match.pk), drawn(match, {"upcard": "hearts"}), **HX)
    assert response["HX-Redirect"] == match.get_absolute_url()


def test_signup_logs_the_new_player_in(client):
    response = client.post(
        url("signup"),
        {"username": "cat", "password1": PASSWORD, "password2": PASSWORD},
    )
    assert response.status_code == 302
    assert client.get(url("home")).status_code == 200


def test_home_lists_matches_in_progress_and_finished(client_in, user):
    make_match(user, hands=[CLUB])
    sweep = GameHand("hearts", "hearts", "Fay", None, ("Eve", "Gus", "Hal"), {"Fay": 5})
    make_match(user, names=("Eve", "Fay", "Gus", "Hal"), dealer="Eve", hands=[sweep])
    page = client_in.get(url("home")).content.decode()
    playing, finished = page.split("Recently finished")
    assert "Ann 23" in playing and "Ann deals next" in playing
    assert "Fay won" in finished and "Fay 20" in finished


# --- Ownership -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "method, name, args",
    [
        ("get", "match_detail", ()),
        ("get", "match_export", ()),
        ("post", "hand_create", ()),
        ("post", "hand_undo", ()),
        ("post", "match_rematch", ()),
        ("get", "hand_edit", (1,)),
        ("post", "hand_check", ()),
    ],
)
def test_nobody_sees_or_changes_another_users_match(client, other_user, user, method, name, args):
    match = make_match(user, hands=[CLUB])
    client.force_login(other_user)
    response = getattr(client, method)(
        url(name, match.pk, *args), ORDERED_POST if method == "post" else None
    )
    assert response.status_code == 404
    assert Hand.objects.filter(match=match).count() == 1


def test_the_match_list_shows_only_ones_own_matches(client, other_user, user):
    make_match(user)
    client.force_login(other_user)
    assert "Ann" not in client.get(url("match_list")).content.decode()
    assert client.get(url("match_list") + f"?player={Player.objects.first().pk}").status_code == 404


# --- The scoreboard and the hand form -----------------------------------------------------------


def test_scoreboard_is_a_full_page_or_the_board_for_htmx(client_in, user):
    match = make_match(user)
    full = client_in.get(match.get_absolute_url())
    part = client_in.get(match.get_absolute_url(), **HX)
    assert b"<html" in full.content and b'id="board"' in full.content
    assert b"<html" not in part.content and part.content.lstrip().startswith(b'<div id="board"')
    assert "HX-Request" in full["Vary"]


def test_the_form_asks_only_for_tricks_on_a_turned_club(client_in, user):
    match = make_match(user)
    page = client_in.post(
        url("hand_check", match.pk), drawn(match, {"number": "1", "upcard": "clubs"}), **HX
    )
    html = shown(page.content.decode())
    assert "Clubs are trump" in html and "Nobody drops out" in html
    assert 'name="maker"' not in html and 'name="dropped"' not in html
    assert html.count('class="trick-row"') == 4 and "5 of 5 left to give" in html
    for seat in range(4):  # a chip for every number of tricks, none chosen yet
        assert re.findall(rf'name="t{seat}" value="(\d)"', html) == list("012345")
    assert not re.search(r'name="t\d" value="\d" checked', html)


def test_the_form_asks_for_the_bid_with_trick_bidding(client_in, user):
    match = make_match(user, "dirty-clubs")
    data = {"number": "1", "upcard": "hearts", "maker": "1"}
    html = shown(
        client_in.post(url("hand_check", match.pk), drawn(match, data), **HX).content.decode()
    )
    assert "Bob</span>'s bid" in html
    assert 'name="bid" value="1"' not in html and 'name="bid" value="2"' in html
    assert "All pass <small>redeal</small>" in html


def test_the_dealer_is_the_fixed_maker_on_a_turned_spade_in_spades_21(client_in, user):
    match = make_match(user, "spades-21")
    html = client_in.post(
        url("hand_check", match.pk), drawn(match, {"number": "1", "upcard": "spades"}), **HX
    ).content.decode()
    assert "Dan dealt, so Dan makes it and needs 3." in html


def test_a_maker_and_low_scorers_cannot_be_toggled_out(client_in, user):
    match = make_match(user, "three-widow", names=("Ann", "Bob", "Cat"), dealer="Cat")
    match.options = {**match.options, "starting_score": 5}
    match.save()
    record_hands(match, [])  # the stored scores follow the rules, as after an edit in the admin
    data = {"number": "1", "upcard": "hearts", "maker": "1"}
    html = shown(
        client_in.post(url("hand_check", match.pk), drawn(match, data), **HX).content.decode()
    )
    assert 'name="dropped"' not in html
    hidden = '<span class="visually-hidden">must play · </span>'
    assert f'Bob</b> <small>{hidden}<span class="tag">maker</span></small>' in html
    assert f'Ann</b> <small>{hidden}<span class="tag">at 5</span></small>' in html
    # A tap on a greyed name says why, in the words a Save would refuse it with.
    assert html.count('<details class="choice locked" data-seat=') == 3  # all three are at 5
    assert '<strong class="why">Bob made trump, so Bob can&#x27;t drop out.</strong>' in html
    words = "Ann is at 5, and at 5 or below a player can&#x27;t drop out."
    assert f'<strong class="why">{words}</strong>' in html
    refused = client_in.post(
        url("hand_create", match.pk), drawn(match, {**data, "dropped": ["Ann"], "t1": "5"})
    )
    assert f'<p class="error">{words}</p>' in shown(refused.content.decode())


@pytest.mark.parametrize("headers", [{}, HX])
def test_a_check_says_what_a_save_will_say_of_a_drop_the_rules_forbid(client_in, user, headers):
    # Ann is at 5 in three-widow: she can't drop out. Ticked out all the same (a page drawn
    # before her score fell, or any client), the check must not put her back in with no trick.
    three = {"names": ("Ann", "Bob", "Cat"), "dealer": "Cat", "starting_score": 5}
    match = make_match(user, "three-widow", **three)
    data = {"number": "1", "upcard": "hearts", "maker": "1", "trump": "hearts"}
    data |= {"dropped": ["Ann"], "t1": "3", "t2": "2"}
    words = "Ann is at 5, and at 5 or below a player can&#x27;t drop out."
    check = client_in.post(url("hand_check", match.pk), drawn(match, data), **headers)
    html = shown(check.content.decode())
    assert words in html and "<strong>Ann</strong> no trick" not in html
    assert 'class="preview"' not in html
    # Still ticked, and a tap can untick it.
    assert '<input type="checkbox" name="dropped" value="Ann" checked>' in html
    save = client_in.post(url("hand_create", match.pk), drawn(match, data), **headers)
    assert words in shown(save.content.decode())
    assert not Hand.objects.filter(match=match).exists()
    # Unticked, Ann's row is asked for; given, the check's preview is what is saved.
    data |= {"dropped": [], "t0": "0"}
    html = client_in.post(url("hand_check", match.pk), drawn(match, data), **headers)
    assert (
        '<strong>Ann</strong> <span class="reason">no trick </span><span class="up">+5</span>'
        in shown(html.content.decode())
    )
    client_in.post(url("hand_create", match.pk), drawn(match, data), **headers)
    assert Hand.objects.filter(match=match).count() == 1


def test_the_preview_shows_every_change(client_in, user):
    match = make_match(user)
    html = client_in.post(url("hand_check", match.pk), drawn(match, ORDERED_POST), **HX)
    html = shown(html.content.decode())
    ann = '<strong>Ann</strong> <span class="reason">no trick </span><span class="up">+5</span>'
    assert ann in html
    assert '<strong>Bob</strong> <span class="reason"></span><span class="down">−3</span>' in html
    assert '<strong>Cat</strong> <span class="reason">out</span>' in html


def checked_tricks(html: str) -> dict:
    return {f"t{seat}": n for seat, n in re.findall(r'name="t(\d)" value="(\d)" checked', html)}


@pytest.mark.parametrize("headers", [{}, HX])
def test_a_check_fills_in_the_last_players_tricks_and_a_lone_maker_gets_five(
    client_in, user, headers
):
    match = make_match(user)
    last = {k: v for k, v in ORDERED_POST.items() if k != "t3"}  # Dan left for the check
    html = client_in.post(url("hand_check", match.pk), drawn(match, last), **headers)
    html = shown(html.content.decode())
    assert checked_tricks(html) == {"t0": "0", "t1": "3", "t3": "2"} and "all 5 given" in html
    assert '<strong>Dan</strong> <span class="reason"></span><span class="down">−2</span>' in html
    lone = {**ORDERED_POST, "dropped": ["Ann", "Cat", "Dan"], "t0": "", "t1": "2", "t3": ""}
    html = client_in.post(url("hand_check", match.pk), drawn(match, lone), **headers)
    assert checked_tricks(shown(html.content.decode())) == {"t1": "5"}
    sweep = {**ORDERED_POST, "t0": "", "t1": "5", "t3": ""}  # the others took none
    html = client_in.post(url("hand_check", match.pk), drawn(match, sweep), **headers)
    assert checked_tricks(shown(html.content.decode())) == {"t0": "0", "t1": "5", "t3": "0"}


@pytest.mark.parametrize("headers", [{}, HX])
def test_a_row_the_check_filled_in_follows_the_others_until_it_is_tapped(client_in, user, headers):
    match = make_match(user)
    check = url("hand_check", match.pk)
    told = {k: v for k, v in ORDERED_POST.items() if k != "t0"}  # Bob 3, Dan 2: Ann took 0
    html = client_in.post(check, drawn(match, told), **headers).content.decode()
    assert checked_tricks(html) == {"t0": "0", "t1": "3", "t3": "2"}
    assert '<input type="hidden" name="t0_filled" value="0">' in html
    assert "t1_filled" not in html and "t3_filled" not in html
    # Dan took 1 after all: the page sends Ann's 0 back as filled in, and Ann takes the 1 left.
    sent = {**told, "t0": "0", "t0_filled": "0", "t3": "1"}
    html = client_in.post(check, drawn(match, sent), **headers).content.decode()
    assert checked_tricks(html) == {"t0": "1", "t1": "3", "t3": "1"}
    assert '<input type="hidden" name="t0_filled" value="1">' in html
    # Tapped, Ann's row is the player's: it stays as tapped, even one trick too many.
    tapped = {**sent, "t0": "2", "t0_filled": "1"}
    html = client_in.post(check, drawn(match, tapped), **headers).content.decode()
    assert checked_tricks(html) == {"t0": "2", "t1": "3", "t3": "1"}
    assert "1 trick too many" in html and "_filled" not in html
    # A Save fills in nothing, whatever the page says it filled in.
    blank = {**sent, "t0": ""}
    response = client_in.post(url("hand_create", match.pk), drawn(match, blank), **headers)
    assert "Tap how many tricks Ann took." in response.content.decode()
    assert not Hand.objects.filter(match=match).exists()


def test_too_many_tricks_given_is_said_before_asking_for_the_rest(client_in, user):
    match = make_match(user)
    data = drawn(match, {"number": "1", "upcard": "clubs", "t0": "4", "t1": "3"})
    html = client_in.post(url("hand_check", match.pk), data, **HX).content.decode()
    assert "That is 7 tricks already; a hand has 5." in html and "2 tricks too many" in html


def test_two_players_left_without_tricks_are_asked_for_theirs(client_in, user):
    match = make_match(user)
    data = {**ORDERED_POST, "t0": "", "t3": ""}
    html = shown(
        client_in.post(url("hand_check", match.pk), drawn(match, data), **HX).content.decode()
    )
    assert checked_tricks(html) == {"t1": "3"} and "2 of 5 left to give" in html
    assert '<p class="hint">Tap how many tricks Ann and Dan took.</p>' in html
    response = client_in.post(url("hand_create", match.pk), drawn(match, data))
    assert "Tap how many tricks Ann and Dan took." in shown(response.content.decode())
    assert not Hand.objects.filter(match=match).exists()


def test_a_check_forgets_answers_the_hand_no_longer_asks_for_and_a_save_refuses_them(
    client_in, user
):
    match = make_match(user)
    # Bob was tapped as maker and Cat as out; then the upcard turned out to be a club.
    club = {**ORDERED_POST, "upcard": "clubs", "t2": "0"}
    html = shown(
        client_in.post(url("hand_check", match.pk), drawn(match, club), **HX).content.decode()
    )
    assert '<p class="hint">' not in html and 'class="preview"' in html
    assert '<strong>Cat</strong> <span class="reason">no trick' in html
    html = client_in.post(url("hand_create", match.pk), drawn(match, club)).content.decode()
    assert "Nobody makes trump when a club is turned, so Bob can&#x27;t be the maker." in html
    assert not Hand.objects.filter(match=match).exists()


def test_without_javascript_a_drop_ticked_after_the_tricks_is_refused_naming_the_player(
    client_in, user
):
    """The steps of a player with JavaScript off: each Check redraws the page, and what the
    page shows is all the player has seen. Ticking Ann out after her trick was tapped, and
    leaving Cat empty, must not store Ann out and a trick for Cat that nobody entered."""
    match = make_match(user)
    check, save = url("hand_check", match.pk), url("hand_create", match.pk)
    page = client_in.post(check, drawn(match, {"number": "1", "upcard": "diamonds"}))
    assert "Who made trump?" in page.content.decode()
    dan = {"number": "1", "upcard": "diamonds", "maker": "3"}
    page = client_in.post(check, drawn(match, dan)).content.decode()
    assert page.count('class="trick-row"') == 4 and "5 of 5 left to give" in page
    # Tick Ann as dropped, then Ann 1, Dan 3, Bob 1, Cat left empty, Save.
    sent = {**dan, "trump": "diamonds", "dropped": ["Ann"], "t0": "1", "t3": "3", "t1": "1"}
    response = client_in.post(save, drawn(match, sent))
    html = response.content.decode()
    assert response.status_code == 200
    assert "Ann is listed twice, as dropped out and with tricks" in html
    assert not Hand.objects.filter(match=match).exists()
    # Untick Ann: her trick counts, and Cat, still empty, is asked for, not guessed.
    html = client_in.post(save, drawn(match, {**sent, "dropped": []})).content.decode()
    assert "Tap how many tricks Cat took." in html
    assert not Hand.objects.filter(match=match).exists()


@pytest.mark.parametrize(
    "change, message",
    [
        # The last row left empty: Save guesses nothing, even what a Check would fill in.
        ({"t3": ""}, "Tap how many tricks Dan took."),
        ({"t0": "", "t3": ""}, "Tap how many tricks Ann and Dan took."),
        # A dropped player with tricks, even none.
        ({"t2": "0"}, "Cat is listed twice, as dropped out and with tricks"),
        ({"dropped": ["Ann", "Cat"]}, "Ann is listed twice, as dropped out and with tricks"),
        (
            {"dropped": ["Ann", "Cat"], "t2": "1"},
            "Ann and Cat are listed twice, as dropped out and with tricks",
        ),
        # A lone maker with no tricks tapped is asked too.
        ({"dropped": ["Ann", "Cat", "Dan"], "t0": "", "t1": "", "t3": ""}, "Tap how many"),
        # Everybody passed and the hand is played with no trump: nobody drops out.
        ({"maker": "pass"}, "Nobody may drop out of a no-trump hand, so Cat must play."),
    ],
)
def test_a_save_stores_exactly_the_tricks_it_was_sent_or_nothing(client_in, user, change, message):
    match = make_match(user)
    for headers in ({}, HX):
        sent = drawn(match, {**ORDERED_POST, **change})
        response = client_in.post(url("hand_create", match.pk), sent, **headers)
        assert response.status_code == 200
        assert message in response.content.decode()
    assert not Hand.objects.filter(match=match).exists()


def test_a_redeal_saved_with_drops_or_tricks_is_refused(client_in, user):
    match = make_match(user, "dirty-clubs")
    redeal = {"number": "1", "upcard": "hearts", "maker": "pass"}
    for change in ({"dropped": ["Cat"]}, {"t0": "2"}):
        html = client_in.post(url("hand_create", match.pk), drawn(match, {**redeal, **change}))
        assert "Everybody passed and the cards are dealt again" in shown(html.content.decode())
    assert not Hand.objects.filter(match=match).exists()
    # A Check forgets them (the page no longer shows them), and what it shows is saved.
    html = client_in.post(url("hand_check", match.pk), drawn(match, {**redeal, "t0": "2"}))
    assert 'name="t0"' not in shown(html.content.decode())
    response = client_in.post(url("hand_create", match.pk), drawn(match, redeal))
    assert response.status_code == 302 and Hand.objects.filter(match=match).count() == 1


def test_the_next_question_is_the_hint_while_checking(client_in, user):
    match = make_match(user, "dirty-clubs")
    check = url("hand_check", match.pk)
    html = client_in.post(check, drawn(match, {"number": "1", "upcard": "hearts"}), **HX)
    assert "Who made trump? Tap their name, or All pass." in html.content.decode()
    bidless = {"number": "1", "upcard": "hearts", "maker": "1"}
    html = client_in.post(check, drawn(match, bidless), **HX).content.decode()
    assert "How many tricks did Bob bid?" in html
    assert re.findall(r'name="bid" value="(\d)"', html) == ["2", "3", "4", "5"]
    # A bid not shown (a page of another match's rules, a hand-made request): whose, and which.
    low = {**bidless, "trump": "spades", "bid": "1", "t1": "5"}
    html = client_in.post(url("hand_create", match.pk), drawn(match, low)).content.decode()
    assert "Bob&#x27;s bid is 2 to 5 tricks: tap one of those." in html
    assert not Hand.objects.filter(match=match).exists()


def test_a_refused_save_is_an_alert_that_can_take_the_focus(client_in, user):
    match = make_match(user)
    data = drawn(match, {**ORDERED_POST, "t1": "4"})
    html = client_in.post(url("hand_create", match.pk), data, **HX).content.decode()
    assert '<div id="refused" class="refused" role="alert" tabindex="-1">' in html
    assert "The tricks add up to 6; a hand always has 5." in html


def test_saving_a_hand_redirects_and_the_scoreboard_shows_it(client_in, user):
    match = make_match(user)
    response = client_in.post(url("hand_create", match.pk), drawn(match, ORDERED_POST))
    assert response.status_code == 302 and response["Location"] == match.get_absolute_url()
    state, _ = Match.objects.with_seats().get(pk=match.pk).replay()
    assert state.scores == {"Ann": 30, "Bob": 22, "Cat": 25, "Dan": 23}


def test_saving_with_htmx_returns_the_new_board(client_in, user):
    match = make_match(user)
    response = client_in.post(url("hand_create", match.pk), drawn(match, ORDERED_POST), **HX)
    html = response.content.decode()
    assert response.status_code == 200 and html.lstrip().startswith('<div id="board"')
    assert 'name="number" value="2"' in html
    assert 'Upcard <small class="dealer-line"><span class="dealer">Ann</span> deals</small>' in html


def test_a_double_tap_records_the_hand_once(client_in, user):
    match = make_match(user)
    for _ in range(3):
        assert (
            client_in.post(url("hand_create", match.pk), drawn(match, ORDERED_POST)).status_code
            == 302
        )
    assert Hand.objects.filter(match=match).count() == 1


@pytest.mark.parametrize(
    "change, message",
    [
        ({"dropped": ["Bob", "Cat"]}, "Bob made trump, so Bob can&#x27;t drop out."),
        ({"t1": "2"}, "The tricks add up to 4; a hand always has 5."),
        ({"t1": "9"}, "Bob&#x27;s tricks must be a whole number from 0 to 5."),
        ({"upcard": "clubs", "dropped": []}, "Nobody makes trump when a club is turned"),
        (
            {"upcard": ""},
            '<p class="prompt error" role="status">Tap the suit of the turned-up card.',
        ),
    ],
)
def test_an_invalid_hand_says_why_and_stores_nothing(client_in, user, change, message):
    match = make_match(user)
    for headers in ({}, HX):
        response = client_in.post(
            url("hand_create", match.pk), drawn(match, {**ORDERED_POST, **change}), **headers
        )
        assert response.status_code == 200
        html = response.content.decode()
        if message:
            assert message in html
    assert not Hand.objects.filter(match=match).exists()


def test_no_hand_after_the_end(client_in, user):
    sweep = GameHand("hearts", "hearts", "Bob", None, ("Ann", "Cat", "Dan"), {"Bob": 5})
    match = make_match(user, hands=[sweep])
    html = client_in.get(match.get_absolute_url()).content.decode()
    assert "Bob" in html and "wins" in html and "Took all five tricks." in html
    assert "Save hand" not in html and "Edit hand" not in html and "and play on" in html
    assert client_in.get(url("hand_edit", match.pk, 1))["Location"] == match.get_absolute_url()
    client_in.post(url("hand_create", match.pk), drawn(match, {**ORDERED_POST, "number": "2"}))
    assert Hand.objects.filter(match=match).count() == 1


def test_a_won_match_is_asked_after_less_often_and_an_undo_brings_back_the_quick_poll(
    client_in, user
):
    sweep = GameHand("hearts", "hearts", "Bob", None, ("Ann", "Cat", "Dan"), {"Bob": 5})
    match = make_match(user, hands=[CLUB, sweep])
    for page in (match.get_absolute_url(), match.get_share_url()):
        assert "every 10s, poll-now" in client_in.get(page).content.decode()
    undo = {"number": "2", "version": str(match.version)}
    board = client_in.post(url("hand_undo", match.pk), undo, **HX).content.decode()
    assert 'id="hand-form"' in board and "every 2s, poll-now" in board
    assert "every 2s, poll-now" in client_in.get(match.get_share_url()).content.decode()


def test_a_score_below_zero_has_a_real_minus_sign_wherever_it_shows(client_in, user):
    match = make_match(user, starting_score=1, hands=[CLUB])  # Ann takes 2 from 1
    board = client_in.get(match.get_absolute_url()).content.decode()
    assert '<span class="points">−1</span>' in board
    assert '<span class="cell-score">−1</span>' in board
    assert "Ann −1" in client_in.get(url("home")).content.decode()
    assert '<span class="points">−1</span>' in client_in.get(match.get_share_url()).content.decode()
    assert "<td>−1</td>" in client_in.get(url("match_race", match.pk)).content.decode()


# --- Fixing mistakes ----------------------------------------------------------------------------


def test_undo_removes_the_last_hand_and_a_resent_undo_nothing_more(client_in, user):
    club = CLUB
    match = make_match(user, hands=[club, club])
    undo = drawn(match, {"number": "2"})
    assert client_in.post(url("hand_undo", match.pk), undo).status_code == 302
    assert list(Hand.objects.filter(match=match).values_list("number", flat=True)) == [1]
    # A double tap, or the browser sending the same request again: hand 1 stays.
    assert client_in.post(url("hand_undo", match.pk), undo).status_code == 302
    assert list(Hand.objects.filter(match=match).values_list("number", flat=True)) == [1]


def test_editing_a_hand_rescores_every_later_hand(client_in, user):
    club = CLUB
    match = make_match(user, hands=[club, club])
    page = client_in.get(url("hand_edit", match.pk, 1))
    assert page.status_code == 200
    assertInHTML(
        '<input type="radio" name="upcard" id="id_upcard_0" value="clubs" checked required>',
        page.content.decode(),
    )
    data = {"number": "1", "upcard": "clubs", "t0": "1", "t1": "2", "t2": "1", "t3": "1"}
    response = client_in.post(url("hand_edit", match.pk, 1), drawn(match, data))
    assert response.status_code == 302
    state, _ = Match.objects.with_seats().get(pk=match.pk).replay()
    assert state.scores == {"Ann": 22, "Bob": 22, "Cat": 23, "Dan": 23}
    board = client_in.get(response["Location"]).content.decode()
    assert "Hand 1 changed; every later hand re-scored." in board


def test_an_edit_that_breaks_a_later_hand_is_refused_naming_it(client_in, user):
    match = make_match(user, "three-widow", names=("Ann", "Bob", "Cat"), dealer="Cat", hands=[])
    hands = [GameHand("clubs", tricks={"Ann": 3, "Bob": 1, "Cat": 1})] * 3  # Ann 15 -> 6
    drop = GameHand("hearts", "hearts", "Bob", None, ("Ann",), {"Bob": 3, "Cat": 2})
    record_hands(match, [*hands, drop])
    # Ann took 4 in hand 1 instead: she is at 5 before hand 4 and may no longer drop.
    data = {"number": "1", "upcard": "clubs", "t0": "4", "t1": "0", "t2": "1"}
    response = client_in.post(url("hand_edit", match.pk, 1), drawn(match, data))
    html = response.content.decode()
    assert response.status_code == 200
    assert (
        "That would break hand 4: Ann is at 5, and at 5 or below a player can&#x27;t drop out."
        in html
    )
    assert Match.objects.with_seats().get(pk=match.pk).game_hands()[0] == hands[0]


# --- End, rematch, list, import, export ----------------------------------------------------------


def test_the_end_screen_reads_out_who_pays_whom(client_in, user):
    match = make_match(user, "spades-21", hands=[])
    state = match.start()
    hands = []
    while not state.finished:  # Ann takes every trick of every hand until she reaches zero
        hand = GameHand(
            "hearts", "hearts", "Ann", None, (), {"Ann": 5, "Bob": 0, "Cat": 0, "Dan": 0}
        )
        state, _ = rules.play(state, hand)
        hands.append(hand)
    record_hands(match, hands)
    html = client_in.get(match.get_absolute_url()).content.decode()
    assert "Ann" in html and "wins" in html and "Reached zero." in html
    assert (
        '<strong>Bob</strong> pays <strong>Ann</strong> <span class="amount">$5.60</span>' in html
    )


def test_rematch_keeps_players_rules_and_stakes_and_passes_the_deal(client_in, user):
    sweep = GameHand("hearts", "hearts", "Bob", None, ("Ann", "Cat", "Dan"), {"Bob": 5})
    old = make_match(user, hands=[sweep], stakes=rules.Stakes(per_game=50), ties="share")
    response = client_in.post(url("match_rematch", old.pk))
    new = Match.objects.with_seats().exclude(pk=old.pk).get()
    assert response["Location"] == new.get_absolute_url()
    assert new.names == old.names and new.ruleset() == old.ruleset()
    assert new.stakes() == old.stakes() and new.start().dealer == "Ann"


def test_the_new_match_form_creates_a_match_with_house_rules(client_in, user):
    data = {
        "preset": "three-15",
        "seat_0": "Ann",
        "seat_1": "Bob",
        "seat_2": "Cat",
        "seat_3": "",
        "dealer": "1",
        "rule_starting_score": "11",
        "per_point": "0.25",
        "create": "1",
    }
    response = client_in.post(url("match_create"), data)
    match = Match.objects.with_seats().get()
    assert response["Location"] == match.get_absolute_url()
    assert match.ruleset().starting_score == 11 and rules.ruleset_overrides(
        match.preset, match.ruleset()
    ) == {"starting_score": 11}
    assert match.stakes() == rules.Stakes(per_point=25) and match.start().dealer == "Bob"
    assert (match.per_game_cents, match.per_point_cents, match.per_set_cents) == (0, 25, 0)


@pytest.mark.parametrize(
    "change, message",
    [
        ({"seat_3": ""}, "These rules are for 4 players, not 3."),
        ({"seat_3": "Ann"}, "Ann is seated twice"),
        ({"seat_3": " ann "}, "Ann and ann are one name (capitals and spaces don't count)"),
        ({"rule_maker_needs": "7"}, "The option maker_needs must be a number from 1 to 5."),
        ({"seat_3": "", "dealer": "3"}, "Pick who deals first: a seat with a player in it."),
        (dict.fromkeys(["seat_0", "seat_1", "seat_2", "seat_3"], ""), "Type the players' names"),
        ({"per_point": "0.105"}, "Enter an amount such as 1.50: no sign, at most two decimal"),
        ({"per_game": "-1"}, "Enter an amount such as 1.50: no sign, at most two decimal"),
        ({"per_set": "1000000"}, "Stakes must be under 1,000,000."),
    ],
)
def test_a_bad_new_match_says_why(client_in, change, message):
    data = {**NEW_MATCH, "create": "1", **change}
    response = client_in.post(url("match_create"), data)
    assert response.status_code == 200 and message in response.content.decode().replace(
        "&#x27;", "'"
    )
    assert not Match.objects.exists()


def test_a_seat_refused_stays_among_the_first_dealers_to_be_put_right(client_in):
    long = "O'Brien " * 6  # past the longest name
    data = {**NEW_MATCH, "create": "1", "seat_3": long}
    page = client_in.post(url("match_create"), data).content.decode()
    assert "Seat 4: Ensure this value has at most 40 characters" in page
    tile = re.search(
        r'<label class="choice"( hidden)?><input type="radio" name="dealer" value="3"', page
    )
    assert tile and not tile.group(1)
    assert not Match.objects.exists()


def test_a_stake_typed_without_its_zero_is_taken(client_in):
    data = {**NEW_MATCH, "create": "1", "per_game": ".5", "per_point": " .10"}
    assert client_in.post(url("match_create"), data).status_code == 302
    assert Match.objects.get().stakes() == rules.Stakes(per_game=50, per_point=10)


def test_the_form_takes_every_stake_an_import_takes_and_no_more(client_in, user):
    top = rules.format_money(rules.MAX_STAKE_CENTS)  # 999999.99
    data = {**NEW_MATCH, "create": "1", "per_game": top}
    assert client_in.post(url("match_create"), data).status_code == 302
    assert Match.objects.get().stakes() == rules.Stakes(per_game=99_999_999)
    # Standard rules: a loser could owe a game and 5,025 points at most: 25.00 + 199.00 × 5,025
    # is the most a loser may owe (settings.MAX_LOSS_CENTS), and a cent a point more is refused.
    data = {**NEW_MATCH, "create": "1", "per_game": "25.00", "per_point": "199.00"}
    assert client_in.post(url("match_create"), data).status_code == 302
    page = client_in.post(url("match_create"), {**data, "per_point": "199.01"}).content.decode()
    assert (
        "At these stakes one loser could owe up to 1,000,050.25 in a match (a match of 1,000 "
        "hands under these rules can reach 5,025 points and 1,000 hands fallen short); the most "
        "one loser may owe in a match is 1,000,000. Lower the stakes."
    ) in page
    assert Match.objects.count() == 2
    over = rules.Stakes(per_point=rules.MAX_STAKE_CENTS + 1)
    with pytest.raises(rules.RuleError, match=re.escape(rules.STAKE_TOO_BIG)):
        make_match(user, stakes=over)


def test_deal_for_the_first_jack_picks_the_seat_that_got_it(client_in):
    data = {**NEW_MATCH, "jack": "1"}
    html = client_in.post(url("match_create"), data, **HX).content.decode()
    assert "got the first Jack and deals first." in html
    cards = re.findall(r'<li class="card ([^"]*)"', html)
    assert cards, "no card was dealt"
    assert ["jack" in c.split() for c in cards] == [False] * (len(cards) - 1) + [True]
    # Each card and then the result come in turn, by class (no inline style under the CSP).
    assert [c.split()[-1] for c in cards] == [f"at-{i}" for i in range(len(cards))]
    assert f'class="note jack-result at-{len(cards)}"' in html


def seat_input(seat: int, name: str) -> str:
    return (
        f'<input type="text" name="seat_{seat}" id="id_seat_{seat}" value="{name}"'
        ' list="saved-players" autocomplete="off" autocapitalize="words" maxlength="40">'
    )


def dealer_tile(seat: int, html: str) -> str:
    """The name on the first-dealer tile of a seat."""
    return re.search(rf'id="id_dealer_{seat}"[^>]*><span>([^<]*)</span>', html).group(1)


def test_a_saved_player_is_seated_with_one_tap(client_in, user):
    Player.objects.create(group=Group.home(user), name="Zoe")
    data = {"preset": "standard", "seat_0": "Ann", "add": "Zoe"}
    html = client_in.post(url("match_create"), data, **HX).content.decode()
    assertInHTML(seat_input(1, "Zoe"), html)
    assert dealer_tile(1, html) == "Zoe"  # the first-dealer tile of her seat says her name


def test_a_name_typed_in_other_capitals_is_the_saved_player_and_not_offered_again(client_in, user):
    make_match(user)
    data = {**NEW_MATCH, "seat_0": "ANN", "seat_1": "bob", "seat_3": "Zoe", "dealer": "0"}
    html = client_in.post(url("match_create"), data, **HX).content.decode()
    saved = re.search(r'<datalist id="saved-players">(.*?)</datalist>', html, re.S).group(1)
    assert 'value="Dan"' in saved and 'value="Ann"' not in saved and 'value="Bob"' not in saved
    client_in.post(url("match_create"), {**data, "create": "1"})
    match = Match.objects.with_seats().latest("pk")
    assert match.names == ("Ann", "Bob", "Cat", "Zoe") and match.start().dealer == "Ann"
    assert sorted(Player.objects.values_list("name", flat=True)) == [
        "Ann",
        "Bob",
        "Cat",
        "Dan",
        "Zoe",
    ]


def test_past_matches_are_paginated_and_filtered_by_player(client_in, user):
    for i in range(23):
        make_match(user, names=("Ann", "Bob", "Cat", f"P{i}"), dealer="Ann")
    page1 = client_in.get(url("match_list")).content.decode()
    assert "Page 1 of 2" in page1 and "P22" in page1 and "P0 " not in page1
    zed = Player.objects.get(name="P3")
    filtered = client_in.get(url("match_list") + f"?player={zed.pk}").content.decode()
    assert "P3 25" in filtered and "P4 25" not in filtered


def test_export_downloads_the_match_file(client_in, user):
    match = make_match(user, hands=[CLUB])
    response = client_in.get(url("match_export", match.pk))
    assert "attachment" in response["Content-Disposition"]
    assert json.loads(response.content)["hands"] == [CLUB_FILE]


def test_import_upload_stores_a_match_or_nothing(client_in, user):
    from django.core.files.uploadedfile import SimpleUploadedFile

    good = SimpleUploadedFile("m.json", json.dumps(EXAMPLE).encode())
    response = client_in.post(url("match_import"), {"file": good})
    match = Match.objects.get()
    assert response["Location"] == match.get_absolute_url() and match.finished
    bad = dict(EXAMPLE, hands=[{**EXAMPLE["hands"][0], "maker": "Zed"}])
    upload = SimpleUploadedFile("m.json", json.dumps(bad).encode())
    page = client_in.post(url("match_import"), {"file": upload}, follow=True).content.decode()
    assert "Nothing was imported. Hand 1: Zed is not at this table." in page
    assert Match.objects.count() == 1


def upload(name, doc):
    from django.core.files.uploadedfile import SimpleUploadedFile

    content = doc if isinstance(doc, bytes) else json.dumps(doc).encode()
    return SimpleUploadedFile(name, content, content_type="application/json")


PLAYED = {**EXAMPLE, "played_at": "2026-11-28T19:30:00-06:00"}


def test_a_file_naming_a_saved_player_in_other_capitals_imports_as_that_player(client_in, user):
    make_match(user)
    lower = json.loads(json.dumps(PLAYED).replace('"Ann"', '"ann"').replace('"Cat"', '" CAT "'))
    client_in.post(url("match_import"), {"file": upload("lower.json", lower)})
    match = Match.objects.with_seats().latest("pk")
    assert match.names == ("Ann", "Bob", "Cat", "Dan") and match.finished
    assert Player.objects.count() == 4
    assert_results_are_a_replay(match)
    # The same file again, or in the first spelling, is the match already here.
    for doc in (lower, PLAYED):
        page = client_in.post(url("match_import"), {"file": upload("m.json", doc)}, follow=True)
        assert "already imported" in page.content.decode()
    assert Match.objects.count() == 2


def test_several_files_import_at_once_and_one_already_here_is_not_stored_twice(client_in, user):
    client_in.post(url("match_import"), {"file": upload("old.json", PLAYED)})
    other = dict(PLAYED, players=["Ann", "Bob", "Eve", "Dan"], hands=[])
    bad = dict(PLAYED, hands=[{**PLAYED["hands"][0], "maker": "Zed"}])
    files = [
        upload("again.json", PLAYED),
        upload("new.json", other),
        upload("bad.json", bad),
        upload("photo.json", b"\xff\xd8\xff"),
    ]
    response = client_in.post(url("match_import"), {"file": files}, follow=True)
    page = response.content.decode()
    assert response.redirect_chain[-1][0] == url("match_list")
    assert "again.json: already imported (Standard — Ann, Bob, Cat, Dan, 28 Nov 2026)." in page
    assert "bad.json: Nothing was imported. Hand 1: Zed is not at this table." in page
    assert "photo.json: Nothing was imported. That is not a match file (it is not text)." in page
    assert "Match imported." in page
    assert Match.objects.count() == 2 and Match.objects.filter(seats__player__name="Eve").exists()


def test_files_of_one_evening_uploaded_in_any_order_make_one_night(client_in, user):
    evening = [
        dict(PLAYED, played_at=at)
        for at in (
            "2026-11-29T00:40:00-06:00",
            "2026-11-28T19:30:00-06:00",
            "2026-11-28T22:05:00-06:00",
        )
    ]
    week_later = dict(PLAYED, played_at="2026-12-05T19:30:00-06:00")
    files = [upload(f"m{i}.json", doc) for i, doc in enumerate([*evening, week_later])]
    client_in.post(url("match_import"), {"file": files})
    by_start = list(Match.objects.order_by("played_at").values_list("night", flat=True))
    assert by_start[0] == by_start[1] == by_start[2] != by_start[3]
    night = Night.objects.get(pk=by_start[0])
    html = client_in.get(night.get_absolute_url()).content.decode()
    assert "The night of Saturday 28 November 2026" in html and "3 matches" in html
    assert "+$29.40" in html  # Cat won each: Ann pays $3.70, Bob $3.00, Dan $3.10, thrice


def test_undated_files_imported_at_once_are_each_a_night_of_their_own(
    client_in, user, django_user_model
):
    """A restore of old files that don't say when they were played: never one night of them
    all, nor part of tonight's, so the home page and a night's page cost the same at 2 or 20."""

    def restore(owner, count: int) -> list[int]:
        tonight = make_match(owner, hands=[CLUB])
        client_in.force_login(owner)
        backup = zipped(*((f"old-{i}.json", EXAMPLE) for i in range(count)))
        client_in.post(url("match_import"), {"file": upload("old.zip", backup)})
        old = Match.objects.filter(group=tonight.group).exclude(pk=tonight.pk)
        assert old.count() == count and all(m.finished for m in old)
        assert len({m.night_id for m in old} | {tonight.night_id}) == count + 1
        counts = []
        for path in (url("home"), Night.latest(tonight.group).get_absolute_url()):
            with CaptureQueriesContext(connection) as ctx:
                assert client_in.get(path).status_code == 200
            counts.append(len(ctx.captured_queries))
        return counts

    assert restore(user, 2) == restore(django_user_model.objects.create_user("zoe"), 20)


def test_importing_one_file_again_leads_to_the_match_already_here(client_in, user):
    client_in.post(url("match_import"), {"file": upload("m.json", PLAYED)})
    response = client_in.post(url("match_import"), {"file": upload("m.json", PLAYED)})
    assert response["Location"] == Match.objects.get().get_absolute_url()


def test_an_oversized_file_is_refused_unread(client_in):
    padded = json.dumps(PLAYED).encode() + b" " * 1_000_000
    page = client_in.post(
        url("match_import"), {"file": upload("big.json", padded)}, follow=True
    ).content.decode()
    assert (
        "big.json: Nothing was imported. That file is too large: a match file is at most 1 MB."
        in page
    )
    assert not Match.objects.exists()


def test_the_import_form_takes_several_files_and_the_list_offers_every_match_as_a_zip(
    client_in, user
):
    assert "Download all your matches" not in client_in.get(url("match_list")).content.decode()
    make_match(user)
    page = client_in.get(url("match_list")).content.decode()
    assert re.search(r'<input type="file"[^>]* name="file"[^>]* multiple', page)
    assert f'href="{url("match_export_all")}"' in page


def test_the_zip_holds_one_match_file_per_match_of_the_user_alone(client_in, user, other_user):
    import io
    import zipfile

    from games import matchfile

    mine = [
        make_match(
            user,
            hands=[GameHand("clubs", tricks={"Ann": 1, "Bob": 1, "Cat": 1, "Dan": 2})],
        ),
        make_match(user, "spades-21"),
    ]
    make_match(other_user)
    response = client_in.get(url("match_export_all"))
    assert response["Content-Type"] == "application/zip"
    assert "attachment" in response["Content-Disposition"]
    archive = zipfile.ZipFile(io.BytesIO(response.content))
    assert sorted(archive.namelist()) == sorted(m.file_name() for m in mine)
    for match in mine:
        stored = Match.objects.with_seats().get(pk=match.pk).to_file()
        assert matchfile.parse(archive.read(match.file_name()).decode()).same_as(stored)


def zipped(*members, method=None) -> bytes:
    """A zip holding (name, bytes or a match document) members."""
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", method or zipfile.ZIP_DEFLATED) as archive:
        for name, content in members:
            data = content if isinstance(content, bytes) else json.dumps(content).encode()
            archive.writestr(name, data)
    return buffer.getvalue()


def test_the_backup_zip_imports_back_and_again_stores_nothing_twice(
    client, client_in, user, other_user
):
    sweep = GameHand("hearts", "hearts", "Bob", None, ("Ann", "Cat", "Dan"), {"Bob": 5})
    mine = [make_match(user, hands=[CLUB, sweep]), make_match(user, "spades-21")]
    mine += [make_match(user, names=("Eve", "Fay", "Gus", "Hal"), dealer="Eve") for _ in "1234"]
    backup = client_in.get(url("match_export_all")).content
    # On another account, everything comes back: the same matches, finished or not.
    client.force_login(other_user)
    page = client.post(url("match_import"), {"file": upload("backup.zip", backup)}, follow=True)
    assert "6 matches imported." in page.content.decode()
    theirs = Match.objects.filter(group__home_of=other_user).with_seats()
    assert len(theirs) == 6
    assert all(any(m.to_file().same_as(o.to_file()) for m in theirs) for o in mine)
    # Imported again, where it came from: nothing is stored twice, and one line says so.
    page = client_in.post(url("match_import"), {"file": upload("backup.zip", backup)}, follow=True)
    html = page.content.decode()
    assert "6 matches were already imported; none is stored twice." in html
    assert Match.objects.filter(group__home_of=user).count() == 6
    assert "matches imported" not in html and "Match imported" not in html


def test_a_backup_larger_than_one_import_comes_back_over_several(client_in, user, settings):
    settings.MAX_IMPORT_HANDS = 5  # each file holds 4 hands
    days = ("2026-11-01", "2026-11-08", "2026-11-15")
    docs = [dict(PLAYED, played_at=f"{day}T19:30:00-06:00") for day in days]
    backup = zipped(*((f"{day}.json", doc) for day, doc in zip(days, docs, strict=True)))

    def restore() -> str:
        page = client_in.post(url("match_import"), {"file": upload("b.zip", backup)}, follow=True)
        return page.content.decode()

    html = restore()
    assert "Match imported." in html and Match.objects.count() == 1
    assert (
        "b.zip: 2 of its files, from 2026-11-08.json on, were not imported: one import takes at "
        "most 5 hands. Import it again for the next ones" in html
    )
    html = restore()  # the first is here already: it costs nothing, and the second comes
    assert "b.zip/2026-11-01.json: already imported" in html and Match.objects.count() == 2
    assert "b.zip/2026-11-15.json: Nothing was imported. One import takes at most 5 hands" in html
    restore()
    assert Match.objects.count() == 3


def test_an_undated_backup_larger_than_one_import_says_to_import_the_rest_on_their_own(
    client_in, user, settings
):
    settings.MAX_IMPORT_HANDS = 5  # each file holds 4 hands, and none says when it was played
    backup = zipped(*((f"old-{i}.json", EXAMPLE) for i in range(3)))
    page = client_in.post(url("match_import"), {"file": upload("b.zip", backup)}, follow=True)
    html = page.content.decode().replace("&#x27;", "'")
    assert Match.objects.count() == 1
    assert (
        "b.zip: 2 of its files, from old-1.json on, were not imported: one import takes at most "
        "5 hands. Its files don't say when they were played, so importing it again would store "
        "the first ones twice: import those from old-1.json on in a zip of their own." in html
    )


def test_a_zip_with_a_bad_file_imports_the_others_and_names_the_bad_one(client_in, user):
    bad = {**PLAYED, "players": ["Ann", "Bob", "Cat"]}
    backup = zipped(("good.json", PLAYED), ("bad.json", bad), ("notes.txt", b"\xff\xfe"))
    page = client_in.post(url("match_import"), {"file": upload("b.zip", backup)}, follow=True)
    html = page.content.decode()
    assert "b.zip/bad.json: Nothing was imported. These rules are for 4 players, not 3." in html
    assert (
        "b.zip/notes.txt: Nothing was imported. That is not a match file (it is not text)." in html
    )
    assert Match.objects.count() == 1


@pytest.mark.parametrize(
    "members, limits, message",
    [
        (
            [(f"{i}.json", PLAYED) for i in range(3)],
            {"MAX_ZIP_FILES": 2},
            "That zip holds 3 files; a zip to import holds at most 2 match files.",
        ),
        # A zip bomb: a few kilobytes that would unpack to more than a match file can be.
        ([("bomb.json", b" " * 2_000_000)], {}, "bomb.json in that zip is too large: a match file"),
        (
            [(f"{i}.json", b" " * 600_000) for i in range(4)],
            {"MAX_ZIP_SIZE": 2_000_000},
            "That zip unpacks to 2.4 MB; a zip to import unpacks to at most 2 MB.",
        ),
        ([("backup/a.json", PLAYED)], {}, "That zip keeps backup/a.json in a folder"),
        ([("../a.json", PLAYED)], {}, "That zip keeps ../a.json in a folder"),
    ],
)
def test_a_zip_beyond_the_limits_is_refused_in_words_before_it_is_unpacked(
    client_in, settings, monkeypatch, members, limits, message
):
    import zipfile

    for name, value in limits.items():
        setattr(settings, name, value)
    backup = zipped(*members)
    assert len(backup) < 100_000
    unpacked = []
    monkeypatch.setattr(zipfile.ZipFile, "open", lambda *a, **k: unpacked.append(a))
    page = client_in.post(url("match_import"), {"file": upload("b.zip", backup)}, follow=True)
    assert f"b.zip: Nothing was imported. {message}" in page.content.decode()
    assert unpacked == [] and not Match.objects.exists()


@pytest.mark.parametrize(
    "content, message",
    [
        (zipped(("a.json", PLAYED))[:-30], "That zip can&#x27;t be unpacked: it is damaged"),
        (b"PK\x03\x04" + b"\x00" * 200, "That zip can&#x27;t be unpacked"),
        (zipped(("a.json", PLAYED)) + b" " * 2_000_000, "That zip is too large"),
    ],
)
def test_a_damaged_or_oversized_zip_is_refused_in_words(client_in, settings, content, message):
    settings.MAX_ZIP_SIZE = 1_500_000
    page = client_in.post(url("match_import"), {"file": upload("b.zip", content)}, follow=True)
    assert f"b.zip: Nothing was imported. {message}" in page.content.decode()
    assert not Match.objects.exists()


def test_the_zip_needs_a_login(client):
    response = client.get(url("match_export_all"))
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_the_scoreboard_takes_the_same_queries_with_3_hands_and_with_60(client_in, user):
    def queries(n):
        match = make_match(user, starting_score=1000)
        club = CLUB
        record_hands(match, [club] * n)
        with CaptureQueriesContext(connection) as ctx:
            assert client_in.get(match.get_absolute_url()).status_code == 200
        return len(ctx.captured_queries)

    assert queries(3) == queries(60)


def inline_rows(prefix: str, rows: list[dict]) -> dict:
    """The POST data of an admin inline holding `rows`: its management form and each field."""
    data = {
        f"{prefix}-TOTAL_FORMS": str(len(rows)),
        f"{prefix}-INITIAL_FORMS": str(len(rows)),
        f"{prefix}-MIN_NUM_FORMS": "0",
        f"{prefix}-MAX_NUM_FORMS": "1000",
    }
    for i, row in enumerate(rows):
        data |= {f"{prefix}-{i}-{key}": value for key, value in row.items()}
    return data


def test_the_admin_adds_no_second_spelling_of_a_player(client, django_user_model, user):
    client.force_login(django_user_model.objects.create_superuser("boss", password="x-y-z-12"))
    make_match(user)
    add = reverse("admin:games_player_add")
    group = Group.of(user)
    page = client.post(add, {"group": group.pk, "name": "ANN "}).content.decode()
    assert "There is already a player called Ann." in page
    assert client.post(add, {"group": group.pk, "name": "Anne"}).status_code == 302
    assert Player.objects.filter(group=group).count() == 5


def test_the_admin_shows_a_result_with_its_match_and_player_before_its_counts(
    client, django_user_model, user
):
    client.force_login(django_user_model.objects.create_superuser("boss", password="x-y-z-12"))
    result = make_match(user, hands=[CLUB]).results.first()
    page = client.get(reverse("admin:games_result_change", args=[result.pk])).content.decode()
    assert page.index("Match:") < page.index("Player:") < page.index("Dealt in:")
    assert page.index("Sweeps:") < page.index("Points:")


def test_admin_edits_of_a_hand_go_through_the_rules(client, django_user_model, user):
    admin = django_user_model.objects.create_superuser("boss", password=PASSWORD)
    client.force_login(admin)
    match = make_match(user, hands=[CLUB])
    hand = Hand.objects.get(match=match)
    plays = list(hand.plays.order_by("player__name"))
    data = {
        "match": match.pk,
        "number": 1,
        "upcard": "clubs",
        "trump": "",
        "maker": "",
        "bid": "",
        **inline_rows(
            "plays",
            [
                {"id": p.pk, "hand": hand.pk, "player": p.player_id, "tricks": p.tricks}
                for p in plays
            ],
        ),
    }
    data["plays-0-tricks"] = 3  # Ann: now 6 tricks in all
    page = client.post(reverse("admin:games_hand_change", args=[hand.pk]), data)
    assert page.status_code == 200
    assert "Hand 1: The tricks add up to 6; a hand always has 5." in page.content.decode()
    assert Hand.objects.get(pk=hand.pk).to_rules().tricks["Ann"] == 2
    data["plays-0-tricks"] = 1
    data["plays-1-tricks"] = 2  # Bob 2, Ann 1: a real correction
    assert client.post(reverse("admin:games_hand_change", args=[hand.pk]), data).status_code == 302
    assert Hand.objects.get(pk=hand.pk).to_rules().tricks == {
        "Ann": 1,
        "Bob": 2,
        "Cat": 1,
        "Dan": 1,
    }
    for model in ("player", "match", "seat", "hand", "play", "night", "result"):
        assert client.get(reverse(f"admin:games_{model}_changelist")).status_code == 200
    # One player's part, edited on its own, is checked with the rest of its hand.
    ann = hand.plays.get(player__name="Ann")
    page = client.post(
        reverse("admin:games_play_change", args=[ann.pk]),
        {"hand": hand.pk, "player": ann.player_id, "dropped": "on", "tricks": ""},
    )
    assert "Nobody may drop out when a club is turned, so Ann must play." in page.content.decode()
    assert not hand.plays.get(player__name="Ann").dropped


def test_the_admin_deletes_a_match_whole_and_never_a_hand_a_play_or_a_seat(
    client, django_user_model, user
):
    admin = django_user_model.objects.create_superuser("boss", password=PASSWORD)
    client.force_login(admin)
    match = make_match(user, hands=[CLUB])
    hand = Hand.objects.get(match=match)
    for model, pk in (
        ("hand", hand.pk),
        ("play", hand.plays.first().pk),
        ("seat", match.seats.first().pk),
    ):
        assert client.get(reverse(f"admin:games_{model}_delete", args=[pk])).status_code == 403
    assert Hand.objects.filter(match=match).count() == 1
    page = client.post(reverse("admin:games_match_delete", args=[match.pk]), {"post": "yes"})
    assert page.status_code == 302
    assert not Match.objects.filter(pk=match.pk).exists()
    assert not Hand.objects.filter(pk=hand.pk).exists()


def test_the_admin_never_adds_renumbers_or_moves_a_hand_or_a_play(client, django_user_model, user):
    client.force_login(django_user_model.objects.create_superuser("boss", password="x-42-y-42"))
    club = CLUB
    match, other = make_match(user, hands=[club, club]), make_match(user, hands=[club])
    hand = Hand.objects.get(match=match, number=1)
    for model in ("hand", "play"):
        assert client.get(reverse(f"admin:games_{model}_add")).status_code == 403
    data = {
        "match": other.pk,
        "number": 7,
        "upcard": "clubs",
        **inline_rows(
            "plays",
            [
                {"id": p.pk, "hand": hand.pk, "player": p.player_id, "tricks": p.tricks}
                for p in hand.plays.all()
            ],
        ),
    }
    assert client.post(reverse("admin:games_hand_change", args=[hand.pk]), data).status_code == 302
    ann = hand.plays.get(player__name="Ann")
    moved = {"hand": other.hands.get().pk, "player": ann.player_id, "tricks": 2}
    assert client.post(reverse("admin:games_play_change", args=[ann.pk]), moved).status_code == 302
    assert Hand.objects.filter(match=match).count() == 2
    assert Hand.objects.get(pk=hand.pk).number == 1
    assert Play.objects.get(pk=ann.pk).hand_id == hand.pk
    assert_results_are_a_replay(match)


def test_a_players_record_counts_wins_and_money(client_in, user):
    sweep = GameHand("hearts", "hearts", "Bob", None, ("Ann", "Cat", "Dan"), {"Bob": 5})
    make_match(user, hands=[sweep], stakes=rules.Stakes(per_game=100))
    make_match(user, hands=[sweep], stakes=rules.Stakes(per_game=50))
    make_match(user)
    bob = Player.objects.get(name="Bob")
    page = client_in.get(url("match_list") + f"?player={bob.pk}").content.decode()
    assert "Bob's record" in page
    assert "<strong>2</strong> wins in 2 finished matches (3 played in all)" in page
    assert 'net <span class="gain">+$4.50</span>' in page
    ann = Player.objects.get(name="Ann")
    page = client_in.get(url("match_list") + f"?player={ann.pk}").content.decode()
    assert "<strong>0</strong> wins in 2 finished matches" in page
    assert 'net <span class="loss">−$1.50</span>' in page


def test_house_rules_can_switch_off_what_a_preset_switches_on(client_in):
    data = {
        **NEW_MATCH,
        "preset": "spades-21",
        "seat_1": "",
        "dealer": "3",
        "create": "1",
        "rule_auto_trump_dealer_needs": "null",
        "rule_no_drop_at_or_below": "4",
    }
    client_in.post(url("match_create"), data)
    match = Match.objects.with_seats().get()
    assert match.names == ("Ann", "Cat", "Dan") and match.start().dealer == "Dan"
    assert rules.ruleset_overrides(match.preset, match.ruleset()) == {
        "auto_trump_dealer_needs": None,
        "no_drop_at_or_below": 4,
    }


def test_the_scoreboard_says_which_rules_are_played(client_in, user):
    match = make_match(user, "three-widow", names=("Ann", "Bob", "Cat"), dealer="Ann", ties="share")
    html = client_in.get(match.get_absolute_url()).content.decode()
    assert "The rules (with house rules)" in html and "3 players from 15 with a widow." in html
    assert "<li>Several at or below 0: All at or below 0 share</li>" in html


def test_the_house_rules_show_each_presets_own_values(client_in):
    html = client_in.post(url("match_create"), {"preset": "three-15"}, **HX).content.decode()
    assert "Preset: Dealer makes it, needs 2" in html and "Preset: 5 or below must play" in html
    assert 'placeholder="15"' in html


def test_a_table_can_choose_that_a_maker_who_falls_short_just_counts_tricks(client_in):
    form = client_in.get(url("match_create")).content.decode()
    assert "A maker who falls short" in form and "Preset: +5" in form
    assert '<option value="null">Just counts tricks</option>' in form
    client_in.post(url("match_create"), {**NEW_MATCH, "create": "1", "rule_set_penalty": "null"})
    match = Match.objects.with_seats().get()
    assert rules.ruleset_overrides(match.preset, match.ruleset()) == {"set_penalty": None}
    html = client_in.get(match.get_absolute_url()).content.decode()
    assert "<li>A maker who falls short: Just counts tricks</li>" in html


@pytest.mark.parametrize("penalty, words", [("3", "+3"), ("0", "+0")])
def test_a_set_penalty_is_worded_as_points_added(client_in, penalty, words):
    client_in.post(url("match_create"), {**NEW_MATCH, "create": "1", "rule_set_penalty": penalty})
    match = Match.objects.with_seats().get()
    assert match.ruleset().set_penalty == int(penalty)
    html = client_in.get(match.get_absolute_url()).content.decode()
    assert f"<li>A maker who falls short: {words}</li>" in html


def test_a_set_penalty_that_is_not_a_choice_is_refused(client_in):
    data = {**NEW_MATCH, "create": "1", "rule_set_penalty": "-1"}
    response = client_in.post(url("match_create"), data)
    assert response.status_code == 200 and "-1 is not one of the available choices" in (
        response.content.decode()
    )
    assert not Match.objects.exists()


@pytest.mark.parametrize(
    "set_penalty, bob",
    [
        (5, '<span class="reason">set </span><span class="up">+5</span>'),
        (None, '<span class="reason">no trick </span><span class="up">+5</span>'),
    ],
)
def test_the_preview_says_set_only_where_sets_count(client_in, user, set_penalty, bob):
    match = make_match(user, set_penalty=set_penalty)
    data = {**ORDERED_POST, "t0": "3", "t1": "0", "t3": "2"}
    html = shown(
        client_in.post(url("hand_check", match.pk), drawn(match, data), **HX).content.decode()
    )
    assert f"<strong>Bob</strong> {bob}" in html


def test_admin_seat_changes_are_replayed_through_the_rules(client, django_user_model, user):
    client.force_login(django_user_model.objects.create_superuser("boss", password="x-42-y-42"))
    club = CLUB
    match = make_match(user, hands=[club])
    zed = Player.objects.create(group=Group.home(user), name="Zed")
    seats = list(match.seats.order_by("position"))
    data = {
        "group": Group.home(user).pk,
        "preset": "standard",
        "options": json.dumps(match.options),
        "per_game_cents": "0",
        "per_point_cents": "0",
        "per_set_cents": "0",
        "currency": "USD",
        "night": str(match.night_id),
        "first_dealer": "3",
        "played_at_0": "2026-11-28",
        "played_at_1": "19:30:00",
        **inline_rows(
            "seats",
            [
                {"id": s.pk, "match": match.pk, "player": s.player_id, "position": s.position}
                for s in seats
            ],
        ),
    }
    data["seats-3-player"] = zed.pk  # Zed in Dan's seat: hand 1 names Dan
    page = client.post(reverse("admin:games_match_change", args=[match.pk]), data)
    assert "Hand 1: Dan is not at this table." in page.content.decode()
    assert Match.objects.with_seats().get(pk=match.pk).names == ("Ann", "Bob", "Cat", "Dan")


def test_the_admin_keeps_a_stored_match_in_its_group(client, django_user_model, user):
    client.force_login(django_user_model.objects.create_superuser("boss", password="x-42-y-42"))
    match = make_match(user)
    page = client.get(reverse("admin:games_match_change", args=[match.pk])).content.decode()
    assert 'name="group"' not in page
    assert 'name="group"' in client.get(reverse("admin:games_match_add")).content.decode()


def test_a_player_named_pass_can_make_trump(client_in, user):
    match = make_match(user, names=("Ann", "pass", "Cat", "Dan"))
    data = {**ORDERED_POST, "dropped": ["Cat"]}
    client_in.post(url("hand_create", match.pk), drawn(match, data))
    assert Hand.objects.get(match=match).to_rules().maker == "pass"


def test_a_match_is_deleted_only_after_asking_and_only_by_its_owner(
    client, client_in, user, other_user
):
    match = make_match(user, hands=[CLUB])
    page = client_in.get(url("match_delete", match.pk)).content.decode()
    assert "Delete this match?" in page and Match.objects.exists()
    client.force_login(other_user)
    assert client.post(url("match_delete", match.pk)).status_code == 404
    client.force_login(user)
    assert client.post(url("match_delete", match.pk))["Location"] == url("home")
    assert not Match.objects.exists() and not Hand.objects.exists()
    assert Player.objects.filter(name="Ann").exists()  # the players stay for the next match
    assert not Night.objects.exists()  # its night had no other match


def test_moving_a_player_up_a_seat_keeps_them_the_first_dealer(client_in):
    data = {**NEW_MATCH, "dealer": "3", "up": "3"}
    html = client_in.post(url("match_create"), data, **HX).content.decode()
    assertInHTML(seat_input(2, "Dan"), html)
    assertInHTML(
        '<input type="radio" name="dealer" value="2" id="id_dealer_2" required checked>', html
    )
    assertInHTML('<input type="radio" name="dealer" value="3" id="id_dealer_3" required>', html)
    assert (dealer_tile(2, html), dealer_tile(3, html)) == ("Dan", "Cat")


# --- Many phones: versions, stale pages, resent writes ---------------------------------------

CLUB_POST = {"number": "1", "upcard": "clubs", "t0": "2", "t1": "1", "t2": "1", "t3": "1"}


def hidden_inputs(html: str, form_id: str) -> dict:
    """Every hidden input of one form on a page, as a browser would send them back."""
    form = re.search(rf'<form[^>]*id="{form_id}".*?</form>', html, re.S).group(0)
    fields = {}
    for tag in re.findall(r"<input[^>]*>", form):
        if 'type="hidden"' in tag:
            name = re.search(r'name="([^"]+)"', tag).group(1)
            fields[name] = re.search(r'value="([^"]*)"', tag).group(1)
    return fields


def test_a_client_that_sends_back_the_pages_hidden_inputs_can_save_edit_and_undo(client_in, user):
    match = make_match(user)
    page = client_in.get(match.get_absolute_url()).content.decode()
    sent = {
        **hidden_inputs(page, "hand-form"),
        **{k: v for k, v in CLUB_POST.items() if k != "number"},
    }
    assert client_in.post(url("hand_create", match.pk), sent).status_code == 302
    edit = client_in.get(url("hand_edit", match.pk, 1)).content.decode()
    changed = {**hidden_inputs(edit, "hand-form"), **CLUB_POST, "t0": "1", "t1": "2"}
    assert client_in.post(url("hand_edit", match.pk, 1), changed).status_code == 302
    assert Match.objects.get(pk=match.pk).game_hands()[0].tricks["Bob"] == 2
    page = client_in.get(match.get_absolute_url()).content.decode()
    undo = re.search(r"<form[^>]*hands/undo/.*?</form>", page, re.S).group(0)
    fields = dict(re.findall(r'type="hidden" name="(\w+)" value="(\d+)"', undo))
    assert client_in.post(url("hand_undo", match.pk), fields).status_code == 302
    assert not Hand.objects.filter(match=match).exists()


def conflict_of(html: str) -> str:
    """The side-by-side block of a 409: the hand stored under a number and the one typed."""
    found = re.search(r'<section id="conflict".*?</section>', html, re.S)
    assert found, "no #conflict on the page"
    return found.group(0)


def entry(html: str, side: str) -> str:
    found = re.search(rf'<div class="entry" data-entry="{side}">.*?</div>\s*</div>', html, re.S)
    assert found, side
    return found.group(0)


def test_a_stale_save_shows_both_entries_side_by_side_and_keeps_what_was_typed(client_in, user):
    match = make_match(user)
    stale = drawn(match, ORDERED_POST)  # phone B's page, drawn before phone A saves
    client_in.post(url("hand_create", match.pk), drawn(match, CLUB_POST))
    for headers in ({}, HX):
        response = client_in.post(url("hand_create", match.pk), stale, **headers)
        html = response.content.decode()
        assert response.status_code == 409
        assert "Hand 1 was saved on another phone." in html
        both = conflict_of(html)
        # The stored hand as the hands list words it, and who saved it; the typed one beside.
        assert "♣ turned · all play" in entry(both, "stored") and "Saved by you" in both
        assert "♥ turned · Bob ordered up · Cat out" in entry(both, "mine")
        assert "Keep theirs" in both and "Mine is the next hand" in both
        # No hand is one tap from being stored: no Save, no hand form, until asked.
        assert "Save hand" not in html and 'id="hand-form"' not in html
        # What B entered rides on in hidden inputs, for hand 2 and today's version.
        kept = hidden_inputs(html, "mine-next")
        assert kept["number"] == "2" and kept["version"] == "1"
        assert kept["maker"] == "1" and kept["t1"] == "3" and kept["dropped"] == "Cat"
    assert Match.objects.get(pk=match.pk).game_hands() == [CLUB]
    # B chooses to save it: it becomes hand 2.
    kept = drawn(match, ORDERED_POST, number="2")
    assert client_in.post(url("hand_create", match.pk), kept).status_code == 302
    assert len(Match.objects.get(pk=match.pk).game_hands()) == 2


def test_the_same_hand_sent_again_from_an_old_page_is_a_success_stored_once(client_in, user):
    match = make_match(user)
    page = drawn(match, CLUB_POST)
    for headers in ({}, HX, {}):
        assert client_in.post(url("hand_create", match.pk), page, **headers).status_code in (
            200,
            302,
        )
    assert Match.objects.get(pk=match.pk).game_hands() == [CLUB]
    assert Match.objects.get(pk=match.pk).version == 1


def test_a_check_from_a_stale_page_shows_the_board_and_never_the_edit_form(client_in, user):
    match = make_match(user)
    stale = drawn(match, {"number": "1", "upcard": "hearts"})
    client_in.post(url("hand_create", match.pk), drawn(match, CLUB_POST))
    response = client_in.post(url("hand_check", match.pk), stale, **HX)
    html = response.content.decode()
    assert response.status_code == 409
    assert response["HX-Retarget"] == "#board" and response["HX-Reswap"].startswith("outerHTML")
    assert "Hand 1 was saved on another phone." in html
    assert "Save changes" not in html and 'name="number" value="2"' in html


def test_a_stale_undo_undoes_nothing_and_a_resent_one_is_a_success(client_in, user):
    match = make_match(user, hands=[CLUB])
    stale = drawn(match, number="1")
    client_in.post(url("hand_create", match.pk), drawn(match, CLUB_POST, number="2"))
    response = client_in.post(url("hand_undo", match.pk), stale, **HX)
    assert response.status_code == 409
    assert "Hand 2 was saved on another phone. Nothing was undone." in response.content.decode()
    assert len(Match.objects.get(pk=match.pk).game_hands()) == 2
    undo = drawn(match, number="2")
    assert client_in.post(url("hand_undo", match.pk), undo).status_code == 302
    assert client_in.post(url("hand_undo", match.pk), undo).status_code == 302  # resent
    assert len(Match.objects.get(pk=match.pk).game_hands()) == 1


def test_a_stale_edit_is_kept_on_screen_and_saved_only_when_sent_again(client_in, user):
    match = make_match(user, hands=[CLUB, CLUB])
    stale = drawn(match, CLUB_POST, t0="1", t1="2")
    client_in.post(url("hand_create", match.pk), drawn(match, CLUB_POST, number="3"))
    response = client_in.post(url("hand_edit", match.pk, 1), stale)
    html = response.content.decode()
    assert response.status_code == 409 and "changed on another phone" in html
    assert 'name="t1" value="2"' in html and 'name="version" value="2"' in html
    assert Match.objects.get(pk=match.pk).game_hands()[0] == CLUB
    again = drawn(match, CLUB_POST, t0="1", t1="2")
    assert client_in.post(url("hand_edit", match.pk, 1), again).status_code == 302
    assert Match.objects.get(pk=match.pk).game_hands()[0].tricks["Bob"] == 2


def test_the_version_moves_only_when_the_hands_change(client_in, user):
    match = make_match(user)
    client_in.get(match.get_absolute_url())
    client_in.post(url("hand_create", match.pk), drawn(match, CLUB_POST, t0="9"))  # refused
    assert Match.objects.get(pk=match.pk).version == 0
    client_in.post(url("hand_create", match.pk), drawn(match, CLUB_POST))
    client_in.post(url("hand_edit", match.pk, 1), drawn(match, CLUB_POST))  # no change
    assert Match.objects.get(pk=match.pk).version == 1


def test_a_finished_match_answers_a_stale_save_saying_the_entry_was_not_saved(client_in, user):
    match = make_match(user)
    stale = drawn(match, CLUB_POST)
    sweep = {**ORDERED_POST, "dropped": ["Ann", "Cat", "Dan"], "t0": "", "t1": "5", "t3": ""}
    client_in.post(url("hand_create", match.pk), drawn(match, sweep))
    html = client_in.post(url("hand_create", match.pk), stale).content.decode()
    assert "Hand 1 was saved on another phone. The match is over" in html


@pytest.mark.parametrize("odd", ["²", "١", "9" * 5000, "\x00", "-1", "1.0", ""])
def test_odd_numbers_in_a_write_never_fail_the_page(client_in, user, odd):
    match = make_match(user, hands=[CLUB])
    for name, args in (("hand_create", ()), ("hand_check", ()), ("hand_undo", ())):
        for field in ("number", "version", "maker", "t0"):
            data = drawn(match, ORDERED_POST, number="2")
            data[field] = odd
            response = client_in.post(url(name, match.pk, *args), data, **HX)
            assert response.status_code in (200, 409), (name, field)
    assert Match.objects.get(pk=match.pk).game_hands() == [CLUB]


def test_a_match_holds_at_most_the_hand_cap(user):
    from games.models import MAX_HANDS

    match = make_match(user, starting_score=10**6)
    with pytest.raises(rules.RuleError, match="at most 1,000 hands"):
        record_hands(match, [CLUB] * (MAX_HANDS + 1))
    assert not Hand.objects.filter(match=match).exists()


# --- A live board on every phone -----------------------------------------------------------


def test_the_share_link_shows_the_board_to_anyone_and_offers_nothing_to_change(client, user):
    sweep = GameHand("hearts", "hearts", "Bob", None, ("Ann", "Cat", "Dan"), {"Bob": 5})
    match = make_match(user, stakes=rules.Stakes(per_game=100), hands=[CLUB, sweep])
    html = client.get(match.get_share_url()).content.decode()
    assert "Bob" in html and "wins" in html and "Took all five tricks." in html
    assert "<strong>Ann</strong> pays <strong>Bob</strong>" in html  # who pays whom
    assert 'class="rules-summary"' in html and "Bob ordered up" in html  # rules, history
    for control in ('id="hand-form"', "hands/undo/", "Edit hand", "Rematch", "/export/"):
        assert control not in html, control


def test_the_viewer_can_write_nothing(client, user):
    match = make_match(user, hands=[CLUB])
    client.get(match.get_share_url())
    writes = [
        ("hand_create", (match.pk,), drawn(match, CLUB_POST, number="2")),
        ("hand_check", (match.pk,), drawn(match, CLUB_POST, number="2")),
        ("hand_edit", (match.pk, 1), drawn(match, CLUB_POST, t0="1", t1="2")),
        ("hand_undo", (match.pk,), drawn(match, number="1")),
        ("match_share", (match.pk,), {}),
        ("match_rematch", (match.pk,), {}),
        ("match_delete", (match.pk,), {}),
    ]
    for name, args, data in writes:
        response = client.post(url(name, *args), data)
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    token = match.share_token
    match.refresh_from_db()
    assert match.game_hands() == [CLUB] and match.share_token == token and match.version == 1


def test_a_new_share_link_revokes_the_old_one_and_leaves_the_version(client_in, client, user):
    match = make_match(user, hands=[CLUB])
    old = match.get_share_url()
    response = client_in.post(url("match_share", match.pk))
    assert response["Location"] == match.get_absolute_url() + "#share"
    match.refresh_from_db()
    assert client.get(old).status_code == 404
    assert client.get(match.get_share_url()).status_code == 200
    assert match.version == 1


def test_the_scoreboard_offers_the_share_link_as_a_qr_code(client_in, user):
    match = make_match(user)
    html = client_in.get(match.get_absolute_url()).content.decode()
    assert f"http://testserver{match.get_share_url()}" in html and "<svg" in html


@pytest.mark.parametrize("shared", [True, False])
def test_an_unchanged_match_answers_a_poll_204_from_one_query(client_in, user, shared):
    match = make_match(user, hands=[CLUB])
    path = match.get_share_url() if shared else match.get_absolute_url()
    client_in.get(path)
    with CaptureQueriesContext(connection) as ctx:
        response = client_in.get(path, {"v": "1", "n": "1"}, **HX)
    assert response.status_code == 204 and response.content == b""
    match_queries = [q for q in ctx.captured_queries if "games_" in q["sql"]]
    assert len(match_queries) == 1
    client_in.post(url("hand_create", match.pk), drawn(match, CLUB_POST, number="2"))
    response = client_in.get(path, {"v": "1", "n": "1"}, **HX)
    assert response.status_code == 200 and 'id="board"' in response.content.decode()
    if not shared:
        assert response["X-Board-Change"] == "Hand 2 was saved on another phone."


def test_a_save_reads_the_match_once_and_stores_a_hand_in_at_most_11_statements(client_in, user):
    """A Save of a hand that does not end the match, sent with the phone's key (#41 §3): the
    match read once, under its lock, where who may save is checked too; the hand checked and
    stored there, its players' results and sums moved on in place, and the board drawn.
    Counted as the app's own statements, on its tables (the session's, the account's and the
    transaction's own aside)."""
    stakes = rules.Stakes(per_game=100, per_point=10)
    match = make_match(user, starting_score=1000, stakes=stakes, hands=[CLUB] * 3)
    data = {**drawn(match, CLUB_POST, number="4"), "key": "a-phone-key"}
    with CaptureQueriesContext(connection) as ctx:
        response = client_in.post(url("hand_create", match.pk), data, **HX)
    assert response.status_code == 200 and response["X-Hand-Key"] == "a-phone-key"
    statements = [q["sql"] for q in ctx.captured_queries if "games_" in q["sql"]]
    assert len(statements) <= 11, "\n".join(statements)
    reads_of_the_match = [
        s
        for s in statements
        if s.lstrip().startswith("SELECT")
        and ('FROM "games_match"' in s or 'INNER JOIN "games_match"' in s)
    ]
    assert len(reads_of_the_match) == 1  # under the lock, nothing before it
    assert Hand.objects.get(match=match, number=4).key == "a-phone-key"
    assert_results_are_a_replay(match)


def test_the_board_shows_the_latest_hands_and_the_rest_on_demand(client_in, user):
    match = make_match(user, starting_score=100, hands=[CLUB] * 12)
    board = client_in.get(match.get_absolute_url(), **HX).content.decode()
    assert board.count('class="hand-row"') == 5 and "Show all 12 hands" in board
    rest = client_in.get(match.get_absolute_url(), {"hands": "all"}, **HX).content.decode()
    assert rest.count('class="hand-row"') == 12 and "<html" not in rest
    shared = client_in.get(match.get_share_url(), {"hands": "all"}).content.decode()
    assert shared.count('class="hand-row"') == 12 and "<html" in shared


def test_a_shared_board_shows_the_rest_of_the_hands_on_demand_and_nothing_to_change(client, user):
    match = make_match(user, starting_score=100, hands=[CLUB] * 12)
    board = client.get(match.get_share_url(), **HX).content.decode()
    assert board.count('class="hand-row"') == 5 and "Show all 12 hands" in board
    response = client.get(match.get_share_url(), {"hands": "all"}, **HX)
    rest = response.content.decode()
    assert response.status_code == 200 and rest.count('class="hand-row"') == 12
    assert "<html" not in rest and 'id="board"' not in rest and 'class="edit"' not in rest


@pytest.mark.parametrize("shared", [False, True])
def test_a_board_showing_every_hand_keeps_showing_every_hand_when_it_follows_the_match(
    client_in, user, shared
):
    match = make_match(user, starting_score=100, hands=[CLUB] * 12)
    page = match.get_share_url() if shared else match.get_absolute_url()
    rest = client_in.get(page, {"hands": "all"}, **HX).content.decode()
    assert '<input type="hidden" name="hands" value="all">' in rest  # what its poll includes
    board = client_in.get(page, **HX).content.decode()
    assert 'hx-include="#board .hands-list [name=hands]"' in board and 'value="all"' not in board
    client_in.post(url("hand_create", match.pk), drawn(match, CLUB_POST, number="13"))
    response = client_in.get(page, {"v": str(match.version), "hands": "all"}, **HX)
    html = response.content.decode()
    assert 'id="board"' in html and html.count('class="hand-row"') == 13
    assert '<input type="hidden" name="hands" value="all">' in html
    unchanged = client_in.get(page, {"v": str(match.version + 1), "hands": "all"}, **HX)
    assert unchanged.status_code == 204


def test_a_saves_answer_does_not_grow_with_the_match(client_in, user):
    def answer(n):
        match = make_match(user, starting_score=1000, hands=[CLUB] * n)
        data = drawn(match, CLUB_POST, number=str(n + 1))
        return len(client_in.post(url("hand_create", match.pk), data, **HX).content)

    assert answer(60) < answer(3) * 1.2


# --- Lists and records read the stored results ----------------------------------------------


def test_home_lists_and_records_take_the_same_queries_with_2_matches_and_with_25(
    client_in, user, django_user_model
):
    def queries(owner, count):
        sweep = GameHand("hearts", "hearts", "Bob", None, ("Ann", "Cat", "Dan"), {"Bob": 5})
        for i in range(count):
            make_match(owner, hands=[CLUB] * (i % 3) + [sweep], stakes=rules.Stakes(100))
        make_match(owner, hands=[CLUB])
        client_in.force_login(owner)
        bob = Player.objects.get(group__home_of=owner, name="Bob")
        counts = []
        for path in (url("home"), url("match_list"), url("match_list") + f"?player={bob.pk}"):
            with CaptureQueriesContext(connection) as ctx:
                assert client_in.get(path).status_code == 200
            counts.append(len(ctx.captured_queries))
        return counts

    assert queries(user, 2) == queries(django_user_model.objects.create_user("zoe"), 25)


def test_no_list_or_record_replays_a_match(client_in, user, monkeypatch):
    sweep = GameHand("hearts", "hearts", "Bob", None, ("Ann", "Cat", "Dan"), {"Bob": 5})
    make_match(user, hands=[CLUB, sweep], stakes=rules.Stakes(100))
    make_match(user, hands=[CLUB])
    bob = Player.objects.get(name="Bob")

    def no_replay(*args):
        raise AssertionError("a list replayed a match")

    monkeypatch.setattr(rules, "replay", no_replay)
    home = client_in.get(url("home")).content.decode()
    assert "Bob won · 2 hands" in home and "Ann 23" in home and "Ann deals next" in home
    assert "Bob won" in client_in.get(url("match_list")).content.decode()
    record = client_in.get(url("match_list") + f"?player={bob.pk}").content.decode()
    assert "<strong>1</strong> win in 1 finished match (2 played in all)" in record


# --- Nights ---------------------------------------------------------------------------------

BOB_SWEEPS = GameHand("hearts", "hearts", "Bob", None, ("Ann", "Cat", "Dan"), {"Bob": 5})
BOB_SWEEPS_ROB = GameHand("hearts", "hearts", "Rob", None, ("Ann", "Cat", "Dan"), {"Rob": 5})
ORDERED_HAND = GameHand("hearts", "hearts", "Bob", None, ("Cat",), {"Ann": 0, "Bob": 3, "Dan": 2})
CAT_SWEEPS = GameHand("diamonds", "spades", "Cat", None, ("Ann", "Bob", "Dan"), {"Cat": 5})
A_GAME_AND_A_DIME = rules.Stakes(per_game=100, per_point=10)


def night_of(*hands_each):
    """Matches of one evening for $1.00 a game and 10¢ a point, one per list of hands, of the
    user "ann"; the night they share."""
    owner = get_user_model().objects.get(username="ann")
    matches = [make_match(owner, hands=hands, stakes=A_GAME_AND_A_DIME) for hands in hands_each]
    return matches[0].night, matches


def no_inline_style_or_script(html: str):
    """What a strict CSP would block: inline styles and inline scripts."""
    assert "style=" not in html
    assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html)


def test_home_offers_tonights_settle_up_as_soon_as_a_match_has_finished(client_in, user):
    make_match(user, hands=[CLUB], stakes=A_GAME_AND_A_DIME)
    assert "settle-up" not in client_in.get(url("home")).content.decode()
    make_match(user, hands=[BOB_SWEEPS], stakes=A_GAME_AND_A_DIME)
    home = client_in.get(url("home")).content.decode()
    assert "Tonight's settle-up" in home
    for payer in ("Ann", "Cat", "Dan"):  # each pays $1.00 + 25 points × 10¢
        assert (
            f'<strong>{payer}</strong> pays <strong>Bob</strong> <span class="amount">$3.50' in home
        )
    assert Match.objects.first().night.get_absolute_url() in home


def test_the_night_page_shows_each_net_and_where_it_comes_from(client_in, user):
    night, (first, second, _) = night_of([BOB_SWEEPS], [CAT_SWEEPS], [CLUB])
    html = client_in.get(night.get_absolute_url()).content.decode()
    no_inline_style_or_script(html)
    assert "The night of" in html and "3 matches" in html
    # Ann lost both: $1.00 a game and 25 points at 10¢ each time.
    assert html.count("lost: $1.00 a game + 25 points × $0.10") == 6  # Ann, Dan; Ann, Bob, Dan…
    assert "won: Ann pays $3.50, Cat pays $3.50, Dan pays $3.50" in html
    assert 'Ann</span> <span class="loss">−$7.00</span>' in html
    assert "1 match not finished: it settles nothing until the end." in html
    transfers = re.findall(r"<strong>(\w+)</strong> pays <strong>(\w+)</strong>", html)
    assert transfers == [("Ann", "Bob"), ("Dan", "Cat")]  # the fewest: two payments


def test_a_shared_win_says_whom_the_payment_is_shared_by(client_in, user):
    # From 2, Ann and Bob take 2 each and reach 0 together: they share the win (§5).
    low = make_match(user, stakes=rules.Stakes(per_game=100), starting_score=2)
    record_hands(low, [GameHand("clubs", tricks={"Ann": 2, "Bob": 2, "Cat": 1, "Dan": 0})])
    html = client_in.get(low.night.get_absolute_url()).content.decode()
    assert "lost: $1.00 a game, shared by Ann and Bob" in html


def test_each_currency_of_a_night_is_settled_on_its_own_in_words(client_in, user):
    night, _ = night_of([BOB_SWEEPS])
    make_match(user, hands=[CAT_SWEEPS], stakes=rules.Stakes(per_game=200, currency="EUR"))
    html = client_in.get(night.get_absolute_url()).content.decode()
    assert "These matches were played in EUR and USD: each currency is settled on its own." in html
    assert "<h3>In EUR</h3>" in html and "<h3>In USD</h3>" in html
    assert "€2.00" in html and "$3.50" in html


def paid_form(html: str, payer: str) -> dict:
    form = re.search(rf"<strong>{payer}</strong> pays.*?</form>", html, re.S).group(0)
    return dict(re.findall(r'type="hidden" name="(\w+)" value="([^"]*)"', form))


def test_a_payment_marked_paid_stays_and_a_changed_transfer_shows_what_is_left(client_in, user):
    night, (match,) = night_of([BOB_SWEEPS])
    html = client_in.get(night.get_absolute_url()).content.decode()
    response = client_in.post(url("night_paid", night.pk), paid_form(html, "Ann"))
    assert response["Location"] == night.get_absolute_url() + "#settle-up"
    html = client_in.get(night.get_absolute_url()).content.decode()
    assert re.search(r"<strong>Ann</strong> pays.*?Paid</span>", html, re.S)
    assert "Not paid after all" in html and html.count(">Mark paid</button>") == 2
    assert Match.objects.get(pk=match.pk).version == 1  # marks never move a match's version
    stale = paid_form(html, "Cat")
    make_match(user, hands=[CAT_SWEEPS], stakes=A_GAME_AND_A_DIME)  # the transfers change
    html = client_in.get(night.get_absolute_url()).content.decode()
    assert "Paid</span>" not in html
    # Ann owes Bob $7.00 now; the $3.50 she paid stays paid.
    assert re.search(r"<strong>Ann</strong> pays.*?\$7\.00.*?in part: \$3\.50 left", html, re.S)
    response = client_in.post(url("night_paid", night.pk), stale, **HX)
    answer = response.content.decode()
    assert "The payments changed since that page was drawn." in answer
    assert "<html" not in answer and 'id="settle-up"' in answer and "Paid</span>" not in answer


def test_a_match_moves_to_a_night_of_its_own_and_back_without_moving_its_version(client_in, user):
    night, (first, second) = night_of([BOB_SWEEPS], [CAT_SWEEPS])
    response = client_in.post(url("match_move", second.pk), {"night": "new"})
    alone = Match.objects.get(pk=second.pk).night
    assert alone != night and response["Location"] == alone.get_absolute_url()
    assert "$3.50" in client_in.get(alone.get_absolute_url()).content.decode()
    html = client_in.get(night.get_absolute_url()).content.decode()
    transfers = re.findall(r"<strong>(\w+)</strong> pays <strong>(\w+)</strong>", html)
    assert transfers == [("Ann", "Bob"), ("Cat", "Bob"), ("Dan", "Bob")]
    assert f'<option value="{alone.pk}">' in html
    client_in.post(url("match_move", second.pk), {"night": str(night.pk)})
    assert Match.objects.get(pk=second.pk).night == night
    assert not Night.objects.filter(pk=alone.pk).exists()  # left empty, it is gone
    assert Match.objects.get(pk=second.pk).version == 1


def test_the_night_list_and_a_nights_csv(client_in, user):
    night, _ = night_of([BOB_SWEEPS])
    assert night.get_absolute_url() in client_in.get(url("night_list")).content.decode()
    response = client_in.get(url("night_csv", night.pk))
    assert response["Content-Type"].startswith("text/csv")
    lines = response.content.decode().splitlines()
    assert lines[0] == "currency,row,player,to,amount,paid"
    assert "USD,net,Bob,,10.50," in lines and "USD,net,Ann,,-3.50," in lines
    assert "USD,pays,Ann,Bob,3.50,no" in lines


def test_nobody_sees_or_changes_another_users_night_or_player(client, user, other_user):
    night, (match,) = night_of([BOB_SWEEPS])
    bob = Player.objects.get(name="Bob")
    client.force_login(other_user)
    for name, args in (
        ("night_detail", night.pk),
        ("night_csv", night.pk),
        ("player_detail", bob.pk),
        ("player_csv", bob.pk),
        ("match_race", match.pk),
    ):
        assert client.get(url(name, args)).status_code == 404, name
    for name, args, data in (
        ("night_paid", night.pk, {"key": "USD:Ann:Bob", "paid": "1"}),
        ("match_move", match.pk, {"night": "new"}),
        ("player_rename", bob.pk, {"name": "Robert"}),
        ("player_merge", bob.pk, {"other": str(Player.objects.get(name="Ann").pk), "same": "1"}),
    ):
        assert client.post(url(name, args), data).status_code == 404, name
    assert Player.objects.get(pk=bob.pk).name == "Bob" and Match.objects.get().night == night


FORMULAS = {
    "Ann": '=HYPERLINK("http://e.vil","Ann")',
    "Cat": "@SUM(A1)",
    "Dan": "-2+3",
    "Bob": "+Bob",
}


def csv_rows(response) -> list[list[str]]:
    return list(csv.reader(io.StringIO(response.content.decode())))


def test_a_csv_cell_that_starts_like_a_formula_reaches_the_spreadsheet_as_text(client_in, user):
    night, _ = night_of([BOB_SWEEPS])
    for old, new in FORMULAS.items():
        Player.objects.get(name=old).rename(new)
    rows = csv_rows(client_in.get(url("night_csv", night.pk)))
    nets = {row[2]: row[4] for row in rows if row[1] == "net"}
    assert nets == {
        "'+Bob": "10.50",
        '\'=HYPERLINK("http://e.vil","Ann")': "-3.50",  # the amount stays a number
        "'@SUM(A1)": "-3.50",
        "'-2+3": "-3.50",
    }
    assert ["USD", "pays", "'-2+3", "'+Bob", "3.50", "no"] in rows
    bob = Player.objects.get(name="+Bob")
    [_, row] = csv_rows(client_in.get(url("player_csv", bob.pk)))
    assert row[2] == '\'=HYPERLINK("http://e.vil","Ann"); +Bob; @SUM(A1); -2+3'
    assert row[8:] == ["'+Bob", "10.50", "USD", "down"]
    ann = Player.objects.get(name=FORMULAS["Ann"])
    [_, row] = csv_rows(client_in.get(url("player_csv", ann.pk)))
    assert row[9] == "-3.50"


@pytest.mark.parametrize(
    "cell, safe",
    [
        ("=1+1", "'=1+1"),
        ("+1", "'+1"),
        ("-1", "'-1"),
        ("@A1", "'@A1"),
        ("\tx", "'\tx"),
        ("\rx", "'\rx"),
        ("Ann", "Ann"),
        ("a=b", "a=b"),
        ("", ""),
        (Decimal("-3.00"), Decimal("-3.00")),
        (-3, -3),
    ],
)
def test_only_text_that_starts_like_a_formula_is_neutralised(cell, safe):
    from games.views.common import spreadsheet_safe

    assert spreadsheet_safe(cell) == safe


# --- Players --------------------------------------------------------------------------------


def test_a_players_page_has_the_statistics_over_all_matches_and_per_preset(client_in, user):
    make_match(user, hands=[ORDERED_HAND, BOB_SWEEPS], stakes=A_GAME_AND_A_DIME)
    make_match(user, "short-15", hands=[CLUB], stakes=rules.Stakes())
    bob = Player.objects.get(name="Bob")
    html = client_in.get(url("player_detail", bob.pk)).content.decode()
    no_inline_style_or_script(html)
    rows = re.findall(r'<th scope="row">([^<]+)</th><td>([^<]+)</td>', html)
    # The first table is every match: 2 matches, 1 finished and won.
    assert rows[:4] == [
        ("Matches", "2"),
        ("Finished", "1"),
        ("Wins", "1"),
        ("Win rate", "100%"),
    ]
    assert ("Net money (USD)", "+$10.80") in rows  # Ann at 30 pays $4.00, Cat $3.50, Dan $3.30
    assert "Standard <small>1 match</small>" in html and "Short game to 15 <small>1 match" in html
    assert '<svg class="chart"' in html and "<polyline" in html
    assert "Bob&#x27;s net money in USD after each of 1 matches" in html


def test_a_players_matches_as_csv_one_row_a_match(client_in, user):
    make_match(user, hands=[BOB_SWEEPS], stakes=A_GAME_AND_A_DIME)
    make_match(user, hands=[CLUB])
    bob = Player.objects.get(name="Bob")
    lines = client_in.get(url("player_csv", bob.pk)).content.decode().splitlines()
    assert lines[0].startswith("played_at,rules,players,seat,hands,finished,score,won,winners")
    assert len(lines) == 3
    assert lines[1].endswith(",Standard,Ann; Bob; Cat; Dan,2,1,yes,20,yes,Bob,10.50,USD,down")
    assert lines[2].endswith(",Standard,Ann; Bob; Cat; Dan,2,1,no,24,no,,,,down")


def test_a_renamed_player_keeps_every_match_and_its_scores(client_in, user):
    match = make_match(user, hands=[ORDERED_HAND, CLUB])
    before = match.replay()[0].scores
    bob = Player.objects.get(name="Bob")
    response = client_in.post(url("player_rename", bob.pk), {"name": " Robert "})
    assert response["Location"] == url("player_detail", bob.pk)
    match = Match.objects.with_seats().get(pk=match.pk)
    assert match.names == ("Ann", "Robert", "Cat", "Dan")
    after = match.replay()[0].scores
    assert [after[n] for n in match.names] == [before[n] for n in ("Ann", "Bob", "Cat", "Dan")]
    for taken in ("Ann", " ann ", "ANN"):
        html = client_in.post(url("player_rename", bob.pk), {"name": taken}).content.decode()
        assert "There is already a player called Ann." in html
    assert Player.objects.get(pk=bob.pk).name == "Robert"


def test_a_refused_rename_keeps_the_name_typed_in_its_box_marked_wrong(client_in, user):
    make_match(user)
    bob = Player.objects.get(name="Bob")
    html = client_in.post(url("player_rename", bob.pk), {"name": "Dan"}).content.decode()
    assert "There is already a player called Dan." in html
    box = re.search(r'<input id="id_name"[^>]*>', html).group()
    assert 'value="Dan"' in box and 'aria-invalid="true"' in box
    assert Player.objects.get(pk=bob.pk).name == "Bob"


def test_every_way_a_name_comes_in_takes_the_same_longest_name(client_in, user):
    longest, over = "A" * rules.NAME_LENGTH, "B" * (rules.NAME_LENGTH + 1)
    limit = f'maxlength="{rules.NAME_LENGTH}"'
    page = client_in.get(url("match_create")).content.decode()
    assert page.count(limit) == max(rules.SEAT_COUNTS)  # every seat
    data = {**NEW_MATCH, "create": "1", "seat_0": over}
    assert client_in.post(url("match_create"), data).status_code == 200
    with pytest.raises(rules.RuleError, match="too long a name"):
        make_match(user, names=(over, "Bob", "Cat", "Dan"))
    assert not Match.objects.exists()
    make_match(user, names=(longest, "Bob", "Cat", "Dan"))
    bob = Player.objects.get(name="Bob")
    assert limit in client_in.get(url("player_detail", bob.pk)).content.decode()
    html = client_in.post(url("player_rename", bob.pk), {"name": over}).content.decode()
    assert f"Keep a name to {rules.NAME_LENGTH} letters." in html
    client_in.post(url("player_rename", bob.pk), {"name": "C" * rules.NAME_LENGTH})
    assert Player.objects.get(pk=bob.pk).name == "C" * rules.NAME_LENGTH


def test_two_spellings_merge_and_every_match_replays_the_same(client_in, user):
    first = make_match(user, hands=[ORDERED_HAND, CLUB], stakes=A_GAME_AND_A_DIME)
    second = make_match(user, names=("Ann", "Rob", "Cat", "Dan"), hands=[BOB_SWEEPS_ROB])
    scores = [m.replay()[0].scores for m in (first, second)]
    bob, rob = Player.objects.get(name="Bob"), Player.objects.get(name="Rob")
    html = client_in.post(url("player_merge", bob.pk), {"other": str(rob.pk)}).content.decode()
    assert "Tick the box to say that Rob and Bob are the same person." in html
    response = client_in.post(url("player_merge", bob.pk), {"other": str(rob.pk), "same": "1"})
    assert response["Location"] == url("player_detail", bob.pk)
    assert not Player.objects.filter(name="Rob").exists()
    for match, before in zip((first, second), scores, strict=True):
        match = Match.objects.with_seats().get(pk=match.pk)
        after = match.replay()[0].scores
        assert list(after.values()) == list(before.values()) and match.names[1] == "Bob"
    assert bob.totals() == {"played": 2, "finished": 1, "won": 1, "money": {}}


def test_another_spelling_starts_with_nobody_chosen_and_none_chosen_is_refused_in_words(
    client_in, user
):
    make_match(user)
    make_match(user, names=("Ann", "Rob", "Cat", "Dan"))
    bob, rob = Player.objects.get(name="Bob"), Player.objects.get(name="Rob")
    page = client_in.get(url("player_detail", bob.pk)).content.decode()
    choice = re.search(r'<select id="id_other".*?</select>', page, re.S).group()
    assert re.findall(r"<option[^>]*>[^<]*", choice)[0] == '<option value="">Choose…'
    assert "selected" not in choice
    for blank in ({}, {"other": ""}, {"other": "x", "same": "1"}):
        response = client_in.post(url("player_merge", bob.pk), blank)
        assert response.status_code == 200
        assert "Choose which player is another spelling of Bob." in response.content.decode()
    assert Player.objects.filter(group=bob.group_id).count() == 5
    # Refused for the box left unticked, the player chosen stays chosen.
    html = client_in.post(url("player_merge", bob.pk), {"other": str(rob.pk)}).content.decode()
    assert "Tick the box to say that Rob and Bob are the same person." in html
    assert f'<option value="{rob.pk}" selected>Rob</option>' in html


def test_two_players_of_one_match_are_never_merged(client_in, user):
    make_match(user, hands=[CLUB])
    bob, cat = Player.objects.get(name="Bob"), Player.objects.get(name="Cat")
    response = client_in.post(url("player_merge", bob.pk), {"other": str(cat.pk), "same": "1"})
    html = response.content.decode().replace("&#x27;", "'")
    assert "Bob and Cat both played in the match of" in html
    assert "so they are two people: they can't be merged." in html
    assert Player.objects.filter(name="Cat").exists()
    assert Match.objects.with_seats().get().names == ("Ann", "Bob", "Cat", "Dan")


# --- The score race -------------------------------------------------------------------------


def test_the_score_race_is_a_chart_and_a_table_outside_the_board(client_in, user):
    match = make_match(user, hands=[ORDERED_HAND, CLUB])
    page = client_in.get(match.get_absolute_url()).content.decode()
    board = client_in.get(match.get_absolute_url(), **HX).content.decode()
    assert 'id="race"' in page and url("match_race", match.pk) in page
    assert "Score race" not in board and url("match_race", match.pk) not in board
    race = client_in.get(url("match_race", match.pk), **HX).content.decode()
    no_inline_style_or_script(race)
    assert "<html" not in race and race.count("<polyline") == 4
    assert "Ann is at 28, Bob is at 21, Cat is at 24, Dan is at 22." in race
    rows = re.findall(r'<tr><th scope="row">(\w+)</th>((?:<td>[^<]*</td>)+)</tr>', race)
    assert [r[0] for r in rows] == ["Start", "1", "2"]
    assert rows[2][1] == "<td>28</td><td>21</td><td>24</td><td>22</td>"
    whole = client_in.get(url("match_race", match.pk)).content.decode()
    assert "<html" in whole and "Back to the match" in whole


def test_a_saves_answer_tells_the_score_race_to_follow(client_in, user):
    match = make_match(user)
    response = client_in.post(url("hand_create", match.pk), drawn(match, CLUB_POST), **HX)
    assert response["HX-Trigger"] == "board-changed"
    assert "HX-Trigger" not in client_in.get(match.get_absolute_url(), **HX)


# --- Installable, readable offline ------------------------------------------------------------


def test_the_service_worker_is_served_from_the_root_to_anyone(client):
    response = client.get("/sw.js")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/javascript")
    assert response["Cache-Control"] == "no-cache"
    body = response.content.decode()
    # Writes always go to the network; what it shows offline is the board copy, never a form.
    assert 'request.method !== "GET"' in body and "cacheName: `boards-${account}`" in body
    app_js = (django_settings.BASE_DIR / "static/js/app.js").read_text()
    assert "const BOARDS = `boards-${ACCOUNT}`" in app_js


def test_every_page_names_the_manifest_and_the_service_worker(client_in, user):
    html = client_in.get(make_match(user).get_absolute_url()).content.decode()
    assert '<link rel="manifest" href="/manifest.webmanifest">' in html
    assert '<meta name="service-worker" content="/sw.js">' in html


def png_size(path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR"
    return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")


def test_the_manifest_makes_the_app_installable_with_png_icons(client):
    manifest = json.loads(client.get(reverse("games:manifest")).content)
    assert manifest["start_url"] == "/" and manifest["display"] == "standalone"
    pngs = {i["sizes"]: i["src"] for i in manifest["icons"] if i["type"] == "image/png"}
    assert set(pngs) == {"192x192", "512x512"}
    static = django_settings.BASE_DIR / "static"
    for sizes, src in pngs.items():
        assert src.startswith(django_settings.STATIC_URL)
        path = static / src.removeprefix(django_settings.STATIC_URL)
        assert png_size(path) == tuple(int(n) for n in sizes.split("x"))


def test_a_revoked_share_link_says_so_and_a_board_left_open_on_it_stops_asking(client, user):
    match = make_match(user, hands=[CLUB])
    old = match.get_share_url()
    match.new_share_link()
    response = client.get(old)
    assert response.status_code == 404
    assert "This link to the board no longer works." in response.content.decode()
    # The board still open on it asks as it always does: htmx stops polling on 286.
    response = client.get(old, {"v": match.version}, **HX)
    assert response.status_code == 286
    html = response.content.decode()
    assert html.lstrip().startswith('<div id="board"') and "no longer works" in html
    assert "hx-get" not in html


def test_the_board_asks_before_a_new_share_link_cuts_off_the_old_one(client_in, user):
    match = make_match(user)
    html = client_in.get(match.get_absolute_url()).content.decode()
    assert 'data-confirm="Make a new link? Phones that show the board by the old link' in html


def match_version(match) -> int:
    return Match.objects.get(pk=match.pk).version


@pytest.mark.parametrize("htmx", [False, True])
def test_an_edit_of_a_hand_undone_on_another_phone_is_kept_as_the_next_hand(client_in, user, htmx):
    match = make_match(user, hands=[CLUB, CLUB])
    edit = drawn(match, CLUB_POST, number="2", t0="1", t1="2")
    client_in.post(url("hand_undo", match.pk), drawn(match, {"number": "2"}))
    for path in ("hand_edit", "hand_edit_check"):
        response = client_in.post(url(path, match.pk, 2), edit, **(HX if htmx else {}))
        assert response.status_code == 409
        html = response.content.decode()
        assert "Hand 2 was undone on another phone." in html
        assert "What you entered is kept below: save it as hand 2" in html
        kept = hidden_inputs(html, "hand-form")
        assert (kept["number"], kept["version"]) == ("2", str(match_version(match)))
        for seat, tricks in (("0", "1"), ("1", "2")):  # the tricks typed, still ticked
            assert re.search(rf'name="t{seat}" value="{tricks}"[^>]*checked', html), seat
        if htmx:  # the edit page has no board: the match page takes the page's place
            assert (response["HX-Retarget"], response["HX-Reselect"]) == ("#main", "#main")
            assert response["HX-Push-Url"] == match.get_absolute_url()
            assert response["HX-Reswap"].startswith("outerHTML")
        # The whole match page, title and all: the score race, the night, the share link.
        assert f"<title>{match.label} ·" in html
        for part in ('id="race"', "The night's settle-up", 'id="share"'):
            assert part in html, part
    assert Match.objects.get(pk=match.pk).game_hands() == [CLUB]
    # Saved from there, it is hand 2 as the player typed it.
    kept = drawn(match, CLUB_POST, number="2", t0="1", t1="2", t2="1", t3="1")
    assert client_in.post(url("hand_create", match.pk), kept).status_code == 302
    assert Match.objects.get(pk=match.pk).game_hands()[1].tricks["Bob"] == 2


def test_an_edit_sent_again_after_the_match_was_won_elsewhere_is_a_success(client_in, user):
    match = make_match(user, hands=[CLUB])
    edit = drawn(match, CLUB_POST, number="1", t0="1", t1="2")
    assert client_in.post(url("hand_edit", match.pk, 1), edit).status_code == 302
    sweep = {**ORDERED_POST, "number": "2", "dropped": ["Ann", "Cat", "Dan"]}
    sweep.update(t0="", t1="5", t3="")
    client_in.post(url("hand_create", match.pk), drawn(match, sweep))
    assert Match.objects.get(pk=match.pk).finished
    assert client_in.post(url("hand_edit", match.pk, 1), edit).status_code == 302  # a resend
    other = {**edit, "t1": "3", "t0": "0"}
    response = client_in.post(url("hand_edit", match.pk, 1), other)
    assert response.status_code == 409
    assert (
        "The match was won on another phone, so your change to hand 1" in response.content.decode()
    )


def test_every_board_says_each_rule_of_its_match_in_a_sentence(client_in, user):
    stakes = rules.Stakes(per_game=100, per_point=10, per_set=25)
    match = make_match(user, "three-15", names=("Ann", "Bob", "Cat"), dealer="Ann", stakes=stakes)
    for path in (match.get_absolute_url(), match.get_share_url()):
        html = client_in.get(path).content.decode()
        assert "A turned ♣ club is trump at once" in html
        assert "The dealer picks it up and is the maker, needing 2 tricks" in html
        assert "Nothing is played or scored: the cards are dealt again" in html
        assert "A player at 5 or below must play." in html
        assert "Taking all five tricks is just five off" in html
        assert "pays $1.00 + 7 × $0.10 + 2 × $0.25 = $2.20." in html


def test_the_new_match_page_words_the_rules_being_chosen(client_in):
    html = client_in.get(url("match_create")).content.decode()
    assert "The rules in full, as chosen" in html and "start at 25" in html
    chosen = {"preset": "dirty-clubs", "rule_set_penalty": "null", "per_game": "2"}
    words = client_in.post(url("match_create"), chosen, HTTP_HX_TRIGGER="rules-words", **HX)
    words = words.content.decode()
    assert words.lstrip().startswith('<details class="rules-words"')
    assert "start at 20" in words and "There is no set" in words
    assert "Each loser pays the winner $2.00 a game" in words


def test_a_board_drawn_once_a_version_is_never_older_than_the_hands(client, client_in, user):
    match = make_match(user, hands=[CLUB])

    def board():
        html = client_in.get(match.get_absolute_url()).content.decode()
        return re.sub(r'(value="|"X-CSRFToken": ")[A-Za-z0-9]{64}"', "TOKEN", html)

    first = board()
    assert board() == first  # drawn once, then the same
    Player.objects.get(name="Bob").rename("Robert")
    renamed = client_in.get(match.get_absolute_url()).content.decode()
    assert "Robert" in renamed and ">Bob<" not in renamed
    client_in.post(url("hand_create", match.pk), drawn(match, ORDERED_POST, number="2"))
    assert "Undo hand 2" in client_in.get(match.get_absolute_url()).content.decode()


def test_a_drawn_board_carries_each_reader_s_own_csrf_token(user, other_user):
    from django.test import Client

    match = make_match(user)
    Group.home(user).join(other_user, "scorer")
    tokens = []
    for who in (user, other_user):
        c = Client(enforce_csrf_checks=True)
        c.force_login(who)
        html = c.get(match.get_absolute_url()).content.decode()
        form = re.search(r'<form[^>]*id="hand-form".*?</form>', html, re.S).group(0)
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form).group(1)
        assert "csrf-token-of-the-request" not in html
        response = c.post(
            url("hand_create", match.pk),
            drawn(match, ORDERED_POST, csrfmiddlewaretoken=token),
        )
        tokens.append(token)
        assert response.status_code in (302, 409)  # past the CSRF check (else 403)
        forged = c.post(url("hand_create", match.pk), drawn(match, ORDERED_POST))
        assert forged.status_code == 403  # the check is on
    assert tokens[0] != tokens[1]


@pytest.mark.django_db
def test_a_board_drawn_while_another_phone_saves_shows_the_hands_at_their_version(
    client_in, user, monkeypatch
):
    match = make_match(user, hands=[CLUB])
    read_before_the_save = Match.objects.one(match.pk)
    add_hand(match, 2, CLUB, match.version)  # lands after the page has read the match
    reads, one = iter([read_before_the_save]), MatchQuerySet.one
    monkeypatch.setattr(MatchQuerySet, "one", lambda self, pk: next(reads, None) or one(self, pk))
    html = client_in.get(match.get_absolute_url()).content.decode()
    version = Match.objects.get(pk=match.pk).version
    assert version == read_before_the_save.version + 1
    assert f'name="version" value="{version}"' in html
    assert 'name="number" value="3"' in html
    again = client_in.get(match.get_absolute_url()).content.decode()  # as kept in the cache
    assert f'name="version" value="{version}"' in again and 'name="number" value="3"' in again


@pytest.mark.django_db
def test_a_409_drawn_while_another_phone_saves_shows_the_hands_at_their_version(
    client_in, user, monkeypatch
):
    match = make_match(user, hands=[CLUB])
    stale = match.version  # the page the Save is sent from
    add_hand(match, 2, CLUB, match.version)
    read_by_the_409 = Match.objects.one(match.pk)
    match = Match.objects.get(pk=match.pk)
    add_hand(match, 3, CLUB, match.version)  # lands after the 409 has read the match
    reads, one = iter([None, read_by_the_409]), MatchQuerySet.one  # the Save's own read, then
    monkeypatch.setattr(MatchQuerySet, "one", lambda self, pk: next(reads, None) or one(self, pk))
    sent = {**CLUB_POST, "t0": "1", "t1": "2", "number": "2", "version": str(stale)}
    response = client_in.post(url("hand_create", match.pk), sent, HTTP_HX_REQUEST="true")
    html = response.content.decode()
    version = Match.objects.get(pk=match.pk).version
    assert response.status_code == 409 and version == read_by_the_409.version + 1
    assert f'name="version" value="{version}"' in html
    assert 'name="number" value="4"' in html


@pytest.mark.django_db
def test_a_form_s_address_opened_as_a_page_says_so_in_words(client_in, user):
    match = make_match(user, hands=[CLUB])
    for path in (
        reverse("games:hand_undo", args=[match.pk]),
        reverse("games:hand_create", args=[match.pk]),
    ):
        response = client_in.get(path)
        assert response.status_code == 405 and response["Allow"] == "POST"
        html = response.content.decode()
        assert "Not a page to open" in html and "Nothing was changed." in html
        assert 'href="/"' in html  # the way back


def test_a_board_played_for_money_says_what_it_would_pay_were_it_to_end_now(client_in, user):
    match = make_match(user, stakes=rules.Stakes(per_game=100, per_point=10), hands=[CLUB])
    said = "If it ended now: Bob pays $3.40, Cat $3.40, Dan $3.40 → Ann"
    for page in (match.get_absolute_url(), match.get_share_url()):
        assert said in client_in.get(page).content.decode()
    board = client_in.get(match.get_absolute_url(), headers={"HX-Request": "true"})
    assert said in board.content.decode()
    unstaked = make_match(user, stakes=rules.Stakes(), hands=[CLUB])
    assert "If it ended now" not in client_in.get(unstaked.get_absolute_url()).content.decode()


# --- A key per hand; the second phone told; two entries of one hand (#33 §2, #35 §3) -------

KEY = "phone-7f3a_0001"


def scorer(match, username: str, player: str | None = None):
    """A second phone: another scorer of the match's group, said to be `player` (`/me/`)."""
    other = get_user_model().objects.create_user(username, password=PASSWORD)
    match.group.join(other, Role.SCORER)
    if player is not None:
        seat = Player.objects.get(group=match.group, name=player)
        Membership.objects.filter(group=match.group, user=other).update(player=seat)
    phone = Client()
    phone.force_login(other)
    return phone


def notice_of(html: str) -> str:
    found = re.search(r'<div class="notice" role="alert">(.*?)</div>', html, re.S)
    return found.group(1) if found else ""


def test_a_hand_resent_under_its_key_is_answered_as_the_first_and_stored_once(client_in, user):
    match = make_match(user)
    sent = drawn(match, CLUB_POST, key=KEY)
    first = client_in.post(url("hand_create", match.pk), sent, **HX)
    assert first.status_code == 200 and Hand.objects.get(match=match).key == KEY
    again = client_in.post(url("hand_create", match.pk), sent, **HX)  # its answer was lost
    assert again.status_code == 200 and notice_of(again.content.decode()) == ""
    assert again["X-Match-Version"] == first["X-Match-Version"] == "1"
    assert client_in.post(url("hand_create", match.pk), sent).status_code == 302  # no htmx
    # Another hand lands; the resend, from a page of an older version, is still the first's.
    client_in.post(url("hand_create", match.pk), drawn(match, CLUB_POST, number="2"))
    late = client_in.post(url("hand_create", match.pk), sent, **HX)
    assert late.status_code == 200 and late["X-Match-Version"] == "2"
    assert Match.objects.get(pk=match.pk).game_hands() == [CLUB, CLUB]
    assert Match.objects.get(pk=match.pk).version == 2


def test_a_stored_hand_is_answered_with_its_key_and_only_then(client_in, user):
    """The outbox lets a hand go only on the server's word that it stored that hand: its key
    echoed. A refusal, or an answer to a Save with no key, carries none."""
    match = make_match(user)
    first = client_in.post(url("hand_create", match.pk), drawn(match, CLUB_POST, key=KEY), **HX)
    assert first["X-Hand-Key"] == KEY and first["X-Match-Version"] == "1"
    again = client_in.post(url("hand_create", match.pk), drawn(match, CLUB_POST, key=KEY), **HX)
    assert again["X-Hand-Key"] == KEY
    refused = client_in.post(
        url("hand_create", match.pk), drawn(match, CLUB_POST, number="2", t0="4", key="k2"), **HX
    )
    assert "X-Hand-Key" not in refused and "refused" in refused.content.decode()
    keyless = client_in.post(
        url("hand_create", match.pk), drawn(match, CLUB_POST, number="2"), **HX
    )
    assert keyless.status_code == 200 and "X-Hand-Key" not in keyless


def test_a_key_resent_with_another_hand_is_a_conflict_in_words_and_changes_nothing(client_in, user):
    match = make_match(user)
    client_in.post(url("hand_create", match.pk), drawn(match, CLUB_POST, key=KEY), **HX)
    other = drawn(match, CLUB_POST, t0="1", t1="2", key=KEY, number="1")
    response = client_in.post(url("hand_create", match.pk), other, **HX)
    html = response.content.decode()
    assert response.status_code == 409 and "X-Hand-Key" not in response
    assert "This phone already saved hand 1 with other cards and tricks" in html
    assert Match.objects.get(pk=match.pk).game_hands() == [CLUB]
    assert Match.objects.get(pk=match.pk).version == 1
    plain = client_in.post(url("hand_create", match.pk), other)  # no JavaScript: the same words
    assert plain.status_code == 409 and "already saved hand 1" in plain.content.decode()


def test_a_resend_of_a_key_whose_hand_was_undone_is_never_stored_again(client_in, user):
    match = make_match(user)
    sent = drawn(match, CLUB_POST, key=KEY)
    client_in.post(url("hand_create", match.pk), sent, **HX)
    client_in.post(url("hand_undo", match.pk), drawn(match, number="1"), **HX)
    assert not Hand.objects.filter(match=match).exists()  # the undo took the key with it
    for headers in (HX, {}):
        response = client_in.post(url("hand_create", match.pk), sent, follow=True, **headers)
        assert response.status_code == 200
        said = "Hand 1 was saved, then undone, so it was not saved again."
        assert said in response.content.decode()
    assert not Hand.objects.filter(match=match).exists()


def test_a_key_stays_with_its_hand_through_edits_and_a_changed_hand_is_not_saved_again(
    client_in, user
):
    match = make_match(user)
    first = drawn(match, CLUB_POST, key=KEY)
    client_in.post(url("hand_create", match.pk), first, **HX)
    second = drawn(match, CLUB_POST, number="2", key="second")
    client_in.post(url("hand_create", match.pk), second, **HX)
    client_in.post(url("hand_edit", match.pk, 2), drawn(match, CLUB_POST, t0="1", t1="2"))
    keys = dict(Hand.objects.filter(match=match).values_list("number", "key"))
    assert keys == {1: KEY, 2: "second"}  # each kept: an edit of its own hand or another's
    untouched = client_in.post(url("hand_create", match.pk), first, **HX)
    assert untouched.status_code == 200 and notice_of(untouched.content.decode()) == ""
    changed = client_in.post(url("hand_create", match.pk), second, **HX)
    assert "Hand 2 was saved, then changed, so it was not saved again." in changed.content.decode()
    hands = Match.objects.get(pk=match.pk).game_hands()
    assert len(hands) == 2 and hands[1].tricks["Bob"] == 2


@pytest.mark.parametrize("bad", ["has space", "x" * 65, "ü", "a/b", "k;drop"])
def test_a_hand_sent_with_a_bad_key_is_refused_in_words_and_nothing_is_stored(client_in, user, bad):
    match = make_match(user)
    response = client_in.post(url("hand_create", match.pk), drawn(match, CLUB_POST, key=bad), **HX)
    html = response.content.decode()
    assert response.status_code == 200
    assert "This hand came with a key the app did not make" in html
    assert not Hand.objects.filter(match=match).exists()


def test_every_answer_that_draws_a_board_or_a_hand_form_says_the_version_it_was_drawn_at(
    client_in, user
):
    match = make_match(user, hands=[CLUB])
    board, hands = match.get_absolute_url(), url("hand_create", match.pk)
    stale = drawn(match, CLUB_POST, number="2", t0="1", t1="2")

    def says_its_version(name, response, code=200):
        assert response.status_code == code, name
        now = str(Match.objects.get(pk=match.pk).version)
        assert response["X-Match-Version"] == now, name
        drawn_at = re.findall(r'name="version" value="(\d+)"', response.content.decode())
        assert set(drawn_at) <= {now}, name  # every write form on it carries that version

    says_its_version("board", client_in.get(board))
    says_its_version("board for htmx", client_in.get(board, **HX))
    says_its_version("shared board", client_in.get(match.get_share_url()))
    check = client_in.post(url("hand_check", match.pk), drawn(match, number="2"), **HX)
    says_its_version("check", check)
    says_its_version("edit", client_in.get(url("hand_edit", match.pk, 1)))
    edit_check = drawn(match, CLUB_POST)
    says_its_version("edit check", client_in.post(url("hand_edit_check", match.pk, 1), edit_check))
    says_its_version("save", client_in.post(hands, drawn(match, CLUB_POST, number="2"), **HX))
    says_its_version("poll", client_in.get(board + "?v=1&n=1", **HX))
    says_its_version("stale save", client_in.post(hands, stale, **HX), 409)
    says_its_version("stale check", client_in.post(url("hand_check", match.pk), stale, **HX), 409)
    stale_edit = client_in.post(url("hand_edit", match.pk, 1), {**stale, "number": "1"})
    says_its_version("stale edit", stale_edit, 409)
    says_its_version(
        "undo", client_in.post(url("hand_undo", match.pk), drawn(match, number="2"), **HX)
    )


def test_the_second_phone_to_save_the_same_hand_is_told_who_saved_it(client_in, user):
    match = make_match(user)
    page = drawn(match, CLUB_POST)  # both phones' pages, drawn before either saves
    bob = scorer(match, "robert", player="Bob")
    assert bob.post(url("hand_create", match.pk), page, **HX).status_code == 200
    response = client_in.post(url("hand_create", match.pk), page, **HX)
    assert response.status_code == 200
    assert notice_of(response.content.decode()).strip() == (
        "<p><strong>Bob saved this same hand a moment ago.</strong></p>"
    )
    plain = client_in.post(url("hand_create", match.pk), page, follow=True)  # without htmx
    assert "Bob saved this same hand a moment ago." in plain.content.decode()
    # The phone that saved it, tapping again or resending, hears nothing of another phone.
    again = bob.post(url("hand_create", match.pk), page, **HX).content.decode()
    assert "saved this same hand" not in again
    assert Match.objects.get(pk=match.pk).game_hands() == [CLUB]


def test_a_409_and_saved_by_name_the_player_the_member_said_they_are(client_in, user):
    match = make_match(user)
    stale = drawn(match, ORDERED_POST)
    bob = scorer(match, "robert", player="Bob")
    bob.post(url("hand_create", match.pk), drawn(match, CLUB_POST), **HX)
    html = client_in.post(url("hand_create", match.pk), stale, **HX).content.decode()
    assert "Hand 1 was saved by Bob on another phone." in html
    assert "Saved by Bob" in entry(conflict_of(html), "stored")
    assert "saved by Bob" in client_in.get(match.get_absolute_url()).content.decode()
    assert "robert" not in html
    # Said nobody: the account's name.
    Membership.objects.filter(user__username="robert").update(player=None)
    bob.post(url("hand_create", match.pk), drawn(match, CLUB_POST, number="2"), **HX)
    html = client_in.post(url("hand_create", match.pk), stale, **HX).content.decode()
    assert "Hands 1 and 2 were saved by robert on another phone." in html


def test_keep_theirs_stores_nothing_and_shows_the_board_as_it_is(client_in, user):
    match = make_match(user)
    stale = drawn(match, ORDERED_POST)
    bob = scorer(match, "robert", player="Bob")
    bob.post(url("hand_create", match.pk), drawn(match, CLUB_POST), **HX)
    html = client_in.post(url("hand_create", match.pk), stale, **HX).content.decode()
    # Keep theirs: the large button, a plain GET of the board (htmx swaps it in).
    keep = r'<form method="get" action="([^"]+)" hx-get="\1"[^>]*>\s*'
    keep += r'<button class="primary big keep-theirs">'
    found = re.search(keep + "Keep theirs</button>", conflict_of(html))
    assert found and found.group(1) == match.get_absolute_url()
    board = client_in.get(found.group(1), **HX)
    page = board.content.decode()
    assert board.status_code == 200 and 'id="conflict"' not in page
    assert 'id="hand-form"' in page and 'name="number" value="2"' in page
    assert Match.objects.get(pk=match.pk).game_hands() == [CLUB]
    assert Match.objects.get(pk=match.pk).version == 1


def test_mine_is_the_next_hand_shows_its_preview_first_then_saves_it_as_the_next(client_in, user):
    match = make_match(user)
    stale = drawn(match, ORDERED_POST)
    bob = scorer(match, "robert", player="Bob")
    bob.post(url("hand_create", match.pk), drawn(match, CLUB_POST), **HX)
    for headers in (HX, {}):
        html = client_in.post(url("hand_create", match.pk), stale, **headers).content.decode()
        mine = re.search(r'<form id="mine-next"[^>]*action="([^"]+)"', html).group(1)
        sent = {**hidden_inputs(html, "mine-next")}
        sent["dropped"] = ["Cat"]
        preview = client_in.post(mine, sent, **headers)
        page = preview.content.decode()
        assert preview.status_code == 200 and Match.objects.get(pk=match.pk).hands_played == 1
        # The typed hand, now as hand 2 under the next dealer, with its score changes.
        assert 'name="number" value="2"' in page and "Save hand 2" in page
        assert re.search(r'name="maker" value="1"[^>]*checked', page)
        assert re.search(r'name="dropped" value="Cat"[^>]*checked', page)
        assert '<ul class="preview">' in page and "<strong>Ann</strong>" in page
    save = {**hidden_inputs(page, "hand-form"), **ORDERED_POST, "number": "2"}
    assert client_in.post(url("hand_create", match.pk), save, **HX).status_code == 200
    hands = Match.objects.get(pk=match.pk).game_hands()
    assert len(hands) == 2 and hands[0] == CLUB and hands[1].maker == "Bob"


def test_a_form_sent_to_a_group_gone_meanwhile_is_answered_in_words(client_in):
    """Before its view finds the group (deleted on another phone): 404 in words, never
    Django's page, under DEBUG too; a page of it is not found."""
    sent = client_in.post("/groups/999999/balances/", {"amount": "1.00"})
    assert sent.status_code == 404
    assert "no longer here for you" in html.unescape(sent.text) and "X-Problem" in sent.headers
    assert client_in.get("/groups/999999/balances/").status_code == 404
