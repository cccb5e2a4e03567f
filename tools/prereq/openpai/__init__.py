"""What OpenPAI itself does, in one place: its job protocol, its runtime, and the shell the runtime runs.

- ``forms``: an item as it goes into a job (the OpenPAI form), digests, the round-trip check;
- ``runtime``: how the real runtime runs prerequisites (plugin parameters, callbacks, the load line);
- ``protocol``: a job checked as the rest-server checks it (protocol schema and its own checks);
- ``shellvars``: which variables a block of commands exports, defines and uses;
- ``shelllint``: ShellCheck on the commands (the shell linter, behind this one module), and the
  scripts the shell checks read; ``bashsyntax``: ``bash -n`` on the file the runtime writes.

May import: prereq.core.
"""
