"""Who may see and change what: roles, scoped querysets and DRF permission classes.

Each rule lives here once; pages, APIs, selectors, commands and the review app call it."""
