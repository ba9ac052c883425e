import { describe, expect, it } from 'vitest';
import { endpointOf, Endpoints } from './endpoints';

const circuit = { timeoutsToOpen: 3, openMs: 1_000, maxOpenMs: 3_000 };

function endpoints() {
  let now = 0;
  const state = new Endpoints(circuit, () => now);
  return { state, advance: (ms: number) => (now += ms) };
}

/** One attempt to `url` that ends as `end`. */
function attempt(state: Endpoints, url: string, end: 'answered' | 'timeout' | 'failed'): boolean {
  expect(state.acquire(url)).toBe(true);
  return state.release(url, end);
}

describe('endpoints', () => {
  it.each([
    ['https://Hooks.Example.com/a?x=1', 'https://hooks.example.com'],
    ['https://hooks.example.com:443/b', 'https://hooks.example.com'],
    ['https://user:pw@hooks.example.com:8443/c', 'https://hooks.example.com:8443'],
    ['http://127.0.0.1:4000/hook', 'http://127.0.0.1:4000'],
    ['http://[::1]:4000/hook', 'http://[::1]:4000'],
  ])('takes the origin of %s as its endpoint', (url, endpoint) => {
    expect(endpointOf(url)).toBe(endpoint);
  });

  it('lets one request at a time go to an endpoint, whichever of its URLs', () => {
    const { state } = endpoints();
    expect(state.acquire('https://a.example/one')).toBe(true);
    expect(state.acquire('https://a.example/two')).toBe(false);
    expect(state.acquire('https://b.example/one')).toBe(true);
    expect(state.unavailableUrls().sort()).toEqual(['https://a.example/one', 'https://a.example/two', 'https://b.example/one']);
    state.release('https://a.example/one', 'answered');
    expect(state.acquire('https://a.example/two')).toBe(true);
  });

  it('parks an endpoint after 3 timeouts in a row, lets one trial through when it half-opens, and closes on an answer', () => {
    const { state, advance } = endpoints();
    const url = 'https://slow.example/hook';
    expect(attempt(state, url, 'timeout')).toBe(false);
    expect(attempt(state, url, 'timeout')).toBe(false);
    expect(attempt(state, url, 'timeout')).toBe(true);
    expect(state.parked('https://slow.example')).toBe(true);
    expect(state.parkedCount()).toBe(1);
    expect(state.acquire(url)).toBe(false);
    expect(state.unavailableUrls()).toEqual([url]);
    advance(999);
    expect(state.acquire(url)).toBe(false);
    advance(1);
    // half-open: the trial's answer closes it, and the next timeouts count from 0
    expect(attempt(state, url, 'answered')).toBe(false);
    expect(state.parkedCount()).toBe(0);
    expect(attempt(state, url, 'timeout')).toBe(false);
    expect(attempt(state, url, 'timeout')).toBe(false);
    expect(attempt(state, url, 'timeout')).toBe(true);
  });

  it('parks it twice as long each time its trial times out, up to the longest', () => {
    const { state, advance } = endpoints();
    const url = 'https://dead.example/hook';
    for (let i = 0; i < 3; i += 1) attempt(state, url, 'timeout');
    for (const openMs of [2_000, 3_000, 3_000]) {
      advance(circuit.openMs + 10_000);
      expect(attempt(state, url, 'timeout')).toBe(true);
      advance(openMs - 1);
      expect(state.parked('https://dead.example')).toBe(true);
      advance(1);
      expect(state.parked('https://dead.example')).toBe(false);
    }
  });

  it('counts only timeouts: a refused connection or an error status breaks the run', () => {
    const { state } = endpoints();
    const url = 'https://flaky.example/hook';
    attempt(state, url, 'timeout');
    attempt(state, url, 'timeout');
    attempt(state, url, 'failed');
    attempt(state, url, 'timeout');
    expect(attempt(state, url, 'timeout')).toBe(false);
    expect(state.parkedCount()).toBe(0);
  });

  it('marks an endpoint suspect while its last attempt timed out, and leaves it out of claims when asked', () => {
    const { state } = endpoints();
    attempt(state, 'https://slow.example/a', 'timeout');
    attempt(state, 'https://fast.example/a', 'answered');
    expect(state.suspect('https://slow.example/b')).toBe(true);
    expect(state.suspect('https://fast.example/a')).toBe(false);
    expect(state.suspect('https://new.example/a')).toBe(false);
    expect(state.unavailableUrls()).toEqual([]);
    expect(state.unavailableUrls({ suspects: true })).toEqual(['https://slow.example/a']);
    attempt(state, 'https://slow.example/a', 'failed');
    expect(state.suspect('https://slow.example/a')).toBe(false);
  });

  it('forgets idle endpoints, never a parked or busy one', () => {
    const { state, advance } = endpoints();
    attempt(state, 'https://idle.example/', 'timeout');
    for (let i = 0; i < 3; i += 1) attempt(state, 'https://parked.example/', 'timeout');
    state.acquire('https://busy.example/');
    advance(500);
    state.forgetIdle(100);
    expect(state.unavailableUrls().sort()).toEqual(['https://busy.example/', 'https://parked.example/']);
    // the forgotten endpoint starts over: its earlier timeout no longer counts
    attempt(state, 'https://idle.example/', 'timeout');
    expect(attempt(state, 'https://idle.example/', 'timeout')).toBe(false);
  });
});
