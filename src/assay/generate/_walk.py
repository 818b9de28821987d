"""Walking a folder of documents: its files depth first in name order, hidden ones left out,
links followed (to files and folders) but never round a loop.

A link that leads back to a folder the walk is inside, a chain of links that ends where it
began, and a link to nothing are not walked: each is yielded with the reason, which names the
loop, so the caller can skip it and say why (never a traceback, never a silent gap).

Example:
    >>> import os, pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "a.txt").write_text("Hello.")
    >>> os.symlink("b", folder / "loop"); os.symlink("loop", folder / "b")
    >>> (folder / "sub").mkdir(); os.symlink("..", folder / "sub" / "up")
    >>> for path, why in walk_folder(folder, []):
    ...     print(path.relative_to(folder).as_posix(), "|", why)
    a.txt | None
    b | a loop of symbolic links: b -> loop -> b
    loop | a loop of symbolic links: loop -> b -> loop
    sub/up | a link back to a folder it is in (up -> ..): following it would loop
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator
from pathlib import Path

__all__ = ["link_problem", "walk_folder"]

#: Links followed in a chain before it is called a loop (the kernel's limit).
MAX_LINKS = 40


def walk_folder(folder: Path, problems: list[str]) -> Iterator[tuple[Path, str | None]]:
    """``(path, None)`` for each file under ``folder`` (see the module's docstring), and
    ``(path, why)`` for each entry not walked; a folder that cannot be listed is a problem
    appended to ``problems``."""
    yield from _walk(folder, problems, frozenset({_real(folder)}))


def link_problem(path: Path) -> str | None:
    """Why the link ``path`` cannot be followed (a loop, named; or a link to nothing), else
    ``None`` (not a link, or one that leads somewhere).

    Example:
        >>> import os, pathlib, tempfile
        >>> folder = pathlib.Path(tempfile.mkdtemp())
        >>> os.symlink("missing.txt", folder / "gone.txt")
        >>> link_problem(folder / "gone.txt")
        'a symbolic link to nothing (gone.txt -> missing.txt)'
    """
    if not path.is_symlink():
        return None
    try:
        path.resolve(strict=True)
    except FileNotFoundError:
        return f"a symbolic link to nothing ({path.name} -> {os.readlink(path)})"
    except RuntimeError:  # a loop (Python 3.11 and 3.12)
        return f"a loop of symbolic links: {_chain(path)}"
    except OSError as e:  # a loop (ELOOP, Python 3.13), or a folder on the way not readable
        if e.errno == errno.ELOOP:
            return f"a loop of symbolic links: {_chain(path)}"
        return f"a symbolic link that cannot be followed ({e.strerror})"
    return None


def _chain(path: Path) -> str:
    """The links from ``path`` round their loop: ``a -> b -> a``."""
    names = [path.name]
    seen = {os.path.abspath(path)}
    current = os.path.abspath(path)
    for _ in range(MAX_LINKS):
        if not os.path.islink(current):
            break
        target = os.readlink(current)
        names.append(target)
        current = os.path.normpath(os.path.join(os.path.dirname(current), target))
        if current in seen:
            break
        seen.add(current)
    return " -> ".join(names)


def _real(path: Path) -> str:
    return os.path.realpath(path)


def _walk(folder: Path, problems: list[str],
          inside: frozenset[str]) -> Iterator[tuple[Path, str | None]]:
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError as e:
        problems.append(f"{folder.as_posix()}: cannot list the folder ({e.strerror}). Fix: "
                        "make it readable, or leave it out.")
        return
    for entry in entries:
        if entry.name.startswith("."):
            continue
        path = Path(entry.path)
        try:
            if entry.is_symlink() and (why := link_problem(path)) is not None:
                yield path, why
            elif entry.is_dir():
                real = _real(path)
                if real in inside:
                    yield path, (f"a link back to a folder it is in ({entry.name} -> "
                                 f"{os.readlink(path)}): following it would loop")
                else:
                    yield from _walk(path, problems, inside | {real})
            elif entry.is_file():
                yield path, None
            else:
                yield path, "not a regular file (a device, pipe or socket)"
        except OSError as e:
            yield path, f"cannot be read ({e.strerror})"
