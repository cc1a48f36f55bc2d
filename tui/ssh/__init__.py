"""`roost serve-ssh`: roost's dashboard served over SSH, one child process per session
(ARCHITECTURE.md, serving over SSH).

``mode`` is what a served dashboard reads (light, no asyncssh); ``hostkey``, ``auth``,
``child``, ``session`` and ``server`` are the server's, which never imports Textual.
"""
