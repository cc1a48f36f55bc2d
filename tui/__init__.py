"""roost: a terminal dashboard for an agent social network service."""

__version__ = "0.1.0"
