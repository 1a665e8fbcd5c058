// `exclude`: routes that are neither scanned nor reported (the control plane's own ingest,
// say), and field paths whose findings are ignored (a CMS field that must hold HTML). Patterns
// are matched segment by segment in linear time; no regular expression touches request data.

/** `routes`: `/v1/events`, `/admin/*` (a trailing `*` matches the rest), `/users/:id` (`:name` or `*` matches one segment). `fields`: `body.html`, `query.q`, `body.items.*.text` (a field excludes everything below it). */
export interface ExcludeOptions {
  routes?: readonly string[];
  fields?: readonly string[];
}

export interface CompiledExclude {
  route(path: string): boolean;
  field(path: readonly (string | number)[]): boolean;
  hasFields: boolean;
}

const LOCATIONS = new Set(['query', 'body', 'path', 'cookie']);

// Express matches routes case-insensitively by default: so does exclude
function segments(path: string): string[] {
  return path.toLowerCase().split('/').filter((s) => s.length > 0);
}

/** Checks the option; a TypeError names the bad entry. */
export function compileExclude(option: ExcludeOptions | undefined): CompiledExclude {
  if (option === undefined) return { route: () => false, field: () => false, hasFields: false };
  if (option === null || typeof option !== 'object' || Array.isArray(option)) {
    throw new TypeError('shield: option "exclude" must be an object: { routes?: string[], fields?: string[] }');
  }
  for (const k of Object.keys(option)) if (k !== 'routes' && k !== 'fields') throw new TypeError(`shield: option "exclude.${k}" is not known (use "routes" or "fields")`);
  const routes = (option.routes ?? []).map((r, i) => {
    if (typeof r !== 'string' || r.charCodeAt(0) !== 47) throw new TypeError(`shield: option "exclude.routes[${i}]" must be a path starting with "/"`);
    const segs = segments(r);
    const rest = segs.length > 0 && segs[segs.length - 1] === '*';
    return { segs: rest ? segs.slice(0, -1) : segs, rest };
  });
  const fields = (option.fields ?? []).map((f, i) => {
    if (typeof f !== 'string' || f.length === 0) throw new TypeError(`shield: option "exclude.fields[${i}]" must be a dotted path such as "body.comment"`);
    const segs = f.split('.');
    if (!LOCATIONS.has(segs[0]!)) throw new TypeError(`shield: option "exclude.fields[${i}]" must start with query, body, path or cookie`);
    return segs;
  });
  return {
    hasFields: fields.length > 0,
    route(path) {
      if (routes.length === 0) return false;
      const q = path.indexOf('?');
      const segs = segments(q >= 0 ? path.slice(0, q) : path);
      outer: for (const r of routes) {
        if (r.rest ? segs.length < r.segs.length : segs.length !== r.segs.length) continue;
        for (let i = 0; i < r.segs.length; i++) {
          const p = r.segs[i]!;
          if (p === '*' || p.charCodeAt(0) === 58) continue;
          if (p !== segs[i]) continue outer;
        }
        return true;
      }
      return false;
    },
    field(path) {
      outer: for (const f of fields) {
        if (path.length < f.length) continue;
        for (let i = 0; i < f.length; i++) {
          if (f[i] === '*') continue;
          if (f[i] !== String(path[i])) continue outer;
        }
        return true;
      }
      return false;
    },
  };
}
