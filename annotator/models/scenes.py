"""Scenes and who annotates them."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from .projects import project_default_id


class Scene(models.Model):
    name = models.CharField(max_length=200, unique=True)
    # Everything drawn, compiled and reviewed on the scene belongs to this project.
    project = models.ForeignKey(
        "annotator.Project", on_delete=models.PROTECT, related_name="scenes", default=project_default_id
    )
    video = models.OneToOneField("annotator.Video", on_delete=models.PROTECT, related_name="scene")
    satellite_images = models.ManyToManyField("annotator.SatelliteImage", related_name="scenes")
    description = models.TextField(blank=True)
    # Where the media come from and on what terms: releases and their datasheet carry these.
    source_license = models.CharField(max_length=200, blank=True)
    source_attribution = models.TextField(blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return self.name


class Assignment(models.Model):
    scene = models.ForeignKey(Scene, on_delete=models.CASCADE, related_name="assignments")
    annotator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="assignments")
    assigned_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["scene", "annotator"], name="assignment_unique")]

    def __str__(self) -> str:
        return f"scene {self.scene_id} -> user {self.annotator_id}"
