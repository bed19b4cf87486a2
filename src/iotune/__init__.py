"""iotune: find the I/O configuration that makes a parallel application fastest or cheapest."""

__version__ = "0.1.0"
