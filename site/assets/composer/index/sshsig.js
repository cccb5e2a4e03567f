/* Verifying the index root's SSH signature (SSHSIG), as prereq.index.sshsig does with `ssh-keygen -Y
 * verify`: by an Ed25519 key an allowed_signers text lists.  WebCrypto does the cryptography (Ed25519:
 * Chrome 137+, Firefox 129+, Node 20); other key types, certificates and validity dates are refused
 * rather than half-checked.
 * May import: core/.
 */

import { PrereqError } from "../core/errors.js";

const ARMOUR = /-----BEGIN SSH SIGNATURE-----([\s\S]*?)-----END SSH SIGNATURE-----/;
const ED25519 = "ssh-ed25519";
const HASHES = { sha256: "SHA-256", sha512: "SHA-512" };
const encoder = new TextEncoder();

function base64(text) {
  const binary = atob(text.replace(/\s+/g, ""));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

/* SSH wire strings: a uint32 length, then the bytes. */
class Wire {
  constructor(bytes, at = 0) {
    this.bytes = bytes;
    this.at = at;
  }

  string() {
    const view = new DataView(this.bytes.buffer, this.bytes.byteOffset + this.at);
    const length = this.at + 4 <= this.bytes.length ? view.getUint32(0) : -1;
    if (length < 0 || this.at + 4 + length > this.bytes.length) throw new Error("truncated");
    const value = this.bytes.subarray(this.at + 4, this.at + 4 + length);
    this.at += 4 + length;
    return value;
  }

  text() {
    return new TextDecoder().decode(this.string());
  }
}

/* "SSHSIG", then each part as an SSH wire string. */
function signedData(parts) {
  const strings = parts.flatMap((part) => [Uint8Array.of(part.length >>> 24, part.length >>> 16, part.length >>> 8, part.length), part]);
  return Uint8Array.from([...encoder.encode("SSHSIG"), ...strings.flatMap((part) => [...part])]);
}

function same(a, b) {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

export function parseSignature(armoured, where) {
  try {
    const bytes = base64(ARMOUR.exec(armoured)[1]);
    if (new TextDecoder().decode(bytes.subarray(0, 6)) !== "SSHSIG") throw new Error("no SSHSIG preamble");
    const wire = new Wire(bytes, 10);
    if (new DataView(bytes.buffer, bytes.byteOffset + 6).getUint32(0) !== 1) throw new Error("version");
    const publicKey = wire.string();
    const [namespace, reserved, hash] = [wire.text(), wire.string(), wire.text()];
    const signature = new Wire(wire.string());
    return { publicKey, namespace, reserved, hash, algorithm: signature.text(), signature: signature.string() };
  } catch {
    throw new PrereqError(`${where} is not an SSH signature (ssh-keygen -Y sign's armoured SSHSIG)`,
      { hint: "sign the index again with 'prereq build --sign-key KEY'" });
  }
}

/* ssh-keygen(1)'s ALLOWED SIGNERS; a line with options not checked here (cert-authority, validity
 * dates) is left out. */
export function parseAllowedSigners(text) {
  const signers = [];
  for (const line of text.split(/\r?\n/)) {
    const words = line.trim().match(/(?:[^\s"]+|"[^"]*")+/g);
    if (!words || words[0].startsWith("#")) continue;
    const keyAt = words.findIndex((word, i) => i > 0 && /^(ssh-|ecdsa-|sk-)/.test(word));
    if (keyAt < 1 || keyAt + 1 >= words.length) continue;
    const options = words.slice(1, keyAt).join(",").split(/,(?=(?:[^"]*"[^"]*")*[^"]*$)/).filter(Boolean);
    if (options.some((option) => !/^namespaces=/i.test(option))) continue;
    const listed = options.find((option) => /^namespaces=/i.test(option));
    signers.push({
      principals: words[0].replace(/"/g, ""),
      namespaces: listed ? listed.slice(11).replace(/"/g, "").split(",") : null,
      type: words[keyAt],
      key: base64(words[keyAt + 1]),
    });
  }
  return signers;
}

/* The principals of the signer among `signers` (parseAllowedSigners'); else a PrereqError naming `where`. */
export async function verifySignature(message, signature, { signers, namespace, where }) {
  const fix = "use an index its publisher signed, or ask them which key signs it now";
  const parsed = parseSignature(signature, where);
  const signer = signers.find((s) => same(s.key, parsed.publicKey) && (!s.namespaces || s.namespaces.includes(namespace)));
  if (!signer) throw new PrereqError(`${where} is not by a key the site's allowed signers list`, { hint: fix });
  if (parsed.namespace !== namespace) {
    throw new PrereqError(`${where} signs for ${parsed.namespace}, not for ${namespace}`, { hint: fix });
  }
  const keyWire = new Wire(parsed.publicKey);
  if (keyWire.text() !== ED25519 || parsed.algorithm !== ED25519 || !HASHES[parsed.hash]) {
    throw new PrereqError(`${where} is not an Ed25519 signature for ${namespace}: the composer cannot check it`,
      { hint: "sign the index with an Ed25519 key (ssh-keygen -t ed25519)" });
  }
  const digest = new Uint8Array(await crypto.subtle.digest(HASHES[parsed.hash], message));
  const signed = signedData([encoder.encode(namespace), parsed.reserved, encoder.encode(parsed.hash), digest]);
  const key = await crypto.subtle.importKey("raw", keyWire.string(), { name: "Ed25519" }, false, ["verify"]);
  if (!(await crypto.subtle.verify({ name: "Ed25519" }, key, parsed.signature, signed))) {
    throw new PrereqError(`${where} does not match the index: it was changed after signing`, { hint: fix });
  }
  return signer.principals;
}
