"""Config layering, [query] -> [search] mapping, env overrides, normalisation and fallbacks."""
from __future__ import annotations

import logging
from pathlib import Path

import pytest

from cruxe.config import (
    Config,
    SearchConfig,
    cruxe_home,
    default_workers,
    load_config,
    resolve_explain_level,
    resolve_freshness_policy,
)
from cruxe.errors import CruxeError


@pytest.fixture()
def layout(tmp_path: Path):
    """A fake CRUXE_HOME and a repo, each with an (initially absent) config file."""
    home = tmp_path / "home"
    repo = tmp_path / "repo"
    (home).mkdir()
    (repo / ".cruxe").mkdir(parents=True)

    def write(where: str, text: str) -> Path:
        path = {"home": home / "config.toml", "repo": repo / ".cruxe" / "config.toml"}.get(where)
        path = path or tmp_path / where
        path.write_text(text, encoding="utf-8")
        return path

    env = {"CRUXE_HOME": str(home)}
    return home, repo, env, write


def test_defaults_when_no_file_and_no_env(layout):
    home, repo, env, _ = layout
    cfg = load_config(str(repo), env=env)
    assert cfg.search == SearchConfig()
    assert cfg.search.freshness_policy == "balanced"
    assert cfg.search.ranking_explain_level == "off"
    assert cfg.search.max_response_bytes == 65536
    assert cfg.search.default_limit == 5
    assert cfg.index.max_file_bytes == 1024 * 1024
    assert cfg.index.workers == default_workers() and 1 <= cfg.index.workers <= 4
    assert cfg.home == home
    assert cfg.sources == () and cfg.warnings == ()


def test_cruxe_home_env_and_default():
    assert cruxe_home({"CRUXE_HOME": "/tmp/x"}) == Path("/tmp/x")
    assert cruxe_home({}) == Path("~/.cruxe").expanduser()
    assert cruxe_home({"CRUXE_HOME": "  "}) == Path("~/.cruxe").expanduser()


def test_layers_override_key_by_key(layout, tmp_path):
    home, repo, env, write = layout
    write("home", '[search]\nfreshness_policy = "strict"\ndefault_limit = 20\n[index]\nworkers = 2\n')
    write("repo", '[search]\nfreshness_policy = "best_effort"\n')
    explicit = write("explicit.toml", "[search]\ndefault_limit = 30\n")
    cfg = load_config(str(repo), str(explicit), env=env)
    assert cfg.search.freshness_policy == "best_effort"  # repo over home
    assert cfg.search.default_limit == 30  # explicit over home
    assert cfg.index.workers == 2  # only home set it: kept, not reset by other layers
    assert cfg.sources == (str(home / "config.toml"), str(repo / ".cruxe" / "config.toml"), str(explicit))
    assert cfg.warnings == ()


def test_env_overrides_every_file(layout):
    home, repo, env, write = layout
    write("repo", '[search]\nfreshness_policy = "strict"\nranking_explain_level = "basic"\n'
                  'max_response_bytes = 4096\n[log]\nlevel = "debug"\n')
    env = {**env, "CRUXE_FRESHNESS_POLICY": "best_effort", "CRUXE_RANKING_EXPLAIN_LEVEL": "full",
           "CRUXE_MAX_RESPONSE_BYTES": "2048", "CRUXE_LOG_LEVEL": "ERROR"}
    cfg = load_config(str(repo), env=env)
    assert cfg.search.freshness_policy == "best_effort"
    assert cfg.search.ranking_explain_level == "full"
    assert cfg.search.max_response_bytes == 2048
    assert cfg.log.level == "error"


def test_empty_env_value_means_unset(layout):
    home, repo, env, write = layout
    write("repo", '[search]\nfreshness_policy = "strict"\n')
    cfg = load_config(str(repo), env={**env, "CRUXE_FRESHNESS_POLICY": ""})
    assert cfg.search.freshness_policy == "strict"


def test_query_section_is_read_as_search(layout):
    home, repo, env, write = layout
    write("repo", '[query]\nfreshness_policy = "strict"\nranking_explain_level = "basic"\n')
    cfg = load_config(str(repo), env=env)
    assert cfg.search.freshness_policy == "strict"
    assert cfg.search.ranking_explain_level == "basic"
    assert cfg.warnings == ()


def test_search_wins_over_query_in_the_same_file(layout):
    home, repo, env, write = layout
    # [search] written first and [query] second: order in the file must not matter.
    write("repo", '[search]\nfreshness_policy = "best_effort"\n[query]\nfreshness_policy = "strict"\n'
                  'default_limit = 3\n')
    cfg = load_config(str(repo), env=env)
    assert cfg.search.freshness_policy == "best_effort"
    assert cfg.search.default_limit == 3  # only [query] set it


def test_query_in_higher_layer_overrides_search_in_lower(layout):
    home, repo, env, write = layout
    write("home", '[search]\nfreshness_policy = "best_effort"\n')
    write("repo", '[query]\nfreshness_policy = "strict"\n')
    assert load_config(str(repo), env=env).search.freshness_policy == "strict"


@pytest.mark.parametrize("legacy, expected", [("true", "full"), ("false", "off")])
def test_legacy_debug_ranking_reasons_maps_when_level_absent(layout, legacy, expected):
    home, repo, env, write = layout
    write("repo", f"[debug]\nranking_reasons = {legacy}\n")
    assert load_config(str(repo), env=env).search.ranking_explain_level == expected


def test_explicit_level_beats_legacy_flag_even_from_a_lower_layer(layout):
    home, repo, env, write = layout
    write("home", '[search]\nranking_explain_level = "basic"\n')
    write("repo", "[debug]\nranking_reasons = true\n")
    assert load_config(str(repo), env=env).search.ranking_explain_level == "basic"


@pytest.mark.parametrize("text, field, default", [
    ('[search]\nranking_explain_level = "verbose"\n', "ranking_explain_level", "off"),
    ('[search]\nranking_explain_level = 1\n', "ranking_explain_level", "off"),
    ('[search]\nfreshness_policy = "eventually"\n', "freshness_policy", "balanced"),
    ('[search]\nmax_response_bytes = 10\n', "max_response_bytes", 65536),
    ('[search]\nmax_response_bytes = "big"\n', "max_response_bytes", 65536),
    ('[search]\nmax_response_bytes = true\n', "max_response_bytes", 65536),
    ('[search]\ndefault_limit = 0\n', "default_limit", 5),
    ('[search]\ndefault_limit = 101\n', "default_limit", 5),
])
def test_invalid_value_falls_back_to_canonical_default_with_warning(layout, caplog, text, field, default):
    home, repo, env, write = layout
    write("repo", text)
    with caplog.at_level(logging.WARNING, logger="cruxe.config"):
        cfg = load_config(str(repo), env=env)
    assert getattr(cfg.search, field) == default
    assert len(cfg.warnings) == 1 and field in cfg.warnings[0]
    assert any(field in r.getMessage() for r in caplog.records)


def test_invalid_level_does_not_consult_legacy_flag(layout):
    # An invalid explicit value normalises to the canonical default, not to some other branch.
    home, repo, env, write = layout
    write("repo", '[search]\nranking_explain_level = "loud"\n[debug]\nranking_reasons = true\n')
    cfg = load_config(str(repo), env=env)
    assert cfg.search.ranking_explain_level == "off"
    assert len(cfg.warnings) == 1


def test_enum_spellings_are_canonicalised(layout):
    home, repo, env, write = layout
    write("repo", '[search]\nfreshness_policy = "Best-Effort"\nranking_explain_level = " FULL "\n'
                  '[log]\nlevel = "WARN"\n')
    cfg = load_config(str(repo), env=env)
    assert (cfg.search.freshness_policy, cfg.search.ranking_explain_level, cfg.log.level) == \
        ("best_effort", "full", "warning")


def test_invalid_env_values_fall_back(layout):
    home, repo, env, write = layout
    write("repo", "[search]\nmax_response_bytes = 4096\n")
    env = {**env, "CRUXE_MAX_RESPONSE_BYTES": "lots", "CRUXE_WORKERS": "0",
           "CRUXE_RANKING_EXPLAIN_LEVEL": "loud"}
    cfg = load_config(str(repo), env=env)
    # An unparsable env string is dropped, so the file value stays; a parsable but
    # out-of-range one is a value like any other and falls back to the default.
    assert cfg.search.max_response_bytes == 4096
    assert cfg.index.workers == default_workers()
    assert cfg.search.ranking_explain_level == "off"
    assert len(cfg.warnings) == 3
    assert any("CRUXE_MAX_RESPONSE_BYTES" in w for w in cfg.warnings)
    assert any("CRUXE_WORKERS" in w for w in cfg.warnings)


def test_unparsable_toml_is_a_warning_and_other_layers_still_apply(layout):
    home, repo, env, write = layout
    write("home", '[search]\ndefault_limit = 25\n')
    write("repo", '[search\nfreshness_policy = "strict"\n')
    cfg = load_config(str(repo), env=env)
    assert cfg.search.default_limit == 25
    assert cfg.search.freshness_policy == "balanced"
    assert len(cfg.warnings) == 1 and "cannot read config" in cfg.warnings[0]
    assert cfg.sources == (str(home / "config.toml"),)


def test_deeply_nested_toml_is_a_warning_not_a_crash(layout):
    home, repo, env, write = layout
    write("home", '[search]\ndefault_limit = 25\n')
    write("repo", "a = " + "[" * 100_000 + "]" * 100_000 + "\n")  # tomllib recurses once per level
    cfg = load_config(str(repo), env=env)
    assert cfg.search.default_limit == 25
    assert len(cfg.warnings) == 1 and "nested too deeply" in cfg.warnings[0]


def test_non_utf8_file_is_a_warning(layout):
    home, repo, env, _ = layout
    (repo / ".cruxe" / "config.toml").write_bytes(b'[search]\nfreshness_policy = "\xff"\n')
    cfg = load_config(str(repo), env=env)
    assert cfg.search.freshness_policy == "balanced"
    assert len(cfg.warnings) == 1


def test_unknown_keys_and_sections_are_reported(layout):
    home, repo, env, write = layout
    write("repo", '[serach]\nfreshness_policy = "strict"\n[search]\nfreshnes_policy = "strict"\n'
                  "debug = 3\n")
    cfg = load_config(str(repo), env=env)
    assert cfg.search.freshness_policy == "balanced"
    assert len(cfg.warnings) == 3
    assert any("[serach]" in w for w in cfg.warnings)
    assert any("search.freshnes_policy" in w for w in cfg.warnings)
    assert any("search.debug" in w for w in cfg.warnings)


def test_section_that_is_not_a_table(layout):
    home, repo, env, write = layout
    write("repo", 'search = "strict"\n')
    cfg = load_config(str(repo), env=env)
    assert cfg.search == SearchConfig() and len(cfg.warnings) == 1


def test_missing_explicit_config_is_invalid_input(layout, tmp_path):
    home, repo, env, _ = layout
    with pytest.raises(CruxeError) as exc:
        load_config(str(repo), str(tmp_path / "nope.toml"), env=env)
    assert exc.value.code == "invalid_input"


def test_no_repo_reads_home_only(layout):
    home, repo, env, write = layout
    write("home", '[search]\nfreshness_policy = "strict"\n')
    cfg = load_config(None, env=env)
    assert cfg.search.freshness_policy == "strict"
    assert cfg.sources == (str(home / "config.toml"),)


def test_config_is_frozen():
    cfg = Config()
    with pytest.raises(AttributeError):
        cfg.search.freshness_policy = "strict"  # type: ignore[misc]


# ---- per-request resolution --------------------------------------------------------------

def _cfg(**search) -> Config:
    return Config(search=SearchConfig(**search))


def test_explain_precedence_request_then_config():
    cfg = _cfg(ranking_explain_level="basic")
    assert resolve_explain_level(None, cfg) == "basic"
    assert resolve_explain_level("full", cfg) == "full"
    assert resolve_explain_level("off", cfg) == "off"


def test_explain_precedence_request_over_legacy(layout):
    home, repo, env, write = layout
    write("repo", "[debug]\nranking_reasons = true\n")
    cfg = load_config(str(repo), env=env)
    assert resolve_explain_level(None, cfg) == "full"
    assert resolve_explain_level("basic", cfg) == "basic"


def test_freshness_precedence():
    cfg = _cfg(freshness_policy="strict")
    assert resolve_freshness_policy(None, cfg) == "strict"
    assert resolve_freshness_policy("best_effort", cfg) == "best_effort"


@pytest.mark.parametrize("fn, bad", [
    (resolve_explain_level, "verbose"), (resolve_explain_level, "Full"),
    (resolve_freshness_policy, "lazy"), (resolve_freshness_policy, ""),
])
def test_garbage_request_values_are_invalid_input(fn, bad):
    with pytest.raises(CruxeError) as exc:
        fn(bad, Config())
    assert exc.value.code == "invalid_input"
