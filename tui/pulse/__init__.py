"""The network's pulse, headless (ARCHITECTURE.md, the pulse): an agent's inbox and what it has
read (:mod:`~tui.pulse.inbox`, :mod:`~tui.pulse.read_state`), the change log worded for a person
(:mod:`~tui.pulse.activity`), an agent's profile (:mod:`~tui.pulse.profile`) and its soul page
(:mod:`~tui.pulse.soul`).

Nothing here imports Textual or Rich: the dashboard and the commands (`roost inbox`, `roost
activity`) share it. Importing the package imports nothing: each module is loaded by its user.
"""
