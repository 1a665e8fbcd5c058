// Reads the rule table out of a rule blob (layout: assembly/ABI.md) so findings can name rules.

export type Severity = 'low' | 'medium' | 'high' | 'critical';

export interface RuleInfo {
  /** `patterns.<vector>.<rule-name>` */
  id: string;
  vector: string;
  kind: string;
  severity: Severity;
  enabledByDefault: boolean;
  params: string[];
}

const SEVERITIES: Severity[] = ['low', 'low', 'medium', 'high', 'critical'];

export function parseRuleBlob(bytes: Uint8Array): RuleInfo[] {
  let q = 0;
  const need = (n: number) => {
    if (q + n > bytes.length) throw new Error(`rule blob truncated at byte ${q}`);
  };
  const u8 = () => { need(1); return bytes[q++]; };
  const u16 = () => { need(2); const v = bytes[q] | (bytes[q + 1] << 8); q += 2; return v; };
  const str = () => { const n = u8(); need(n); let s = ''; for (let i = 0; i < n; i++) s += String.fromCharCode(bytes[q + i]); q += n; return s; };
  need(8);
  if (bytes[0] !== 0x53 || bytes[1] !== 0x48 || bytes[2] !== 0x52 || bytes[3] !== 0x42) throw new Error('not a rule blob (bad magic)');
  q = 4;
  const version = u16();
  if (version !== 1) throw new Error(`rule blob version ${version} is not supported (expected 1)`);
  const n = u16();
  const rules: RuleInfo[] = [];
  for (let r = 0; r < n; r++) {
    const id = str();
    const vector = str();
    const kind = str();
    const severity = SEVERITIES[u8()] ?? 'medium';
    const enabledByDefault = (u8() & 1) === 1;
    const pc = u16();
    const params: string[] = [];
    for (let k = 0; k < pc; k++) params.push(str());
    rules.push({ id, vector, kind, severity, enabledByDefault, params });
  }
  return rules;
}
