"""The agent's settings: OPENAI_* below the config file, [mcp_servers.NAME] from the config file only."""

import pytest

from bridge.settings import SettingsError, load_settings


def test_openai_variables_are_read_below_the_config_file_and_dbg_variables(tmp_path):
    env = {"DBG_CONFIG_DIR": str(tmp_path), "OPENAI_BASE_URL": "http://a/v1", "OPENAI_API_KEY": "k"}
    s = load_settings({}, env)
    assert (s.model_url, s.model_key) == ("http://a/v1", "k")
    (tmp_path / "config.toml").write_text('model_url = "http://b/v1"\n')
    assert load_settings({}, env).model_url == "http://b/v1"
    assert load_settings({}, {**env, "DBG_MODEL_URL": "http://c/v1"}).model_url == "http://c/v1"


def test_mcp_servers_come_from_the_config_file(tmp_path):
    (tmp_path / "config.toml").write_text('[mcp_servers.fs]\ncommand = "npx"\nargs = ["-y", "x"]\ntimeout = 5\n\n'
                                          '[mcp_servers.web]\nurl = "http://127.0.0.1:9/mcp"\n')
    s = load_settings({}, {"DBG_CONFIG_DIR": str(tmp_path), "DBG_MCP_SERVERS": "ignored"})
    assert s.mcp_servers["fs"].args == ["-y", "x"] and s.mcp_servers["fs"].timeout == 5
    assert s.mcp_servers["web"].url == "http://127.0.0.1:9/mcp"


def test_a_misspelt_mcp_server_key_is_a_clear_error(tmp_path):
    (tmp_path / "config.toml").write_text('[mcp_servers.fs]\ncomand = "npx"\n')
    with pytest.raises(SettingsError, match="comand"):
        load_settings({}, {"DBG_CONFIG_DIR": str(tmp_path)})
