"""The leaves of the house: typed errors, run events and results, the levels, the fence, the toolset
protocol, telemetry, finding prompts/ and config/ (ARCHITECTURE.md, Rooms). Each imports nothing of Kite.
"""
