"""The foundations every other package stands on, each third-party library behind one small module.

- ``yamlload``: strict YAML loading with source positions (PyYAML), and the one YAML dumper;
- ``yamledit``: editing YAML text in place, keeping every untouched byte;
- ``placeholders``: ``<% namespace.key %>`` in strings: finding and rendering them;
- ``versions``: semantic versions and npm ranges (node-semver);
- ``graph``: cycles (networkx), the one depth-first walk, closures, parameter lookup;
- ``gitrepo``: the registry's git history (GitPython);
- ``files``: atomic writes; ``resources``: where prereq's own files are; ``errors``: PrereqError.

May import: the standard library and third-party libraries only, never another prereq package.
"""
