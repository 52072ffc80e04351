"""Kernel-side tracing of the PySpark API and replay of saved notebooks."""
