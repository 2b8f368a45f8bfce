"""The one error a template raises: the marks cannot make the item, and the message says what to
add or fix. Kept apart from the templates so geometry helpers can raise it without importing them."""

from __future__ import annotations


class TemplateError(Exception):
    """`field` names what to fix ("marks", "facts.visible", "satellite_image", ...)."""

    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field = field

    @property
    def message(self) -> str:
        return str(self)
