"""The web as the research flow sees it: search providers, page fetching, extraction, source policy.

Nothing here knows about graphs or runs: these are plain functions and classes over HTTP that the
research nodes call.
"""
