from __future__ import annotations

import json
from typing import Any

from django import forms
from django.contrib.auth import get_user_model

from annotator.access.roles import ANNOTATOR
from annotator.access.scopes import projects_visible
from annotator.intake.manifest import telemetry_columns
from annotator.models import Project


class MultipleFileInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class MultipleFileField(forms.FileField):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("widget", MultipleFileInput())
        super().__init__(*args, **kwargs)

    def clean(self, data: Any, initial: Any = None) -> Any:
        single = super().clean
        if isinstance(data, list | tuple):
            return [single(d, initial) for d in data]
        return [single(data, initial)] if data else []


class SceneUploadForm(forms.Form):
    project = forms.ModelChoiceField(
        queryset=Project.objects.none(),
        empty_label=None,
        required=False,  # scripts posting the form without it import into the default project
        help_text="The project the scene belongs to",
    )
    name = forms.CharField(max_length=200)
    video = forms.FileField(help_text="A drone video (MP4, MOV, AVI, MKV ...)")
    satellite = MultipleFileField(required=False, help_text="Satellite or aerial image(s) of the same place")
    use_keyframe = forms.BooleanField(required=False, label="No satellite image yet: use the video's first frame")
    corners = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text='Optional: {"tl": [lat, lon], "tr": [...], "br": [...], "bl": [...]}',
    )
    gcps = forms.FileField(
        required=False,
        label="Ground control points",
        help_text="Optional CSV with x, y (pixels of the image) and lat, lon columns; 3 or more points",
    )
    make_orthophoto = forms.BooleanField(
        required=False, label="Warp the video's first frame north-up with these control points (nadir videos)"
    )
    world_file = forms.FileField(required=False, help_text="Optional world file (.tfw, .pgw, .jgw, .wld)")
    world_file_crs = forms.CharField(required=False, max_length=64, help_text="CRS of the world file, e.g. EPSG:32631")
    telemetry = forms.FileField(required=False, help_text="Optional drone track: CSV (time_s, lat, lon ...) or DJI SRT")
    # Filled by the page's column picker (static/js/upload): {"height_m": "rel_alt_m", ...}.
    telemetry_columns = forms.CharField(
        required=False,
        max_length=2_000,
        widget=forms.HiddenInput,
        label="Telemetry columns",
    )
    license = forms.CharField(
        required=False, max_length=200, help_text="Licence of the video and images, e.g. CC BY 4.0 (releases carry it)"
    )
    attribution = forms.CharField(
        required=False, max_length=10_000, help_text="Who to credit, as the licence asks (releases carry it)"
    )
    description = forms.CharField(required=False, max_length=10_000, widget=forms.Textarea(attrs={"rows": 2}))
    annotators = forms.ModelMultipleChoiceField(queryset=get_user_model().objects.none(), required=False)

    def __init__(self, *args: Any, user: Any = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        project = self.fields["project"]
        assert isinstance(project, forms.ModelChoiceField)
        project.queryset = projects_visible(user=user).order_by("name") if user is not None else Project.objects.all()
        field = self.fields["annotators"]
        assert isinstance(field, forms.ModelMultipleChoiceField)
        field.queryset = get_user_model().objects.filter(groups__name=ANNOTATOR).order_by("username")

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("make_orthophoto") and not data.get("gcps"):
            self.add_error("gcps", "an orthophoto needs ground control points")
        if data.get("make_orthophoto") and data.get("use_keyframe"):
            self.add_error("make_orthophoto", "use the first frame as is or as an orthophoto, not both")
        return data

    def clean_telemetry_columns(self) -> dict[str, str]:
        text = self.cleaned_data["telemetry_columns"].strip()
        if not text:
            return {}
        try:
            return telemetry_columns(json.loads(text))
        except json.JSONDecodeError as exc:
            raise forms.ValidationError(f"not JSON: {exc.msg}") from exc
        except ValueError as exc:
            raise forms.ValidationError(str(exc).removeprefix("telemetry_columns: ")) from exc

    def clean_corners(self) -> dict[str, Any] | None:
        text = self.cleaned_data["corners"].strip()
        if not text:
            return None
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise forms.ValidationError(f"not JSON: {exc.msg}") from exc
