"""Accounts: signing up, the email address, deleting an account, the password reset mail;
and the files the browser installs the app from (manifest, service worker)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Concatenate, ParamSpec, TypeVar

from axes.utils import reset as axes_reset
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model, login, logout
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import PasswordResetForm
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_http_methods

from games import access, throttles
from games.access import SignedInRequest
from games.checks import password_reset_on, reset_domain
from games.forms import EmailForm, SignupForm
from games.models import Group, Match, Player, delete_account
from games.responses import (
    TOO_MANY_RESETS,
    TOO_MANY_SIGNUPS,
    refuse,
)
from games.views.groups import invite_of_link, join_from_link


def signup(request: HttpRequest) -> HttpResponse:
    if not settings.SIGNUP_OPEN:
        return render(request, "registration/signup.html", {"closed": True}, status=403)
    form = SignupForm(request.POST or None)
    invite = invite_of_link(_next(request))
    if invite is not None:  # signing up to join a table: their own one is named for them
        del form.fields["table"]
    if request.method == "POST" and form.is_valid():
        address = throttles.client_address(request)
        if not throttles.allow("signup", address, settings.SIGNUPS_PER_ADDRESS):
            form.add_error(None, TOO_MANY_SIGNUPS)
            context = {"form": form, "next": _next(request)}
            return refuse(request, 429, TOO_MANY_SIGNUPS, "registration/signup.html", **context)
        user = form.save()
        Group.home(user, form.cleaned_data.get("table", ""))
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        joined = join_from_link(request, _next(request))
        return joined or redirect(_next(request) or "games:home")
    context = {"form": form, "next": _next(request), "invite": invite}
    return render(request, "registration/signup.html", context)


def _next(request: HttpRequest) -> str:
    """Where to go after signing up: back to an invitation, say; only ever this site."""
    wanted = request.POST.get("next") or request.GET.get("next") or ""
    safe = url_has_allowed_host_and_scheme(wanted, allowed_hosts={request.get_host()})
    return wanted if safe and wanted.startswith("/") else ""


@require_http_methods(["GET"])
def service_worker(request: HttpRequest) -> HttpResponse:
    """The service worker, served from the site's root so that it looks after every page."""
    response = render(request, "games/sw.js", content_type="text/javascript; charset=utf-8")
    response["Cache-Control"] = "no-cache"
    return response


_P = ParamSpec("_P")
_R = TypeVar("_R")


def mail_only(
    view: Callable[Concatenate[HttpRequest, _P], _R],
) -> Callable[Concatenate[HttpRequest, _P], _R]:
    """Password reset exists only where the server can send mail, and only once ALLOWED_HOSTS
    names the server for the link (see games.checks)."""

    @functools.wraps(view)
    def wrapper(request: HttpRequest, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        if not password_reset_on():
            raise Http404("This server sends no mail.")
        return view(request, *args, **kwargs)

    return wrapper


class PasswordReset(auth_views.PasswordResetView):
    def form_valid(self, form: PasswordResetForm) -> HttpResponse:
        email = form.cleaned_data["email"].lower()
        address = throttles.client_address(self.request)
        allowed = throttles.allow("reset", address, settings.RESET_MAILS_PER_ADDRESS)
        allowed = allowed and throttles.allow(
            "reset-account", email, settings.RESET_MAILS_PER_ACCOUNT
        )
        if not allowed:
            form.add_error(None, TOO_MANY_RESETS)
            assert self.template_name is not None  # the view's own, always set
            return refuse(self.request, 429, TOO_MANY_RESETS, self.template_name, form=form)
        # The link names the server itself, whatever Host the request named (games.checks).
        domain = reset_domain()
        self.extra_email_context = {"domain": domain, "site_name": domain}
        return super().form_valid(form)


@login_required
@require_http_methods(["GET", "POST"])
def account(request: SignedInRequest) -> HttpResponse:
    form = EmailForm(request.POST or None, instance=request.user) if password_reset_on() else None
    if request.method == "POST" and form is not None and form.is_valid():
        form.save()
        messages.success(request, "Email address saved.")
        return redirect("games:account")
    return render(request, "registration/account.html", {"form": form})


@login_required
@require_http_methods(["GET", "POST"])
def account_delete(request: SignedInRequest) -> HttpResponse:
    user = request.user
    refused = None
    if request.method == "POST":
        # The groups the page said go with the account (its hidden `alone`); none sent, from
        # no page: whatever goes now.
        shown = None
        if "alone" in request.POST:
            ids = (access.group_id(pk) for pk in request.POST["alone"].split(","))
            shown = {pk for pk in ids if pk is not None}
        try:
            # Every group of the account takes its turn, so the last-owner rule holds however
            # the other owners leave or delete their accounts meanwhile.
            delete_account(user, shown)
        except ValidationError as e:
            refused = e.message
        else:
            axes_reset(username=user.get_username())
            logout(request)
            messages.info(request, "Your account and all its matches were deleted.")
            return redirect("login")
    alone = Group.objects.of(user).exclude(memberships__user__in=_others(user))
    held = Group.objects.last_owned_by(user).filter(memberships__user__in=_others(user))
    context = {
        "matches": Match.objects.filter(group__in=alone).count(),
        "players": Player.objects.filter(group__in=alone).count(),
        "held": list(held.distinct()),
        "alone": list(alone.order_by("pk").values_list("pk", flat=True)),
        "shared": Group.objects.of(user).exclude(pk__in=alone).exists(),
        "refused": refused,
    }
    return render(
        request,
        "registration/account_delete.html",
        context,
        status=409 if refused else 200,
    )


def _others(user: User) -> QuerySet[User]:
    return get_user_model().objects.exclude(pk=user.pk)


@require_http_methods(["GET"])
@cache_control(public=True, max_age=60 * 60)
def manifest(request: HttpRequest) -> HttpResponse:
    """The web app manifest, rendered so that its icons get their hashed static names."""
    body = render_to_string("manifest.webmanifest")
    return HttpResponse(body, content_type="application/manifest+json")
