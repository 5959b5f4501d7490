"""The machine a benchmark ran on: processor, cores, memory, Python, NumPy and Numba.

Every report carries it (:func:`machine_info`), because a speed figure and a peer's ratio move
with the processor; :func:`machine_line` and :func:`machine_lines` print it.
"""

from __future__ import annotations

import os
import platform


def cpu_model() -> str:
    """The processor's name as the operating system gives it (``model name`` of
    ``/proc/cpuinfo`` on Linux, else ``platform.processor()``), or ``"unknown"``: speed
    figures depend on it (the same build ran 1.2x slower a node on one kind of x86-64 machine
    than on another, while the C yardstick ran 1.2x faster), so every report names it."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() == "model name" and value.strip():
                    return value.strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def machine_info() -> dict:
    """What a benchmark report records of the machine it ran on: ``python`` (version),
    ``machine`` (architecture), ``cpu`` (:func:`cpu_model`) and ``cores``."""
    return {"python": platform.python_version(), "machine": platform.machine(),
            "cpu": cpu_model(), "cores": os.cpu_count()}


def machine_line(info: dict) -> str:
    """One line naming the machine of ``info`` (:func:`machine_info`, or a report holding
    its fields): processor, cores, architecture."""
    return f"{info['cpu']}, {info.get('cores')} cores, {info.get('machine')}"


def machine_lines(r: dict) -> list[str]:
    """The report's machine line (reports stored before it was recorded have none)."""
    if not r.get("cpu"):
        return []
    return [f"  machine: {machine_line(r)}"]
