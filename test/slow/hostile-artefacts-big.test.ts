// The big hostile report artefacts of test/catalog/hostile/artefacts.test.ts, in the slow tier:
// each is built in memory (a 17 MB string, 300 000 observations, 7.9 million shard positions) and
// handed to vapc in a child process whose peak memory is measured loosely (< 300 MB): refused with
// exit 2 and one line, never a V8 fatal (on main a forged shard count ran 52 s to one at 1.5 GB).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { artefactWorkspace, BIG, expectRefused, fixture, vapcChild } from '../helpers/hostile-artefacts.js';

const { root, dirWith, shardDirs } = artefactWorkspace();

describe('hostile report artefacts, the big ones: refused with exit 2 and one line, in little memory', () => {
  it('a forged shard count of 4294967295 (merge used to abort the process at 1.5 GB)', async () => {
    const dirs = shardDirs((parts) => parts.forEach((p) => (p.shard!.count = 4294967295)));
    const r = await vapcChild(['report', 'merge', ...dirs, '--report-dir', join(root, 'merged-count')]);
    expectRefused(r, /shard/);
    expect(r.rssMb).toBeLessThan(BIG.rssMb);
  }, 60_000);

  it('a report over the size cap is refused before it is read', async () => {
    const dir = dirWith(`{"target":"${'a'.repeat(17 * 1024 * 1024)}","seed":1,"summary":{},"results":[]}`);
    const r = await vapcChild(['report', dir, '--format', 'console']);
    expectRefused(r, /refused: 17825\d\d\d bytes, more than the 16777216 a report may have/);
    expect(r.rssMb).toBeLessThan(BIG.rssMb);
  }, 60_000);

  it('a huge array (300 000 observations) is refused by its bound', async () => {
    const r0 = fixture('passing-run');
    const dir = dirWith({
      ...r0,
      observations: Array.from({ length: 300_000 }, (_, i) => ({ id: 'o', message: `m${i}` })),
    });
    const r = await vapcChild(['report', dir]);
    expectRefused(r, /observations must NOT have more than 100000 items/);
    expect(r.rssMb).toBeLessThan(BIG.rssMb);
  }, 60_000);

  it('a huge array just under the size cap (7.9 million shard positions) is refused before it is parsed', async () => {
    const dirs = shardDirs((parts) => {
      parts[0]!.shard!.positions = new Array<number>(7_900_000).fill(0);
    });
    const r = await vapcChild(['report', 'merge', ...dirs, '--report-dir', join(root, 'merged-positions')]);
    expectRefused(r, /holds more than 1000000 values/);
    expect(r.rssMb).toBeLessThan(BIG.rssMb);
  }, 60_000);
});
