"""Benchmarks (``kraken-bench``): the fixed deal suites, timed solves with their report and
check against stored values, timed player's-view hints, and the machine a report ran on.
"""
