"""roost's tables, headless: the columns and rows of each tab that the dashboard draws and
`roost export` writes, defined once (ARCHITECTURE.md, export). Which tabs: ``registry``."""
