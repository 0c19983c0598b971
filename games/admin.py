"""The admin lists and edits every model; every edit is replayed through the rules engine first."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from django import forms
from django.contrib import admin
from django.core.exceptions import ValidationError
from django.db.models import Model, QuerySet
from django.http import HttpRequest

from games import rules
from games.models import (
    TALLY_FIELDS,
    VERDICT_COLUMNS,
    Change,
    Group,
    Hand,
    Invite,
    Match,
    Membership,
    Night,
    Play,
    Player,
    Result,
    Seat,
    delete_match,
    groups_turn,
    record_hands,
)

_M = TypeVar("_M", bound=Model)

if TYPE_CHECKING:
    from django.contrib.admin import ModelAdmin, TabularInline
    from django.forms import BaseInlineFormSet, ModelForm
else:

    class _AnyParameters:
        """Django's class, whatever the [parameters] django-stubs gives it: Django's own
        classes take none at run time."""

        def __init__(self, cls: type) -> None:
            self.cls = cls

        def __getitem__(self, parameters: object) -> type:
            return self.cls

    ModelAdmin = _AnyParameters(admin.ModelAdmin)
    TabularInline = _AnyParameters(admin.TabularInline)
    BaseInlineFormSet = _AnyParameters(forms.BaseInlineFormSet)
    ModelForm = _AnyParameters(forms.ModelForm)


def _check(
    match: Match,
    hands: list[rules.Hand],
    names: Sequence[str] | None = None,
    first_dealer: int | None = None,
) -> None:
    """Replay the match as edited; a rule it breaks becomes a validation error."""
    try:
        start = match.start()
        if names is not None:
            assert first_dealer is not None  # given with the names
            start = rules.new_match(start.ruleset, names, names[first_dealer])
        rules.replay(start, hands)
    except rules.RuleError as e:
        raise ValidationError(e.located()) from e


def _play(row: dict[str, Any]) -> Play:
    """A player's part in a hand as an admin form row has it, unsaved."""
    return Play(player=row["player"], dropped=row["dropped"], tricks=row["tricks"])


def _with_hand(match: Match, number: int, edited: rules.Hand) -> list[rules.Hand]:
    hands = match.game_hands()
    hands[number - 1 : number] = [edited]
    return hands


class _MovesTheVersion(ModelAdmin[_M], Generic[_M]):
    """An edit of a group's player, night or the group itself moves the group's version on
    (`groups_turn`), as the app's own writes do: no page region drawn before it is shown
    after it. A night moved to another group moves both."""

    group_field: str  # the column naming the group

    def save_model(self, request: HttpRequest, obj: _M, form: Any, change: Any) -> None:
        model = type(obj)
        before = (
            model._default_manager.filter(pk=obj.pk)
            .values_list(self.group_field, flat=True)
            .first()
        )
        super().save_model(request, obj, form, change)
        for group in {before, getattr(obj, self.group_field)} - {None}:
            groups_turn(group)

    def delete_model(self, request: HttpRequest, obj: _M) -> None:
        group = getattr(obj, self.group_field)
        super().delete_model(request, obj)
        if type(obj) is not Group:
            groups_turn(group)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[_M]) -> None:
        groups = set(queryset.values_list(self.group_field, flat=True))
        super().delete_queryset(request, queryset)
        for group in groups if queryset.model is not Group else ():
            groups_turn(group)


class _RecordOnSave(ModelAdmin[_M], Generic[_M]):
    """After an edit, store the engine's verdict (the match may have ended or re-opened)."""

    _match_of: Callable[[_M], Match]  # where a row's match is: each admin says

    def save_related(self, request: HttpRequest, form: Any, formsets: Any, change: Any) -> None:
        super().save_related(request, form, formsets, change)
        form.instance.__dict__.pop("names", None)  # the seats may have changed
        match = Match.objects.with_seats().get(pk=self._match_of(form.instance).pk)
        record_hands(match, match.game_hands())


class _PartOfAMatch(ModelAdmin[_M], Generic[_M]):
    """A hand, a play or a seat is never deleted on its own: that would leave a gap in the
    hands or a hand without a player, and no verdict stored for it. Undo on the match page
    takes back the last hand; a match is deleted whole."""

    def has_delete_permission(self, request: HttpRequest, obj: _M | None = None) -> bool:
        return False


@admin.register(Player)
class PlayerAdmin(_MovesTheVersion[Player]):
    group_field = "group_id"
    list_display = ["name", "group", "created"]
    list_filter = ["group"]
    search_fields = ["name"]


class _CheckedFormSet(BaseInlineFormSet[_M, Any, Any], Generic[_M]):
    def kept(self) -> list[dict[str, Any]]:
        """The rows as they will be once saved: filled in and not deleted."""
        return [
            f.cleaned_data
            for f in self.forms
            if f.cleaned_data and not f.cleaned_data.get("DELETE")
        ]


class SeatFormSet(_CheckedFormSet[Seat]):
    def clean(self) -> None:
        super().clean()
        if any(self.errors) or self.instance.pk is None:
            return
        seats = sorted(self.kept(), key=lambda seat: seat["position"])
        names = tuple(seat["player"].name for seat in seats)
        match = self.instance
        if match.first_dealer >= len(names):
            raise ValidationError("The first dealer's seat is empty.")
        _check(match, match.game_hands(), names, match.first_dealer)


class SeatInline(TabularInline[Seat, Match]):
    model = Seat
    formset = SeatFormSet
    extra = 0


@admin.register(Match)
class MatchAdmin(_RecordOnSave[Match]):
    list_display = ["__str__", "group", "preset", "played_at", "finished"]
    list_filter = ["preset", "group"]
    inlines = [SeatInline]
    raw_id_fields = ["night"]
    readonly_fields = ["created", "updated", "finished", "hands_played", "next_dealer"]

    @staticmethod
    def _match_of(match: Match) -> Match:
        return match

    def get_readonly_fields(self, request: HttpRequest, obj: Match | None = None) -> list[str]:
        """A stored match stays in its group: its players, its night and their sums are the
        group's, and a move would leave the pages the group drew before it unchanged."""
        fields = list(super().get_readonly_fields(request, obj))
        return fields + ["group"] if obj is not None else fields

    def delete_model(self, request: HttpRequest, obj: Match) -> None:
        delete_match(obj)  # as the app deletes a match: its sums, its night if left empty

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Match]) -> None:
        for match in queryset:
            delete_match(match)

    def get_deleted_objects(
        self, objs: Sequence[Match] | QuerySet[Match], request: HttpRequest
    ) -> tuple[list[str], dict[str, int], set[str], list[str]]:
        """A match goes whole: its seats, hands, plays and results with it, though none of
        them may be deleted on its own."""
        deleted, counts, _, protected = super().get_deleted_objects(objs, request)
        return deleted, counts, set(), protected


class PlayFormSet(_CheckedFormSet[Play]):
    def clean(self) -> None:
        super().clean()
        if any(self.errors):
            return
        hand = self.instance
        edited = hand.to_rules([_play(row) for row in self.kept()])
        _check(hand.match, _with_hand(hand.match, hand.number, edited))


class PlayInline(TabularInline[Play, Hand]):
    model = Play
    formset = PlayFormSet
    extra = 0


@admin.register(Hand)
class HandAdmin(_PartOfAMatch[Hand], _RecordOnSave[Hand]):
    list_display = ["__str__", "match", "upcard", "trump", "maker", "passed"]
    list_filter = ["upcard", "passed"]
    inlines = [PlayInline]
    # A hand keeps its place: hands are added and taken back on the match's page, in order.
    readonly_fields = ["match", "number", *VERDICT_COLUMNS]  # the verdict: the engine's

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    @staticmethod
    def _match_of(hand: Hand) -> Match:
        return hand.match


class PlayForm(ModelForm[Play]):
    class Meta:
        model = Play
        fields = ["player", "dropped", "tricks"]

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        assert data is not None  # Form.clean answers cleaned_data
        hand = self.instance.hand
        if data.get("player") is None:
            return data
        others = [p for p in hand.plays.select_related("player") if p.pk != self.instance.pk]
        edited = hand.to_rules([*others, _play(data)])
        _check(hand.match, _with_hand(hand.match, hand.number, edited))
        return data


@admin.register(Play)
class PlayAdmin(_PartOfAMatch[Play], _RecordOnSave[Play]):
    form = PlayForm
    list_display = ["__str__", "hand", "player", "dropped", "tricks"]
    list_select_related = ["hand__match", "player"]
    readonly_fields = ["hand"]  # a play stays in its hand, which is checked with it

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    @staticmethod
    def _match_of(play: Play) -> Match:
        return play.hand.match


@admin.register(Seat)
class SeatAdmin(_PartOfAMatch[Seat]):
    """Seats are edited with their match, where the whole table is checked at once."""

    list_display = ["__str__", "match", "player", "position"]
    list_select_related = ["match", "player"]

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


@admin.register(Night)
class NightAdmin(_MovesTheVersion[Night]):
    group_field = "group_id"
    list_display = ["__str__", "group", "created"]
    list_filter = ["group"]


@admin.register(Result)
class ResultAdmin(ModelAdmin[Result]):
    """The engine's verdict, written with the hands: to read, never to edit."""

    list_display = ["__str__", "match", "player", "score", "won", "net_cents"]
    list_select_related = ["match", "player"]
    fields = ["match", "player", "seat", "score", "won", "net_cents", "short", *TALLY_FIELDS]

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False


class MembershipInline(TabularInline[Membership, Group]):
    model = Membership
    extra = 0
    raw_id_fields = ["user", "player"]


@admin.register(Group)
class GroupAdmin(_MovesTheVersion[Group]):
    group_field = "pk"
    list_display = ["name", "home_of", "created"]
    search_fields = ["name", "memberships__user__username"]
    inlines = [MembershipInline]


@admin.register(Invite)
class InviteAdmin(ModelAdmin[Invite]):
    list_display = ["__str__", "created", "withdrawn"]
    list_select_related = ["group"]


@admin.register(Change)
class ChangeAdmin(ModelAdmin[Change]):
    """The change log: to read, never to edit."""

    list_display = ["__str__", "match", "at"]
    list_select_related = ["match"]

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False
