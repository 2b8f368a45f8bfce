# A mark remembers the key its client drew for the create, once per author, so a create sent again
# after its answer was lost (a dropped connection, the database restarting) makes no second mark.

from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('annotator', '0018_telemetry_height_columns'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name='mark',
            name='client_key',
            field=models.UUIDField(blank=True, null=True),
        ),
        migrations.AddConstraint(
            model_name='mark',
            constraint=models.UniqueConstraint(condition=models.Q(('client_key__isnull', False)), fields=('author', 'client_key'), name='mark_client_key_once'),
        ),
    ]
