"""Who may do what with a group's table: every view asks here, and only here.

A member of a group is a viewer, a scorer or an owner (`Role`). Anyone else finds nothing of
the group (404, as if it did not exist); a member without the role a page needs is told so
in words (403).
"""

from __future__ import annotations

from django import forms
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpRequest
from django.shortcuts import get_object_or_404
from django_htmx.middleware import HtmxDetails

from games.models import Group, Role

SESSION_KEY = "group"


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


def role(request: HttpRequest, group_id: int) -> Role | None:
    """The signed-in user's role in the group, read once per request."""
    roles = request.__dict__.setdefault("_group_roles", {})
    if group_id not in roles:
        roles[group_id] = Group(pk=group_id).role_of(request.user)
    return roles[group_id]


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


def get(request: HttpRequest, queryset, needed: Role = Role.VIEWER, **lookup):
    """The object of one of the user's groups, with the role checked (`require`)."""
    return checked(request, get_object_or_404(queryset, **lookup), needed)


def checked(request: HttpRequest, obj, needed: Role = Role.VIEWER):
    """`obj`, found in one of the user's groups (None is found nowhere: 404), with the
    role checked (`require`)."""
    if obj is None:
        raise Http404("No such page.")
    require(request, obj.pk if isinstance(obj, Group) else obj.group_id, needed)
    return obj


GROUP_ID = forms.IntegerField(min_value=1)


def group_id(text) -> int | None:
    try:
        return GROUP_ID.clean(text)
    except ValidationError:
        return None


def picked(request: HttpRequest) -> Group:
    """The group the pages over many matches show: `?group=ID` picks one, and it stays
    picked in this browser; else the one picked before, or the user's own."""
    wanted = request.GET.get("group")
    if wanted is not None:
        pk = group_id(wanted)
        if pk is None or role(request, pk) is None:
            raise Http404("No such group.")
        request.session[SESSION_KEY] = pk
        return Group.objects.get(pk=pk)
    pk = request.session.get(SESSION_KEY)
    if isinstance(pk, int) and role(request, pk) is not None:
        group = Group.objects.filter(pk=pk).first()
        if group is not None:
            return group
    return Group.home(request.user)
