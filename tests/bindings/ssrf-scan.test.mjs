// SSRF findings of scan()/scanValues(): URLs in the decoded value that point inside the network
// (judged by validateUrl) or use a request-smuggling scheme.
import { describe, it, expect } from 'vitest';
import { scan, scanValues, decode, Engine } from '@shield/node';
import { urlFinding, internalTargetRule } from '../../dist/bindings/ssrf-scan.js';

const ssrf = (v, e) => (e ? e.scan(v) : scan(v)).filter((f) => f.vector === 'ssrf');

const ATTACKS = [
  ['http://169.254.169.254/latest/meta-data/', 'internal-target', 'cloud metadata address'],
  ['http://metadata.google.internal/computeMetadata/v1/', 'internal-target', 'GCP metadata name'],
  ['http://localhost:8080/admin', 'internal-target', 'localhost'],
  ['https://127.0.0.1:443', 'internal-target', 'loopback over https'],
  ['http://10.0.0.5/internal', 'internal-target', 'private 10/8'],
  ['http://172.16.0.1/', 'internal-target', 'private 172.16/12'],
  ['http://192.168.1.1/router', 'internal-target', 'private 192.168/16'],
  ['http://2130706433/', 'internal-target', 'decimal IPv4'],
  ['http://0x7f.1/', 'internal-target', 'hex and short IPv4'],
  ['http://0177.0.0.1/', 'internal-target', 'octal IPv4'],
  ['http://127.1', 'internal-target', 'short IPv4'],
  ['http://0/', 'internal-target', '0.0.0.0'],
  ['http://[::1]:80/', 'internal-target', 'IPv6 loopback'],
  ['http://[::ffff:127.0.0.1]/', 'internal-target', 'IPv4-mapped IPv6'],
  ['http://localhost./x', 'internal-target', 'trailing dot'],
  ['http://localtest.me./', 'internal-target', 'trailing dot on a name that resolves to 127.0.0.1'],
  ['http://127.0.0.1.nip.io./', 'internal-target', 'trailing dot on a wildcard DNS name'],
  ['http://public.example@127.0.0.1.nip.io/', 'internal-target', 'userinfo before a wildcard DNS name'],
  ['http://public.example@localtest.me/', 'internal-target', 'userinfo before a name that resolves to 127.0.0.1'],
  ['http://169.254.169.254.nip.io/', 'internal-target', 'wildcard DNS wrapping a metadata address'],
  ['http://shop.orders.10.1.2.3.nip.io/', 'internal-target', 'wildcard DNS: the address after other labels'],
  ['http://magic-127-0-0-1.sslip.io/admin', 'internal-target', 'wildcard DNS: the address dashed'],
  ['http://a9fea9fe.nip.io/latest/meta-data/', 'internal-target', 'wildcard DNS: the metadata address in hex'],
  ['http://lvh.me:3000/admin', 'internal-target', 'a public name that resolves to 127.0.0.1'],
  ['https://api.localtest.me/', 'internal-target', 'a name under one that resolves to 127.0.0.1'],
  ['http://spoofed.burpcollaborator.net/', 'internal-target', 'a well-known name for 127.0.0.1'],
  ['https://7f000001.302.r3dir.me/', 'internal-target', 'a redirect service that sends the request inward'],
  ['http://127.1.1.1:80:\\@@127.2.2.2:80/', 'internal-target', 'a URL WHATWG refuses, host still internal'],
  ['http://kubernetes.default.svc/api/v1/namespaces/kube-system/secrets', 'internal-target', "Kubernetes' service zone"],
  ['http://my-svc.my-ns.svc.cluster.local:8080/', 'internal-target', 'a cluster-local service name'],
  ['http://host.docker.internal:2375/containers/json', 'internal-target', "Docker's name for the host, the private .internal zone"],
  ['https://jenkins.internal/', 'internal-target', 'the .internal zone'],
  ['http://printer.local/', 'internal-target', 'an mDNS .local name'],
  ['http://nas.home.arpa/', 'internal-target', 'the home network zone'],
  ['http://vault.service.consul:8200/v1/secret', 'internal-target', "Consul's service zone"],
  ['http://localho.st/', 'internal-target', 'a public name that resolves to 127.0.0.1'],
  ['http://make-127-0-0-1-rr.1u.ms/', 'internal-target', 'a DNS-rebinding service'],
  ['redis://127.0.0.1:6379/', 'internal-target', 'a database service scheme to loopback'],
  ['mongodb+srv://cluster.internal/', 'internal-target', "MongoDB's SRV form to a private zone"],
  ['http://wiki.corp/', 'internal-target', 'a zone ICANN will not delegate'],
  ['postgres://admin@10.0.0.8:5432/db', 'internal-target', 'a database URL to a private address'],
  ['rmi://attacker.example:1099/obj', 'smuggling-scheme', "Java's RMI naming scheme"],
  ['unix:///var/run/docker.sock:/containers/json', 'smuggling-scheme', "Docker's socket"],
  ['http+unix://%2Fvar%2Frun%2Fdocker.sock/containers/json', 'smuggling-scheme', 'http over a unix socket'],
  ['169.254.169.254', 'metadata-address', 'the metadata address alone, for a host field'],
  ['169.254.169.254/latest/meta-data/iam/security-credentials/', 'metadata-address', 'the metadata address without a scheme'],
  ['[fd00:ec2::254]', 'metadata-address', "AWS's IPv6 metadata address"],
  ['ws://10.0.0.1/socket', 'internal-target', 'websocket to a private address'],
  ['go to https://redirector.example/?next=http://localhost/admin now', 'internal-target', 'an internal URL inside a public one, in prose'],
  ['http%3A%2F%2F127.0.0.1%2Fadmin', 'internal-target', 'URL-encoded'],
  ['url=http&#58;//169.254.169.254/', 'internal-target', 'entity-encoded colon'],
  ['gopher://127.0.0.1:6379/_FLUSHALL', 'smuggling-scheme', 'gopher to Redis'],
  ['dict://127.0.0.1:11211/stats', 'smuggling-scheme', 'dict to memcached'],
  ['file:///etc/passwd', 'smuggling-scheme', 'local file'],
  ['file:/etc/passwd', 'smuggling-scheme', 'local file, one slash'],
  ['ldap://evil.example/o=x', 'smuggling-scheme', 'ldap'],
  ['tftp://evil.example/x', 'smuggling-scheme', 'tftp'],
  // a value that is one URL, read as fetch(value) reads it (WHATWG drops tabs and line breaks, takes
  // a special scheme's host without slashes and white space in the userinfo)
  ['http://loc\talhost/', 'internal-target', 'a tab inside the host'],
  ['ht\ttp://127.0.0.1/', 'internal-target', 'a tab inside the scheme'],
  ['h\ntt\np://loc\nalhost:6379/', 'internal-target', 'line breaks in the scheme and the host'],
  ['http://169.254.%0a169.254/latest/meta-data/', 'internal-target', 'an encoded line break inside the metadata address'],
  ['http:127.0.0.1', 'internal-target', 'no slashes'],
  ['  HTTP:10.0.0.1:8080/admin ', 'internal-target', 'no slashes, upper case, spaces around'],
  ['http:2130706433/', 'internal-target', 'no slashes, a decimal address past any port'],
  ['http://public.example @127.0.0.1/', 'internal-target', 'a space in the userinfo: the host is what follows the @'],
  ['http://public.example%20@127.0.0.1/', 'internal-target', 'an encoded space in the userinfo'],
];
const BENIGN = [
  'https://example.com/page', 'see https://en.wikipedia.org/wiki/File:Gemini.svg', 'mailto:someone@example.com',
  'tel:+15551234567', 'https://user@github.com/org/repo.git', 'ftp://ftp.gnu.org/gnu/', 'HTTP://WWW.EXAMPLE.COM/X',
  'http://intranet-docs.example.org/guide', 'time 10:30:45', 'a: b: c', 'https://example.com/?q=1:2:3',
  'Category:File: notes', 'C:\\Users\\me\\file.txt', 'http://8.8.8.8/', 'https://[2606:4700::1111]/',
  'http://8.8.8.8.nip.io/', 'https://app.93-184-216-34.sslip.io/', 'https://nip.io/', 'https://www.example.com./search?q=x', 'http://8.8.8.8.nip.io./', 'https://blog.example/why-we-use-nip.io',
  'http://mylvh.me/', 'https://www.burpcollaborator.net/',
  'https://www.internal.com/', 'https://local.example.com/', 'https://consul.io/docs', 'https://svc.example.org/x', 'http://example.lan.com/',
  'https://home.arpa.example/', 'mongodb://app:secret@db.example.com:27017/shop', 'redis://cache.example.net:6379/0', 'https://corp.example.com/', 'https://www.homedepot.com/',
  // one URL with white space or a tab: what WHATWG reads is public, or not a host at all
  'http://example.com is great', 'http://a.example\tnotes', 'https://example.com/\nhttps://example.org/', 'http:80', 'https:443/x', 'http:example.com',
  'https: //example.com', 'http://example.com/path with space', 'see http:127.0.0.1 for docs',
];

describe('ssrf findings in scan', () => {
  for (const [v, rule, note] of ATTACKS) {
    it(`${note}: ${v}`, () => {
      const fs = ssrf(v);
      expect(fs.map((f) => f.rule), JSON.stringify(scan(v))).toContain(`patterns.ssrf.${rule}`);
      // offsets and matched refer to the decoded text, like every other finding
      const d = decode(v);
      for (const f of fs) {
        expect(d.slice(f.start, f.end).startsWith(f.matched)).toBe(true);
        expect([...f.matched].length).toBeLessThanOrEqual(80);
      }
    });
  }
  for (const v of BENIGN) {
    it(`benign: ${v}`, () => expect(ssrf(v)).toEqual([]));
  }

  it('in a batch, only the value holding the URL is reported', () => {
    const out = scanValues(['hello', 'http://127.0.0.1/', 'https://example.com/', 'x']);
    expect(out.map((fs) => fs.filter((f) => f.vector === 'ssrf').length)).toEqual([0, 1, 0, 0]);
  });

  it('rules.disable switches each rule off', () => {
    const e1 = new Engine({ rules: { disable: ['patterns.ssrf.internal-target'] } });
    expect(ssrf('http://127.0.0.1/', e1)).toEqual([]);
    expect(ssrf('gopher://127.0.0.1/_x', e1).map((f) => f.rule)).toEqual(['patterns.ssrf.smuggling-scheme']);
    const e2 = new Engine({ rules: { disable: ['patterns.ssrf.*'] } });
    expect(ssrf('gopher://127.0.0.1/_x', e2)).toEqual([]);
    expect(e2.rules.filter((r) => r.vector === 'ssrf').length).toBe(3);
  });

  it('the host params of the url-internal rule are data: the shipped ones and a list of its own', () => {
    const shipped = new Engine().rules.find((r) => r.id === 'patterns.ssrf.internal-target');
    const def = internalTargetRule(shipped.id, shipped.params);
    expect([...def.schemes].sort()).toEqual(['amqp', 'amqps', 'ftp', 'http', 'https', 'mongodb', 'mongodb+srv', 'mysql', 'postgres', 'postgresql', 'redis', 'rediss', 'ssh', 'ws', 'wss']);
    expect(def.wildcard).toContain('nip.io');
    expect(def.names).toContain('lvh.me');
    // "*.zone": the zone, as a name (written with '*.' so that a zone without a '.' is no scheme)
    expect(def.names).toContain('internal');
    expect(def.schemes.has('internal')).toBe(false);
    expect(internalTargetRule('x', ['*.corp']).names).toEqual(['corp']);
    const own = internalTargetRule('patterns.ssrf.internal-target', ['http', 'corp-loop.example', '{ip}.wild.example']);
    expect(own.wildcard).toEqual(['wild.example']);
    expect(own.names).toEqual(['corp-loop.example']);
    const hit = (rule, v) => urlFinding(v, { internal: rule }) !== null;
    const urls = ['http://app.corp-loop.example/', 'http://x.10.0.0.1.wild.example/', 'http://8.8.8.8.wild.example/', 'http://app.lvh.me/',
      'http://app.10.0.0.1.nip.io/', 'https://app.corp-loop.example/'];
    expect(urls.map((u) => hit(own, u))).toEqual([true, true, false, false, false, false]);
    expect(urls.map((u) => hit(def, u))).toEqual([false, false, false, true, true, false]);
  });

  it('a URL holding 200,000 colons is judged once per run (a quadratic walk would not finish before the test timeout)', () => {
    const v = 'http://example.com/' + 'a:'.repeat(200_000) + ' http://10.0.0.1/';
    expect(ssrf(v).map((f) => f.matched)).toEqual(['http://10.0.0.1/']);
  });

  // URLs are judged on their scheme and authority: the path, query and fragment after it never
  // change the host (before 2026-11-21 every ':' of a run of URLs without white space parsed up
  // to 4,096 units: 1 MB of 'http://a/' took about 0.8 s)
  it.each([
    ['http://127.0.0.1/a/b?c=d#e', true],
    ['http://user@127.0.0.1/', true],
    ['http://example.com/x@127.0.0.1/', false],
    ['http://example.com?u=user@10.0.0.1', false],
    // a '#' or '\\' before an '@': parsers that end the authority only at '/' read the host after
    // the '@' (older PHP parse_url, Python's urllib), WHATWG the one before it (a check with one
    // parser and a fetch with another reach 10.0.0.1; judged inside since 2026-11-30)
    ['http://example.com#@10.0.0.1', true],
    ['http://example.com#@10.0.0.1?x', true],
    ['https://shop.example.com?ref=@home', false],
    ['https://shop.example.com#@home', false],
    ['https://example.com#slide@10', false],
    ['http://a.com#@localhost/', true],
    ['http://a/http://127.0.0.1/', true],
    ['http:\\\\10.0.0.1\\x', true],
    ['http://[::1]:8080/path', true],
    // a host of one label resolves only inside (search domains, hosts files, a container
    // network's DNS): judged inside since 2026-11-30; a template's placeholder is no host
    ['http://redis:6379/', true],
    ['http://rancher-metadata/latest', true],
    ['http://Elasticsearch:9200/_cat/indices', true],
    ['http://{host}/x', false],
    // (before a path or a port only: a bare one-label host is prose's or a typo's)
    ['see http://x for details', false],
    ['http://exa mple.com/', false],
    ['http://wiki', false],
    ['http://wiki/', true],
    ['http://$HOST:8080/', false],
    ['https://[2606:4700::1]/', false],
    // an IPv6 zone (WHATWG refuses it; a client that takes it reaches the address)
    ['http://[fe80::1%25en0]/', true],
    ['http://[::1%eth0]:80/', true],
    ['http://[2606:4700::1%25eth0]/', false],
    ['http://10.0.0.1:99999/', true], // WHATWG refuses the port; the host is judged alone
    ['http://127.0.0.1\\\\@example.com/', true],
    ['http://example.com\\\\@127.0.0.1/', true],
    ['http://example.com\\@[::1]/', true],
    ['http://h/'.repeat(50) + 'http://10.0.0.2/', true],
    // a last label WHATWG reads as a hex number makes the host an IPv4 address, however much it
    // looks like a DNS name to a quick check (these were no finding before 2026-11-21, night)
    ['http://0x7f.0x1/', true],
    ['http://0x7f.0x0.0x0.0x1/', true],
    ['http://0xa9.0xfe.0xa9.0xfe/latest/meta-data/', true],
    ['http://e.0xg/', false],
    // a host longer than the engine's quick check reads is left to the bindings
    ['http://' + ('a'.repeat(60) + '.').repeat(5) + 'localhost/', true],
    // the ':' of a port is no scheme, however scheme-like the name before it
    ['http://ab.123456789.gopher:/x', false],
    ['http://e.co/'.repeat(3) + 'http://ab.123456789.gopher:/x', false],
  ])('judged on its authority: %s', (v, found) => {
    expect(ssrf(v).length > 0).toBe(found);
  });

  it('1 MB of URLs with no white space between them, the same host and distinct hosts, is scanned', () => {
    const engine = new Engine({ maxValueLength: 2 << 20 });
    // (public hosts have a dot: a single label such as "a" is a name only the network's own DNS answers)
    const same = 'http://a.co/'.repeat(90_000);
    expect(ssrf(same, engine)).toEqual([]);
    const distinct = Array.from({ length: 70_000 }, (_, k) => `http://h${k}.co/`).join('');
    expect(ssrf(distinct + 'http://10.9.8.7/', engine).map((f) => f.start)).toEqual([distinct.length]);
  });

  // A URL whose scheme and authority are the same text as the URL judged just before is not
  // judged again (the engine does not list it, the bindings' walk skips it): the same text, the
  // same verdict. What differs anywhere in that text, or in the unit that ends the authority, is
  // a new URL.
  it.each([
    ['an internal URL after 20 copies of one public URL', 'http://a.co/'.repeat(20) + 'http://127.0.0.1/', 240],
    ['after 20 copies of 17 distinct public URLs (the bindings read on)', Array.from({ length: 17 }, (_, k) => `http://h${k}.co/`.repeat(20)).join('') + 'http://10.0.0.1/', null],
    ['the same host, then one more label', 'http://e.co/'.repeat(5) + 'http://e.co.localhost/', 60],
    ['the same text up to a different unit after the authority', 'http://e.co:80/'.repeat(3) + 'http://e.co:80@10.0.0.1/', 45],
    // the bindings' read-on mode (16 listed URLs before the pair), where their own walk skips
    ['past 16 listed URLs, an internal host twice with different ends', Array.from({ length: 16 }, (_, k) => `http://a${k + 1}.com\\ `).join('') + 'http://0x7f.0x1/ http://0x7f.0x1\\', 247],
    ['a repeated internal URL: the first one', 'x http://10.0.0.1/http://10.0.0.1/', 2],
  ])('repeated URLs: %s', (_, v, start) => {
    const found = ssrf(v);
    expect(found.length).toBe(1);
    if (start !== null) expect(found[0].start).toBe(start);
  });
});
