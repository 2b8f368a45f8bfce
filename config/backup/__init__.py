"""Backup and restore of a whole instance: the database, through its own consistent-snapshot tools,
and every media file, through Django's storage API, in one tar with a manifest.

It knows no app: tables come from the database, stored file names from the models' file fields, so a
new table or file field is backed up without a change here. `manage.py backup` / `restore` call
`services.py`; see the README's "Operations: backup and restore".
"""
