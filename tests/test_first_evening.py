"""What a new group meets in its first evening (#33 §3): the rules in full words on the
new-match page and the board, the cut for the deal, a match's title, and refusals that are one
line in the server's log."""

import html
import io
import logging

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from games.models import Group, Role

from .conftest import make_match
from .liveserver import PASSWORD

pytestmark = pytest.mark.django_db

NEW = reverse("games:match_create")
THREE = {"seat_0": "Ann", "seat_1": "Bob", "seat_2": "Cat", "dealer": "random"}


def text(response) -> str:
    return html.unescape(response.content.decode())


def test_a_match_started_at_8_is_titled_so_on_its_board_and_its_card(client_in, user):
    match = make_match(user, "three-15", ("Ann", "Bob", "Cat"), "Cat", starting_score=8)
    board = text(client_in.get(match.get_absolute_url()))
    assert "<h1>3 players to 8</h1>" in board and "<title>3 players to 8 · " in board
    assert "3 players to 8 · " in text(client_in.get(reverse("games:home")))
    standard = make_match(user, starting_score=15)
    assert standard.label == "Standard to 15"
    assert make_match(user).label == "Standard"


def test_the_new_match_page_offers_the_cut_beside_the_jack_and_the_low_card_deals(client_in):
    page = text(client_in.get(NEW))
    assert "Cut for the deal" in page and "Deal for the first Jack" in page
    response = client_in.post(NEW, {**THREE, "preset": "three-15", "cut": "1"})
    said = text(response)
    assert response.status_code == 200 and 'aria-label="Cards cut"' in said
    assert "cut the low card and deals first." in said
    assert "Start the match" in said  # nothing was started


def test_a_cut_before_the_rules_fit_the_seats_says_nothing_wrong_until_start(client_in):
    # Three names under a four-player preset: no complaint on a cut, only once Start is tapped.
    cut = text(client_in.post(NEW, {**THREE, "preset": "standard", "cut": "1"}))
    assert "These rules are for 4 players" not in cut
    started = text(client_in.post(NEW, {**THREE, "preset": "standard", "create": "1"}))
    assert "These rules are for 4 players" in started


@pytest.mark.parametrize(
    "preset, present, absent",
    [
        (
            "standard",
            ["first Jack", "lowest card deals", "widow"],
            ["a redeal included", "card swap", "house's choice"],
        ),
        ("dirty-clubs", ["a redeal included", "The card swap"], ["house's choice"]),
        ("three-15", ["with three players too", "+5 is the house's choice"], ["The card swap"]),
    ],
)
def test_the_rules_in_full_say_only_what_is_true_of_the_preset_chosen(
    client_in, preset, present, absent
):
    response = client_in.post(NEW, {"preset": preset}, HTTP_HX_REQUEST="true")
    said = text(response)
    for words in present:
        assert words in said
    for words in absent:
        assert words not in said
    assert "fell short" not in said  # no stake counts it


def test_the_board_says_the_rules_of_its_match_in_full(client_in, user):
    match = make_match(user, "three-15", ("Ann", "Bob", "Cat"), "Cat")
    said = text(client_in.get(match.get_absolute_url()))
    assert "a redeal included" in said and "+5 is the house's choice" in said
    assert "The first dealer" in said


@pytest.fixture
def log():
    """What the server writes to its log (the stderr handler of settings.LOGGING)."""
    handler = next(h for h in logging.getLogger("django").handlers if h.name == "stderr")
    stream = io.StringIO()
    old = handler.setStream(stream)
    yield stream
    handler.setStream(old)


def test_a_refusal_is_one_line_in_the_log_not_a_traceback(client, user, log):
    match = make_match(user)
    viewer = get_user_model().objects.create_user("val", password=PASSWORD)
    Group.home(user).join(viewer, Role.VIEWER)
    client.force_login(viewer)
    save = reverse("games:hand_create", args=[match.pk])
    assert client.post(save, {"number": 1, "version": 0, "upcard": "clubs"}).status_code == 403
    assert client.get(reverse("games:match_detail", args=[match.pk + 99])).status_code == 404
    written = log.getvalue()
    assert "Forbidden (Permission denied)" in written and "Not Found" in written
    assert "Traceback" not in written and len(written.strip().splitlines()) == 2
