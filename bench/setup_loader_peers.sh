#!/usr/bin/env bash
# Makes the virtual environments of the PyPI peers of bench/loader.py and bench/newest_peers.py, outside
# the repository (benchmarks only: CI never runs this).
#
#   bench/setup_loader_peers.sh [TORCH_VENV] [DALI_VENV]
#
# TORCH_VENV (default /tmp/bench-venv): the newest torch, torchvision, torchaudio and TorchCodec from PyPI
#   (the full wheels with their CUDA dependencies, about 5.5 GB installed; they run CPU-only without a
#   GPU), python-soxr, Pillow and matplotlib.
# DALI_VENV (default /tmp/bench-dali-venv): the newest nvidia-dali-cuda130 (about 0.7 GB; its CPU
#   pipeline runs without a GPU with device_id=None), kept apart from torch's CUDA wheels.
# PYTHON (environment, default python3): the interpreter that makes the venvs (3.10 or newer).
set -euo pipefail
torch_venv=${1:-/tmp/bench-venv}
dali_venv=${2:-/tmp/bench-dali-venv}
py=${PYTHON:-python3}
df -h "$(dirname "$torch_venv")"
if [[ ! -x "$torch_venv/bin/python" ]]; then
  "$py" -m venv "$torch_venv"
  "$torch_venv/bin/pip" install -q --upgrade pip
  "$torch_venv/bin/pip" install -q torch torchvision torchaudio torchcodec soxr pillow matplotlib
fi
"$torch_venv/bin/python" -c 'import torch, torchvision, torchcodec; print("torch", torch.__version__, "torchvision", torchvision.__version__, "torchcodec", torchcodec.__version__)'
if [[ ! -x "$dali_venv/bin/python" ]]; then
  "$py" -m venv "$dali_venv"
  "$dali_venv/bin/pip" install -q --upgrade pip
  "$dali_venv/bin/pip" install -q nvidia-dali-cuda130
fi
"$dali_venv/bin/python" -c 'import nvidia.dali as d; print("DALI", d.__version__)'
