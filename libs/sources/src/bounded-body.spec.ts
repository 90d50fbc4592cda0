import { readWithinLimit } from './bounded-body';
import { SourceError } from './source.port';

async function* chunks(parts: string[], failAfter?: number) {
  for (const [i, p] of parts.entries()) {
    if (i === failAfter) throw new Error('socket hang up at 10.0.0.1');
    yield Buffer.from(p);
  }
}

describe('readWithinLimit', () => {
  it('reads a body within the limit', async () => {
    expect((await readWithinLimit(chunks(['ab', 'cd']), 4, 'x')).toString()).toBe('abcd');
  });

  it('stops with TOO_LARGE once the body passes the limit', async () => {
    await expect(readWithinLimit(chunks(['ab', 'cd', 'ef']), 5, 'x')).rejects.toMatchObject({
      kind: 'TOO_LARGE',
      message: 'The file is larger than the 5-byte limit',
    });
  });

  it('turns a broken stream into UNAVAILABLE with its own message, naming no address', async () => {
    const err = await readWithinLimit(chunks(['ab', 'cd'], 1), 10, 'The S3 download was interrupted').catch(
      (e) => e,
    );
    expect(err).toBeInstanceOf(SourceError);
    expect(err).toMatchObject({ kind: 'UNAVAILABLE', message: 'The S3 download was interrupted' });
  });
});
