"""Each project has its own review policy: set on the settings page for one project, applied to
that project's items (how many reviewers, drawn from its reviewers only)."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from annotator.compiling import lifecycle
from annotator.models import Item
from review.models import ReviewAssignment, ReviewPolicy
from review.reviewing.policy import policy_get
from tests.factories import AnnotatorFactory, ItemFactory, ProjectFactory, ReviewerFactory, SceneFactory

pytestmark = pytest.mark.django_db


def test_a_projects_policy_is_its_own_and_its_reviewers_are_drawn_from_its_members(admin: Any) -> None:
    # given a project with three reviewers of its own, and reviewers of the default project only
    ours = [ReviewerFactory(username=f"ours{i}") for i in range(3)]
    ReviewerFactory(username="theirs")
    author = AnnotatorFactory(username="writer")
    project = ProjectFactory(members={"admin": [admin], "reviewer": ours, "annotator": [author]})
    client = Client()
    client.force_login(admin)

    # when the admin asks for three reviewers per item in this project
    form = {"form": "policy", "policy-reviewers_per_item": "3", "policy-gold_rate": "0",
            "policy-gold_min_accuracy": "0.8", "policy-gold_min_answers": "5"}  # fmt: skip
    saved = client.post(f"/review/settings/?project={project.id}", form)
    assert saved.status_code == 302

    # then only this project's policy changed
    assert policy_get(project_id=project.id).reviewers_per_item == 3
    assert policy_get().reviewers_per_item == 2
    assert ReviewPolicy.objects.count() == 2
    # and an item of the project submitted goes to its three reviewers, nobody else's
    item = ItemFactory(scene=SceneFactory(project=project, annotators=[author]), author=author)
    lifecycle.item_submit(item=Item.objects.get(id=item.id), actor=author)
    got = set(ReviewAssignment.objects.filter(item=item).values_list("reviewer__username", flat=True))
    assert got == {"ours0", "ours1", "ours2"}
    # another project's page answers 404 to an admin who is not its member
    assert client.get(f"/review/settings/?project={ProjectFactory().id}").status_code == 404
