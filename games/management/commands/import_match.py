from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from games import matchfile
from games.management.commands.replay import fail, read_file
from games.models import Match
from games.rules import RuleError


class Command(BaseCommand):
    help = "Store a buck-euchre/1 match file as a new match (all or nothing); print its id."

    def add_arguments(self, parser):
        parser.add_argument("file", help="the match file, or - for standard input")
        parser.add_argument("--user", help="the owner's username (default: the first superuser)")
        parser.add_argument("--json", action="store_true", help="report an error as JSON")

    def handle(self, *args, **options):
        owner = self._owner(options["user"])
        try:
            match = Match.from_file(owner, matchfile.parse(read_file(options["file"])))
        except RuleError as e:
            fail(self, e, options["json"])
        self.stdout.write(str(match.pk))

    def _owner(self, username):
        User = get_user_model()
        users = User.objects.all()
        if username:
            users = users.filter(username=username)
        else:
            users = users.order_by("-is_superuser", "pk")
        owner = users.first()
        if owner is None and username:
            raise CommandError(f"There is no user {username!r}.")
        if owner is None:
            # A fresh database: keep the match under an account that can be given a password
            # later with `changepassword scorekeeper`.
            owner = User.objects.create_user("scorekeeper")
            self.stderr.write("Stored under a new account, scorekeeper (no password yet).")
        return owner
