import { describe, expect, it } from 'vitest';
import { MIN_PART_SIZE, partSizeFor } from '../src/storage/s3-multipart-write.ts';

describe('S3 part size', () => {
  const mib = 1024 * 1024;

  it('keeps the part size asked for when 10,000 parts hold the largest body', () => {
    expect(partSizeFor({ partSize: MIN_PART_SIZE, queueSize: 4, largestSize: 10 * 1024 * mib })).toBe(MIN_PART_SIZE);
    expect(partSizeFor({ partSize: 8 * mib, queueSize: 4, largestSize: mib })).toBe(8 * mib);
  });

  it('never goes under S3 minimum of 5 MiB', () => {
    expect(partSizeFor({ partSize: mib, queueSize: 4, largestSize: 0 })).toBe(MIN_PART_SIZE);
  });

  it('grows parts, in whole MiB, so that a body of the 50 GiB file limit fits in 10,000 of them', () => {
    const largestSize = 50 * 1024 * mib;
    const size = partSizeFor({ partSize: MIN_PART_SIZE, queueSize: 4, largestSize });
    expect(size * 10_000).toBeGreaterThanOrEqual(largestSize);
    expect(size % mib).toBe(0);
    expect(size).toBe(6 * mib);
  });
});
