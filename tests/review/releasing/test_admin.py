"""The Django admin shows releases and items read-only: frozen records are not edited there."""

from __future__ import annotations

import pytest

from annotator.models import Item
from review.releasing.services import release_build
from tests.factories import ItemFactory

pytestmark = pytest.mark.django_db


def test_admin_cannot_edit_or_delete_a_release_or_an_item(admin, client) -> None:
    item = ItemFactory(state=Item.State.APPROVED)
    release = release_build(version="1.0", user=admin, balance_yes_no=False)  # one yes/no item
    admin.is_staff = admin.is_superuser = True  # as seed_demo makes the admin
    admin.save()
    client.force_login(admin)
    page = client.get(f"/django-admin/review/release/{release.id}/change/")
    assert page.status_code == 200 and b'name="_save"' not in page.content  # shown, not editable
    assert client.post(f"/django-admin/review/release/{release.id}/delete/", {"post": "yes"}).status_code == 403
    assert client.get("/django-admin/review/release/add/").status_code == 403
    item_page = client.get(f"/django-admin/annotator/item/{item.id}/change/")
    assert item_page.status_code == 200 and b'name="_save"' not in item_page.content
    assert client.post(f"/django-admin/annotator/item/{item.id}/change/", {"state": "draft"}).status_code == 403
    assert Item.objects.get(id=item.id).state == Item.State.APPROVED
