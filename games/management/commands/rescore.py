"""rescore [--group ID]: the engine's verdict on every match written anew (each hand's dealer,
scores and sets, each seat's result, the match's end) from its stored hands, then every
player's sums: for a database whose rows were changed behind the app, or a release whose
engine scores some match differently. A match the engine now refuses is named and left as it
is."""

from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.db import transaction

from games import rules
from games.management.commands._group import group_named
from games.models import Group, Match, groups_turn, record_hands, recount_sums


class Command(BaseCommand):
    help = (
        "Write the engine's verdict on every match anew from its hands, then sum every "
        "player's results anew, in every group or in --group ID."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--group", type=int, metavar="ID", help="only this group's matches")

    def handle(self, *args: Any, **options: Any) -> None:
        pk = options["group"]
        groups = [group_named(pk)] if pk is not None else Group.objects.order_by("pk")
        for group in groups:
            refused = 0
            matches = Match.objects.filter(group=group).order_by("pk")
            for match in matches.with_seats():
                try:
                    with transaction.atomic():
                        record_hands(match, match.game_hands())
                except rules.RuleError as e:
                    refused += 1
                    self.stderr.write(f"{match} ({match.pk}): hand {e.hand}: {e.message}")
            with transaction.atomic():
                groups_turn(group.pk)
                recount_sums(list(group.players.values_list("pk", flat=True)))
            self.stdout.write(
                f"{group} ({group.pk}): {matches.count()} matches rescored"
                + (f", {refused} left as they were." if refused else ".")
            )
