/* Python's repr() of the composer's Python-typed values (site/assets/composer/yaml/pyvalues.js's pyRepr),
 * which the YAML-editing corpus records for each loaded text (regen.py writes repr(data)), with Python
 * 3.11's own str.isprintable: the browser's Unicode is newer. */

import { pyRepr as reprBy } from "../../site/assets/composer/yaml/pyvalues.js";
import { isPrintable } from "./pyprintable.js";

export const pyRepr = (value) => reprBy(value, { isPrintable });
