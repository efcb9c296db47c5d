"""Fixtures of the agent e2e modules (imported by each, so each module gets its own bridge): the scripted model
server, a bridge that asks it, the runs API client, a dev server for e2e/pages and the model app in a tab."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from e2e.runs_api import RunsApi
from e2e.scripted_model import ScriptedModel
from tests.support import BridgeProcess, Bridges, DevServer, open_page


@pytest.fixture(scope="module")
def model() -> Iterator[ScriptedModel]:
    server = ScriptedModel()
    yield server
    server.close()


@pytest.fixture(scope="module")
def agent_bridge(module_bridge_process: Bridges, model) -> BridgeProcess:
    return module_bridge_process(env={"DBG_MODEL_URL": model.url, "DBG_MODEL_RETRIES": "2"}, name="agent")


@pytest.fixture(scope="module")
def api(agent_bridge) -> Iterator[RunsApi]:
    client = RunsApi(agent_bridge.base, agent_bridge.token, human=agent_bridge.config_dir)  # the human's terminal
    yield client
    client.close()


@pytest.fixture(scope="module")
def site(agent_bridge) -> Iterator[DevServer]:
    server = DevServer(agent_bridge.client_js())
    yield server
    server.close()


@pytest.fixture
def app_page(context, site):
    return open_page(context, site.url("/app.html"))
