"""The root group's command table (``assay.cli._app.COMMANDS``) agrees with the commands it
imports lazily: the same names and the same one-line help, so ``assay --help`` lists what the
commands themselves would say without importing them."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from assay.cli._app import COMMANDS, app, load_command


@pytest.mark.parametrize("name", list(COMMANDS))
def test_the_table_holds_each_commands_own_one_line_help(name: str) -> None:
    command = load_command(name)
    assert command.name == name
    assert command.get_short_help_str(10_000) == COMMANDS[name][2]


def test_root_help_lists_every_command_and_an_unknown_one_is_a_usage_error() -> None:
    shown = CliRunner().invoke(app, ["--help"])
    assert shown.exit_code == 0
    rows = shown.output.split("Commands:\n")[1].splitlines()
    assert [row.split()[0] for row in rows] == list(COMMANDS)
    for row, (_, _, short) in zip(rows, COMMANDS.values(), strict=True):
        assert short.startswith(row.split(maxsplit=1)[1].removesuffix("...")), row
    wrong = CliRunner().invoke(app, ["rn"])
    assert wrong.exit_code == 2 and "No such command 'rn'" in wrong.output
