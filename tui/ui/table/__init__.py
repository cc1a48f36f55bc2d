"""The table engine: a virtualised table, its rows, its filter line and its pace (README.md)."""
