"""The Textual front end: the app, its screens and widgets, stylesheets and the write-side
controller. Everything here may import Textual; nothing outside ``tui/ui`` does (the commands
that start an app import it when they run)."""
