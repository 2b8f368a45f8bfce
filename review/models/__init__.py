"""Tables and database constraints only; business rules live in the stage packages."""

from .releases import Release
from .reviews import Review

__all__ = ["Release", "Review"]
