#!/usr/bin/env node
// Independent Groth16 verifier for cuzk's outputs, built on @noble/curves (pure JS, MIT). It shares
// no code with cuzk: points are decoded by noble's ZCash-format parsers (the same format bellperson
// and blstrs use) and the pairing is noble's.
//
// Usage: node verify.mjs VK_FILE PROOF_FILE PUBLIC_INPUTS_JSON
//   VK_FILE      bellperson VerifyingKey::write layout (docs/formats.md, "Groth16 parameters"):
//                alpha_g1, beta_g1, beta_g2, gamma_g2, delta_g1, delta_g2 (uncompressed: G1 96 B,
//                G2 192 B), u32 big-endian ic.len(), then ic.len() uncompressed G1 points.
//   PROOF_FILE   192 bytes per partition (docs/formats.md, "Proof files"): A (G1 compressed, 48 B) || B (G2
//                compressed, 96 B) || C (G1 compressed, 48 B), partitions concatenated in order.
//   PUBLIC_INPUTS_JSON  an array with one array per partition of the public inputs (without the
//                leading constant ONE) as decimal or 0x-hex strings, each canonical (< r).
// Checks, per partition, e(A, B) = e(alpha, beta) * e(IC(x), gamma) * e(C, delta) with
// IC(x) = ic[0] + sum_i x_i ic[i+1], as one multi-pairing that must equal 1 in Fp12.
// Exit codes: 0 every partition verifies, 1 a proof is invalid (including a proof point that does
// not decode), 2 bad input (unreadable files, wrong sizes, a malformed vk or public inputs).
import { readFileSync } from 'node:fs';
import { bls12_381 } from '@noble/curves/bls12-381.js';

const G1 = bls12_381.G1.Point ?? bls12_381.G1.ProjectivePoint;
const G2 = bls12_381.G2.Point ?? bls12_381.G2.ProjectivePoint;
const { Fp12, Fr } = bls12_381.fields;

// Sizes of the ZCash encodings (docs/formats.md, "Groth16 parameters").
const G1_UNCOMPRESSED = 96;
const G2_UNCOMPRESSED = 192;
const G1_COMPRESSED = 48;
const G2_COMPRESSED = 96;
const PROOF_SIZE = G1_COMPRESSED + G2_COMPRESSED + G1_COMPRESSED; // 192

class BadInput extends Error {}
class InvalidProof extends Error {}

function decodePoint(Group, bytes, what, ErrorType) {
  try {
    return Group.fromHex(bytes); // parses the ZCash flags; assertValidity: on curve and in subgroup
  } catch (e) {
    throw new ErrorType(`${what}: ${e.message}`);
  }
}

function readVerifyingKey(path) {
  let buf;
  try {
    buf = new Uint8Array(readFileSync(path));
  } catch (e) {
    throw new BadInput(`cannot read vk ${path}: ${e.message}`);
  }
  let offset = 0;
  const take = (n, what) => {
    if (offset + n > buf.length) throw new BadInput(`${path}: truncated at offset ${offset} reading ${what}`);
    const out = buf.subarray(offset, offset + n);
    offset += n;
    return out;
  };
  // No point of a verifying key may be the identity: with gamma at infinity forged proofs verify.
  const finite = (point, what) => {
    if (point.equals(point.constructor.ZERO)) throw new BadInput(`${path}: ${what}: point at infinity`);
    return point;
  };
  const g1 = (what) => finite(decodePoint(G1, take(G1_UNCOMPRESSED, what), `${path}: ${what}`, BadInput), what);
  const g2 = (what) => finite(decodePoint(G2, take(G2_UNCOMPRESSED, what), `${path}: ${what}`, BadInput), what);
  const vk = {};
  vk.alpha_g1 = g1('alpha_g1');
  vk.beta_g1 = g1('beta_g1');
  vk.beta_g2 = g2('beta_g2');
  vk.gamma_g2 = g2('gamma_g2');
  vk.delta_g1 = g1('delta_g1');
  vk.delta_g2 = g2('delta_g2');
  const lenBytes = take(4, 'ic length');
  const icLen = ((lenBytes[0] << 24) >>> 0) + (lenBytes[1] << 16) + (lenBytes[2] << 8) + lenBytes[3];
  if (icLen === 0) throw new BadInput(`${path}: empty ic vector`);
  if (buf.length - offset !== icLen * G1_UNCOMPRESSED) {
    throw new BadInput(`${path}: ic length ${icLen} needs ${icLen * G1_UNCOMPRESSED} bytes, ` +
                       `${buf.length - offset} remain after offset ${offset}`);
  }
  vk.ic = [];
  for (let i = 0; i < icLen; i++) vk.ic.push(g1(`ic[${i}]`));
  return vk;
}

function parseScalar(value, where) {
  if (typeof value !== 'string') throw new BadInput(`${where}: expected a decimal or 0x-hex string`);
  const text = value.trim();
  if (!/^(0x[0-9a-fA-F]+|[0-9]+)$/.test(text)) throw new BadInput(`${where}: not a number: ${value}`);
  const x = BigInt(text);
  if (x >= Fr.ORDER) throw new BadInput(`${where}: ${value} is not canonical (>= r)`);
  return x;
}

function readPublicInputs(path) {
  let json;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new BadInput(`cannot read public inputs ${path}: ${e.message}`);
  }
  if (!Array.isArray(json) || !json.every(Array.isArray)) {
    throw new BadInput(`${path}: expected an array of arrays (one per partition)`);
  }
  return json.map((part, k) => part.map((v, i) => parseScalar(v, `${path}: partition ${k} input ${i}`)));
}

function readProofs(path) {
  let buf;
  try {
    buf = new Uint8Array(readFileSync(path));
  } catch (e) {
    throw new BadInput(`cannot read proof ${path}: ${e.message}`);
  }
  if (buf.length === 0 || buf.length % PROOF_SIZE !== 0) {
    throw new BadInput(`${path}: ${buf.length} bytes is not a positive multiple of ${PROOF_SIZE}`);
  }
  const proofs = [];
  for (let k = 0; k * PROOF_SIZE < buf.length; k++) {
    const p = buf.subarray(k * PROOF_SIZE, (k + 1) * PROOF_SIZE);
    // A decoding failure here is an invalid proof (exit 1), not bad input: it is what a flipped bit
    // usually produces. bellperson's Proof::read also rejects points at infinity.
    const a = decodePoint(G1, p.subarray(0, 48), `partition ${k} proof.a`, InvalidProof);
    const b = decodePoint(G2, p.subarray(48, 144), `partition ${k} proof.b`, InvalidProof);
    const c = decodePoint(G1, p.subarray(144, 192), `partition ${k} proof.c`, InvalidProof);
    for (const [name, pt] of [['a', a], ['b', b], ['c', c]]) {
      if (pt.equals(pt.constructor.ZERO)) {
        throw new InvalidProof(`partition ${k} proof.${name}: point at infinity`);
      }
    }
    proofs.push({ a, b, c });
  }
  return proofs;
}

function verifyOne(vk, proof, inputs) {
  if (inputs.length + 1 !== vk.ic.length) {
    throw new BadInput(`${inputs.length} public inputs, the vk expects ${vk.ic.length - 1}`);
  }
  let acc = vk.ic[0];
  for (let i = 0; i < inputs.length; i++) acc = acc.add(vk.ic[i + 1].multiplyUnsafe(inputs[i]));
  // e(A,B) * e(-alpha,beta) * e(-IC(x),gamma) * e(-C,delta) == 1
  const pairs = [
    { g1: proof.a, g2: proof.b },
    { g1: vk.alpha_g1.negate(), g2: vk.beta_g2 },
    { g1: proof.c.negate(), g2: vk.delta_g2 },
  ];
  // e(O, gamma) = 1, and noble refuses pairings with the point at infinity.
  if (!acc.equals(G1.ZERO)) pairs.push({ g1: acc.negate(), g2: vk.gamma_g2 });
  return Fp12.eql(bls12_381.pairingBatch(pairs, true), Fp12.ONE);
}

function main(argv) {
  if (argv.length !== 3) {
    console.error('usage: node verify.mjs VK_FILE PROOF_FILE PUBLIC_INPUTS_JSON');
    return 2;
  }
  const [vkPath, proofPath, inputsPath] = argv;
  try {
    const vk = readVerifyingKey(vkPath);
    const inputs = readPublicInputs(inputsPath);
    const proofs = readProofs(proofPath);
    if (proofs.length !== inputs.length) {
      throw new BadInput(`${proofs.length} partition proof(s) but ${inputs.length} public input set(s)`);
    }
    let allValid = true;
    proofs.forEach((proof, k) => {
      const ok = verifyOne(vk, proof, inputs[k]);
      console.log(`partition ${k}: ${ok ? 'valid' : 'INVALID'}`);
      allValid &&= ok;
    });
    console.log(allValid ? 'Result: valid proof' : 'Result: INVALID proof');
    return allValid ? 0 : 1;
  } catch (e) {
    if (e instanceof InvalidProof) {
      console.log(`Result: INVALID proof (${e.message})`);
      return 1;
    }
    if (e instanceof BadInput) {
      console.error(`bad input: ${e.message}`);
      return 2;
    }
    console.error(`bad input (unexpected error): ${e.stack ?? e}`);
    return 2;
  }
}

process.exitCode = main(process.argv.slice(2));
