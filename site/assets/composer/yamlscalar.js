/* The engine's Python values and PyYAML's scalar styles under their former module name.
 *
 * Owns nothing: the value model is pyvalues.js (with str.isprintable in pyprintable.js) and the
 * scalar styles are yamlstyle.js; this module re-exports what it used to export, for importers
 * such as document.js. */

export { isPrintable } from "./pyprintable.js";
export {
  PyDict, PyFloat, deepCopy, floatRepr, fromPlain, isPyInt, keyId, pyEq, pyError, pyRepr, pyStr, strictEqual, toPlain,
  typeName,
} from "./pyvalues.js";
export { analyzeScalar, dumpNumber, dumpString, jsonString } from "./yamlstyle.js";
