"""Django admin: locked and reviewed data is read-only there too, for a superuser as well."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from annotator.models import Item, Mark
from tests.factories import ItemFactory, MarkFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def superuser_client() -> Client:
    client = Client()
    client.force_login(UserFactory(username="root", is_staff=True, is_superuser=True))
    return client


def test_a_locked_mark_cannot_be_changed_or_deleted_in_the_admin(superuser_client: Client) -> None:
    # Given a mark locked by an approved item
    mark = MarkFactory(label="car")
    ItemFactory(scene=mark.scene, marks=[mark], state=Item.State.APPROVED)
    mark.refresh_from_db()
    assert mark.locked

    # When a superuser posts the change form, and then the delete form
    change = superuser_client.post(f"/django-admin/annotator/mark/{mark.id}/change/", {"label": "bus", "locked": ""})
    delete = superuser_client.post(f"/django-admin/annotator/mark/{mark.id}/delete/", {"post": "yes"})

    # Then both are refused and the mark is as it was
    assert change.status_code == 403 and delete.status_code == 403
    after = Mark.objects.get(id=mark.id)
    assert (after.label, after.version, after.locked) == ("car", mark.version, True)


def test_the_admin_shows_marks_read_only_and_deletes_only_free_ones(superuser_client: Client) -> None:
    free = MarkFactory(label="tree")
    page = superuser_client.get(f"/django-admin/annotator/mark/{free.id}/change/")
    assert page.status_code == 200 and 'name="_save"' not in page.content.decode()

    gone = superuser_client.post(f"/django-admin/annotator/mark/{free.id}/delete/", {"post": "yes"})
    assert gone.status_code == 302 and not Mark.objects.filter(id=free.id).exists()


@pytest.mark.parametrize("state", [Item.State.IN_REVIEW, Item.State.APPROVED, Item.State.REJECTED])
def test_only_draft_items_can_be_deleted_in_the_admin(superuser_client: Client, state: str) -> Any:
    item = ItemFactory(state=state)
    draft = ItemFactory(state=Item.State.DRAFT)

    refused = superuser_client.post(f"/django-admin/annotator/item/{item.id}/delete/", {"post": "yes"})
    allowed = superuser_client.post(f"/django-admin/annotator/item/{draft.id}/delete/", {"post": "yes"})

    assert refused.status_code == 403 and Item.objects.filter(id=item.id).exists()
    assert allowed.status_code == 302 and not Item.objects.filter(id=draft.id).exists()
