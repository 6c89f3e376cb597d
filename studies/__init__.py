"""Simulation studies of the package's intervals (not library API): run by tests and benchmarks."""
