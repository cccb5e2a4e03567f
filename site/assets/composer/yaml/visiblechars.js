/* Characters a reader sees as themselves, by a rule stated in code points (isVisible): printable
 * ASCII and the ranges below.  prereq.core.yamlrender holds the same ranges (a test compares them), so
 * both engines write the same literal blocks whatever Unicode version the browser knows; every range
 * is printable in Python 3.11, which makes the runtime's verdict (openpai/runtime.js) conservative.
 *
 * May import: core/, vendor/.
 */

// Runs of at least 128 code points printable in Python 3.11 (Unicode 14), plus Latin-1's signs,
// general punctuation, currency signs and kana.
const VISIBLE = `
  a1-ac,ae-377,3a3-52f,61d-6dc,8e3-983,1000-10c5,10d0-1248,1400-167f,1d00-1f15,2010-2027,2030-205e,
  20a0-20c0,2100-218b,2190-2426,2460-2b73,2b97-2cf3,2f00-2fd5,3001-303f,3041-3096,3099-30ff,3220-a48c,
  a4d0-a62b,a640-a6f7,a700-a7ca,ac00-d7a3,f900-fa6d,fbd3-fd8f,fe76-fefc,ff01-ffbe,10400-1049d,
  10600-10736,11fff-12399,12480-12543,13000-1342e,14400-14646,16800-16a38,17000-187f7,18800-18cd5,
  1b000-1b122,1b170-1b2fb,1d000-1d0f5,1d552-1d6a5,1d6a8-1d7cb,1d7ce-1da8b,1e800-1e8c4,1f100-1f1ad,
  1f300-1f6d7,1f900-1fa53,1fb00-1fb92,20000-2a6df,2a700-2b738,2b740-2b81d,2b820-2cea1,2ceb0-2ebe0,
  2f800-2fa1d`.trim().split(/,\s*/).map((range) => range.split("-").map((bound) => parseInt(bound, 16)));

export function isVisible(ch) {
  const code = ch.codePointAt(0);
  if (code < 0x7f) return code >= 0x20;
  let low = 0;
  let high = VISIBLE.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const [first, last] = VISIBLE[middle];
    if (code < first) high = middle - 1;
    else if (code > last) low = middle + 1;
    else return true;
  }
  return false;
}
