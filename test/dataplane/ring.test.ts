import { describe, expect, it } from 'vitest';
import { RingBuffer, ringCapacity } from '../../src/dataplane/index.js';
import { UsageError } from '../../src/common/errors.js';

describe('ring buffer', () => {
  it('keeps the newest items up to its capacity, oldest first', () => {
    const ring = new RingBuffer<number>(3);
    expect(ring.toArray()).toEqual([]);
    expect(ring.last()).toBeUndefined();
    ring.push(1);
    ring.push(2);
    expect(ring.toArray()).toEqual([1, 2]);
    for (let i = 3; i <= 10; i++) ring.push(i);
    expect(ring.size).toBe(3);
    expect(ring.totalPushed).toBe(10);
    expect(ring.toArray()).toEqual([8, 9, 10]);
    expect([ring.at(0), ring.at(2), ring.at(3), ring.last()]).toEqual([8, 10, undefined, 10]);
    expect(ring.lastN(2)).toEqual([9, 10]);
    expect(ring.lastN(7)).toEqual([8, 9, 10]);
  });

  it('sizes the data plane ring in monitoring steps', () => {
    expect(ringCapacity(30, 5)).toBe(361);
    expect(ringCapacity(1, 7)).toBe(10);
    expect(() => ringCapacity(0, 5)).toThrow(UsageError);
    expect(() => new RingBuffer(0)).toThrow(UsageError);
  });
});
