// validateUrl, validateUrlAsync, createPinnedLookup and ssrfSafeAgent (bindings/ssrf.ts):
//   - the vector file tests/vectors/ssrf.json, case by case;
//   - that the WHATWG parser really folds the IPv4 spellings we rely on it for;
//   - every blocked range's edges, generated from BLOCKED_IPV4_RANGES;
//   - option validation (TypeError naming the field) and inputs that are not strings;
//   - fast-check properties with a fixed seed;
//   - resolution with an injected resolver, and real HTTP servers on 127.0.0.1 reached (or not)
//     through agents built on the pinned lookup, including a DNS-rebinding resolver.

import { Agent as UndiciAgent, request as undiciRequest } from 'undici';
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import fc from 'fast-check';
import http from 'node:http';
import https from 'node:https';
import { loadVectors, label } from '../support/vectors.mjs';
import {
  validateUrl,
  validateUrlAsync,
  createPinnedLookup,
  ssrfSafeAgent,
  BLOCKED_IPV4_RANGES,
} from '../../dist/bindings/ssrf.js';

const SEED = 20240603;
const REASONS = [
  'invalid', 'scheme', 'no-host', 'userinfo', 'trailing-dot', 'localhost', 'metadata', 'private-ip',
  'tunnel-ip', 'host-not-allowed', 'resolves-private', 'resolution-failed',
];
const METADATA_V4 = ['169.254.169.254', '169.254.170.2', '168.63.129.16', '192.0.0.192', '100.100.100.200'];

// ---------------------------------------------------------------- IPv4 helpers (test side)

const toNum = (dotted) => dotted.split('.').reduce((a, p) => a * 256 + Number(p), 0);
const toDotted = (n) => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
const RANGES = BLOCKED_IPV4_RANGES.map((cidr) => {
  const [base, len] = cidr.split('/');
  const size = 2 ** (32 - Number(len));
  return { cidr, first: toNum(base), last: toNum(base) + size - 1 };
});
const inBlocked = (n) => RANGES.some((r) => n >= r.first && n <= r.last);
const isMetadata = (n) => METADATA_V4.includes(toDotted(n));

/** The spellings of one IPv4 address a URL host can use; the parser must read all as the same. */
const spellings = (n) => {
  const b = [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];
  const hex16 = (x) => x.toString(16);
  return [
    toDotted(n),
    String(n),
    `0x${n.toString(16)}`,
    `0${n.toString(8)}`,
    b.map((x) => `0x${x.toString(16)}`).join('.'),
    b.map((x) => `0${x.toString(8)}`).join('.'),
    `${b[0]}.${(b[1] << 16) | (b[2] << 8) | b[3]}`,
    `${b[0]}.${b[1]}.${(b[2] << 8) | b[3]}`,
    `${toDotted(n)}.`,
    `[::ffff:${toDotted(n)}]`,
    `[::ffff:${hex16(n >>> 16)}:${hex16(n & 0xffff)}]`,
    `[64:ff9b::${toDotted(n)}]`,
    [...toDotted(n)].map((c) => `%${c.charCodeAt(0).toString(16)}`).join(''),
  ];
};

// ---------------------------------------------------------------- vectors

describe('tests/vectors/ssrf.json', () => {
  const file = loadVectors('ssrf');

  it('has the promised size and only documented reasons', () => {
    expect(file.vector).toBe('ssrf');
    expect(file.cases.filter((c) => c.attack).length).toBeGreaterThanOrEqual(80);
    expect(file.cases.filter((c) => !c.attack).length).toBeGreaterThanOrEqual(40);
    for (const c of file.cases) {
      expect(typeof c.note).toBe('string');
      if (c.attack) expect(REASONS).toContain(c.reason);
      else expect(c.reason).toBeNull();
    }
  });

  it.each(file.cases.map((c) => [label(c.input), c]))('%s', (_, c) => {
    expect(validateUrl(c.input, c.options)).toEqual({ ok: !c.attack, reason: c.reason });
  });
});

// ---------------------------------------------------------------- the parser we stand on

describe('WHATWG URL folds IPv4 spellings (checked, not assumed)', () => {
  it.each([
    ['2130706433'], ['0177.0.0.1'], ['0x7f.1'], ['127.1'], ['0x7f000001'], ['017700000001'], ['0x7f.0x0.0x0.0x1'],
    ['127.0.0.1.'], ['%31%32%37.0.0.1'], ['①②⑦.0.0.1'], ['１２７．０．０．１'], ['127.0.1'], ['0177.1'],
  ])('http://%s/ has hostname 127.0.0.1 and is refused', (host) => {
    expect(new URL(`http://${host}/`).hostname).toBe('127.0.0.1');
    expect(validateUrl(`http://${host}/`)).toEqual({ ok: false, reason: 'private-ip' });
  });

  it('opaque hosts of other schemes are left alone by the parser, and decoded by shield', () => {
    expect(new URL('gopher://0x7f.1/').hostname).toBe('0x7f.1');
    expect(new URL('gopher://017700000001/').hostname).toBe('017700000001');
    const opts = { allowedSchemes: ['gopher', 'foo'] };
    for (const host of ['0x7f.1', '017700000001', '2130706433', '127.1', '0177.0.0.1', '%31%32%37.0.0.1', '[::1]']) {
      expect(validateUrl(`gopher://${host}/`, opts)).toEqual({ ok: false, reason: 'private-ip' });
      expect(validateUrl(`foo://${host}:70/x`, opts)).toEqual({ ok: false, reason: 'private-ip' });
    }
    expect(validateUrl('gopher://example.com/', opts).ok).toBe(true);
    expect(validateUrl('gopher://a%20b/', opts)).toEqual({ ok: false, reason: 'invalid' });
  });

  it('IPv6 hosts are serialised compressed, with a mapped IPv4 tail in hex', () => {
    expect(new URL('http://[0:0:0:0:0:ffff:127.0.0.1]/').hostname).toBe('[::ffff:7f00:1]');
    expect(new URL('http://[::127.0.0.1]/').hostname).toBe('[::7f00:1]');
  });
});

// ---------------------------------------------------------------- ranges

describe('IPv4 range edges (generated from BLOCKED_IPV4_RANGES)', () => {
  it('lists the ranges of the spec', () => {
    expect([...BLOCKED_IPV4_RANGES].sort()).toEqual([
      '0.0.0.0/8', '10.0.0.0/8', '100.64.0.0/10', '127.0.0.0/8', '169.254.0.0/16', '172.16.0.0/12', '192.0.0.0/24',
      '192.168.0.0/16', '198.18.0.0/15', '224.0.0.0/4', '240.0.0.0/4',
    ].sort());
    expect(Object.isFrozen(BLOCKED_IPV4_RANGES)).toBe(true);
  });

  const edges = [];
  for (const r of RANGES) {
    for (const n of [r.first, r.first + 1, r.last - 1, r.last]) edges.push([r.cidr, toDotted(n), true]);
    for (const n of [r.first - 1, r.last + 1]) {
      if (n >= 0 && n <= 0xffffffff && !inBlocked(n)) edges.push([r.cidr, toDotted(n), false]);
    }
  }
  it.each(edges)('%s: %s blocked=%s', (_, ip, blocked) => {
    const r = validateUrl(`http://${ip}/`);
    expect(r.ok).toBe(!blocked);
    if (blocked) expect(['private-ip', 'metadata']).toContain(r.reason);
  });

  it('the metadata addresses are refused as metadata in every spelling', () => {
    for (const ip of METADATA_V4) {
      for (const host of spellings(toNum(ip))) {
        expect(validateUrl(`http://${host}/`), host).toEqual({ ok: false, reason: 'metadata' });
      }
    }
  });
});

describe('IPv6 forms', () => {
  it.each([
    ['::', 'private-ip'], ['::1', 'private-ip'], ['0::0:1', 'private-ip'], ['::0.0.0.1', 'private-ip'],
    ['fc00::', 'private-ip'], ['fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'private-ip'], ['fe00::', 'private-ip'],
    ['fe80::', 'private-ip'], ['fe80::1:2:3:4', 'private-ip'], ['fec0::', 'private-ip'], ['ff0e::1', 'private-ip'],
    ['1fff:ffff::', 'private-ip'], ['4000::1', 'private-ip'], ['::ffff:192.168.1.1', 'private-ip'],
    ['::ffff:0:10.0.0.1', 'private-ip'], ['64:ff9b::', 'private-ip'],
    ['64:ff9b:0:0:1::', 'private-ip'], ['64:ff9b:2::808:808', 'private-ip'], ['64:ff9b::1.2.3.4:5', 'invalid'],
    ['2002::', 'private-ip'], ['2002:c0a8:101::', 'private-ip'], ['2002:0808:0808:1:2:3:4:5', 'tunnel-ip'],
    ['2001::', 'private-ip'], ['2001:0:0:0:0:0:ffff:ffff', 'private-ip'], ['2001:0:ffff::f7f7:f7f7', 'tunnel-ip'],
    ['2001:db8:ffff::', 'private-ip'], ['fd00:ec2::254', 'metadata'], ['fd00:ec2::255', 'private-ip'],
    ['2001:1::', null], ['2001:db7:ffff::', null], ['2003::1', null], ['2c0f:fb50::1', null],
    ['2606:4700::1111', null], ['::ffff:1.1.1.1', null], ['64:ff9b::1.1.1.1', null],
  ])('[%s] -> %s', (addr, reason) => {
    expect(validateUrl(`http://[${addr}]/`)).toEqual({ ok: reason === null, reason });
  });

  it('Teredo decodes the client address from inverted bits', () => {
    const teredo = (v4) => {
      const x = ~toNum(v4) >>> 0;
      return `http://[2001:0:4136:e378:8000:63bf:${(x >>> 16).toString(16)}:${(x & 0xffff).toString(16)}]/`;
    };
    expect(validateUrl(teredo('127.0.0.1')).reason).toBe('private-ip');
    expect(validateUrl(teredo('169.254.169.254')).reason).toBe('metadata');
    expect(validateUrl(teredo('8.8.8.8')).reason).toBe('tunnel-ip');
  });
});

// ---------------------------------------------------------------- options and inputs

describe('options', () => {
  it.each([
    [{ allowedHosts: 'example.com' }, /options\.allowedHosts must be an array/],
    [{ allowedHosts: [''] }, /options\.allowedHosts\[0\] must be a non-empty string/],
    [{ allowedHosts: ['ok.example', 42] }, /options\.allowedHosts\[1\] must be a non-empty string/],
    [{ allowedHosts: ['example.com:8080'] }, /options\.allowedHosts\[0\] is not a hostname/],
    [{ allowedHosts: ['https://example.com'] }, /options\.allowedHosts\[0\] is not a hostname/],
    [{ allowedHosts: ['example.com/path'] }, /options\.allowedHosts\[0\] is not a hostname/],
    [{ allowedHosts: ['user@example.com'] }, /options\.allowedHosts\[0\] is not a hostname/],
    [{ allowedHosts: ['example.com.'] }, /options\.allowedHosts\[0\] ends with a dot/],
    [{ allowedHosts: ['a.*.example.com'] }, /options\.allowedHosts\[0\]: '\*' is only allowed/],
    [{ allowedHosts: ['*'] }, /options\.allowedHosts\[0\]: '\*' is only allowed/],
    [{ allowedHosts: ['*.10.0.0.1'] }, /options\.allowedHosts\[0\]: a '\*\.' wildcard cannot apply to an IP/],
    [{ allowedHosts: [' example.com'] }, /options\.allowedHosts\[0\] contains whitespace/],
    [{ allowedHosts: ['[::1'] }, /options\.allowedHosts\[0\] is not a hostname/],
    [{ allowedSchemes: 'https' }, /options\.allowedSchemes must be an array/],
    [{ allowedSchemes: ['https', 1] }, /options\.allowedSchemes\[1\] must be a string/],
    [{ allowedSchemes: ['ht tp'] }, /options\.allowedSchemes\[0\] is not a URL scheme/],
    [{ allowedSchemes: ['1http'] }, /options\.allowedSchemes\[0\] is not a URL scheme/],
    [{ allowedSchemes: [''] }, /options\.allowedSchemes\[0\] is not a URL scheme/],
    [{ allowedHost: ['example.com'] }, /unknown option 'allowedHost'/],
    [{ lookup: async () => [] }, /unknown option 'lookup'/],
    ['strict', /options must be an object/],
    [[], /options must be an object/],
  ])('%j throws a TypeError naming the field', (options, message) => {
    expect(() => validateUrl('http://example.com/', options)).toThrow(TypeError);
    expect(() => validateUrl('http://example.com/', options)).toThrow(message);
  });

  it('error messages name the function', () => {
    expect(() => validateUrl('http://x/', { allowedHosts: 1 })).toThrow(/^validateUrl: /);
  });

  it('scheme names are case-insensitive and may carry their colon', () => {
    expect(validateUrl('wss://example.com/', { allowedSchemes: ['WSS:'] }).ok).toBe(true);
    expect(validateUrl('http://example.com/', { allowedSchemes: ['https'] })).toEqual({ ok: false, reason: 'scheme' });
  });

  it('an empty allowedHosts refuses every host; an empty allowedSchemes every URL (fail closed)', () => {
    expect(validateUrl('https://example.com/', { allowedHosts: [] })).toEqual({ ok: false, reason: 'host-not-allowed' });
    expect(validateUrl('https://example.com/', { allowedSchemes: [] })).toEqual({ ok: false, reason: 'scheme' });
  });

  it('null and undefined options mean the defaults', () => {
    expect(validateUrl('https://example.com/', null).ok).toBe(true);
    expect(validateUrl('https://example.com/', undefined).ok).toBe(true);
    expect(validateUrl('https://example.com/', {}).ok).toBe(true);
  });

  it('a list reused across calls sees later edits to the array', () => {
    const allowedHosts = ['a.example'];
    expect(validateUrl('http://b.example/', { allowedHosts }).ok).toBe(false);
    allowedHosts.push('b.example');
    expect(validateUrl('http://b.example/', { allowedHosts }).ok).toBe(true);
    allowedHosts[1] = 'c.example';
    expect(validateUrl('http://b.example/', { allowedHosts }).ok).toBe(false);
  });

  it('IPv6 list entries may be written with or without brackets, in any spelling', () => {
    for (const entry of ['::1', '[::1]', '0:0:0:0:0:0:0:1', '[0::1]']) {
      expect(validateUrl('http://[::1]/', { allowedHosts: [entry] }).ok).toBe(true);
    }
    expect(validateUrl('http://127.0.0.1/', { allowedHosts: ['2130706433'] }).ok).toBe(true);
  });
});

describe('inputs that are not URL strings', () => {
  it.each([[undefined], [null], [42], [{}], [[]], [['http://example.com/']], [Symbol('x')], [() => 1], [new URL('http://example.com/')]])(
    '%s gives invalid',
    (input) => {
      expect(validateUrl(input)).toEqual({ ok: false, reason: 'invalid' });
    },
  );

  it('a very long URL is judged in one pass', () => {
    expect(validateUrl(`https://example.com/${'a'.repeat(1 << 20)}`).ok).toBe(true);
    expect(validateUrl(`https://${'a.'.repeat(100)}example.com/`).ok).toBe(true);
    expect(validateUrl(`http://${'0'.repeat(100000)}/`).ok).toBe(false);
  });
});

// ---------------------------------------------------------------- properties

describe('properties (fast-check, fixed seed)', () => {
  const fragments = fc.constantFrom(
    'http://', 'https://', 'gopher://', 'HTTP:', '//', '\\\\', '\\', '/', '@', ':', '::', '[', ']', '.', '%', '%2e', '%40',
    '%31', '0x', '0', '127', '255', '256', '4294967295', '169.254.169.254', 'localhost', 'ffff', 'fe80', '2001', '2002',
    '64:ff9b', '\t', '\n', ' ', '\u0000', '。', '１', '①', '#', '?', 'xn--', 'ß', '\ud800', '*.', 'example.com',
  );
  const messy = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.array(fragments, { maxLength: 12 }).map((a) => a.join('')),
    fc.array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 24 }).map((a) => String.fromCharCode(...a)),
  );

  it('validateUrl never throws and always answers a documented reason', () => {
    fc.assert(
      fc.property(messy, (s) => {
        const r = validateUrl(s);
        expect(r.ok).toBe(r.reason === null);
        if (r.reason !== null) expect(REASONS).toContain(r.reason);
        const withScheme = validateUrl(`http://${s}`, { allowedSchemes: ['http', 'gopher'] });
        expect(withScheme.ok).toBe(withScheme.reason === null);
      }),
      { seed: SEED, numRuns: 3000 },
    );
  });

  const blockedIp = fc
    .tuple(fc.integer({ min: 0, max: RANGES.length - 1 }), fc.double({ min: 0, max: 1, noNaN: true }))
    .map(([i, f]) => RANGES[i].first + Math.min(RANGES[i].last - RANGES[i].first, Math.floor(f * (RANGES[i].last - RANGES[i].first + 1))));
  const publicIp = fc.integer({ min: 0, max: 0xffffffff }).filter((n) => !inBlocked(n) && !isMetadata(n));

  it('an address inside a blocked range is refused in every spelling', () => {
    fc.assert(
      fc.property(blockedIp, (n) => {
        for (const host of spellings(n)) {
          const r = validateUrl(`http://${host}/`);
          expect(r.ok, host).toBe(false);
          expect(['private-ip', 'metadata'], host).toContain(r.reason);
        }
      }),
      { seed: SEED, numRuns: 1500 },
    );
  });

  it('an address outside every range is accepted in every spelling', () => {
    fc.assert(
      fc.property(publicIp, (n) => {
        for (const host of spellings(n)) expect(validateUrl(`http://${host}/`), host).toEqual({ ok: true, reason: null });
      }),
      { seed: SEED, numRuns: 1500 },
    );
  });

  it('6to4 and Teredo are refused whatever they embed', () => {
    const group = fc.integer({ min: 0, max: 0xffff }).map((x) => x.toString(16));
    fc.assert(
      fc.property(fc.array(group, { minLength: 7, maxLength: 7 }), fc.boolean(), (g, teredo) => {
        const addr = teredo ? ['2001', '0', ...g.slice(1)].join(':') : ['2002', ...g].join(':');
        const r = validateUrl(`http://[${addr}]/`);
        expect(r.ok).toBe(false);
        expect(['tunnel-ip', 'private-ip', 'metadata']).toContain(r.reason);
      }),
      { seed: SEED, numRuns: 1000 },
    );
  });

  it('IPv6 outside 2000::/3 is refused unless it embeds a public IPv4 (mapped, NAT64)', () => {
    const group = fc.integer({ min: 0, max: 0xffff });
    fc.assert(
      fc.property(fc.array(group, { minLength: 8, maxLength: 8 }), (g) => {
        if ((g[0] & 0xe000) === 0x2000) g[0] ^= 0x8000; // move it out of 2000::/3
        const zero = (from, to) => g.slice(from, to).every((x) => x === 0);
        const embeds =
          (zero(0, 4) && ((g[4] === 0 && g[5] === 0xffff) || (g[4] === 0xffff && g[5] === 0))) ||
          (g[0] === 0x64 && g[1] === 0xff9b && g[2] <= 1 && zero(3, 6));
        if (embeds) return; // judged by the embedded IPv4, covered above
        const r = validateUrl(`http://[${g.map((x) => x.toString(16)).join(':')}]/`);
        expect(r.ok).toBe(false);
      }),
      { seed: SEED, numRuns: 1000 },
    );
  });
});

// ---------------------------------------------------------------- resolution

const fixed = (...addresses) => {
  const calls = [];
  const lookup = async (hostname) => {
    calls.push(hostname);
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return { lookup, calls };
};
/** Options holding only a resolver with these answers. */
const answering = (...addresses) => ({ lookup: fixed(...addresses).lookup });

describe('validateUrlAsync', () => {
  it('accepts a name whose every address is public and returns the addresses', async () => {
    const { lookup, calls } = fixed('93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c');
    const r = await validateUrlAsync('https://example.com/x', { lookup });
    expect(r).toEqual({
      ok: true,
      reason: null,
      addresses: [
        { address: '93.184.215.14', family: 4 },
        { address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6 },
      ],
    });
    expect(calls).toEqual(['example.com']);
  });

  it.each([
    [['10.0.0.1']], [['8.8.8.8', '127.0.0.1']], [['::1']], [['2606:4700::1111', 'fe80::1%eth0']], [['169.254.169.254']],
    [['::ffff:192.168.0.1']], [['0.0.0.0']],
  ])('refuses when any address of %j is not public', async (addresses) => {
    const r = await validateUrlAsync('http://rebind.example/', answering(...addresses));
    expect(r.ok).toBe(false);
    expect(r.reason).toBe('resolves-private');
    expect(r.addresses.map((a) => a.address)).toEqual(addresses);
  });

  it.each([
    ['throws', async () => { throw Object.assign(new Error('nope'), { code: 'ENOTFOUND' }); }],
    ['throws synchronously', () => { throw new Error('sync'); }],
    ['answers nothing', async () => []],
    ['answers a non-array', async () => 'x'],
    ['answers a non-address', async () => [{ address: 'example.com', family: 4 }]],
    ['answers a loose IPv4 spelling', async () => [{ address: '127.1', family: 4 }]],
    ['answers garbage entries', async () => [null]],
  ])('resolution-failed when the resolver %s', async (_, lookup) => {
    expect(await validateUrlAsync('http://x.example/', { lookup })).toEqual({ ok: false, reason: 'resolution-failed', addresses: [] });
  });

  it('an IP host is not resolved; its address is returned', async () => {
    const { lookup, calls } = fixed('10.0.0.1');
    expect(await validateUrlAsync('http://8.8.8.8/', { lookup })).toEqual({ ok: true, reason: null, addresses: [{ address: '8.8.8.8', family: 4 }] });
    expect(await validateUrlAsync('http://[2606:4700::1111]/', { lookup })).toEqual({
      ok: true, reason: null, addresses: [{ address: '2606:4700::1111', family: 6 }],
    });
    expect(calls).toEqual([]);
  });

  it('a URL refused by validateUrl is not resolved', async () => {
    const { lookup, calls } = fixed('8.8.8.8');
    expect(await validateUrlAsync('http://localhost/', { lookup })).toEqual({ ok: false, reason: 'localhost', addresses: [] });
    expect(await validateUrlAsync('ftp://x.example/', { lookup })).toEqual({ ok: false, reason: 'scheme', addresses: [] });
    expect(await validateUrlAsync(5, { lookup })).toEqual({ ok: false, reason: 'invalid', addresses: [] });
    expect(calls).toEqual([]);
  });

  it('an exactly listed address may be resolved to; the name must be listed too', async () => {
    const { lookup } = fixed('10.0.0.5');
    expect((await validateUrlAsync('http://svc.internal/', { lookup, allowedHosts: ['svc.internal', '10.0.0.5'] })).ok).toBe(true);
    expect((await validateUrlAsync('http://svc.internal/', { lookup, allowedHosts: ['svc.internal'] })).reason).toBe('resolves-private');
    expect((await validateUrlAsync('http://svc.internal/', { lookup, allowedHosts: ['10.0.0.5'] })).reason).toBe('host-not-allowed');
  });

  it('bad options reject with a TypeError naming the field', async () => {
    await expect(validateUrlAsync('http://x/', { lookup: 'dns' })).rejects.toThrow(/validateUrlAsync: options\.lookup must be a function/);
    await expect(validateUrlAsync('http://x/', { allowedHosts: [1] })).rejects.toThrow(TypeError);
  });

  it('never rejects on arbitrary input', async () => {
    const { lookup } = fixed('8.8.8.8');
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'binary', maxLength: 30 }), async (s) => {
        const r = await validateUrlAsync(`http://${s}`, { lookup });
        expect(r.ok).toBe(r.reason === null);
      }),
      { seed: SEED, numRuns: 300 },
    );
  });

  it('the default resolver (the system one) is used when no lookup is given', async () => {
    // `localhost` is refused by name; listed by name, it is still refused by its addresses
    // (answered from /etc/hosts, so no network is needed).
    expect((await validateUrlAsync('http://localhost/')).reason).toBe('localhost');
    const r = await validateUrlAsync('http://localhost/', { allowedHosts: ['localhost'] });
    expect(r.reason).toBe('resolves-private');
    expect(r.addresses.length).toBeGreaterThan(0);
  });
});

// ---------------------------------------------------------------- the pinned lookup, unit level

const callLookup = (lookup, hostname, options) =>
  new Promise((resolve) => {
    lookup(hostname, options, (err, address, family) => resolve({ err, address, family }));
  });

describe('createPinnedLookup', () => {
  it('answers like dns.lookup: all=true gives every address, all=false the first', async () => {
    const { lookup } = fixed('93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c');
    const pinned = createPinnedLookup({ lookup });
    expect(await callLookup(pinned, 'example.com', { all: true })).toEqual({
      err: null,
      address: [
        { address: '93.184.215.14', family: 4 },
        { address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6 },
      ],
      family: undefined,
    });
    expect(await callLookup(pinned, 'example.com', {})).toEqual({ err: null, address: '93.184.215.14', family: 4 });
    expect(await callLookup(pinned, 'example.com', { family: 6 })).toEqual({
      err: null, address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6,
    });
    expect(await callLookup(pinned, 'example.com', { family: 'IPv6', all: true })).toMatchObject({ err: null, address: [{ family: 6 }] });
    expect(await callLookup(pinned, 'example.com', 4)).toEqual({ err: null, address: '93.184.215.14', family: 4 });
  });

  it('the two-argument form (hostname, callback) works', async () => {
    const pinned = createPinnedLookup(answering('8.8.4.4'));
    const out = await new Promise((resolve) => pinned('dns.example', (err, address, family) => resolve({ err, address, family })));
    expect(out).toEqual({ err: null, address: '8.8.4.4', family: 4 });
  });

  it('fails with ESHIELDSSRF naming host and reason when any address is blocked', async () => {
    const pinned = createPinnedLookup(answering('8.8.8.8', '10.1.2.3'));
    const { err } = await callLookup(pinned, 'mixed.example', { all: true });
    expect(err).toBeInstanceOf(Error);
    expect(err.code).toBe('ESHIELDSSRF');
    expect(err.reason).toBe('resolves-private');
    expect(err.hostname).toBe('mixed.example');
    expect(err.message).toMatch(/mixed\.example/);
    expect(err.message).toMatch(/resolves-private/);
  });

  it('blocked even when the blocked address is of the family not asked for', async () => {
    const pinned = createPinnedLookup(answering('8.8.8.8', '::1'));
    expect((await callLookup(pinned, 'x.example', { family: 4 })).err?.code).toBe('ESHIELDSSRF');
  });

  it('name rules run before any resolution', async () => {
    const { lookup, calls } = fixed('8.8.8.8');
    const pinned = createPinnedLookup({ lookup });
    for (const [host, reason] of [
      ['localhost', 'localhost'], ['LocalHost', 'localhost'], ['a.localhost', 'localhost'], ['example.com.', 'trailing-dot'],
      ['metadata.google.internal', 'metadata'], ['169.254.169.254', 'metadata'], ['127.0.0.1', 'private-ip'],
      ['::1', 'private-ip'], ['bad host', 'invalid'],
    ]) {
      const { err } = await callLookup(pinned, host, { all: true });
      expect(err?.code, host).toBe('ESHIELDSSRF');
      expect(err.reason, host).toBe(reason);
    }
    expect(calls).toEqual([]);
  });

  it('resolution errors pass through; an empty answer or a missing family is ENOTFOUND', async () => {
    const failing = createPinnedLookup({ lookup: async () => { throw Object.assign(new Error('down'), { code: 'EAI_AGAIN' }); } });
    expect((await callLookup(failing, 'x.example', {})).err.code).toBe('EAI_AGAIN');
    const empty = createPinnedLookup({ lookup: async () => [] });
    expect((await callLookup(empty, 'x.example', {})).err.code).toBe('ENOTFOUND');
    const v4only = createPinnedLookup(answering('8.8.8.8'));
    expect((await callLookup(v4only, 'x.example', { family: 6 })).err.code).toBe('ENOTFOUND');
  });

  it('the allowlist applies to names and to resolved addresses', async () => {
    const pinned = createPinnedLookup({ ...answering('10.0.0.5'), allowedHosts: ['svc.internal', '10.0.0.5'] });
    expect(await callLookup(pinned, 'svc.internal', {})).toEqual({ err: null, address: '10.0.0.5', family: 4 });
    expect((await callLookup(pinned, 'other.example', {})).err.reason).toBe('host-not-allowed');
  });

  it('bad options throw a TypeError naming the field', () => {
    expect(() => createPinnedLookup({ lookup: 1 })).toThrow(/createPinnedLookup: options\.lookup must be a function/);
    expect(() => createPinnedLookup({ allowedSchemes: ['http'] })).toThrow(/createPinnedLookup: unknown option 'allowedSchemes'/);
    expect(() => ssrfSafeAgent({ agentOptions: 5 })).toThrow(/ssrfSafeAgent: options\.agentOptions must be an object/);
    expect(() => ssrfSafeAgent({ allowedHosts: 'x' })).toThrow(/ssrfSafeAgent: options\.allowedHosts must be an array/);
  });
});

// ---------------------------------------------------------------- real servers

describe('agents against a real server on 127.0.0.1', () => {
  let server;
  let port;
  let connections = 0;
  const hosts = [];

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      hosts.push(req.headers.host);
      res.end('reached');
    });
    server.on('connection', () => {
      connections++;
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = server.address().port;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  const get = (url, agent, extra = {}) =>
    new Promise((resolve) => {
      const lib = url.startsWith('https:') ? https : http;
      const req = lib.get(url, { agent, ...extra }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode, body }));
      });
      req.on('error', (error) => resolve({ error }));
      req.setTimeout(10_000, () => req.destroy(new Error('timeout')));
    });

  /** Runs `fn` and returns how many TCP connections the server accepted meanwhile. */
  const counting = async (fn) => {
    const before = connections;
    const out = await fn();
    await new Promise((r) => setTimeout(r, 20));
    return { out, connections: connections - before };
  };

  it('the server is reachable without shield (control)', async () => {
    const agent = new http.Agent();
    const { out, connections: n } = await counting(() => get(`http://127.0.0.1:${port}/`, agent));
    expect(out).toEqual({ status: 200, body: 'reached' });
    expect(n).toBe(1);
    agent.destroy();
  });

  it('http.Agent + createPinnedLookup refuses http://localhost:<port>/', async () => {
    const agent = new http.Agent({ lookup: createPinnedLookup() });
    const { out, connections: n } = await counting(() => get(`http://localhost:${port}/`, agent));
    expect(out.error?.code).toBe('ESHIELDSSRF');
    expect(out.error.reason).toBe('localhost');
    expect(n).toBe(0);
    agent.destroy();
  });

  it('refuses a name whose resolver answers 127.0.0.1', async () => {
    const { lookup, calls } = fixed('127.0.0.1');
    const agent = new http.Agent({ lookup: createPinnedLookup({ lookup }) });
    const { out, connections: n } = await counting(() => get(`http://innocent.example:${port}/`, agent));
    expect(out.error?.code).toBe('ESHIELDSSRF');
    expect(out.error.reason).toBe('resolves-private');
    expect(out.error.message).toMatch(/innocent\.example/);
    expect(calls).toEqual(['innocent.example']);
    expect(n).toBe(0);
    agent.destroy();
  });

  it('DNS rebinding: checked as public, then rebound to 127.0.0.1 at connect time: never connects', async () => {
    let answers = 0;
    const rebinding = async () => {
      answers++;
      return [{ address: answers === 1 ? '93.184.215.14' : '127.0.0.1', family: 4 }];
    };
    const url = `http://rebind.example:${port}/`;
    // The time-of-check answer is public, so a check that resolves separately is fooled...
    expect(await validateUrlAsync(url, { lookup: rebinding })).toMatchObject({ ok: true });
    // ...but the connection resolves again through the pinned lookup, which judges what it dials.
    const agent = new http.Agent({ lookup: createPinnedLookup({ lookup: rebinding }) });
    const { out, connections: n } = await counting(() => get(url, agent));
    expect(out.error?.code).toBe('ESHIELDSSRF');
    expect(answers).toBe(2);
    expect(n).toBe(0);
    expect(hosts).not.toContain(`rebind.example:${port}`);
    agent.destroy();

    // Control: the same resolver behind a lookup that does not judge does land on 127.0.0.1.
    answers = 0;
    await rebinding();
    const plain = new http.Agent({
      lookup: (hostname, options, cb) => rebinding(hostname).then((list) => (options.all ? cb(null, list) : cb(null, list[0].address, 4))),
    });
    const control = await counting(() => get(url, plain));
    expect(control.out).toEqual({ status: 200, body: 'reached' });
    expect(control.connections).toBe(1);
    plain.destroy();
  });

  it('undici: an Agent whose connect.lookup is createPinnedLookup refuses rebinding and reaches an allowed host', async () => {
    // undici resolves through connect.lookup just as net.connect does: the same function serves it
    let answers = 0;
    const rebinding = async () => {
      answers++;
      return [{ address: answers === 1 ? '93.184.215.14' : '127.0.0.1', family: 4 }];
    };
    await rebinding(); // the time-of-check answer was public
    const pinned = new UndiciAgent({ connect: { lookup: createPinnedLookup({ lookup: rebinding }) } });
    const refused = await counting(() => undiciRequest(`http://rebind2.example:${port}/`, { dispatcher: pinned }).then(() => ({ ok: true }), (error) => ({ error })));
    expect(refused.out.error).toBeDefined();
    const cause = refused.out.error.code === 'ESHIELDSSRF' ? refused.out.error : refused.out.error.cause;
    expect(cause?.code).toBe('ESHIELDSSRF');
    expect(refused.connections).toBe(0);
    await pinned.close();

    const allowed = new UndiciAgent({ connect: { lookup: createPinnedLookup({ lookup: fixed('127.0.0.1').lookup, allowedHosts: ['svc2.test', '127.0.0.1'] }) } });
    const ok = await counting(async () => {
      const res = await undiciRequest(`http://svc2.test:${port}/`, { dispatcher: allowed });
      return { status: res.statusCode, body: await res.body.text() };
    });
    expect(ok.out).toEqual({ status: 200, body: 'reached' });
    expect(ok.connections).toBe(1);
    await allowed.close();
  });

  it('rebinding inside one answer (public and loopback together) is refused', async () => {
    const agent = new http.Agent({ lookup: createPinnedLookup(answering('93.184.215.14', '127.0.0.1')) });
    const { out, connections: n } = await counting(() => get(`http://both.example:${port}/`, agent));
    expect(out.error?.code).toBe('ESHIELDSSRF');
    expect(n).toBe(0);
    agent.destroy();
  });

  it('listing the name and 127.0.0.1 lets the request through, dialling the address that was checked', async () => {
    const { lookup, calls } = fixed('127.0.0.1');
    const agent = new http.Agent({ lookup: createPinnedLookup({ lookup, allowedHosts: ['service.test', '127.0.0.1'] }) });
    const { out, connections: n } = await counting(() => get(`http://service.test:${port}/`, agent));
    expect(out).toEqual({ status: 200, body: 'reached' });
    expect(calls).toEqual(['service.test']); // resolved once, and that answer was dialled
    expect(n).toBe(1);
    expect(hosts).toContain(`service.test:${port}`);
    agent.destroy();
  });

  it('localhost is opened by listing the name and its addresses (system resolver)', async () => {
    const agent = new http.Agent({ lookup: createPinnedLookup({ allowedHosts: ['localhost', '127.0.0.1', '::1'] }) });
    const out = await get(`http://localhost:${port}/`, agent, { family: 4 });
    expect(out).toEqual({ status: 200, body: 'reached' });
    agent.destroy();
  });

  it('ssrfSafeAgent refuses IP-literal hosts, which Node dials without any lookup', async () => {
    const agents = ssrfSafeAgent();
    for (const url of [`http://127.0.0.1:${port}/`, `http://[::1]:${port}/`, `http://2130706433:${port}/`, `http://localhost:${port}/`]) {
      const { out, connections: n } = await counting(() => get(url, agents.http));
      expect(out.error?.code, url).toBe('ESHIELDSSRF');
      expect(n, url).toBe(0);
    }
    const tls = await counting(() => get(`https://127.0.0.1:${port}/`, agents.https));
    expect(tls.out.error?.code).toBe('ESHIELDSSRF');
    expect(tls.out.error.reason).toBe('private-ip');
    expect(tls.connections).toBe(0);
    agents.http.destroy();
    agents.https.destroy();
  });

  it('ssrfSafeAgent with allowedHosts: ["127.0.0.1"] reaches the server', async () => {
    const agents = ssrfSafeAgent({ allowedHosts: ['127.0.0.1'], agentOptions: { keepAlive: false } });
    const { out, connections: n } = await counting(() => get(`http://127.0.0.1:${port}/`, agents.http));
    expect(out).toEqual({ status: 200, body: 'reached' });
    expect(n).toBe(1);
    // The list is an allowlist: other hosts are now refused by name.
    expect((await get(`http://other.example:${port}/`, agents.http)).error?.reason).toBe('host-not-allowed');
    agents.http.destroy();
    agents.https.destroy();
  });

  it('ssrfSafeAgent with an injected resolver uses it for names', async () => {
    const { lookup } = fixed('127.0.0.1');
    const agents = ssrfSafeAgent({ lookup, allowedHosts: ['svc.test', '127.0.0.1'] });
    expect(await get(`http://svc.test:${port}/`, agents.http)).toEqual({ status: 200, body: 'reached' });
    const refusing = ssrfSafeAgent({ lookup });
    expect((await get(`http://svc.test:${port}/`, refusing.http)).error?.reason).toBe('resolves-private');
    for (const a of [agents, refusing]) {
      a.http.destroy();
      a.https.destroy();
    }
  });
});
