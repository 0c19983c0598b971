"""Groups and their members: roles, memberships, removals, invitations and the group's version."""

from __future__ import annotations

import secrets
from contextlib import suppress
from datetime import datetime, timedelta
from typing import Self, TypeVar

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser, User
from django.core.exceptions import ValidationError
from django.db import models, transaction
from django.db.models import F, Q
from django.urls import reverse
from django.utils import timezone

from games import rules, words
from games.models.results import staked_filter
from games.models.sql import fetch, loaded, statement

_M = TypeVar("_M", bound=models.Model)


def groups_turn(group_id: int | None = None, *, of_match: int | None = None) -> None:
    """Lock the group's row until the transaction ends, so that what a group does to its
    matches, nights, players and payments takes turns: two matches begun at once on two
    phones find each other's night, a night is never deleted under a match joining it, a file
    imported twice at once is stored once, two saves never add to a player's sums at once.
    (On SQLite the IMMEDIATE transaction already does this.) Group.DoesNotExist, and nothing
    written, if the group was deleted meanwhile (its deletion takes this turn too).

    The one lock order, everywhere (docs/scaling.md, "Locks"): the account (deleting it), then
    the group (this), then its matches (`writes._locked`, in the order of their ids), then its
    players' rows. A write takes the group's turn before it locks or writes anything else of
    the group, so two writes wait for each other and never deadlock; several groups are taken
    in the order of their ids (`delete_account`).

    Every write to what the group's pages show takes this turn, so it also moves the group's
    version on (`Group.version`), in the same transaction: a region of a page drawn for a
    version (games/regions.py) is never shown once the stored data has changed.

    A write that has read nothing of its match yet takes the turn of the match's group by the
    match's id (`of_match`): a save, which checks who may make it under the lock."""
    groups = Group.objects.filter(Q(matches=of_match) if of_match else Q(id=group_id))
    if not groups.update(version=F("version") + 1):
        raise Group.DoesNotExist(f"No group {group_id or f'of match {of_match}'}.")


# --- Groups: who keeps the table ------------------------------------------------------------


class Role(models.TextChoices):
    """What a member may do (one table of it, in `Role.allows`): viewers see every page of
    the group, scorers also keep score, owners also run the group."""

    VIEWER = "viewer", "Viewer"
    SCORER = "scorer", "Scorer"
    OWNER = "owner", "Owner"

    def allows(self, needed: Role) -> bool:
        order = [Role.VIEWER, Role.SCORER, Role.OWNER]
        return order.index(self) >= order.index(needed)


GROUP_NAME_LENGTH = 60
INVITE_DAYS = 7


class GroupQuerySet(models.QuerySet["Group"]):
    def of(self, user: User) -> Self:
        """The groups `user` is a member of."""
        return self.filter(memberships__user=user)

    def last_owned_by(self, user: User) -> Self:
        """The groups of which `user` is the only owner."""
        others = Membership.objects.filter(role=Role.OWNER).exclude(user=user)
        owned = self.filter(memberships__user=user, memberships__role=Role.OWNER)
        return owned.exclude(pk__in=others.values("group"))


class Group(models.Model):
    """The friends who keep one table: its players, matches and nights are theirs."""

    name = models.CharField(max_length=GROUP_NAME_LENGTH)
    created = models.DateTimeField(auto_now_add=True)
    # The group every account is given (named after it): the default where nothing else
    # is picked. Gone with the account, unless others are in it (then it stays theirs).
    home_of = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        models.SET_NULL,
        null=True,
        blank=True,
        related_name="home_group",
    )
    # Moves on with every write to what the group's pages show, in its transaction
    # (`groups_turn`): a region of a page is drawn once a version (games/regions.py).
    version = models.PositiveBigIntegerField(default=0)

    objects = GroupQuerySet.as_manager()

    class Meta:
        ordering = ["name", "pk"]
        constraints = [models.CheckConstraint(condition=~Q(name=""), name="group_name_not_empty")]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("games:group_detail", args=[self.pk])

    def clean(self) -> None:
        """The admin's edit: a name any page shows as typed (rules.plain_text)."""
        if not rules.plain_text(self.name):
            raise ValidationError({"name": rules.PLAIN_NAME})

    @classmethod
    def home(cls, user: User, name: str = "") -> Group:
        """The account's own group, made (with the account as its owner) on first need, so
        that an account made any way (sign-up, `createsuperuser`, the admin) has one; called
        `name`, else "Ann's table" (`words.table_name`)."""
        group = cls.objects.filter(home_of=user).first()
        if group is None:
            with transaction.atomic():
                user.__class__.objects.select_for_update().filter(pk=user.pk).values("pk").get()
                group, _ = cls.objects.get_or_create(
                    home_of=user,
                    defaults={
                        "name": name or words.table_name(user.get_username(), GROUP_NAME_LENGTH)
                    },
                )
                Membership.objects.get_or_create(
                    group=group, user=user, defaults={"role": Role.OWNER}
                )
        return group

    @classmethod
    def of(cls, group_or_user: Group | User) -> Group:
        """A group, or an account's own group."""
        return group_or_user if isinstance(group_or_user, Group) else cls.home(group_or_user)

    def moved_on(self) -> bool:
        """Whether anything of the group was written (or the group deleted) since this row of
        it was read (`version`)."""
        return not Group.objects.filter(pk=self.pk, version=self.version).exists()

    def owner_names(self) -> list[str]:
        owners = self.memberships.filter(role=Role.OWNER).order_by("created", "pk")
        return list(owners.values_list("user__username", flat=True))

    def currencies(self) -> list[str]:
        """The currencies the group has played for money in: what a payment may be in."""
        matches = self.matches.filter(staked_filter())
        return sorted(set(matches.order_by().values_list("currency", flat=True).distinct()))

    @transaction.atomic
    def set_role(self, user: User, role: str | None) -> None:
        """Make a member an owner, a scorer or a viewer, or remove them (None). ValidationError
        if it would leave the group without an owner."""
        groups_turn(self.pk)
        member = self.memberships.filter(user=user).first()
        if member is None:
            raise ValidationError(f"{user.get_username()} is not in {self}.")
        owners = self.memberships.filter(role=Role.OWNER)
        if member.role == Role.OWNER and role != Role.OWNER and owners.count() == 1:
            raise ValidationError(
                f"{user.get_username()} is the only owner of {self}: make someone else an "
                "owner first."
            )
        if role is None:
            member.delete()
            # Their own group no longer: the next time they need one, a new one is made.
            Group.objects.filter(pk=self.pk, home_of=user).update(home_of=None)
        else:
            self.memberships.filter(pk=member.pk).update(role=role)

    @transaction.atomic
    def delete_whole(self) -> None:
        """Delete the group with its players, matches, nights and payments. Its turn first
        (`groups_turn`): a save or a payment under way is stored whole before, or finds the
        group gone after (Group.DoesNotExist, here too for a group deleted already), and the
        rows to delete are read inside the lock, so none is added under the deletion."""
        groups_turn(self.pk)
        Group.objects.filter(pk=self.pk).delete()

    @transaction.atomic
    def join(
        self, user: User | AnonymousUser, role: str, invited: datetime | None = None
    ) -> tuple[Membership, bool]:
        """Take `user` in with `role`; a member already keeps their role: (member, joined).
        ValidationError for one an owner removed after the invitation of `invited` was made:
        an old link does not let them back in."""
        if isinstance(user, AnonymousUser):  # (the query would refuse it: no account's id)
            raise TypeError("Only a signed-in user joins a group.")
        groups_turn(self.pk)
        refused = self.refused_by(user, invited)
        if refused:
            raise ValidationError(refused)
        Removal.objects.filter(group=self, user=user).delete()
        return Membership.objects.get_or_create(group=self, user=user, defaults={"role": role})

    def refused_by(self, user: User, invited: datetime | None) -> str:
        """Why an invitation made at `invited` no longer lets `user` in: an owner removed them
        after it was made (empty where it still does)."""
        if invited is None:
            return ""
        if not Removal.objects.filter(group=self, user=user, at__gt=invited).exists():
            return ""
        return (
            f"An owner of {self} took you out of the group after this invitation was made. "
            "Ask one of them for a new invitation."
        )

    @transaction.atomic
    def remove(self, user: User) -> None:
        """An owner takes `user` out of the group: gone at once, and the invitations made
        before do not let them back in (`join`)."""
        self.set_role(user, None)
        Removal.objects.update_or_create(group=self, user=user, defaults={"at": timezone.now()})


def author(by: User | AnonymousUser | None) -> tuple[User | None, str]:
    """Who made a write, as a change or a payment keeps it: the account (None where nobody was
    signed in), and its name in words, which stays when the account is deleted."""
    user = by if by is not None and by.is_authenticated else None
    return user, user.get_username() if user else ""


def delete_account(user: User, deleted_with_it: set[int] | None = None) -> None:
    """Delete the account, and the groups in which nobody else is. ValidationError, in words
    and with nothing deleted, if it is the only owner of a group others are in (a group always
    has an owner), or if `deleted_with_it` (the groups its page said would go with it) misses
    one that would go now: everyone else left it since the page was drawn.

    Every group it is in takes its turn first (`groups_turn`), in the order of their ids,
    after the account's own row: two owners deleting their accounts at once, or one deleting
    while the other leaves or is made a scorer, take turns, and the second finds itself the
    only owner."""
    with transaction.atomic():
        accounts = get_user_model().objects.select_for_update(no_key=True).filter(pk=user.pk)
        if not accounts.exists():
            return  # deleted already: a double tap
        locked: set[int] = set()
        while True:  # a group joined before the turns were taken is taken too
            mine = set(Group.objects.of(user).values_list("pk", flat=True)) - locked
            if not mine:
                break
            for pk in sorted(mine):
                with suppress(Group.DoesNotExist):  # deleted meanwhile: nothing of it to keep
                    groups_turn(pk)
                locked.add(pk)
        others = get_user_model().objects.exclude(pk=user.pk)
        held = Group.objects.last_owned_by(user).filter(memberships__user__in=others)
        held_names = [str(g) for g in held.distinct().order_by("name", "pk")]
        if held_names:
            raise ValidationError(
                f"{user.get_username()} is the only owner of {rules.join_names(held_names)}, "
                f"and others are in {'it' if len(held_names) == 1 else 'them'}: make someone "
                "else an owner first, then delete the account."
            )
        alone = list(Group.objects.of(user).exclude(memberships__user__in=others).order_by("pk"))
        surprise = [g for g in alone if deleted_with_it is not None and g.pk not in deleted_with_it]
        if surprise:
            names = rules.join_names([str(g) for g in surprise])
            raise ValidationError(
                f"Everyone else left {names} since this page was drawn, so deleting the "
                "account now would delete it too, with its matches. Nothing was deleted: look "
                "again, and confirm if you still mean it."
            )
        for group in alone:
            Group.objects.filter(pk=group.pk).delete()  # its matches, players go with it
        user.delete()


class Removal(models.Model):
    """When an owner took a member out of a group (not one who left)."""

    group = models.ForeignKey(Group, models.CASCADE, related_name="+")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, models.CASCADE, related_name="+")
    at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["group", "user"], name="removal_unique")]

    def __str__(self) -> str:
        return f"{self.user} taken out of {self.group}"

    def get_absolute_url(self) -> str:
        return self.group.get_absolute_url()


class Membership(models.Model):
    group = models.ForeignKey(Group, models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=8, choices=Role.choices)
    # "This is me": the player this member is at the group's table.
    player = models.ForeignKey(
        "Player", models.SET_NULL, null=True, blank=True, related_name="memberships"
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["group", "created", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["group", "user"], name="membership_unique"),
            models.UniqueConstraint(
                fields=["group", "player"],
                condition=Q(player__isnull=False),
                name="membership_player_unique",
            ),
            models.CheckConstraint(condition=Q(role__in=Role.values), name="membership_role_known"),
        ]

    def __str__(self) -> str:
        return f"{self.user} in {self.group} ({self.role})"

    def get_absolute_url(self) -> str:
        return self.group.get_absolute_url()


def memberships_of(user_id: int) -> list[Membership]:
    """The user's memberships, each with its group, in the order of the groups' names: what a
    page over a group reads first (the role, the group's version, the switch between groups)."""
    width = len(Membership._meta.concrete_fields)
    found = []
    for row in fetch(statement("MEMBERSHIPS"), user_id):
        member = loaded(Membership, row[:width])
        member.group = loaded(Group, row[width:])
        found.append(member)
    return found


def row_of(model: type[_M], pk: int) -> _M | None:
    """The row of `model` (a player, a night) of this id, or None."""
    return model._default_manager.filter(pk=pk).first()


def new_invite_token() -> str:
    return secrets.token_urlsafe(16)


class InviteQuerySet(models.QuerySet["Invite"]):
    def open(self) -> Self:
        """Invitations that still work: not withdrawn, and made within INVITE_DAYS."""
        since = timezone.now() - timedelta(days=INVITE_DAYS)
        return self.filter(withdrawn__isnull=True, created__gt=since)


class Invite(models.Model):
    """A link that lets whoever opens it join the group with its role."""

    group = models.ForeignKey(Group, models.CASCADE, related_name="invites")
    token = models.CharField(max_length=32, unique=True, default=new_invite_token)
    role = models.CharField(
        max_length=8, choices=[(Role.SCORER, "Scorer"), (Role.VIEWER, "Viewer")]
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, models.SET_NULL, null=True, related_name="+"
    )
    created = models.DateTimeField(auto_now_add=True)
    withdrawn = models.DateTimeField(null=True, blank=True)

    objects = InviteQuerySet.as_manager()

    class Meta:
        ordering = ["-created"]
        constraints = [
            models.CheckConstraint(
                condition=Q(role__in=[Role.SCORER, Role.VIEWER]), name="invite_role_known"
            )
        ]

    def __str__(self) -> str:
        return f"Invitation to {self.group} as {self.role}"

    def get_absolute_url(self) -> str:
        return reverse("games:join", args=[self.token])

    @property
    def expires(self) -> datetime:
        return self.created + timedelta(days=INVITE_DAYS)
