"""Collection for the whole checkout (tests/ and the doctests in src/): the doctests of a
module that needs an optional extra are skipped, naming the extra, where it is not installed,
so that a core install (``pip install -e .`` and pytest) runs the suite with no failures."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

#: Modules whose doctests need an extra: path -> (module the extra installs, the extra).
_EXTRA_DOCTESTS = {
    "src/assay/run/_ray.py": ("ray", "ray"),
    "src/assay/run/_ray_worker.py": ("ray", "ray"),
    "src/assay/metrics/agent/_schema.py": ("jsonschema", "agents"),
}
_ROOT = Path(__file__).parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the doctests of a module in ``_EXTRA_DOCTESTS`` skipped when its extra is missing."""
    for item in items:
        try:
            path = Path(str(item.path)).resolve().relative_to(_ROOT.resolve()).as_posix()
        except ValueError:
            continue
        need = _EXTRA_DOCTESTS.get(path)
        if need is not None and importlib.util.find_spec(need[0]) is None:
            item.add_marker(pytest.mark.skip(
                reason=f"needs the '{need[1]}' extra: pip install 'assay[{need[1]}]'"))


@pytest.fixture(autouse=True)
def _isolated_user_data(tmp_path_factory: pytest.TempPathFactory,
                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Doctests too keep away from the user's data dir (the default run store, the review
    form's kept token); tests/conftest.py isolates the cache dir as well."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path_factory.mktemp("xdg-data")))
