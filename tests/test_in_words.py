"""Bad input answered in words, never a bare redraw or a 500 (#43 §2): the admin's odd options,
a crafted new match, a hand's fault located once, the balances CSV past the search, and names
that hide or turn text around."""

import csv
import html
import io
import json
from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from games import matchfile, rules
from games.forms import CURRENCY_WORDS, PICK_PRESET
from games.models import Group, Match, Player, create_match
from games.rules import Hand as GameHand
from games.words import NOT_FEWEST

from .conftest import command, make_match, url
from .matches import EXAMPLE, MONDAY, NEW_MATCH

pytestmark = pytest.mark.django_db

STAKES = rules.Stakes(per_game=100, per_point=10)
TABLE = ("Ann", "Bob", "Cat", "Dan")


def upload(name: str, doc: object) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, json.dumps(doc).encode(), content_type="application/json")


def page_text(response) -> str:
    return html.unescape(response.content.decode())


# --- The admin's options -------------------------------------------------------------------


def _admin_post(match: Match, options: str) -> dict:
    seats = list(match.seats.order_by("position"))
    rows = [
        {"id": s.pk, "match": match.pk, "player": s.player_id, "position": s.position}
        for s in seats
    ]
    data = {
        "group": match.group_id,
        "preset": "standard",
        "options": options,
        "per_game_cents": "0",
        "per_point_cents": "0",
        "per_set_cents": "0",
        "currency": "USD",
        "night": str(match.night_id),
        "first_dealer": "3",
        "version": str(match.version),
        "share_token": match.share_token,
        "played_at_0": "2026-11-28",
        "played_at_1": "19:30:00",
        "seats-TOTAL_FORMS": str(len(rows)),
        "seats-INITIAL_FORMS": str(len(rows)),
        "seats-MIN_NUM_FORMS": "0",
        "seats-MAX_NUM_FORMS": "1000",
    }
    for i, row in enumerate(rows):
        data |= {f"seats-{i}-{key}": value for key, value in row.items()}
    return data


@pytest.mark.parametrize("options", ['"x"', "[1, 2]", "3", '"{}"'])
def test_the_admins_options_that_are_not_names_and_values_are_refused_in_words(
    client, django_user_model, user, options
):
    client.force_login(django_user_model.objects.create_superuser("boss", password="x-42-y-42"))
    match = make_match(user)
    change = reverse("admin:games_match_change", args=[match.pk])
    response = client.post(change, _admin_post(match, options))
    assert response.status_code == 200  # the form again, with its words: no 500, no save
    assert rules.OPTIONS_WORDS in page_text(response)
    assert Match.objects.get(pk=match.pk).options == match.options
    good = client.post(change, _admin_post(match, '{"starting_score": 15}'))
    assert good.status_code == 302 and Match.objects.get(pk=match.pk).ruleset().starting_score == 15


def test_a_match_whose_options_are_a_string_is_refused_by_its_clean(user):
    match = make_match(user)
    match.options = "x"
    with pytest.raises(ValidationError) as refused:
        match.full_clean()
    assert refused.value.message_dict == {"options": [rules.OPTIONS_WORDS]}


# --- The new-match form, crafted -------------------------------------------------------------


@pytest.mark.parametrize("htmx", [False, True])
def test_a_currency_too_long_for_its_column_is_refused_in_words(client_in, htmx):
    data = {**NEW_MATCH, "create": "1", "per_game": "1.00", "currency": "Q" * 17}
    headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    response = client_in.post(url("match_create"), data, **headers)
    assert response.status_code == 200 and CURRENCY_WORDS in page_text(response)
    assert not Match.objects.exists()
    data["currency"] = "Q" * 16
    assert client_in.post(url("match_create"), data).status_code == 302


def test_a_currency_that_hides_text_is_refused_in_words(client_in):
    data = {**NEW_MATCH, "create": "1", "per_game": "1.00", "currency": "US\u202eD"}
    response = client_in.post(url("match_create"), data)
    assert CURRENCY_WORDS in page_text(response) and not Match.objects.exists()


@pytest.mark.parametrize("preset", ["no-such-rules", "", "x" * 500])
def test_an_unknown_preset_is_refused_in_words(client_in, preset):
    data = {**NEW_MATCH, "create": "1", "preset": preset}
    response = client_in.post(url("match_create"), data)
    assert response.status_code == 200 and PICK_PRESET in page_text(response)
    assert not Match.objects.exists()


# --- A hand's fault, located once ------------------------------------------------------------


@pytest.mark.parametrize(
    "hand, said",
    [
        ({"upcard": "clubs", "moon": "yes", "tricks": {}}, "moon must be true or false."),
        ("clubs", "A hand must be an object."),
        ({"upcard": "clubs", "passed": 1}, "passed must be true or false."),
        ({"upcard": "clubs", "passed": True, "maker": "Ann"}, "so it can't have 'maker'"),
        ({"upcard": "clubs", "tricks": {}, "x": 1}, "The hand has an unknown key 'x'."),
        ({"upcard": "clubs"}, "The hand is missing the key 'tricks'."),
        ({"upcard": "stars", "tricks": {}}, "The upcard must be one of"),
        ({"upcard": "clubs", "trump": "stars", "tricks": {}}, 'trump must be a suit or "none".'),
        ({"upcard": "clubs", "maker": 3, "tricks": {}}, "maker must be a name."),
        ({"upcard": "clubs", "tricks": []}, "tricks must map each player"),
        ({"upcard": "clubs", "dropped": "Ann", "tricks": {}}, "dropped must be a list of names."),
    ],
)
def test_a_hands_fault_is_said_once_led_by_its_number(hand, said):
    doc = {**EXAMPLE, "hands": [EXAMPLE["hands"][0], hand]}
    with pytest.raises(rules.RuleError) as refused:
        matchfile.load(json.dumps(doc))
    located = refused.value.located()
    assert located.startswith("Hand 2: ") and said in located
    assert located.count("Hand 2") == 1, located


def test_an_import_says_which_hand_once(client_in, files):
    doc = {**EXAMPLE, "hands": [EXAMPLE["hands"][0], {**EXAMPLE["hands"][1], "moon": "yes"}]}
    page = page_text(
        client_in.post(url("match_import"), {"file": upload("m.json", doc)}, follow=True)
    )
    assert "m.json: Nothing was imported. Hand 2: moon must be true or false." in page
    assert "Hand 2: Hand 2" not in page and not Match.objects.exists()
    [path] = files(doc)
    code, _, err = command("import_match", path)
    assert code == 1 and "Hand 2: moon must be true or false. (bad_file)" in err


# --- The balances CSV past the search ----------------------------------------------------------


def test_the_balances_csv_past_the_search_says_fewer_payments_may_be_possible(client_in, user):
    group = Group.home(user)
    for m in range(6):  # 24 owing or owed: past the exact search
        ann, bob, cat, dan = names = tuple(f"{n}{m}" for n in TABLE)
        sweep = GameHand("hearts", "hearts", bob, None, (ann, cat, dan), {bob: 5})
        create_match(
            group,
            "standard",
            rules.make_ruleset("standard"),
            STAKES,
            names,
            dan,
            [sweep],
            MONDAY + timedelta(minutes=30 * m),
        )
    response = client_in.get(url("balances_csv", group.pk))
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert [r["player"] for r in rows if r["row"] == "note"] == [NOT_FEWEST]
    assert rows[-1]["row"] == "note"  # after the payments it speaks of, as on the night's CSV
    night = Match.objects.first().night
    night_rows = list(
        csv.DictReader(io.StringIO(client_in.get(url("night_csv", night.pk)).content.decode()))
    )
    assert [r for r in rows if r["row"] == "note"] == [r for r in night_rows if r["row"] == "note"]


def test_the_balances_csv_within_the_search_has_no_note(client_in, user):
    sweep = GameHand("hearts", "hearts", "Bob", None, ("Ann", "Cat", "Dan"), {"Bob": 5})
    make_match(user, hands=[sweep], stakes=STAKES)
    response = client_in.get(url("balances_csv", Group.home(user).pk))
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert rows and not [r for r in rows if r["row"] == "note"]


# --- Names that hide text or turn it around ------------------------------------------------------

HIDDEN = [
    "\u202a",  # left-to-right embedding
    "\u202b",
    "\u202c",
    "\u202d",
    "\u202e",  # right-to-left override
    "\u2066",  # left-to-right isolate
    "\u2067",
    "\u2068",
    "\u2069",
    "\u200b",  # zero-width space
    "\u200c",
    "\u200d",
    "\u200e",  # left-to-right mark
    "\u200f",
    "\u2060",  # word joiner
    "\ufeff",  # byte-order mark
    "\u061c",  # Arabic letter mark
    "\u00ad",  # soft hyphen
    "\u2028",  # line separator
    "\u3164",  # Hangul filler
]


@pytest.mark.parametrize("mark", HIDDEN, ids=[f"U+{ord(c):04X}" for c in HIDDEN])
def test_the_rules_refuse_a_name_with_a_hidden_or_turning_mark(mark):
    assert not rules.plain_text(f"Bo{mark}b")
    with pytest.raises(rules.RuleError, match="no invisible mark"):
        table = ["Ann", f"Bo{mark}b", "Cat", "Dan"]
        rules.check_table(rules.make_ruleset("standard"), table, "Dan")


@pytest.mark.parametrize("name", ["Zoë", "Ñandú", "李雷", "O'Neil-Smith", "Ann 🃏", "עדי", "سارا"])
def test_names_of_every_script_stay_welcome(name):
    assert rules.plain_text(name)


RLO = "Bo\u202eb"


def test_a_new_match_with_a_hidden_mark_in_a_seat_is_refused_in_words(client_in):
    response = client_in.post(url("match_create"), {**NEW_MATCH, "create": "1", "seat_1": RLO})
    assert rules.PLAIN_NAME in page_text(response)
    assert not Match.objects.exists() and not Player.objects.exists()


def test_an_import_with_a_hidden_mark_in_a_name_is_refused_in_words(client_in, files):
    doc = json.loads(json.dumps(EXAMPLE).replace('"Bob"', json.dumps(RLO)))
    page = page_text(
        client_in.post(url("match_import"), {"file": upload("m.json", doc)}, follow=True)
    )
    assert f"m.json: Nothing was imported. {rules.PLAIN_NAME}" in page
    [path] = files(doc)
    code, _, err = command("import_match", path)
    assert code == 1 and rules.PLAIN_NAME in err
    assert not Match.objects.exists() and not Player.objects.filter(name=RLO).exists()


def test_a_rename_with_a_hidden_mark_is_refused_in_words(client_in, user):
    make_match(user)
    bob = Player.objects.get(name="Bob")
    response = client_in.post(url("player_rename", bob.pk), {"name": "\u2067Bob\u2069"})
    assert rules.PLAIN_NAME in page_text(response)
    assert Player.objects.get(pk=bob.pk).name == "Bob"


def test_a_group_named_with_a_hidden_mark_is_refused_in_words(client_in, user):
    response = client_in.post(url("group_create"), {"name": "Tuesday\u200b"})
    assert rules.PLAIN_NAME in page_text(response)
    assert not Group.objects.filter(name__startswith="Tuesday").exists()
    group = Group.home(user)
    response = client_in.post(url("group_rename", group.pk), {"name": "\ufeffAnn's"})
    assert rules.PLAIN_NAME in page_text(response)
    assert Group.objects.get(pk=group.pk).name == group.name


def test_a_table_named_at_sign_up_with_a_hidden_mark_is_refused_in_words(client):
    data = {
        "username": "zed",
        "table": "Zed\u202es table",
        "password1": "a-long-pass-42",
        "password2": "a-long-pass-42",
    }
    response = client.post(url("signup"), data)
    assert rules.PLAIN_NAME in page_text(response)
    assert not Group.objects.exists()


def test_the_admin_refuses_a_hidden_mark_in_a_player_or_group_name(client, django_user_model, user):
    client.force_login(django_user_model.objects.create_superuser("boss", password="x-42-y-42"))
    group = Group.home(user)
    page = client.post(reverse("admin:games_player_add"), {"group": group.pk, "name": "Ev\u200de"})
    assert rules.PLAIN_NAME in page_text(page) and not Player.objects.exists()
    change = reverse("admin:games_group_change", args=[group.pk])
    page = client.post(change, {"name": "\u2066x\u2069", "version": group.version})
    assert rules.PLAIN_NAME in page_text(page)
    assert Group.objects.get(pk=group.pk).name == group.name
