"""The README and docs/ stay true: every link leads somewhere; every command, every option of
every command, every search setting, preset, MCP tool and environment variable is documented; the
README stays short and starts with the two set-up commands CI runs."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from explorer.commands.program import build_parser
from explorer.mcp.server import TOOLS
from explorer.search.query.options import PARAMETERS, PRESETS

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
COMMANDS_PAGE = ROOT / "docs" / "commands.md"
#: Where a user finds what the program does: the README and docs/.
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]
#: The README is for users: what the program is, how to run it, where to look next.
README_MAX_LINES = 350
_LINK = re.compile(r"\]\(([^)\s]+)\)")
_HEADING = re.compile(r"^#+ (.+)$", re.MULTILINE)
_ANCHOR = re.compile(r'<a id="([^"]+)"></a>')
_CODE = re.compile(r"```.*?```|`[^`\n]*`", re.DOTALL)


def anchors(page: Path) -> set[str]:
    """The anchors a page has, as GitHub makes them from its headings (and explicit ids)."""
    text = page.read_text(encoding="utf-8")
    found = set(_ANCHOR.findall(text))
    for heading in _HEADING.findall(text):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        found.add(slug)
    return found


@pytest.mark.parametrize("page", [*PAGES, ROOT / "CONTRIBUTING.md"], ids=lambda p: p.name)
def test_every_link_of_a_page_leads_somewhere(page: Path) -> None:
    text = _CODE.sub("", page.read_text(encoding="utf-8"))  # a link in code is an example
    for target in _LINK.findall(text):
        if target.startswith(("http://", "https://", "mailto:")):
            continue
        where, _, anchor = target.partition("#")
        goal = page if not where else (page.parent / where).resolve()
        assert goal.exists(), f"{page.name}: {target} leads nowhere"
        if anchor and goal.suffix == ".md":
            assert anchor in anchors(goal), f"{page.name}: {target} has no such heading"


def documented() -> str:
    return "\n".join(page.read_text(encoding="utf-8") for page in PAGES)


def subparsers() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    actions = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return {name: sub for action in actions for name, sub in action.choices.items()}


def commands() -> list[str]:
    return sorted(subparsers())


def long_options(parser: argparse.ArgumentParser) -> set[str]:
    return {
        option
        for action in parser._actions
        for option in action.option_strings
        if option.startswith("--") and option != "--help"
    }


#: The options every command takes (the program's own: ``--data-dir``, ``--model``, …).
COMMON = long_options(build_parser())


def mentions(text: str, option: str) -> bool:
    """``option`` named as itself in ``text`` (``--k`` is not ``--keep``)."""
    return re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", text) is not None


def section(page: Path, heading: str) -> str:
    """The text under the ``## heading`` of ``page``, up to the next heading of its level."""
    text = page.read_text(encoding="utf-8")
    found = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    assert found, f"{page.name} has no section '## {heading}'"
    return found.group(1)


@pytest.mark.parametrize("command", commands())
def test_every_command_is_documented(command: str) -> None:
    assert f"vault-explorer {command}" in documented()


@pytest.mark.parametrize("command", commands())
def test_every_command_is_in_the_readme_s_table(command: str) -> None:
    table = section(README, "The command line")
    assert f"| `vault-explorer {command}" in table, f"add a row for {command}"


@pytest.mark.parametrize("command", commands())
def test_every_option_of_every_command_is_documented(command: str) -> None:
    """Each command has its section in docs/commands.md, naming every option it takes (the
    options every command takes are named once, under "Every command")."""
    text = section(COMMANDS_PAGE, f"`vault-explorer {command}`")
    options = long_options(subparsers()[command]) - COMMON
    assert options, command
    missing = sorted(o for o in options if not mentions(text, o))
    assert not missing, f"docs/commands.md, vault-explorer {command}: document {missing}"


def test_the_options_of_every_command_are_documented_once() -> None:
    assert {"--data-dir", "--model"} <= COMMON
    text = section(COMMANDS_PAGE, "Every command")
    assert not sorted(o for o in COMMON if not mentions(text, o))


def test_an_undocumented_option_is_seen() -> None:
    assert not mentions("`--keep` keeps the vault", "--k")
    assert mentions("`--k X` is RRF's k", "--k")
    assert not mentions("--no-embed-sample", "--no-embed")


@pytest.mark.parametrize("setting", [p.flag for p in PARAMETERS])
def test_every_search_setting_is_documented(setting: str) -> None:
    assert f"`{setting}" in documented() or f"{setting} " in documented()


@pytest.mark.parametrize("name", [p.name for p in PARAMETERS])
def test_every_search_setting_s_json_name_is_documented(name: str) -> None:
    """The name a setting has in JSON, in ``key=value`` text and in the MCP tools."""
    assert f"`{name}`" in documented()


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_preset_is_documented(name: str) -> None:
    assert f"`{name}`" in documented()


@pytest.mark.parametrize("tool", sorted(TOOLS))
def test_every_mcp_tool_is_in_the_readme(tool: str) -> None:
    table = section(README, "Your assistant searches your notes (MCP)")
    assert f"| `{tool}` |" in table


def environment_variables() -> list[str]:
    """Every ``VAULT_EXPLORER_…`` variable the program's code names."""
    found = set()
    for module in (ROOT / "explorer").rglob("*.py"):
        found.update(re.findall(r"VAULT_EXPLORER_[A-Z_]+", module.read_text(encoding="utf-8")))
    return sorted(found)


@pytest.mark.parametrize("variable", environment_variables())
def test_every_environment_variable_is_documented(variable: str) -> None:
    assert mentions(documented(), variable)
    assert mentions(section(COMMANDS_PAGE, "Environment variables"), variable)


def test_the_program_reads_environment_variables() -> None:
    assert {"VAULT_EXPLORER_DATA", "VAULT_EXPLORER_MODEL"} <= set(environment_variables())


def test_the_readme_is_short() -> None:
    lines = README.read_text(encoding="utf-8").count("\n")
    assert lines <= README_MAX_LINES, f"README.md has {lines} lines: move detail to docs/"


def readme_commands() -> list[str]:
    """The commands of the README's first code block, without their comments."""
    text = README.read_text(encoding="utf-8")
    block = re.search(r"```bash\n(.*?)```", text, re.S)
    assert block, "the README starts with a bash block"
    assert not text[: block.start()].replace("# Vault Explorer", "").strip(), (
        "the README starts with the two set-up commands"
    )
    return [line.split("  #", 1)[0].strip() for line in block.group(1).splitlines()]


def test_the_readme_starts_with_the_two_set_up_commands() -> None:
    run, test = readme_commands()
    assert run.endswith("&& vault-explorer"), run
    assert test.endswith("&& python -m pytest"), test


def test_ci_runs_the_readme_s_test_command() -> None:
    """.ci/run runs the README's test command, on the line after its marker."""
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    marker = next(i for i, line in enumerate(ci) if "keep the two in step" in line)
    assert ci[marker + 1].strip() == readme_commands()[1]


def test_the_readme_s_figures_are_dated() -> None:
    figures = section(README, "Figures")
    assert "| fts | semantic | **hybrid** |" in figures
    assert re.search(r"\(20\d\d-\d\d-\d\d\)", figures), "say when the figures were measured"
