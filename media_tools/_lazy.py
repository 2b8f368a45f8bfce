"""Package exports resolved on first use (PEP 562), so importing a package does not import what its
submodules import: a web process that needs one small name from media_tools must not pay for OpenCV,
GDAL or libvips (bench/README.md, "What a web process costs")."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(package: str, exports: Mapping[str, str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """`__getattr__` and `__dir__` for `package`, whose public `name` lives in submodule `exports[name]`.

    Resolving a name binds every export of its submodule in the package, so later lookups are plain
    attribute reads, and an export named like its submodule (media_tools.cvaa.evaluate, the function)
    replaces the module object that the import system sets on the package."""
    namespace = importlib.import_module(package).__dict__

    def module_getattr(name: str) -> Any:
        submodule = exports.get(name)
        if submodule is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module = importlib.import_module(f".{submodule}", package)
        for export, home in exports.items():
            if home == submodule:
                namespace[export] = getattr(module, export)
        return namespace[name]

    def module_dir() -> list[str]:
        return sorted(set(namespace) | set(exports))

    return module_getattr, module_dir
