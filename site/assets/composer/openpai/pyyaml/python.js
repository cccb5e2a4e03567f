/* What Python gives survives_round_trip back: values, as far as comparing them with a JSON value
 * needs (an int is a BigInt, a str a string, a list an Array), and the two kinds of failure.
 *
 * Folder openpai/pyyaml/: PyYAML's safe_load (YAML 1.1) as the OpenPAI runtime reads a plugin
 * parameter back, on the vendored `yaml` library.
 * May import: vendor/.
 */

/* yaml.YAMLError: survives_round_trip answers False. */
export class YamlError extends Error {}

/* Any other Python exception, which survives_round_trip lets through. */
export function pyError(name, message) {
  const error = new Error(message);
  error.name = name;
  return error;
}

/* A float, wrapped: 1.0 is not the int 1n, but == holds between them (runtime.js compares). */
export class PyFloat {
  constructor(value) {
    this.value = value;
  }
}

/* A dict as far as comparing with a JSON object needs: its str keys, and whether it has others. */
export class PyDict {
  constructor() {
    this.strings = new Map();
    this.others = false;
  }

  update(entries) {
    for (const [key, value] of entries) {
      if (typeof key === "string") this.strings.set(key, value);
      else this.others = true;
    }
  }
}

/* What no JSON value equals: a set, bytes, a date, a datetime, a tuple. */
export class PyOther {
  constructor(type) {
    this.type = type;
  }
}
