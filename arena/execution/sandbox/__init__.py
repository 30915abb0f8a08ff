"""Everything ``--sandbox`` does: every bot process under bubblewrap (``bubblewrap``), showing
it no installed plugin's files but its own (``installed``); a third-party plugin loaded only in
a sandbox of its own to learn and check its bots (``probe``); and the registry of a command or
a run, which a sandboxed one builds from those probes (``probing.registry``).
"""
