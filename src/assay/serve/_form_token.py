"""The review form's token, kept across restarts of ``assay serve``.

A review page carries a token that its POST must send back (another site cannot read the page,
so it cannot forge the POST). A token made anew at each start would refuse every form that was
open when the server restarted, and the rating typed into it would be lost. So the token is
random once, then kept in ``<user data dir>/assay/serve-form-token``, readable by its owner
alone. Where that file cannot be read or written, each start makes its own token, as before.

Example:
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> first = kept_form_token(folder)
    >>> first == kept_form_token(folder), len(first) >= 40
    (True, True)
    >>> oct((folder / TOKEN_FILE).stat().st_mode & 0o777)
    '0o600'
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

import platformdirs

__all__ = ["TOKEN_FILE", "kept_form_token"]

#: The token's file name in the user data dir.
TOKEN_FILE = "serve-form-token"
_MIN_LENGTH = 40  # a shorter file (cut, or edited by hand) is not used


def kept_form_token(directory: Path | None = None) -> str:
    """The kept token (made on first use), or a new one for this start where it cannot be
    kept."""
    folder = directory or Path(platformdirs.user_data_dir("assay"))
    path = folder / TOKEN_FILE
    try:
        folder.mkdir(parents=True, exist_ok=True)
        token = secrets.token_urlsafe(32)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            kept = path.read_text(encoding="ascii").strip()
            return kept if len(kept) >= _MIN_LENGTH else secrets.token_urlsafe(32)
        with os.fdopen(fd, "w", encoding="ascii") as f:
            f.write(token)
        return token
    except (OSError, UnicodeDecodeError):
        return secrets.token_urlsafe(32)
