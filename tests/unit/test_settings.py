"""Settings: defaults < config.toml < DBG_* environment < CLI flags, and a clear SettingsError for bad input."""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge.settings import Settings, SettingsError, load_settings


@pytest.fixture
def cfg(tmp_path: Path) -> Path:
    return tmp_path


def env_for(cfg: Path, **variables: str) -> dict[str, str]:
    return {"DBG_CONFIG_DIR": str(cfg), **{f"DBG_{k.upper()}": v for k, v in variables.items()}}


def write_config(cfg: Path, text: str) -> Path:
    path = cfg / "config.toml"
    path.write_text(text)
    return path


def test_with_nothing_given_the_defaults_apply(cfg):
    s = load_settings({}, env_for(cfg))
    assert (s.host, s.port, s.no_auth, s.stateless, s.allow_origins) == ("127.0.0.1", 7878, False, False, [])
    assert s.config_dir == cfg and s.token_file == cfg / "token"
    assert s.exec_timeout == 30 and s.max_exec_timeout == 300 and s.log_level == "info"


def test_the_config_file_overrides_defaults(cfg):
    write_config(cfg, 'port = 9000\nexec_timeout = 12.5\nallow_origins = ["https://app.test"]\nlog_level = "debug"\n')
    s = load_settings({}, env_for(cfg))
    assert (s.port, s.exec_timeout, s.allow_origins, s.log_level) == (9000, 12.5, ["https://app.test"], "debug")
    assert s.page_ttl == 600  # untouched settings keep their defaults


def test_the_environment_overrides_the_config_file(cfg):
    write_config(cfg, "port = 9000\nexec_timeout = 12.5\n")
    s = load_settings({}, env_for(cfg, port="9100"))
    assert s.port == 9100 and s.exec_timeout == 12.5


def test_the_command_line_overrides_the_environment_and_none_means_not_given(cfg):
    write_config(cfg, "port = 9000\nexec_timeout = 12.5\nheartbeat = 5\n")
    s = load_settings({"port": "9200", "exec_timeout": None, "stateless": True},
                      env_for(cfg, port="9100", exec_timeout="20"))
    assert s.port == 9200  # cli beats env beats file
    assert s.exec_timeout == 20  # cli None: env still applies
    assert s.heartbeat == 5  # only in the file
    assert s.stateless is True


def test_dbg_config_points_at_a_config_file_anywhere(tmp_path):
    path = tmp_path / "elsewhere.toml"
    path.write_text("port = 9300\n")
    assert load_settings({}, {"DBG_CONFIG": str(path), "DBG_CONFIG_DIR": str(tmp_path / "none")}).port == 9300


def test_a_missing_config_file_is_fine(cfg):
    assert load_settings({}, env_for(cfg / "does-not-exist")).port == 7878


@pytest.mark.parametrize("raw, want", [("1", True), ("true", True), ("YES", True), (" on ", True),
                                       ("0", False), ("false", False), ("no", False), ("", False)])
def test_boolean_environment_variables_read_common_spellings(cfg, raw, want):
    assert load_settings({}, env_for(cfg, no_auth=raw)).no_auth is want


def test_allowed_origins_from_the_environment_are_a_comma_separated_list(cfg):
    s = load_settings({}, env_for(cfg, allow_origins=" https://a.test, http://b.test:* ,,"))
    assert s.allow_origins == ["https://a.test", "http://b.test:*"]


def test_the_environment_config_dir_is_also_the_config_dir_setting(cfg):
    assert load_settings({}, env_for(cfg)).config_dir == cfg


@pytest.mark.parametrize(
    "variable, value",
    [("port", "abc"), ("port", "70000"), ("page_ttl", "0"), ("exec_timeout", "-1"), ("max_body", "10"),
     ("log_level", "loud"), ("heartbeat", "soon")],
)
def test_a_bad_environment_value_is_a_settings_error_naming_the_setting_and_its_source(cfg, variable, value):
    with pytest.raises(SettingsError) as info:
        load_settings({}, env_for(cfg, **{variable: value}))
    text = str(info.value)
    assert variable in text and f"DBG_{variable.upper()} in the environment" in text


def test_a_bad_config_file_value_names_the_setting_and_the_file(cfg):
    path = write_config(cfg, 'port = "eighty"\n')
    with pytest.raises(SettingsError) as info:
        load_settings({}, env_for(cfg))
    assert "port" in str(info.value) and str(path) in str(info.value)


def test_a_bad_command_line_value_names_the_setting_and_the_command_line(cfg):
    with pytest.raises(SettingsError) as info:
        load_settings({"max_exec_timeout": "forever"}, env_for(cfg))
    assert "max_exec_timeout" in str(info.value) and "--max-exec-timeout on the command line" in str(info.value)


def test_an_unknown_key_in_the_config_file_is_a_settings_error_listing_known_keys(cfg):
    path = write_config(cfg, "port = 9000\nprot = 9001\n")
    with pytest.raises(SettingsError) as info:
        load_settings({}, env_for(cfg))
    text = str(info.value)
    assert "'prot'" in text and str(path) in text and "exec_timeout" in text


def test_an_unknown_command_line_key_is_a_settings_error(cfg):
    with pytest.raises(SettingsError, match="command line"):
        load_settings({"colour": "blue"}, env_for(cfg))


def test_an_invalid_config_file_is_a_settings_error_saying_to_fix_it(cfg):
    path = write_config(cfg, "port = = 9000\n")
    with pytest.raises(SettingsError) as info:
        load_settings({}, env_for(cfg))
    assert str(path) in str(info.value) and "not valid TOML" in str(info.value)


def test_settings_refuse_unknown_fields_and_bad_assignments():
    with pytest.raises(ValueError):
        Settings(colour="blue")  # type: ignore[call-arg]
    s = Settings()
    with pytest.raises(ValueError):
        s.port = -1


@pytest.mark.parametrize(
    "host, base, loopback",
    [("127.0.0.1", "http://127.0.0.1:7000", True), ("localhost", "http://localhost:7000", True),
     ("::1", "http://[::1]:7000", True), ("0.0.0.0", "http://127.0.0.1:7000", False),
     ("192.168.1.5", "http://192.168.1.5:7000", False)],
)
def test_the_base_url_is_reachable_from_this_machine(host, base, loopback):
    s = Settings(host=host, port=7000)
    assert s.base_url() == base and s.is_loopback is loopback


def test_disable_tools_takes_names_globs_and_the_acting_group():
    from bridge.tools import enabled_tools

    def names(**kw):
        return {t.name for t in enabled_tools(load_settings({"desktop_enabled": True, **kw}, env={}))}

    everything = names()
    assert "page_exec" in everything and "desktop_click" in everything
    assert names(disable_tools=["page_exec", "desktop_*"]) == {n for n in everything
                                                              if n != "page_exec" and not n.startswith("desktop_")}
    look_only = names(disable_tools=["@acting"])
    assert "page_snapshot" in look_only and "page_list" in look_only
    assert not look_only & {"page_exec", "page_act", "page_navigate", "desktop_click", "desktop_type_text"}


def test_list_settings_parse_comma_separated_from_the_environment():
    s = load_settings({}, env={"DBG_DISABLE_TOOLS": "page_exec, desktop_*", "DBG_CONSENT_FOR": "eval,submit"})
    assert s.disable_tools == ["page_exec", "desktop_*"] and s.consent_for == ["eval", "submit"]


@pytest.mark.parametrize("name", ["x11", "wayland", "auto", "tests.inmemory.fake_desktop:FakeDesktop", "my_pkg:Desk"])
def test_desktop_backend_takes_a_table_name_or_an_import_string(name):
    assert load_settings({"desktop_backend": name}, env={}).desktop_backend == name


@pytest.mark.parametrize("name", ["beos", "tests.inmemory.fake_desktop", "os:system; rm", ":Desk"])
def test_desktop_backend_refuses_anything_else(name):
    with pytest.raises(SettingsError, match="desktop_backend"):
        load_settings({"desktop_backend": name}, env={})


def test_doctor_reports_a_backend_of_ones_own_by_whether_it_loads():
    from bridge.cli.doctor import checks

    def desktop(backend: str):
        return [c for c in checks(Settings(desktop_enabled=True, desktop_backend=backend)) if "desktop" in c.name]

    (fake,) = desktop("tests.inmemory.fake_desktop:FakeDesktop")
    assert fake.ok and fake.detail == "desktop_* tools registered"
    (gone,) = desktop("tests.nowhere:Desk")
    assert not gone.ok and "'tests.nowhere:Desk' (the desktop_backend setting) cannot load" in gone.detail
