"""Groups: members, roles on every URL, invitations, several scorers and the change log."""

import html
import re
from datetime import timedelta
from urllib.parse import unquote

import pytest
from django.contrib.auth import get_user_model
from django.core.management.base import CommandError
from django.utils import timezone

from games.models import Change, Group, Hand, Invite, Match, Membership, Player, Role, move_match
from games.rules import Hand as GameHand

from .conftest import command, make_match, url
from .liveserver import PASSWORD
from .matches import CLUB_HAND as CLUB
from .matches import EXAMPLE, ORDERED_POST
from .stored import assert_results_are_a_replay

pytestmark = pytest.mark.django_db

SWEEP_BY_ANN = GameHand("clubs", tricks={"Ann": 5, "Bob": 0, "Cat": 0, "Dan": 0})
HEARTS = {**ORDERED_POST, "number": "2"}


def role_of(group: Group, user) -> Role | None:
    """The user's role in the group; None for anyone else."""
    role = group.memberships.filter(user=user.pk).values_list("role", flat=True).first()
    return None if role is None else Role(role)


def member(group, username, role):
    user = get_user_model().objects.create_user(username, password=PASSWORD)
    group.join(user, role)
    return user


@pytest.fixture
def table(user):
    """Ann's group with a match of one hand, a scorer Bob, a viewer Val and a stranger Eve."""
    group = Group.home(user)
    match = make_match(group, hands=[CLUB], stakes=None)
    return {
        "group": group,
        "match": match,
        "owner": user,
        "scorer": member(group, "bob", Role.SCORER),
        "viewer": member(group, "val", Role.VIEWER),
        "stranger": get_user_model().objects.create_user("eve", password=PASSWORD),
    }


def text(response) -> str:
    return html.unescape(response.content.decode())


def as_(client, user):
    client.force_login(user)
    return client


def drawn(match, **data):
    match.refresh_from_db()
    return {**data, "version": str(match.version)}


# --- Every account has a group --------------------------------------------------------------


def test_sign_up_gives_the_account_a_table_of_its_own_named_as_a_person_would(client):
    form = client.get(url("signup")).content.decode()
    assert 'name="table"' in form and "Name of your table" in form
    client.post(
        url("signup"),
        {"username": "zoe", "password1": "a-long-pass-42", "password2": "a-long-pass-42"},
    )
    group = Group.objects.get(home_of__username="zoe")
    assert group.name == "Zoe's table" and role_of(group, group.home_of) == Role.OWNER
    page = client.get(url("home")).content.decode()
    assert "New match" in page and "group-switch" not in page  # one group: no switch
    # The bar's words keep their space: never "zoe· members".
    assert '<span>Zoe&#x27;s table</span> <span class="muted">· members' in page
    me = client.get(url("me")).content.decode()
    assert "Which player are you at Zoe&#x27;s table?" in me


def test_the_table_named_at_sign_up_is_the_groups_name_and_can_be_renamed(client):
    client.post(
        url("signup"),
        {
            "username": "yan",
            "table": "  Friday   cards ",
            "password1": "a-long-pass-42",
            "password2": "a-long-pass-42",
        },
    )
    group = Group.objects.get(home_of__username="yan")
    assert group.name == "Friday cards"
    client.post(url("group_rename", group.pk), {"name": "Yan's table"})
    group.refresh_from_db()
    assert group.name == "Yan's table"
    assert "Which player are you at Yan's table?" in text(client.get(url("me")))


def test_a_group_name_refused_stays_in_its_box_as_typed(client_in, user):
    group = Group.home(user)
    typed = "The Monday night euchre club at the lake house, everyone welcome"
    response = client_in.post(url("group_rename", group.pk), {"name": typed})
    box = re.search(r'<input type="text" name="name"[^>]*>', text(response)).group()
    assert f'value="{typed}"' in box and 'aria-invalid="true"' in box
    assert 'aria-describedby="id_name_error"' in box
    assert '<div id="id_name_error"><p class="error">Keep the name to 60 letters.</p>' in text(
        response
    )
    assert Group.objects.get(pk=group.pk).name == group.name


def test_a_table_name_with_a_control_character_is_refused_and_no_account_made(client):
    response = client.post(
        url("signup"),
        {
            "username": "ned",
            "table": "a\x07b",
            "password1": "a-long-pass-42",
            "password2": "a-long-pass-42",
        },
    )
    assert response.status_code == 200 and not get_user_model().objects.filter(username="ned")


def test_a_new_group_is_owned_by_its_maker_and_listed(client_in, user):
    response = client_in.post(url("group_create"), {"name": "  Thursday   cards "})
    group = Group.objects.get(name="Thursday cards")
    assert response.status_code == 302 and response["Location"] == f"/groups/{group.pk}/"
    assert role_of(group, user) == Role.OWNER
    assert "Thursday cards" in client_in.get("/groups/").content.decode()


@pytest.mark.parametrize("name", ["", "   ", "x" * 61, "<b>Thursday</b>\x00"])
def test_a_group_name_that_does_not_fit_is_refused_in_words(client_in, name):
    response = client_in.post(url("group_create"), {"name": name})
    assert response.status_code == 200 and 'class="error"' in response.content.decode()
    assert not Group.objects.exclude(home_of__isnull=False).exists()


# --- Roles on every URL --------------------------------------------------------------------


def _reads(t):
    m, group = t["match"], t["group"]
    bob = Player.objects.get(group=group, name="Bob")
    return [
        m.get_absolute_url(),
        m.get_absolute_url() + "?hands=all",
        url("match_export", m.pk),
        url("match_race", m.pk),
        url("match_log", m.pk),
        m.night.get_absolute_url(),
        url("night_csv", m.night_id),
        bob.get_absolute_url(),
        url("player_csv", bob.pk),
        url("match_list") + f"?player={bob.pk}",
        url("group_detail", group.pk),
        url("home") + f"?group={group.pk}",
        url("match_list") + f"?group={group.pk}",
        url("night_list") + f"?group={group.pk}",
        url("player_list") + f"?group={group.pk}",
        url("match_export_all") + f"?group={group.pk}",
    ]


def _writes(t, role):
    """(path, data) of every write that needs `role`."""
    m, group = t["match"], t["group"]
    bob = Player.objects.get(group=group, name="Bob")
    scorer = [
        (url("hand_create", m.pk), drawn(m, **HEARTS)),
        (url("hand_check", m.pk), drawn(m, **HEARTS)),
        (url("hand_edit", m.pk, 1), drawn(m, number="1", upcard="clubs", t0="1", t1="2")),
        (url("hand_undo", m.pk), drawn(m, number="1")),
        (url("match_rematch", m.pk), {}),
        (url("match_share", m.pk), {}),
        (url("match_move", m.pk), {"night": "new"}),
        (url("player_rename", bob.pk), {"name": "Robert"}),
        (url("match_create"), {"group": group.pk, "preset": "standard", "create": "1"}),
        (url("match_import"), {"group": group.pk}),
        (url("night_paid", m.night_id), {"key": "x", "fingerprint": "y", "paid": "1"}),
    ]
    owner = [
        (url("match_delete", m.pk), {}),
        (url("invite_create", group.pk), {"role": "scorer"}),
        (url("group_members", group.pk), {"username": "val", "role": "scorer"}),
        (url("group_rename", group.pk), {"name": "Renamed"}),
        (url("group_delete", group.pk), {}),
    ]
    return scorer + owner if role == Role.SCORER else owner


def _snapshot(t):
    m = Match.objects.get(pk=t["match"].pk)
    return (
        m.version,
        m.share_token,
        m.night_id,
        Match.objects.count(),
        sorted(Player.objects.values_list("name", flat=True)),
        Group.objects.get(pk=t["group"].pk).name,
        Invite.objects.count(),
        sorted(Membership.objects.values_list("user__username", "role")),
    )


def test_a_stranger_finds_nothing_of_the_group_on_any_url(client, table):
    as_(client, table["stranger"])
    before = _snapshot(table)
    for path in _reads(table):
        assert client.get(path).status_code == 404, path
    for path, data in _writes(table, Role.SCORER):
        assert client.post(path, data).status_code == 404, path
    assert _snapshot(table) == before


def test_a_viewer_sees_every_page_and_changes_nothing(client, table):
    as_(client, table["viewer"])
    for path in _reads(table):
        assert client.get(path).status_code == 200, path
    board = client.get(table["match"].get_absolute_url()).content.decode()
    assert 'name="upcard"' not in board and "Undo hand" not in board and "Delete…" not in board
    before = _snapshot(table)
    for path, data in _writes(table, Role.SCORER):
        response = client.post(path, data)
        assert response.status_code == 403, path
        words = text(response)
        assert "Viewers can't change the scores. Ask ann to make you a scorer." in words or (
            "Only an owner of the group can do that. Ask ann to make you an owner." in words
        ), path
    assert _snapshot(table) == before


def test_a_scorer_keeps_score_but_does_not_run_the_group(client, table):
    as_(client, table["scorer"])
    before = _snapshot(table)
    for path, data in _writes(table, Role.OWNER):
        response = client.post(path, data)
        assert response.status_code == 403 and "Only an owner" in response.content.decode()
    assert _snapshot(table) == before
    match = table["match"]
    assert client.post(url("hand_create", match.pk), drawn(match, **HEARTS)).status_code == 302
    assert match.hands.count() == 2


def test_signed_out_every_page_of_the_group_asks_for_a_log_in(client, table):
    for path in _reads(table):
        response = client.get(path)
        assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")


# --- Invitations ----------------------------------------------------------------------------


def test_an_owner_invites_by_a_link_that_signs_up_a_friend_as_a_scorer(client, user):
    group = Group.objects.create(name="Thursday")
    group.join(user, Role.OWNER)
    as_(client, user)
    page = client.post(url("invite_create", group.pk), {"role": "scorer"}, follow=True)
    html = page.content.decode()
    token = Invite.objects.get().token
    assert f'href="http://testserver/join/{token}/"' in html and "<svg" in html
    client.logout()
    join_page = client.get(f"/join/{token}/").content.decode()
    assert "Thursday" in join_page and "scorer" in join_page
    assert f"/signup/?next=/join/{token}/" in join_page
    assert f'<form method="post" action="/join/{token}/"' in join_page
    to_log_in = client.post(f"/join/{token}/")
    assert to_log_in["Location"] == f"/accounts/login/?next=/join/{token}/"
    signup = client.get(f"/signup/?next=/join/{token}/").content.decode()
    assert "you are in <strong>Thursday</strong> at once" in signup
    assert 'name="table"' not in signup  # their own table is named for them
    response = client.post(
        f"/signup/?next=/join/{token}/",
        {
            "username": "cat",
            "password1": "a-long-pass-42",
            "password2": "a-long-pass-42",
            "next": f"/join/{token}/",
        },
    )
    # Signed up from the invitation: in the group at once, with no second tap on Join.
    assert response.status_code == 302 and response["Location"] == f"/groups/{group.pk}/"
    cat = get_user_model().objects.get(username="cat")
    assert role_of(group, cat) == Role.SCORER
    page = client.get(response["Location"]).content.decode()
    assert "Welcome to Thursday." in page
    assert "in this group already" in client.get(f"/join/{token}/").content.decode()
    client.post(f"/join/{token}/")  # twice: nothing changes
    assert group.memberships.filter(user=cat).count() == 1


def test_joining_keeps_the_role_a_member_has(client, table):
    invite = Invite.objects.create(group=table["group"], role=Role.VIEWER)
    as_(client, table["scorer"]).post(invite.get_absolute_url())
    assert role_of(table["group"], table["scorer"]) == Role.SCORER


def test_an_expired_withdrawn_or_unknown_invitation_says_so(client, table):
    old = Invite.objects.create(group=table["group"], role=Role.SCORER)
    Invite.objects.filter(pk=old.pk).update(created=timezone.now() - timedelta(days=8))
    gone = Invite.objects.create(group=table["group"], role=Role.SCORER)
    as_(client, table["owner"]).post(url("invite_withdraw", table["group"].pk, gone.pk))
    as_(client, table["stranger"])
    for token in (old.token, gone.token, "nothing-like-it"):
        for response in (client.get(f"/join/{token}/"), client.post(f"/join/{token}/")):
            assert response.status_code == 404
            assert "This invitation doesn't work" in text(response)
    assert role_of(table["group"], table["stranger"]) is None


def test_an_invitation_is_for_a_scorer_or_a_viewer_only(client, table):
    as_(client, table["owner"])
    for role in ("owner", "admin", ""):
        response = client.post(url("invite_create", table["group"].pk), {"role": role})
        assert response.status_code == 200 and "Invite as a scorer or as a viewer." in text(
            response
        )
    assert not Invite.objects.exists()


# --- Members --------------------------------------------------------------------------------


def test_a_removed_member_finds_nothing_at_the_next_request(client, table):
    viewer = Client = as_(client, table["viewer"])
    assert viewer.get(table["match"].get_absolute_url()).status_code == 200
    table["group"].set_role(table["viewer"], None)
    assert Client.get(table["match"].get_absolute_url()).status_code == 404


def test_a_board_left_open_by_a_removed_member_says_why_it_stopped(client, table):
    viewer = as_(client, table["viewer"])
    board = table["match"].get_absolute_url()
    table["group"].set_role(table["viewer"], None)
    poll = viewer.get(board, {"v": table["match"].version, "n": 1}, HTTP_HX_REQUEST="true")
    assert poll.status_code == 404
    assert unquote(poll["X-Problem"]).startswith("This match or page is no longer here for you")
    assert "ask one of its owners for a new invitation" in text(poll)


def test_a_board_left_open_by_a_member_an_owner_removed_clears_and_stops_asking(client, table):
    viewer = as_(client, table["viewer"])
    board = table["match"].get_absolute_url()
    table["group"].remove(table["viewer"])
    poll = viewer.get(board, {"v": table["match"].version, "n": 1}, HTTP_HX_REQUEST="true")
    # 286: htmx stops polling; the page's main takes the words, with no form left on it.
    assert poll.status_code == 286
    assert poll["HX-Retarget"] == "#main" and poll["HX-Reswap"].startswith("innerHTML")
    said = text(poll)
    assert "You are no longer in this group." in said and "Ann's table" in said
    assert "<form" not in said and "data-poll" not in said
    page = viewer.get(board)  # the page opened anew says it too
    assert page.status_code == 404 and "You are no longer in this group." in text(page)


def test_a_stranger_polling_a_match_finds_nothing(client, table):
    poll = as_(client, table["stranger"]).get(
        table["match"].get_absolute_url(), {"v": 0, "n": 1}, HTTP_HX_REQUEST="true"
    )
    assert poll.status_code == 404 and "no longer in this group" not in text(poll)


def test_removing_a_member_renews_the_unfinished_matches_share_links_by_default(client, table):
    as_(client, table["owner"])
    group, match = table["group"], table["match"]
    won = make_match(group, hands=[SWEEP_BY_ANN], stakes=None)
    page = text(client.get(group.get_absolute_url()))
    assert 'name="links" value="renew" checked' in page
    old, old_won = match.share_token, won.share_token
    assert client.get(match.get_share_url()).status_code == 200
    response = client.post(
        url("group_members", group.pk),
        {"username": "val", "role": "remove", "links": ["keep", "renew"]},
        follow=True,
    )
    assert "the old ones no longer work" in text(response)
    match.refresh_from_db()
    won.refresh_from_db()
    assert match.share_token != old and won.share_token == old_won  # a finished match keeps its
    assert client.get(f"/s/{old}/").status_code == 404
    assert client.get(match.get_share_url()).status_code == 200


def test_an_owner_may_keep_the_share_links_when_removing_a_member(client, table):
    as_(client, table["owner"])
    old = table["match"].share_token
    client.post(
        url("group_members", table["group"].pk),
        {"username": "val", "role": "remove", "links": "keep"},
    )
    table["match"].refresh_from_db()
    assert role_of(table["group"], table["viewer"]) is None and table["match"].share_token == old


def test_an_owner_changes_roles_and_removes_members(client, table):
    as_(client, table["owner"])
    members = url("group_members", table["group"].pk)
    client.post(members, {"username": "val", "role": "scorer"})
    assert role_of(table["group"], table["viewer"]) == Role.SCORER
    client.post(members, {"username": "bob", "role": "remove"})
    assert role_of(table["group"], table["scorer"]) is None


@pytest.mark.parametrize(
    "data, words",
    [
        ({"username": "eve", "role": "scorer"}, "eve is not in Ann's table."),
        ({"username": "nobody", "role": "viewer"}, "nobody is not in Ann's table."),
        ({"username": "bob", "role": "king"}, "Choose owner, scorer, viewer or remove."),
        ({"username": "ann", "role": "viewer"}, "ann is the only owner of Ann's table"),
        ({"username": "ann", "role": "remove"}, "ann is the only owner of Ann's table"),
        ({"role": "viewer"}, "This field is required."),
    ],
)
def test_a_role_change_that_cannot_be_is_refused_in_words(client, table, data, words):
    before = _snapshot(table)
    response = as_(client, table["owner"]).post(url("group_members", table["group"].pk), data)
    assert response.status_code == 200 and words in text(response)
    assert _snapshot(table) == before


def test_the_last_owner_cannot_leave_but_others_can(client, table):
    response = as_(client, table["owner"]).post(url("group_leave", table["group"].pk))
    assert "ann is the only owner of Ann's table" in text(response)
    as_(client, table["scorer"]).post(url("group_leave", table["group"].pk))
    assert role_of(table["group"], table["scorer"]) is None
    assert client.get(table["match"].get_absolute_url()).status_code == 404


def test_an_account_that_is_the_last_owner_of_a_shared_group_is_not_deleted(client, table):
    assert "You are the only owner of" in text(
        as_(client, table["owner"]).get(url("account_delete"))
    )
    response = client.post(url("account_delete"))
    assert response.status_code == 409
    assert "ann is the only owner of Ann's table, and others are in it" in text(response)
    assert "Nothing was deleted." in text(response)
    assert get_user_model().objects.filter(username="ann").exists()
    table["group"].set_role(table["scorer"], Role.OWNER)
    own = Group.objects.create(name="Just me")
    own.join(table["owner"], Role.OWNER)
    make_match(own)
    client.post(url("account_delete"))
    assert not get_user_model().objects.filter(username="ann").exists()
    assert not Group.objects.filter(name="Just me").exists()  # nobody else was in it
    assert Match.objects.filter(pk=table["match"].pk).exists()  # the shared group keeps it


# --- One group at a time --------------------------------------------------------------------


def test_the_picked_group_stays_picked_in_this_browser(client, table):
    other = Group.objects.create(name="The cabin")
    other.join(table["scorer"], Role.OWNER)
    make_match(other, names=("Zed", "Yan", "Xia", "Wes"), dealer="Zed")
    as_(client, table["scorer"])
    home = client.get(url("home")).content.decode()
    assert "group-switch" in home  # two groups: a switch
    cabin = client.get(url("home") + f"?group={other.pk}").content.decode()
    assert "Zed" in cabin and "Dan" not in cabin
    assert "Zed" in client.get(url("match_list")).content.decode()
    players = client.get(url("player_list")).content.decode()
    assert "Xia" in players and "Dan" not in players
    assert client.get(url("home") + f"?group={table['group'].pk}").status_code == 200
    assert "Dan" in client.get(url("player_list")).content.decode()
    assert client.get(url("home") + "?group=99999").status_code == 404
    assert client.get(url("home") + "?group=abc").status_code == 404


def test_a_new_match_goes_into_the_group_the_form_names(client, table):
    other = Group.objects.create(name="The cabin")
    other.join(table["scorer"], Role.SCORER)
    as_(client, table["scorer"])
    new = {
        "preset": "standard",
        "seat_0": "Ann",
        "seat_1": "Bob",
        "seat_2": "Cat",
        "seat_3": "Dan",
        "dealer": "0",
        "create": "1",
    }
    client.post(url("match_create"), {**new, "group": other.pk})
    assert Match.objects.filter(group=other).count() == 1
    stranger_group = Group.home(table["stranger"])
    assert client.post(url("match_create"), {**new, "group": stranger_group.pk}).status_code == 404
    assert client.post(url("match_create"), {**new, "group": "x"}).status_code == 404
    viewer_group = Group.objects.create(name="Watching")
    viewer_group.join(table["scorer"], Role.VIEWER)
    assert client.post(url("match_create"), {**new, "group": viewer_group.pk}).status_code == 403
    assert not Match.objects.filter(group__in=[stranger_group, viewer_group]).exists()


def test_this_is_me_marks_the_member_s_player(client, table):
    bob = Player.objects.get(group=table["group"], name="Bob")
    response = as_(client, table["scorer"]).post(
        url("group_me", table["group"].pk), {"player": bob.pk}
    )
    # Back to the group's page, where saying so lets them say how they like to be paid.
    assert response["Location"] == url("group_detail", table["group"].pk) + "#pay-title"
    page = text(client.get(response["Location"]))
    assert "You are Bob in Ann's table." in page and "How you like to be paid" in page
    players = client.get(url("player_list") + f"?group={table['group'].pk}")
    assert 'Bob <span class="badge win">You</span>' in players.content.decode()
    response = as_(client, table["viewer"]).post(
        url("group_me", table["group"].pk), {"player": bob.pk}
    )
    assert "bob has said they are Bob." in response.content.decode()
    as_(client, table["scorer"]).post(url("group_me", table["group"].pk), {"player": ""})
    assert Membership.objects.get(user=table["scorer"]).player is None


# --- Several scorers, and who changed what ---------------------------------------------------


def test_a_stale_save_names_who_saved_the_hand(client, table):
    match = table["match"]
    page = drawn(match, **HEARTS)
    as_(client, table["scorer"]).post(url("hand_create", match.pk), page)
    response = as_(client, table["owner"]).post(
        url("hand_create", match.pk), {**page, "t1": "2", "t3": "3"}
    )
    assert response.status_code == 409
    assert "Hand 2 was saved by bob on another phone." in response.content.decode()


def test_the_change_log_lists_every_write_with_who_and_what(client, table):
    match = table["match"]
    as_(client, table["scorer"]).post(url("hand_create", match.pk), drawn(match, **HEARTS))
    edit = drawn(match, **{**HEARTS, "t1": "2", "t3": "3"})
    board = as_(client, table["owner"]).post(url("hand_edit", match.pk, 2), edit, follow=True)
    board = board.content.decode()
    assert "Hand 2 changed." in board  # the last hand: no later hand to score again
    assert "changed by ann at" in board
    client.post(url("hand_undo", match.pk), drawn(match, number="2"))
    log = html.unescape(
        as_(client, table["viewer"]).get(url("match_log", match.pk)).content.decode()
    )
    undone, changed, saved = (log.index(w) for w in ("Undid hand 2", "Changed hand 2", "Saved"))
    assert undone < changed < saved  # newest first
    assert "Bob's tricks 3 → 2" in log and "Dan's tricks 2 → 3" in log
    assert "Imported the match with 1 hand</p>" in log
    assert "bob" in log and "Bob 2, Dan 3 tricks" in log  # the undone hand, as it was
    assert [c.kind for c in Change.objects.filter(match=match).order_by("at", "pk")] == [
        "started",
        "saved",
        "edited",
        "undone",
    ]


# --- The commands ---------------------------------------------------------------------------


def test_import_and_export_take_a_group(table, files, tmp_path):
    other = Group.objects.create(name="The cabin")
    code, out, err = command("import_match", *files(EXAMPLE), "--group", str(other.pk))
    assert code == 0, err
    match = Match.objects.get(pk=int(out.split(": ")[1]))
    assert match.group == other
    code, out, _ = command("export_match", "--all", "--group", str(other.pk), str(tmp_path / "o"))
    assert code == 0 and len(out.split()) == 1
    with pytest.raises(CommandError, match="There is no group 99999."):
        command("import_match", *files(EXAMPLE), "--group", "99999")
    with pytest.raises(CommandError, match="'eve' is not in the group"):
        command("import_match", *files(EXAMPLE), "--group", str(other.pk), "--user", "eve")


def test_matches_of_accounts_before_groups_keep_their_ids_and_scores(table):
    """(The migration itself is tested on old rows in test_models; here the rows it made.)"""
    for match in Match.objects.all():
        assert_results_are_a_replay(match)
    assert Hand.objects.filter(match=table["match"]).count() == 1


def test_one_who_leaves_their_own_group_gets_a_new_one_and_the_group_stays_with_the_others(
    client, table
):
    group, ann = table["group"], table["owner"]
    group.set_role(table["scorer"], Role.OWNER)
    as_(client, ann).post(url("group_leave", group.pk))
    assert client.get(url("home")).status_code == 200
    assert Group.home(ann) != group and role_of(Group.home(ann), ann) == Role.OWNER
    assert as_(client, table["scorer"]).get(table["match"].get_absolute_url()).status_code == 200


def test_two_nights_of_one_evening_never_share_a_title(client_in, user):
    from datetime import datetime
    from zoneinfo import ZoneInfo

    evening = datetime(2026, 11, 27, 19, 30, tzinfo=ZoneInfo("America/Chicago"))
    early = make_match(user, played_at=evening)
    late = make_match(user, played_at=evening + timedelta(hours=2))
    other = make_match(user, played_at=evening + timedelta(days=7))
    move_match(late, None)  # the same evening, split in two
    nights = client_in.get(url("night_list")).content.decode()
    assert "The night of Friday 27 November 2026, from 7:30 p.m." in nights
    assert "The night of Friday 27 November 2026, from 9:30 p.m." in nights
    assert "The night of Friday 4 December 2026<" in nights  # alone on its day: no hour
    assert str(late.night) == "The night of Friday 27 November 2026, from 9:30 p.m."
    assert str(Match.objects.get(pk=other.pk).night) == "The night of Friday 4 December 2026"
    assert early.night_id != late.night_id


def test_one_an_owner_removed_does_not_come_back_by_an_old_link(client, table):
    old = Invite.objects.create(group=table["group"], role=Role.VIEWER)
    as_(client, table["owner"]).post(
        url("group_members", table["group"].pk), {"username": "val", "role": "remove"}
    )
    page = text(as_(client, table["viewer"]).get(old.get_absolute_url()))
    assert "took you out of the group" in page and 'block">Join' not in page  # no Join to tap
    response = client.post(old.get_absolute_url())
    assert response.status_code == 403 and "took you out of the group" in text(response)
    assert role_of(table["group"], table["viewer"]) is None
    assert client.get(table["match"].get_absolute_url()).status_code == 404
    assert "no longer in" in text(client.get(table["match"].get_absolute_url()))
    new = Invite.objects.create(group=table["group"], role=Role.VIEWER)
    client.post(new.get_absolute_url())  # a new invitation, made since: welcome back
    assert role_of(table["group"], table["viewer"]) == Role.VIEWER


def test_one_who_left_may_come_back_by_the_same_link(client, table):
    link = Invite.objects.create(group=table["group"], role=Role.SCORER)
    as_(client, table["scorer"]).post(url("group_leave", table["group"].pk))
    client.post(link.get_absolute_url())
    assert role_of(table["group"], table["scorer"]) == Role.SCORER


def test_a_viewer_is_shown_no_form_they_cannot_use(client, table):
    as_(client, table["viewer"])
    bob = Player.objects.get(group=table["group"], name="Bob")
    player = text(client.get(bob.get_absolute_url()))
    assert "Rename" not in player and "Merge into" not in player
    night = text(client.get(table["match"].night.get_absolute_url()))
    assert "Move to another night" not in night


def test_an_account_is_not_deleted_with_a_group_its_page_said_stays(client, table):
    table["group"].set_role(table["scorer"], Role.OWNER)
    page = text(as_(client, table["owner"]).get(url("account_delete")))
    assert "The groups you share with others stay theirs." in page
    alone = re.search(r'name="alone" value="([^"]*)"', page).group(1)
    for member in ("scorer", "viewer"):  # everyone else leaves meanwhile
        table["group"].set_role(table[member], None)
    response = client.post(url("account_delete"), {"alone": alone})
    assert response.status_code == 409
    assert "Everyone else left Ann's table since this page was drawn" in text(response)
    assert Group.objects.filter(pk=table["group"].pk).exists()
    assert get_user_model().objects.filter(username="ann").exists()
    alone = re.search(r'name="alone" value="([^"]*)"', text(response)).group(1)
    assert client.post(url("account_delete"), {"alone": alone}).status_code == 302
    assert not Group.objects.filter(pk=table["group"].pk).exists()
