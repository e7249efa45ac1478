"""The local Ray cluster the loom.ray tests share (tests/ray run in the Ray venv: scripts/ray_venv.sh)."""
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import ray

import loom


def ray_executable():
    """The venv's `ray` command, beside its interpreter."""
    return str(Path(sys.executable).parent / "ray")


@pytest.fixture(scope="session")
def cluster():
    """A one-node Ray cluster on 127.0.0.1 with 2 CPUs: no dashboard, no usage stats, its files under
    the build tree (beside loom's build/python); stopped whatever the tests do."""
    build = Path(loom.__file__).resolve().parents[2]
    temp = build / "ray-tmp"
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = dict(os.environ, RAY_USAGE_STATS_ENABLED="0")
    os.environ["RAY_ADDRESS"] = f"127.0.0.1:{port}"  # what ray.init(address="auto") connects to
    ray_bin = ray_executable()
    start = [ray_bin, "start", "--head", "--node-ip-address=127.0.0.1", f"--port={port}", "--num-cpus=2",
             "--include-dashboard=false", "--disable-usage-stats", f"--temp-dir={temp}"]
    try:
        subprocess.run(start, env=env, check=True, timeout=180, capture_output=True)
        ray.init(address=f"127.0.0.1:{port}", _node_ip_address="127.0.0.1", log_to_driver=False)
        yield
    finally:
        ray.shutdown()
        subprocess.run([ray_bin, "stop", "--force"], env=env, timeout=120, capture_output=True)
