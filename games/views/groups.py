"""Groups: the friends who keep one table, their members and roles, invitations, "this is
me", the players list and each match's change log. Who may do what is asked of `access`."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count, F
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import Resolver404, resolve, reverse
from django.utils import timezone
from django.views.decorators.http import require_http_methods, require_POST

from games import access, rules
from games.access import SignedInRequest
from games.models import (
    GROUP_NAME_LENGTH,
    INVITE_DAYS,
    Change,
    Group,
    Invite,
    Match,
    Membership,
    PayWays,
    Role,
    claim_player,
    groups_turn,
)
from games.responses import GROUP_GONE, refuse
from games.views import payways
from games.views.common import (
    clock,
    day_and_clock,
    group_switch,
    qr,
)
from games.words import SUIT_SYMBOLS, plural

REMOVE = "remove"


class GroupForm(forms.Form):
    name = forms.CharField(
        label="Name of the group",
        max_length=GROUP_NAME_LENGTH,
        error_messages={
            "required": "A group needs a name.",
            "max_length": f"Keep the name to {GROUP_NAME_LENGTH} letters.",
        },
    )

    def clean_name(self) -> str:
        name = " ".join(self.cleaned_data["name"].split())
        if not name:
            raise forms.ValidationError("A group needs a name.")
        if not rules.plain_text(name):
            raise forms.ValidationError(rules.PLAIN_NAME)
        return name


class InviteForm(forms.Form):
    role = forms.ChoiceField(
        choices=[(Role.SCORER, "Scorer: keeps score"), (Role.VIEWER, "Viewer: looks only")],
        initial=Role.SCORER,
        widget=forms.RadioSelect,
        error_messages={
            "invalid_choice": "Invite as a scorer or as a viewer.",
            "required": "Invite as a scorer or as a viewer.",
        },
    )


class MemberForm(forms.Form):
    username = forms.CharField(max_length=150)
    role = forms.ChoiceField(
        choices=[*Role.choices, (REMOVE, "Remove from the group")],
        error_messages={"invalid_choice": "Choose owner, scorer, viewer or remove."},
    )


def _detail(
    request: SignedInRequest, group: Group, status: int = 200, **more: object
) -> HttpResponse:
    role = access.require(request, group.pk)
    members = group.memberships.select_related("user", "player").order_by("created", "pk")
    invites = []
    if role.allows(Role.OWNER):
        for invite in group.invites.open():
            url = request.build_absolute_uri(invite.get_absolute_url())
            invites.append({"invite": invite, "url": url, "qr": qr(url)})
    mine = next((m for m in members if m.user_id == request.user.pk), None)
    players = list(group.players.order_by("name"))
    sent = more.pop("pay_sent", None)
    context = {
        "group": group,
        "role": role,
        "is_owner": role.allows(Role.OWNER),
        "members": members,
        "invites": invites,
        "invite_days": INVITE_DAYS,
        "me": mine,
        "players": players,
        **payways.group_context(request, group.pk, list(members), players, sent),  # type: ignore[arg-type]
        "name_form": GroupForm(initial={"name": group.name}),
        "invite_form": InviteForm(),
        **more,
    }
    return render(request, "games/group_detail.html", context, status=status)


@login_required
@require_http_methods(["GET"])
def group_list(request: SignedInRequest) -> HttpResponse:
    memberships = (
        Membership.objects.filter(user=request.user)
        .select_related("group")
        .annotate(members=Count("group__memberships"))
        .order_by("group__name", "group__pk")
    )
    Group.home(request.user)
    return render(
        request, "games/group_list.html", {"memberships": memberships, "form": GroupForm()}
    )


@login_required
@require_http_methods(["GET", "POST"])
def group_create(request: SignedInRequest) -> HttpResponse:
    form = GroupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        with transaction.atomic():  # never a group without its owner, even for a moment
            group = Group.objects.create(name=form.cleaned_data["name"])
            group.join(request.user, Role.OWNER)
        request.session[access.SESSION_KEY] = group.pk
        messages.success(request, f"{group} is yours. Invite the others from here.")
        return redirect(group)
    return render(request, "games/group_new.html", {"form": form})


@login_required
@require_http_methods(["GET"])
def group_detail(request: SignedInRequest, pk: int) -> HttpResponse:
    return _detail(request, access.get(request, Group, pk=pk))


@login_required
@require_POST
def group_rename(request: SignedInRequest, pk: int) -> HttpResponse:
    group = access.get(request, Group, Role.OWNER, pk=pk)
    form = GroupForm(request.POST)
    if not form.is_valid():
        return _detail(request, group, name_form=form)
    # Its version moves on, as with every write to what the group's pages show (groups_turn).
    Group.objects.filter(pk=group.pk).update(
        name=form.cleaned_data["name"], version=F("version") + 1
    )
    messages.success(request, f"The group is called {form.cleaned_data['name']} now.")
    return redirect(group)


@login_required
@require_http_methods(["GET", "POST"])
def group_delete(request: SignedInRequest, pk: int) -> HttpResponse:
    group = access.get(request, Group, Role.OWNER, pk=pk)
    if request.method == "POST":
        name = str(group)
        try:
            group.delete_whole()  # its players, matches and nights go with it
        except Group.DoesNotExist:  # a double tap, or another owner's
            return refuse(request, 404, GROUP_GONE)
        messages.info(request, f"{name} and all its matches were deleted.")
        return redirect("games:group_list")
    context = {"group": group, "matches": group.matches.count()}
    return render(request, "games/group_delete.html", context)


@login_required
@require_POST
def invite_create(request: SignedInRequest, pk: int) -> HttpResponse:
    group = access.get(request, Group, Role.OWNER, pk=pk)
    form = InviteForm(request.POST)
    if not form.is_valid():
        return _detail(request, group, invite_form=form)
    try:
        with transaction.atomic():
            groups_turn(group.pk)
            Invite.objects.create(
                group=group, role=form.cleaned_data["role"], created_by=request.user
            )
    except Group.DoesNotExist:
        return refuse(request, 404, GROUP_GONE)
    messages.success(
        request, f"A new invitation link, good for {INVITE_DAYS} days: send it or show its code."
    )
    return redirect(reverse("games:group_detail", args=[group.pk]) + "#invites")


@login_required
@require_POST
def invite_withdraw(request: SignedInRequest, pk: int, invite: int) -> HttpResponse:
    group = access.get(request, Group, Role.OWNER, pk=pk)
    found = get_object_or_404(Invite, pk=invite, group=group)
    try:
        with transaction.atomic():
            groups_turn(group.pk)  # as every write to the group: its pages drawn anew
            Invite.objects.filter(pk=found.pk, withdrawn__isnull=True).update(
                withdrawn=timezone.now()
            )
    except Group.DoesNotExist:
        return refuse(request, 404, GROUP_GONE)
    messages.info(request, "The invitation was withdrawn: its link no longer works.")
    return redirect(reverse("games:group_detail", args=[group.pk]) + "#invites")


@require_http_methods(["GET", "POST"])
def join(request: HttpRequest, token: str) -> HttpResponse:
    """An invitation: signed out, log in or sign up and come back; signed in, join."""
    invite = Invite.objects.open().select_related("group").filter(token=token).first()
    if invite is None:
        return render(request, "games/join_gone.html", status=404)
    if not request.user.is_authenticated:
        if request.method == "POST":
            return redirect(f"{reverse('login')}?next={invite.get_absolute_url()}")
        return render(request, "games/join.html", {"invite": invite})
    role = access.role(request, invite.group_id)
    if request.method == "POST":
        try:
            _, joined = invite.group.join(request.user, invite.role, invite.created)
        except ValidationError as e:
            context = {"invite": invite, "role": role, "refused": e.message}
            return render(request, "games/join.html", context, status=403)
        request.session[access.SESSION_KEY] = invite.group_id
        if joined:
            messages.success(request, f"Welcome to {invite.group}.")
        return redirect(invite.group)
    # One taken out since the invitation was made is told so, with no Join to tap.
    refused = "" if role else invite.group.refused_by(request.user, invite.created)
    return render(request, "games/join.html", {"invite": invite, "role": role, "refused": refused})


def invite_of_link(to: str) -> Invite | None:
    """The invitation whose page `to` is, while it still works."""
    try:
        found = resolve(to)
    except Resolver404:
        return None
    if found.func is not join:
        return None
    return Invite.objects.open().select_related("group").filter(**found.kwargs).first()


def join_from_link(request: HttpRequest, to: str) -> HttpResponse | None:
    """Signed up from an invitation (`to` is its page): in the group at once, with no second
    tap on "Join". None where `to` is no invitation that still works."""
    invite = invite_of_link(to)
    if invite is None:
        return None
    try:
        invite.group.join(request.user, invite.role, invite.created)
    except ValidationError:
        return None  # the invitation's page says why
    request.session[access.SESSION_KEY] = invite.group_id
    messages.success(request, f"Welcome to {invite.group}.")
    return redirect(invite.group)


@login_required
@require_POST
def group_members(request: SignedInRequest, pk: int) -> HttpResponse:
    """Change a member's role, or remove them (owners only)."""
    group = access.get(request, Group, Role.OWNER, pk=pk)
    form = MemberForm(request.POST)
    if not form.is_valid():
        return _detail(request, group, member_error=" ".join(_errors(form)))
    username, role = form.cleaned_data["username"], form.cleaned_data["role"]
    user = get_user_model().objects.filter(username=username, memberships__group=group).first()
    if user is None:
        return _detail(request, group, member_error=f"{username} is not in {group}.")
    # On by default (a form without the box too): "keep" alone is the box left unticked.
    renew = role == REMOVE and request.POST.getlist("links") != ["keep"]
    try:
        with transaction.atomic():
            if role == REMOVE:
                group.remove(user)
            else:
                group.set_role(user, role)
            renewed = (
                Match.objects.filter(group=group).in_progress().new_share_links() if renew else 0
            )
    except ValidationError as e:
        return _detail(request, group, member_error=e.message)
    except Group.DoesNotExist:
        return refuse(request, 404, GROUP_GONE)
    if role == REMOVE:
        links = (
            f" The board links of its {plural(renewed, 'unfinished match', 'unfinished matches')}"
            " are new: the old ones no longer work."
            if renewed
            else ""
        )
        messages.info(request, f"{username} is no longer in {group}.{links}")
    else:
        messages.success(
            request, f"{username} is {'an' if role == Role.OWNER else 'a'} {role} now."
        )
    if user == request.user and role != Role.OWNER:
        return redirect("games:group_list" if role == REMOVE else group)
    return redirect(group)


def _errors(form: forms.Form) -> list[str]:
    return [m for errors in form.errors.as_data().values() for e in errors for m in e.messages]


@login_required
@require_POST
def group_leave(request: SignedInRequest, pk: int) -> HttpResponse:
    group = access.get(request, Group, pk=pk)
    try:
        group.set_role(request.user, None)
    except ValidationError as e:
        return _detail(request, group, member_error=e.message)
    except Group.DoesNotExist:
        return refuse(request, 404, GROUP_GONE)
    if request.session.get(access.SESSION_KEY) == group.pk:
        del request.session[access.SESSION_KEY]
    messages.info(request, f"You left {group}.")
    return redirect("games:group_list")


@login_required
@require_POST
def group_me(request: SignedInRequest, pk: int) -> HttpResponse:
    """ "This is me": the member says which player of the group they are, or undoes it."""
    group = access.get(request, Group, pk=pk)
    field = forms.ModelChoiceField(group.players.all(), required=False)
    try:
        player = field.clean(request.POST.get("player"))
    except forms.ValidationError:
        return _detail(request, group, me_error="Choose one of the group's players.")
    try:
        claim_player(group, request.user, player)
    except ValidationError as e:  # taken, or merged away, meanwhile
        return _detail(request, group, status=409, me_error=e.message)
    except Group.DoesNotExist:
        return refuse(request, 404, GROUP_GONE)
    if player is None:
        messages.info(request, "You are none of the players now.")
        return redirect(group)
    messages.success(request, f"You are {player.name} in {group}.")
    # What saying so opens up: how they like to be paid, on this page.
    return redirect(reverse("games:group_detail", args=[group.pk]) + "#pay-title")


@login_required
@require_POST
def pay_ways(request: SignedInRequest, pk: int, player: int) -> HttpResponse:
    """How a player likes to be paid (#44 §1), set, changed or removed by the member who plays
    as them, or by an owner."""
    group = access.get(request, Group, pk=pk)
    found = get_object_or_404(group.players, pk=player)
    if not payways.may_change(request, group.pk, found.pk):
        return refuse(
            request, 403, f"Only {found.name}, or an owner, can change how {found.name} is paid."
        )
    form = payways.PayWaysForm(request.POST)
    if "remove" in request.POST:
        form = payways.PayWaysForm(dict.fromkeys(payways.FIELDS, ""))
    if not form.is_valid():
        return _detail(request, group, pay_sent=(found.pk, form))
    values = {name: form.cleaned_data[name] for name in payways.FIELDS}
    try:
        stored = PayWays.store(group.pk, found.pk, values)
    except Group.DoesNotExist:
        return refuse(request, 404, GROUP_GONE)
    if not stored:
        return refuse(request, 404, f"{found.name} is no longer a player of this group.")
    said = "removed" if not any(values.values()) else "saved"
    messages.success(request, f"How {found.name} is paid: {said}.")
    return redirect(reverse("games:group_detail", args=[group.pk]) + "#pay-title")


@login_required
@require_http_methods(["GET"])
def player_list(request: SignedInRequest) -> HttpResponse:
    group = access.picked(request)
    players = group.players.annotate(matches=Count("results")).order_by("name")
    me = (
        Membership.objects.filter(group=group, user=request.user)
        .values_list("player", flat=True)
        .first()
    )
    context = {"group": group, "groups": group_switch(request, group), "players": players, "me": me}
    return render(request, "games/player_list.html", context)


# --- A match's change log ---------------------------------------------------------------------


# A hand as the change log keeps it: a match file's hand, as its JSON column reads.
_LoggedHand = dict[str, Any]


def _hand_words(hand: _LoggedHand) -> str:
    """A hand as the log keeps it (a match file's hand), in words."""
    turned = f"{SUIT_SYMBOLS.get(hand.get('upcard', ''), '?')} turned"
    if hand.get("passed"):
        return f"{turned} · all passed: redeal"
    trump = hand.get("trump")
    parts = [turned]
    if trump == rules.NO_TRUMP:
        parts.append("all passed: no trump")
    elif hand.get("maker"):
        suit = SUIT_SYMBOLS.get(trump or hand.get("upcard", ""), "")
        bid = f" bid {hand['bid']}" if hand.get("bid") else " made"
        parts.append(f"{hand['maker']}{bid} {suit}".rstrip())
    if hand.get("moon"):
        parts.append("shoots the moon")
    if hand.get("dropped"):
        parts.append(f"{rules.join_names(hand['dropped'])} out")
    tricks = hand.get("tricks") or {}
    if tricks:
        parts.append(", ".join(f"{name} {n}" for name, n in tricks.items()) + " tricks")
    return " · ".join(parts)


def _edit_words(before: _LoggedHand, after: _LoggedHand) -> str:
    """What an edit changed: "Cat's tricks 2 → 1", "maker Bob → Cat"."""
    out = []
    for key, label in (("upcard", "upcard"), ("trump", "trump"), ("maker", "maker")):
        if before.get(key) != after.get(key):
            old, new = before.get(key) or "", after.get(key) or ""
            old, new = SUIT_SYMBOLS.get(old, old) or "none", SUIT_SYMBOLS.get(new, new) or "none"
            out.append(f"{label} {old} → {new}")
    if before.get("bid") != after.get("bid"):
        out.append(f"bid {before.get('bid') or 'none'} → {after.get('bid') or 'none'}")
    if before.get("passed") != after.get("passed"):
        out.append("now a redeal" if after.get("passed") else "no longer a redeal")
    if bool(before.get("moon")) != bool(after.get("moon")):
        out.append("now shoots the moon" if after.get("moon") else "no longer shoots the moon")
    was, now = set(before.get("dropped", [])), set(after.get("dropped", []))
    if now - was:
        out.append(f"{rules.join_names(sorted(now - was))} dropped out")
    if was - now:
        out.append(f"{rules.join_names(sorted(was - now))} played")
    old, new = before.get("tricks") or {}, after.get("tricks") or {}
    for name in dict.fromkeys([*old, *new]):
        if name in old and name in new and old[name] != new[name]:
            out.append(f"{name}'s tricks {old[name]} → {new[name]}")
        elif name in new and name not in old:
            out.append(f"{name} {plural(new[name], 'trick')}")
    return "; ".join(out) or "nothing changed"


def _log_line(change: Change) -> str:
    if change.kind == Change.Kind.STARTED:
        if change.number:
            return f"Imported the match with {plural(change.number, 'hand')}"
        return "Started the match"
    before, after = change.before, change.after  # as Change.note keeps them for each kind
    if change.kind == Change.Kind.SAVED:
        assert after is not None
        return f"Saved hand {change.number}: {_hand_words(after)}"
    if change.kind == Change.Kind.EDITED:
        assert before is not None and after is not None
        return (
            f"Changed hand {change.number}: {_edit_words(before, after)} (now {_hand_words(after)})"
        )
    assert before is not None
    return f"Undid hand {change.number}, which was {_hand_words(before)}"


@login_required
@require_http_methods(["GET"])
def match_log(request: SignedInRequest, pk: int) -> HttpResponse:
    """Every write to a match, newest first: when, who and what."""
    match = access.get(request, Match, pk=pk)
    today = timezone.localdate()
    changes = [
        {
            "when": clock(c.at) if timezone.localdate(c.at) == today else day_and_clock(c.at),
            "at": c.at,
            "who": c.by or "somebody",
            "what": _log_line(c),
        }
        for c in match.changes.all()
    ]
    return render(request, "games/match_log.html", {"match": match, "changes": changes})
