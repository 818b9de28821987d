"""Collection for the whole checkout (tests/ and the doctests in src/): the doctests of a
module that needs an optional extra run only where that extra is installed, so that a core
install (``pip install -e .`` and pytest) runs the suite with no failures."""

from __future__ import annotations

import importlib.util

#: Modules whose doctests need an extra, with the module that extra installs.
_EXTRA_DOCTESTS = {
    "src/assay/run/_ray.py": "ray",  # pip install 'assay[ray]'
}

collect_ignore = [path for path, module in _EXTRA_DOCTESTS.items()
                  if importlib.util.find_spec(module) is None]
