import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { decisionKeyFile, decisionSigner, loadDecisionSigner } from '../pipelines/rules/decision-signing.js';
import { DECISION_HEADER, RESULTS_HEADER, SIGNATURE_HEADER } from '../pipelines/rules/decision-headers.js';

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});
const tempDir = async () => {
  const d = await mkdtemp(path.join(tmpdir(), 'weir-signing-'));
  dirs.push(d);
  return d;
};

const value = Buffer.from('{"org_id":"org_a","transaction_id":"t1"}');
const decision = '{"decided_at":"2024-03-01T14:05:00Z","score":3,"triggered_rules_count":1}';
const results = '[["r1",1,1,3,[1]]]';
const headersOf = (signature: string) => ({ [DECISION_HEADER]: decision, [RESULTS_HEADER]: results, [SIGNATURE_HEADER]: signature });

describe('decision signatures', () => {
  const signer = decisionSigner(Buffer.alloc(32, 7));

  it('verify what the engine signed, and nothing changed in value, decision, results or signature', () => {
    const signature = signer.sign(value, decision, results);
    expect(signer.verifies(value, headersOf(signature))).toBe(true);
    expect(signer.verifies(Buffer.from('{"org_id":"org_b","transaction_id":"t1"}'), headersOf(signature))).toBe(false);
    expect(signer.verifies(value, { ...headersOf(signature), [DECISION_HEADER]: decision.replace('"score":3', '"score":0') })).toBe(false);
    expect(signer.verifies(value, { ...headersOf(signature), [RESULTS_HEADER]: '[]' })).toBe(false);
    expect(signer.verifies(value, headersOf(`${signature.slice(0, -2)}AA`))).toBe(false);
    expect(signer.verifies(value, headersOf(signature.replace('v1=', 'v2=')))).toBe(false);
    expect(signer.verifies(value, { [DECISION_HEADER]: decision, [RESULTS_HEADER]: results })).toBe(false);
    expect(signer.verifies(value, undefined)).toBe(false);
    expect(decisionSigner(Buffer.alloc(32, 8)).verifies(value, headersOf(signature))).toBe(false);
  });

  it('moving bytes between the parts changes the signature', () => {
    expect(signer.sign(Buffer.from('ab'), 'c', 'd')).not.toBe(signer.sign(Buffer.from('a'), 'bc', 'd'));
  });
});

describe('the signing key', () => {
  it('is generated once under DATA_DIR, owner-only, and kept across restarts', async () => {
    const dir = await tempDir();
    const first = await loadDecisionSigner({ DATA_DIR: dir });
    const signature = first.sign(value, decision, results);
    expect(((await stat(decisionKeyFile(dir))).mode & 0o777).toString(8)).toBe('600');
    const again = await loadDecisionSigner({ DATA_DIR: dir });
    expect(again.verifies(value, headersOf(signature))).toBe(true);
    const elsewhere = await loadDecisionSigner({ DATA_DIR: await tempDir() });
    expect(elsewhere.verifies(value, headersOf(signature))).toBe(false);
  });

  it('comes from DECISION_SIGNING_KEY when set, shared by every process', async () => {
    const key = 'k'.repeat(40);
    const api = await loadDecisionSigner({ DECISION_SIGNING_KEY: key, DATA_DIR: await tempDir() });
    const consumer = await loadDecisionSigner({ DECISION_SIGNING_KEY: key, DATA_DIR: await tempDir() });
    expect(consumer.verifies(value, headersOf(api.sign(value, decision, results)))).toBe(true);
  });
});
