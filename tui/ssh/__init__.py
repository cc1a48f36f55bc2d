"""`roost serve-ssh`: roost's dashboard served over SSH, one child process per session
(ARCHITECTURE.md, serving over SSH).

``mode`` is what a served dashboard reads (light, no asyncssh); ``hostkey``, ``auth``,
``child``, ``session``, ``server``, ``refresher`` and ``zygote`` are the server's, which never
imports Textual; ``zygote_main`` is the zygote's own program, which forks the dashboards.
"""
