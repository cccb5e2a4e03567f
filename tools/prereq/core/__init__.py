"""The foundations every other package stands on.

Each third-party library is used only by the modules named for it here, so it can be measured and
replaced there: PyYAML by the ``yaml*`` modules (the text editor works on PyYAML's node tree, so
they share it), networkx by ``graph``, node-semver by ``versions``, GitPython by ``gitrepo``.
Outside core, ``openpai.runtime`` calls PyYAML as the OpenPAI runtime itself does, jsonschema sits
in ``registry.schemas`` and ``openpai.jobschema``, detect-secrets in ``registry.secretscan``, resolvelib
in ``index.resolver``, MkDocs, Jinja and Markdown in ``marketplace`` (``tests/test_house.py`` holds
every import to this).

- ``yamlload``: strict YAML loading with source positions (PyYAML), and the one YAML dumper;
- ``yamledit``, ``yamlsplice``, ``yamlrender``: editing YAML text in place, keeping every untouched byte;
- ``placeholders``: ``<% namespace.key %>`` in strings: finding and rendering them;
- ``versions``: semantic versions and npm ranges (node-semver);
- ``graph``: cycles (networkx), the one depth-first walk, closures, parameter lookup;
- ``gitrepo``: the registry's git history (GitPython);
- ``files``: where prereq's own files are, safe output folders, atomic writes of regular files, the cache
  kept across runs;
- ``shapes``: untrusted data read by shape; ``terminal``: control characters shown, not obeyed; ``errors``: PrereqError.

May import: the standard library and third-party libraries only, never another prereq package.
"""
