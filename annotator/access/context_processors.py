from django.http import HttpRequest

from .roles import ADJUDICATOR, ADMIN, ANNOTATOR, REVIEWER, user_roles


def roles(request: HttpRequest) -> dict[str, bool]:
    names = user_roles(request.user)
    return {
        "is_annotator": ANNOTATOR in names,
        "is_reviewer": REVIEWER in names,
        "is_admin": ADMIN in names,
        "is_adjudicator": ADJUDICATOR in names,
    }
