"""The conversation (ARCHITECTURE.md, the conversation): the posts list, threads from each
source, and the deployment's conventions for bylines, votes, thread markers and tags.

Part of the headless core: nothing here imports Textual.
"""
