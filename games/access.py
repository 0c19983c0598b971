"""Who may do what with a group's table: every view asks here, and only here.

A member of a group is a viewer, a scorer or an owner (`Role`). Anyone else finds nothing of
the group (404, as if it did not exist); a member without the role a page needs is told so
in words (403).
"""

from __future__ import annotations

from typing import TypeVar

from django import forms
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import QuerySet
from django.http import Http404, HttpRequest
from django.shortcuts import get_object_or_404
from django_htmx.middleware import HtmxDetails

from games.models import Group, Match, Membership, Night, Player, Role, memberships_of, row_of

SESSION_KEY = "group"


# What a group holds, and the group itself: what `checked` finds in one of the user's groups.
_Owned = TypeVar("_Owned", Group, Player, Night, Match)
# A row read by its id alone (`row_of`).
_Row = TypeVar("_Row", Player, Night)


class HtmxRequest(HttpRequest):
    """A request as a view gets it: django-htmx's middleware says what htmx asked for."""

    htmx: HtmxDetails


class SignedInRequest(HtmxRequest):
    """A request to a @login_required view: its user has signed in."""

    user: User


WHAT_NEEDS = {
    Role.SCORER: "Viewers can't change the scores.",
    Role.OWNER: "Only an owner of the group can do that.",
}


def memberships(request: HttpRequest) -> dict[int, Membership]:
    """The signed-in user's memberships by group, each with its group, in the order of the
    groups' names, read once per request, in one query: their role in each group (`role`),
    the player they are there, the group a page shows (`picked`) and the others to switch
    to."""
    found = request.__dict__.get("_memberships")
    if found is None:
        found = {}
        if request.user.is_authenticated:
            found = {m.group_id: m for m in memberships_of(request.user.pk)}
        request.__dict__["_memberships"] = found
    return found


def role(request: HttpRequest, group_id: int) -> Role | None:
    """The signed-in user's role in the group (`memberships`); None for anyone else. A group
    not among them is asked of once more: the request may have just made it (an account's
    own group, made on first need)."""
    mine = memberships(request)
    if group_id not in mine and request.user.is_authenticated:
        joined = Membership.objects.filter(user=request.user, group=group_id)
        member = joined.select_related("group").first()
        if member is None:
            return None
        mine[group_id] = member
    return Role(mine[group_id].role)


def roles_allowing(needed: Role) -> list[Role]:
    """The roles that may do what `needed` may, in the order `Role.allows` holds them."""
    return [r for r in Role if r.allows(needed)]


def require(request: HttpRequest, group_id: int, needed: Role = Role.VIEWER) -> Role:
    """The user's role in the group; 404 for a stranger, 403 in words for too small a role."""
    have = role(request, group_id)
    if have is None:
        raise Http404("No such page.")
    if not have.allows(needed):
        owners = Group(pk=group_id).owner_names()[:1]
        become = "a scorer" if needed == Role.SCORER else "an owner"
        ask = "".join(f" Ask {owner} to make you {become}." for owner in owners)
        raise PermissionDenied(WHAT_NEEDS[needed] + ask)
    return have


def may(request: HttpRequest, obj: Group | Player | Night | Match, needed: Role) -> bool:
    """Whether the user may do what `needed` allows with `obj` (a group, or a row of one):
    False for too small a role, 404 for anyone not in its group."""
    return require(request, _group_id_of(obj)).allows(needed)


def _group_id_of(obj: Group | Player | Night | Match) -> int:
    return obj.pk if isinstance(obj, Group) else obj.group_id


# The largest id a row can have (a 64-bit column).
LAST_ID = 2**63 - 1


def get_of_group(
    request: HttpRequest, model: type[_Row], pk: int | str, needed: Role = Role.VIEWER
) -> _Row:
    """The player or night of this id (as a URL or a query names it, read as the ORM reads
    `pk=`: 404 for what no row can have) of one of the user's groups, with the role checked
    (`require`) and its group, with the version read with it before anything else of the
    group, from `memberships`."""
    try:
        pk = int(pk)
    except (TypeError, ValueError):
        raise Http404("No such page.") from None
    row = checked(request, row_of(model, pk) if 1 <= pk <= LAST_ID else None, needed)
    row.group = memberships(request)[row.group_id].group
    return row


def get(
    request: HttpRequest,
    queryset: type[_Owned] | QuerySet[_Owned],
    needed: Role = Role.VIEWER,
    **lookup: object,
) -> _Owned:
    """The object of one of the user's groups, with the role checked (`require`)."""
    return checked(request, get_object_or_404(queryset, **lookup), needed)


def get_match(request: HttpRequest, pk: int, needed: Role = Role.VIEWER) -> Match:
    """The match of this id as a board reads it (`Match.objects.one`), with the role checked
    (`checked`)."""
    return checked(request, Match.objects.one(pk), needed)


def checked(request: HttpRequest, obj: _Owned | None, needed: Role = Role.VIEWER) -> _Owned:
    """`obj`, found in one of the user's groups (None is found nowhere: 404), with the
    role checked (`require`)."""
    if obj is None:
        raise Http404("No such page.")
    require(request, _group_id_of(obj), needed)
    return obj


GROUP_ID = forms.IntegerField(min_value=1)


def group_id(text: str) -> int | None:
    try:
        found: int | None = GROUP_ID.clean(text)
        return found
    except ValidationError:
        return None


def picked(request: SignedInRequest) -> Group:
    """The group the pages over many matches show: `?group=ID` picks one, and it stays
    picked in this browser; else the one picked before, or the user's own."""
    mine = memberships(request)
    wanted = request.GET.get("group")
    if wanted is not None:
        pk = group_id(wanted)
        if pk is None or pk not in mine:
            raise Http404("No such group.")
        request.session[SESSION_KEY] = pk
        return mine[pk].group
    pk = request.session.get(SESSION_KEY)
    if isinstance(pk, int) and pk in mine:
        return mine[pk].group
    own = [m.group for m in mine.values() if m.group.home_of_id == request.user.pk]
    return own[0] if own else Group.home(request.user)
