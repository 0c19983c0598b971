"""Groups own the table: each account's players, matches and nights become those of a group
of its own, named after it, with the account as its owner. Every row keeps its id."""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models

import games.models


def give_each_account_its_group(apps, schema_editor):
    User = apps.get_model(*settings.AUTH_USER_MODEL.split("."))
    Group = apps.get_model("games", "Group")
    Membership = apps.get_model("games", "Membership")
    owners = set()
    for name in ("Player", "Match", "Night"):
        owners |= set(apps.get_model("games", name).objects.values_list("owner_id", flat=True))
    for user in User.objects.filter(pk__in=owners).order_by("pk"):
        group = Group.objects.create(name=user.username[:60], home_of=user)
        Membership.objects.create(group=group, user=user, role="owner")
        for name in ("Player", "Match", "Night"):
            rows = apps.get_model("games", name).objects.filter(owner_id=user.pk)
            rows.update(group=group)


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0008_hand_verdict"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="Group",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("name", models.CharField(max_length=60)),
                ("created", models.DateTimeField(auto_now_add=True)),
                (
                    "home_of",
                    models.OneToOneField(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="home_group",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "ordering": ["name", "pk"],
                "constraints": [
                    models.CheckConstraint(
                        condition=models.Q(("name", ""), _negated=True), name="group_name_not_empty"
                    )
                ],
            },
        ),
        migrations.CreateModel(
            name="Membership",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "role",
                    models.CharField(
                        choices=[("viewer", "Viewer"), ("scorer", "Scorer"), ("owner", "Owner")],
                        max_length=8,
                    ),
                ),
                ("created", models.DateTimeField(auto_now_add=True)),
                (
                    "group",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="memberships",
                        to="games.group",
                    ),
                ),
                (
                    "user",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="memberships",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "player",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="memberships",
                        to="games.player",
                    ),
                ),
            ],
            options={
                "ordering": ["group", "created", "pk"],
                "constraints": [
                    models.UniqueConstraint(fields=("group", "user"), name="membership_unique"),
                    models.UniqueConstraint(
                        condition=models.Q(("player__isnull", False)),
                        fields=("group", "player"),
                        name="membership_player_unique",
                    ),
                    models.CheckConstraint(
                        condition=models.Q(("role__in", ["viewer", "scorer", "owner"])),
                        name="membership_role_known",
                    ),
                ],
            },
        ),
        migrations.CreateModel(
            name="Invite",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "token",
                    models.CharField(
                        default=games.models.new_invite_token, max_length=32, unique=True
                    ),
                ),
                (
                    "role",
                    models.CharField(
                        choices=[("scorer", "Scorer"), ("viewer", "Viewer")], max_length=8
                    ),
                ),
                ("created", models.DateTimeField(auto_now_add=True)),
                ("withdrawn", models.DateTimeField(blank=True, null=True)),
                (
                    "created_by",
                    models.ForeignKey(
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "group",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="invites",
                        to="games.group",
                    ),
                ),
            ],
            options={
                "ordering": ["-created"],
                "constraints": [
                    models.CheckConstraint(
                        condition=models.Q(("role__in", ["scorer", "viewer"])),
                        name="invite_role_known",
                    )
                ],
            },
        ),
        migrations.CreateModel(
            name="Change",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "kind",
                    models.CharField(
                        choices=[
                            ("started", "started"),
                            ("saved", "saved"),
                            ("edited", "edited"),
                            ("undone", "undone"),
                        ],
                        max_length=8,
                    ),
                ),
                (
                    "number",
                    models.PositiveSmallIntegerField(
                        help_text="the hand; for a start, the hands it had"
                    ),
                ),
                ("by", models.CharField(blank=True, max_length=150)),
                ("at", models.DateTimeField(default=django.utils.timezone.now)),
                ("before", models.JSONField(blank=True, null=True)),
                ("after", models.JSONField(blank=True, null=True)),
                (
                    "match",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="changes",
                        to="games.match",
                    ),
                ),
                (
                    "user",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "ordering": ["-at", "-pk"],
                "indexes": [models.Index(fields=["match", "number"], name="change_match_number")],
            },
        ),
        migrations.AddField(
            model_name="player",
            name="group",
            field=models.ForeignKey(
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="players",
                to="games.group",
            ),
        ),
        migrations.AddField(
            model_name="match",
            name="group",
            field=models.ForeignKey(
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="matches",
                to="games.group",
            ),
        ),
        migrations.AddField(
            model_name="night",
            name="group",
            field=models.ForeignKey(
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="nights",
                to="games.group",
            ),
        ),
        migrations.RunPython(give_each_account_its_group, migrations.RunPython.noop),
        migrations.RemoveConstraint(model_name="player", name="player_name_unique"),
        migrations.RemoveIndex(model_name="match", name="match_owner_played"),
        migrations.RemoveField(model_name="player", name="owner"),
        migrations.RemoveField(model_name="match", name="owner"),
        migrations.RemoveField(model_name="night", name="owner"),
        migrations.AlterField(
            model_name="player",
            name="group",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="players",
                to="games.group",
            ),
        ),
        migrations.AlterField(
            model_name="match",
            name="group",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="matches",
                to="games.group",
            ),
        ),
        migrations.AlterField(
            model_name="night",
            name="group",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE, related_name="nights", to="games.group"
            ),
        ),
        migrations.AddConstraint(
            model_name="player",
            constraint=models.UniqueConstraint(fields=("group", "name"), name="player_name_unique"),
        ),
        migrations.AddIndex(
            model_name="match",
            index=models.Index(fields=["group", "-played_at"], name="match_group_played"),
        ),
    ]
