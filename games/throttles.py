"""How often one address (or one account) may try a log-in, a sign-up or a reset mail.

Every count lives in the database, where every worker of every server sees it: axes' table of
failed log-ins, and `Attempt` for the rest.
"""

from __future__ import annotations

import ipaddress
from datetime import timedelta
from typing import Any

from axes.attempts import get_cool_off_threshold
from axes.handlers.database import AxesDatabaseHandler
from axes.models import AccessAttempt
from django.conf import settings
from django.db import connection, transaction
from django.db.models import Sum
from django.http import HttpRequest
from django.utils import timezone

from games.models import Attempt
from games.models.sql import execute, statement

HOUR = timedelta(hours=1)


class AxesRequest(HttpRequest):
    """A log-in request as axes hands it on: with the address it read (`client_address`)."""

    axes_ip_address: str | None
    axes_locked_out: bool
    axes_credentials: dict[str, Any] | None


def client_address(request: HttpRequest) -> str | None:
    """The address a request comes from, for every throttle and for axes alike.

    REMOTE_ADDR, unless settings.TRUSTED_PROXIES says how many proxies stand in front: each of
    them adds the address it was sent from to X-Forwarded-For, so the client is that many
    hops from the end; whatever lies further left, a client could have written. An IPv6
    address counts as its /64, the block one home or phone is given.
    """
    hops = [request.META.get("REMOTE_ADDR", "")]
    if settings.TRUSTED_PROXIES:
        forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")
        hops = [hop.strip() for hop in forwarded if hop.strip()] + hops
        hops = hops[-(settings.TRUSTED_PROXIES + 1) :]
    try:
        address = ipaddress.ip_address(hops[0])
    except ValueError:
        return None
    if address.version == 6:
        return str(ipaddress.ip_network(f"{address}/64", strict=False).network_address)
    return str(address)


def attempted_username(request: HttpRequest, credentials: dict[str, Any] | None) -> str | None:
    """The username a log-in tried, cut to the 255 characters axes keeps (no account's
    username is that long, so the cut one names none either)."""
    field = settings.AXES_USERNAME_FORM_FIELD
    username = (credentials or {}).get(field) or request.POST.get(field)
    return username[:255] if isinstance(username, str) else None


def address_failures(request: AxesRequest) -> int:
    """Wrong passwords from the request's address in the last 15 minutes, for any username."""
    attempts = AccessAttempt.objects.filter(
        ip_address=request.axes_ip_address, attempt_time__gte=get_cool_off_threshold(request)
    )
    failures: int = attempts.aggregate(n=Sum("failures_since_start"))["n"] or 0
    return failures


def address_locked(request: AxesRequest) -> bool:
    return address_failures(request) >= settings.LOGIN_FAILURES_PER_ADDRESS


# (django-axes ships no type information: its handler is Any to mypy.)
class LoginHandler(AxesDatabaseHandler):  # type: ignore[misc]
    """axes counts wrong passwords per username and address, and locks the pair; this adds a
    lock on the address once it has tried too many, whatever the usernames."""

    def is_locked(self, request: AxesRequest, credentials: dict[str, Any] | None = None) -> bool:
        locked: bool = super().is_locked(request, credentials) or address_locked(request)
        return locked

    def user_login_failed(
        self,
        sender: object,
        credentials: dict[str, Any],
        request: AxesRequest | None = None,
        **kwargs: Any,
    ) -> None:
        super().user_login_failed(sender, credentials, request, **kwargs)
        if request is not None and not request.axes_locked_out and address_locked(request):
            request.axes_locked_out = True
            request.axes_credentials = credentials


def allow(action: str, key: str | None, limit: int, within: timedelta = HOUR) -> bool:
    """Count one `action` for `key` (an address, an account): False, and not counted, once
    `limit` of them were counted `within` the last hour."""
    now = timezone.now()
    with transaction.atomic():
        # One count at a time, so that two workers never both take the last place. (SQLite's
        # IMMEDIATE transactions already take turns.)
        if connection.vendor == "postgresql":
            execute(statement("LOCK_ATTEMPTS"))
        Attempt.objects.filter(action=action, at__lt=now - within).delete()
        if Attempt.objects.filter(action=action, key=key or "").count() >= limit:
            return False
        Attempt.objects.create(action=action, key=key or "", at=now)
    return True
