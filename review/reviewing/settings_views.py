"""The review settings page (admins): the policy, and the rejection taxonomy reviewers pick from."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse

from annotator.access.permissions import IsAdmin, page_require
from annotator.access.scopes import project_get_visible, projects_visible
from annotator.models import Project, project_default_id
from annotator.parsers import query_id
from review.models import RejectionReason, ReviewPolicy
from review.reviewing.policy import policy_get
from review.reviewing.settings import POLICY_FIELDS, policy_update, reason_create, reason_update


class PolicyForm(forms.ModelForm):
    class Meta:
        model = ReviewPolicy
        fields = list(POLICY_FIELDS)


class ReasonForm(forms.ModelForm):
    """One row of the reasons table; its inputs name the row's own <form> (a form cannot wrap a row)."""

    class Meta:
        model = RejectionReason
        fields = ["label", "description", "group", "active", "position"]
        widgets = {"description": forms.TextInput(), "position": forms.NumberInput(attrs={"style": "width:70px"})}

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        for field in self.fields.values():
            field.widget.attrs["form"] = f"form-{self.prefix}"


class NewReasonForm(forms.ModelForm):
    class Meta:
        model = RejectionReason
        fields = ["code", "label", "description", "group"]
        widgets = {
            "code": forms.TextInput(attrs={"placeholder": "code (a slug reviews store)"}),
            "label": forms.TextInput(attrs={"placeholder": "label reviewers read"}),
            "description": forms.TextInput(attrs={"placeholder": "description of the defect"}),
        }


def _project(request: HttpRequest) -> Project:
    """The project whose policy the page shows: ?project=<id> (one of the user's, else 404), or the
    default project when the user is a member of it, or their first project."""
    chosen = query_id(request.GET.get("project", ""))
    if chosen is not None:
        return project_get_visible(user=request.user, project_id=chosen)
    mine = projects_visible(user=request.user)
    first = mine.filter(id=project_default_id()).first() or mine.order_by("id").first()
    if first is None:
        raise Http404("you are not a member of any project")
    return first


@login_required
def review_settings_page(request: HttpRequest) -> HttpResponse:
    page_require(request, IsAdmin())
    reasons = list(RejectionReason.objects.order_by("position", "id"))
    project = _project(request)
    policy_form = PolicyForm(instance=policy_get(project_id=project.id), prefix="policy")
    reason_forms = [ReasonForm(instance=r, prefix=f"r-{r.code}") for r in reasons]
    new_form = NewReasonForm(prefix="new")
    if request.method == "POST":
        which = request.POST.get("form", "")
        try:
            if which == "policy":
                policy_form = PolicyForm(request.POST, instance=policy_get(project_id=project.id), prefix="policy")
                if policy_form.is_valid():
                    fields = {f: policy_form.cleaned_data[f] for f in POLICY_FIELDS}
                    policy_update(admin=request.user, project_id=project.id, **fields)
                    messages.success(request, f"Review policy of {project.name} saved.")
                    return redirect(f"{reverse('review-settings')}?project={project.id}")
            elif which == "new":
                new_form = NewReasonForm(request.POST, prefix="new")
                if new_form.is_valid():
                    reason_create(**new_form.cleaned_data)
                    messages.success(request, "Reason added.")
                    return redirect("review-settings")
            elif which.startswith("r-"):
                reason = next((r for r in reasons if f"r-{r.code}" == which), None)
                form = ReasonForm(request.POST, instance=reason, prefix=which)
                if reason is not None and form.is_valid():
                    reason_update(code=reason.code, **form.cleaned_data)
                    messages.success(request, f"Reason “{form.cleaned_data['label']}” saved.")
                    return redirect("review-settings")
                reason_forms = [form if f.prefix == which else f for f in reason_forms]
        except ValidationError as exc:
            messages.error(request, "; ".join(exc.messages))
    return render(
        request,
        "review/settings.html",
        {
            "policy_form": policy_form,
            "reason_forms": reason_forms,
            "new_form": new_form,
            "project": project,
            "projects": projects_visible(user=request.user),
        },
        status=400 if request.method == "POST" else 200,
    )
