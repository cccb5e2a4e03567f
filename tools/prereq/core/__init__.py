"""The foundations every other package stands on, each third-party library behind one small module.

- ``yamlload``: strict YAML loading with source positions (PyYAML), and the one YAML dumper;
- ``yamledit``, ``yamlsplice``, ``yamlrender``: editing YAML text in place, keeping every untouched byte;
- ``placeholders``: ``<% namespace.key %>`` in strings: finding and rendering them;
- ``versions``: semantic versions and npm ranges (node-semver);
- ``graph``: cycles (networkx), the one depth-first walk, closures, parameter lookup;
- ``gitrepo``: the registry's git history (GitPython);
- ``files``: where prereq's own files are, safe output folders, atomic writes of regular files;
- ``shapes``: untrusted data read by shape; ``terminal``: control characters shown, not obeyed; ``errors``: PrereqError.

May import: the standard library and third-party libraries only, never another prereq package.
"""
