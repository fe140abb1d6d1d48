"""The one search settings value: validation, ``key=value,…``, JSON and command-line wiring."""

from __future__ import annotations

import argparse
from dataclasses import fields, replace

import pytest

from explorer.index.vectors import VectorHit
from explorer.search.query.options import (
    MODES,
    PARAMETERS,
    PRESETS,
    RANKING,
    SearchOptions,
    add_arguments,
    from_args,
    number_text,
    parse,
)
from explorer.search.query.query import QueryError


def test_every_field_is_a_parameter_and_the_defaults_are_valid() -> None:
    assert [p.name for p in PARAMETERS] == [f.name for f in fields(SearchOptions)]
    assert SearchOptions().validate() == SearchOptions()
    assert "limit" not in RANKING and "sort" not in RANKING
    assert set(RANKING) | {"limit", "sort"} == set(SearchOptions().to_json())


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"mode": "vector"}, "unknown mode 'vector'; choose one of fts, semantic, hybrid"),
        ({"fusion": "borda"}, "unknown fusion 'borda'; choose one of rrf, convex"),
        ({"k": 0.0}, "k must be positive and at most 1000000, got 0"),
        ({"k": float("nan")}, "k must be a finite number"),
        ({"w_fts": -0.1}, "w-fts must be between 0 and 1000, got -0.1"),
        ({"w_vec": float("inf")}, "w-vec must be a finite number"),
        ({"depth": 0}, "depth must be between 1 and 1000, got 0"),
        ({"min_sim": 1.5}, "min-sim must be between -1 and 1, got 1.5"),
        ({"min_rel": -0.5}, "min-rel must be between 0 and 1, got -0.5"),
        ({"limit": 101}, "limit must be between 1 and 100, got 101"),
    ],
)
def test_a_bad_value_is_named_in_one_line(changes: dict[str, object], message: str) -> None:
    with pytest.raises(QueryError, match="^" + message.replace("(", r"\(")):
        replace(SearchOptions(), **changes).validate()  # type: ignore[arg-type]


def test_the_vector_floor_is_the_higher_of_the_absolute_and_the_relative_one() -> None:
    assert SearchOptions(min_sim=0.3, min_rel=0.0).vector_floor(0.9) == 0.3
    assert SearchOptions(min_sim=0.0, min_rel=0.5).vector_floor(0.294) == 0.147
    assert SearchOptions(min_sim=0.2, min_rel=0.5).vector_floor(0.3) == 0.2
    assert SearchOptions(min_sim=0.1, min_rel=0.5).vector_floor(-0.2) == 0.1


def test_key_value_text_over_a_base() -> None:
    base = SearchOptions(depth=100)
    options = parse(" fusion=convex, w_fts=0.5,w-vec=0.5 ,k=10,", base)
    assert options == replace(base, fusion="convex", w_fts=0.5, w_vec=0.5, k=10.0)
    assert parse("", base) == base
    assert parse("mode=semantic,depth=7,min_sim=0").to_json() == {
        **SearchOptions().to_json(),
        "mode": "semantic",
        "depth": 7,
        "min_sim": 0,
    }


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("weight=1", "unknown setting 'weight'"),
        ("k", "'k' is not key=value"),
        ("=3", "'=3' is not key=value"),
        ("depth=2.5", "depth must be a whole number, got '2.5'"),
        ("k=fast", "k must be a number, got 'fast'"),
        ("k=-1", "k must be positive"),
        ("mode=vector", "unknown mode"),
    ],
)
def test_bad_key_value_text_says_which_entry(text: str, message: str) -> None:
    with pytest.raises(QueryError, match=message):
        parse(text)


def test_json_round_trip_and_what_was_changed() -> None:
    options = SearchOptions(mode="fts", fusion="rrf", w_fts=0.25, depth=80)
    assert SearchOptions.from_json(options.to_json()) == options
    assert options.changed() == {"mode": "fts", "fusion": "rrf", "w_fts": 0.25, "depth": 80}
    assert SearchOptions().changed() == {}
    k = SearchOptions().to_json()["k"]
    assert k == SearchOptions().k and isinstance(k, int)
    with pytest.raises(QueryError, match="unknown setting"):
        SearchOptions.from_json({"colour": "blue"})
    with pytest.raises(QueryError, match="must be a number"):
        SearchOptions.from_json({"k": True})


def test_command_line_options_come_from_the_parameters() -> None:
    parser = argparse.ArgumentParser()
    add_arguments(parser, notes={"depth": "the limit if that is more"})
    help_text = " ".join(parser.format_help().split())
    for parameter in PARAMETERS:
        assert parameter.flag in help_text
    assert (
        f"(default {SearchOptions().k:g})" in help_text
        and "(the limit if that is more)" in help_text
    )
    given = parser.parse_args(["--fusion", "convex", "--w-fts", "0.4", "--depth", "9"])
    assert from_args(given) == SearchOptions(fusion="convex", w_fts=0.4, depth=9)
    assert from_args(parser.parse_args([]), SearchOptions(limit=100)) == SearchOptions(limit=100)
    assert set(MODES) == {"fts", "semantic", "hybrid"}


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--limit", "many"], "limit must be a whole number, got 'many'"),
        (["--k", "inf"], "must be a finite number"),
        (["--w-vec", "heavy"], "w_vec must be a number, got 'heavy'"),
        (["--depth", "1" + "0" * 400], "depth must be between 1 and 1000, got '10000000'… (401"),
        (["--w-fts", "1" + "0" * 400], "w_fts must be between 0 and 1000, got '10000000'…"),
        (["--fusion", "borda"], "invalid choice: 'borda'"),
    ],
)
def test_command_line_type_errors(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    parser = argparse.ArgumentParser(prog="p")
    add_arguments(parser)
    with pytest.raises(SystemExit):
        parser.parse_args(argv)
    assert message in capsys.readouterr().err


@pytest.mark.parametrize("name", ["depth", "limit", "k", "w_fts", "w_vec", "min_sim", "min_rel"])
@pytest.mark.parametrize(
    "value",
    [10**400, -(10**400), 10**5000, "9" * 400, 1e308],
    ids=["400 digits", "-400 digits", "5000 digits", "400-digit text", "1e308"],
)
def test_a_huge_number_is_refused_in_one_line_before_it_is_converted(
    name: str, value: object
) -> None:
    """A 400-digit integer (from a command line, ``key=value`` text or a JSON file) used to end
    in an ``OverflowError`` traceback when it was converted to a float or formatted with ``:g``."""
    with pytest.raises(QueryError) as raised:
        SearchOptions.from_json({name: value})
    message = str(raised.value)
    assert (
        message.startswith((name, name.replace("_", "-")))
        and "\n" not in message
        and len(message) < 120
    ), message
    with pytest.raises(QueryError):
        parse(f"{name}={value if isinstance(value, str | float) else '9' * 5000}")


def test_number_text_never_overflows() -> None:
    assert number_text(10**400) == "10000000… (401 digits)"
    assert number_text(10**5000) == "a number of over 4,000 digits"
    assert number_text(0.5) == "0.5" and number_text(7) == "7" and number_text("x") == "'x'"
    assert number_text("1" * 40) == "'11111111'… (40 characters)"


def test_only_some_parameters() -> None:
    parser = argparse.ArgumentParser()
    add_arguments(parser, only=("mode",))
    assert parser.parse_args(["--mode", "fts"]).mode == "fts"
    with pytest.raises(SystemExit):
        parser.parse_args(["--k", "3"])


def test_presets_by_name_on_the_command_line_and_in_key_value_text() -> None:
    seed = PRESETS["seed"]
    assert (seed.fusion, seed.k, seed.w_fts, seed.w_vec, seed.min_sim) == ("rrf", 60, 0.7, 0.3, 0)
    assert PRESETS["default"] == SearchOptions()
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args(["--preset", "seed", "--w-vec", "0.5", "--mode", "fts"])
    assert from_args(args, SearchOptions(limit=9)) == replace(seed, w_vec=0.5, mode="fts", limit=9)
    assert parse("w_vec=0.5,preset=seed", SearchOptions(limit=9)) == replace(
        seed, w_vec=0.5, limit=9
    )
    with pytest.raises(
        QueryError, match="unknown preset 'best'; choose one of default, convex, seed"
    ):
        parse("preset=best")


def test_the_floors_keep_the_head_of_a_best_first_list() -> None:
    """The one place a vector list meets its floors (the search, a re-fusion, explain)."""
    cosines = [VectorHit(i, score, 0, 1) for i, score in enumerate((0.9, 0.5, 0.45, 0.2))]
    assert SearchOptions(min_sim=0.3, min_rel=0.0).above_floor(cosines) == cosines[:3]
    assert SearchOptions(min_sim=0.0, min_rel=0.5).above_floor(cosines) == cosines[:3]  # 0.45
    assert SearchOptions(min_sim=0.0, min_rel=0.6).above_floor(cosines) == cosines[:1]
    assert SearchOptions(min_sim=0.95, min_rel=0.0).above_floor(cosines) == []
    assert SearchOptions().above_floor([]) == []
